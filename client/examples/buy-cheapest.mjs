// Buy the cheapest listing of a collection within a budget; a 409 means someone was first: read again.
import { MarketError } from '@counterparty-marketplace/client';
import { connect, print, sandboxCoins } from './connect.mjs';

const { market, wallet, network } = await connect();
if (network === 'regtest') await sandboxCoins(market, wallet.address);
const budget = Number(process.env.MAX_PRICE_SATS ?? 100_000);
const [collection] = (await market.http.call('GET /v1/collections', { query: { limit: 1 } })).result;
for (let attempt = 0; attempt < 3; attempt++) {
  const book = (await market.http.call('GET /v1/collections/{slug}/offer-targets', { params: { slug: process.env.COLLECTION ?? collection.slug }, query: { limit: 20 } })).result;
  const cheapest = book.find((l) => l.price_sats <= budget && l.seller !== wallet.address);
  if (!cheapest) break;
  try {
    const op = await market.buy({
      lines: [{ listing_id: cheapest.id, max_price_sats: cheapest.price_sats }],
      delivery_mode: 'detached', // the unit arrives at delivery_address (default: this wallet)
      maxSpendSats: cheapest.price_sats + 20_000, // the PSBT is refused unsigned above this
    });
    print({ listing_id: cheapest.id, price_sats: cheapest.price_sats, status: op.status, txid: op.txid });
    process.exit(0);
  } catch (e) {
    if (e instanceof MarketError && e.status === 409) continue; // sold or changed: read the book again
    throw e;
  }
}
print({ bought: null });
