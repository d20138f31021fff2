/**
 * A live listing made the way a seller makes one: a unit attached outside the market, a reuse
 * preflight, and the listing half signed SINGLE|ANYONECANPAY with the seller's real key. The
 * unit is already confirmed, so the listing is active at once.
 *
 *   const s = await newSeller(m, 'tag', 2);
 *   const l = await listUnit(m, s, 20_000);
 */
import assert from 'node:assert/strict';
import { SigHash } from '@scure/btc-signer';
import { makeWallet, type TestWallet } from './wallets.js';
import { signPsbt, type Market } from './market.js';

export interface Seller {
  w: TestWallet;
  asset: string;
  token: string;
}

export interface MadeListing {
  id: string;
  asset: string;
  seller: string;
  price_sats: number;
  utxo_txid: string;
  utxo_vout: number;
  expires_at: number;
  state: string;
}

let n = 0;

/** A funded, signed-in seller holding `units` of a fresh asset. */
export async function newSeller(m: Market, tag: string, units = 1): Promise<Seller> {
  const w = makeWallet('p2wpkh', `${tag}-seller-${++n}`);
  await m.fund(w, 50_000);
  const asset = await m.issue(w, String(units));
  return { w, asset, token: await m.signIn(w) };
}

/** Lists one unit of the seller's asset at `price` for `ttl` seconds (default a day). */
export async function listUnit(m: Market, s: Seller, price: number, ttl = 86_400): Promise<MadeListing> {
  const now = Math.floor(m.clock.now() / 1000);
  const at = await m.attachDirect(s.w, s.asset, '1');
  const pf = await m.call('POST', '/v1/listing-preflights', s.token, {
    seller: s.w.address,
    asset: s.asset,
    quantity_raw: '1',
    mode: 'reuse',
    asset_utxo: at,
    price_sats: price,
    idempotency_key: `helper-${++n}`,
  });
  assert.equal(pf.status, 200, JSON.stringify(pf.body));
  const l = await m.call('POST', `/v1/listing-preflights/${pf.body.result.id}/listing`, s.token, {
    psbt_hex: signPsbt(pf.body.result.listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY),
    expires_at: now + ttl,
  });
  assert.equal(l.status, 200, JSON.stringify(l.body));
  assert.equal(l.body.result.state, 'active');
  return l.body.result as MadeListing;
}
