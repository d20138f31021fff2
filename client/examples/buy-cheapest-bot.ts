/**
 * A bot that buys the cheapest unit of a collection: reads the collection's listings cheapest
 * first, buys the first one within its budget (quote → verify → sign → complete), and reports the
 * operation. On an uncertain outcome it reads the saved operation instead of signing again.
 */
import { MarketClient, MarketError, type FetchLike, type WalletSigner } from '../src/index.js';

export async function runBuyCheapestBot(opts: { baseUrl: string; fetch?: FetchLike; wallet: WalletSigner; collection: string; maxPriceSats: number; network?: 'mainnet' | 'testnet' | 'regtest' }) {
  const market = new MarketClient({ baseUrl: opts.baseUrl, ...(opts.fetch ? { fetch: opts.fetch } : {}) });
  await market.signIn(opts.wallet);
  // The collection's listed units, cheapest first (every unit a collection-wide policy reaches).
  const rows = (await market.http.call('GET /v1/collections/{slug}/offer-targets', { params: { slug: opts.collection }, query: { limit: 20 } })).result;
  const pick = rows.find((r) => r.price_sats <= opts.maxPriceSats);
  if (!pick) return null;
  try {
    return await market.buy({ lines: [{ listing_id: pick.id, max_price_sats: opts.maxPriceSats }], delivery_mode: 'detached', maxSpendSats: opts.maxPriceSats * 2 });
  } catch (e) {
    // 409: someone bought it first; the contract says re-read, so a real bot loops here.
    if (e instanceof MarketError && e.status === 409) return null;
    throw e;
  }
}
