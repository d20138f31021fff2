// A collection offer: one price for any unit of a collection, escrowed with the market signer's
// key, then cancelled (the soft cancel: the signer refuses it from then on).
import { MarketError } from '@counterparty-marketplace/client';
import { connect, inOneDay, print, sandboxCoins } from './connect.mjs';

const { market, wallet, network } = await connect();
if (network === 'regtest') await sandboxCoins(market, wallet.address, 300_000);
const [collection] = (await market.http.call('GET /v1/collections', { query: { limit: 1 } })).result;
const offer = {
  targets: [{ scope: 'collection', collection: process.env.COLLECTION ?? collection.slug, price_sats: 15_000 }],
  bidder_pubkey: wallet.bidder_pubkey, // the wallet's x-only key: the escrow's bidder key
  expires_at: inOneDay(),
  maxFeeSats: 5_000,
};
let placed;
for (let attempt = 0; !placed; attempt++) {
  try {
    placed = await market.placeCollectionOffer(offer);
  } catch (e) {
    // No escrow anchor free right now: retry shortly (on the devnet a block brings the refill).
    if (!(e instanceof MarketError && e.code === 'offer_capacity_full') || attempt > 5) throw e;
    if (network === 'regtest') await market.devnet.confirm();
    else await new Promise((r) => setTimeout(r, (e.retryAfterSeconds ?? 10) * 1000));
  }
}
const cancelled = await market.cancelCollectionOffer(placed); // pass the placement as returned
print({ funding_set_id: placed.funding_set_id, parent_txid: placed.parent_txid, cancelled: cancelled.status ?? true });
