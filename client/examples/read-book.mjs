// Read a book: the collections, then one collection's listings, cheapest first. No sign-in needed.
import { MarketClient } from '@counterparty-marketplace/client';
import { print } from './connect.mjs';

const market = new MarketClient({ baseUrl: process.env.MARKET_URL ?? 'http://127.0.0.1:8080' });
const [collection] = (await market.http.call('GET /v1/collections', { query: { limit: 1 } })).result;
const book = (await market.http.call('GET /v1/collections/{slug}/offer-targets', { params: { slug: collection.slug }, query: { limit: 5 } })).result;
print({ collection: collection.slug, listings: book.map((l) => ({ id: l.id, asset: l.asset, price_sats: l.price_sats })) });
