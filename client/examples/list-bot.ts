/**
 * A bot that lists: signs in with its wallet and lists each of its attached units at a price,
 * each listing half checked before the wallet signs it. `run` takes what it needs, so the
 * repository's tests run it against the devnet; a real bot passes its market URL and wallet.
 */
import { MarketClient, type FetchLike, type WalletSigner } from '../src/index.js';

export async function runListBot(opts: { baseUrl: string; fetch?: FetchLike; wallet: WalletSigner; units: Array<{ asset: string; txid: string; vout: number; price_sats: number }>; network?: 'mainnet' | 'testnet' | 'regtest' }) {
  const market = new MarketClient({ baseUrl: opts.baseUrl, ...(opts.fetch ? { fetch: opts.fetch } : {}), ...(opts.network ? { network: opts.network } : {}) });
  await market.signIn(opts.wallet);
  const expires = Math.floor(Date.now() / 1000) + 7 * 86_400;
  const listed = [];
  for (const u of opts.units) {
    const l = await market.list({ asset_utxo: { txid: u.txid, vout: u.vout }, asset: u.asset, price_sats: u.price_sats, expires_at: expires, idempotency_key: `list-bot-${u.txid}-${u.vout}` });
    listed.push(l.id);
  }
  return listed;
}
