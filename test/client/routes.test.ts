/**
 * The market's reads and the seller's upkeep through the client, against the real app on the
 * devnet: the catalog and analytics reads with the seller's unit in them, the owner's reads, the
 * status of a transaction, a reprice (the new half verified: a server lowering the price is
 * refused unsigned), a batch delist, and an abandoned draft deleted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { items, MarketError } from '../../client/src/index.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { openMarket, type Market } from '../helpers/market.js';
import { newSeller } from '../helpers/listing.js';
import { clientFor, editPsbtHex, tampering } from './harness.js';
import { routeCoverage } from './coverage.js';

void describe('client: reads and upkeep', () => {
  let m: Market;
  before(async () => {
    m = await openMarket();
  });
  after(async () => m?.close());

  void it('catalog, owner reads, transaction status, reprice (tampering refused unsigned), batch delist, a draft deleted', async () => {
    const seller = await newSeller(m, 'p2wpkh', 'client-routes-seller', 3);
    for (let i = 0; i < 2; i++) await m.fund(seller.w, 60_000);
    await importCatalog(m.ctx.store.db, { collections: [{ slug: 'croutes', name: 'Client routes' }], artists: [], assets: [{ asset: seller.asset, collection: 'croutes' }] });
    const unit = await m.attachDirect(seller.w, seller.asset, '1');
    await m.sync();
    const calls = { sign: 0 };
    const c = await clientFor(m, seller.w, calls);
    const listed = await c.list({ asset_utxo: unit, asset: seller.asset, price_sats: 27_000, expires_at: Math.floor(m.clock.now() / 1000) + 86_400, idempotency_key: 'client-routes-1' });
    await m.sync();
    const address = seller.w.address;

    // Public reads: the collection, its book and holders, the market's figures, fills, fees.
    const col = (await c.http.call('GET /v1/collections/{slug}', { params: { slug: 'croutes' } })).result;
    assert.equal(col.slug, 'croutes');
    const book = (await c.http.call('GET /v1/collections/{slug}/book', { params: { slug: 'croutes' } })).result;
    assert.ok(JSON.stringify(book).includes(listed.id), JSON.stringify(book));
    const holders = (await c.http.call('GET /v1/collections/{slug}/holders', { params: { slug: 'croutes' } })).result;
    assert.ok(JSON.stringify(holders).includes(address), JSON.stringify(holders));
    const stats = (await c.http.call('GET /v1/analytics', {})).result;
    assert.ok(stats.market.listings >= 1);
    assert.ok(Array.isArray((await c.http.call('GET /v1/artists', {})).result));
    assert.deepEqual((await c.http.call('GET /v1/fills', { query: { address } })).result, []);
    assert.equal((await c.http.call('GET /v1/attach-fee-estimate', {})).result.asset, 'XCP');
    const best = await c.http.call('GET /v1/assets/{asset}/best-offer', { params: { asset: seller.asset } });
    assert.equal(best.status, 200);

    // The owner's reads.
    const drafts = (await c.http.call('GET /v1/address/{address}/listing-preflights', { params: { address } })).result;
    assert.ok(drafts.some((d) => d.id === listed.preflight_id));
    assert.ok(Array.isArray((await c.http.call('GET /v1/address/{address}/offer-placements', { params: { address } })).result));
    assert.ok(Array.isArray((await c.http.call('GET /v1/address/{address}/exact-authorizations', { params: { address } })).result));
    assert.ok(JSON.stringify((await c.http.call('GET /v1/inventory/attachable', { query: { address } })).result).includes(seller.asset));
    const status = (await c.http.call('POST /v1/transactions/status', { body: { txids: [unit.txid, 'ab'.repeat(32)] } })).result;
    assert.deepEqual(status.map((s) => s.state), ['known', 'unknown']);

    // Reprice: a server that hands a half at a lower price is refused before the wallet signs.
    const lower = tampering(m, (method, path) => method === 'POST' && path === '/v1/listings/batch', (r) => (r.listings[0].listing.psbt_hex = editPsbtHex(r.listings[0].listing.psbt_hex, (tx) => tx.updateOutput(0, { amount: 5_000n }))));
    const before = calls.sign;
    await assert.rejects((await clientFor(m, seller.w, calls, lower)).reprice({ listing_id: listed.id, asset_utxo: unit, price_sats: 29_000 }), (e) => e instanceof MarketError && e.code === 'unsafe_psbt');
    assert.equal(calls.sign, before, 'the wallet was never asked');
    const repriced = await c.reprice({ listing_id: listed.id, asset_utxo: unit, price_sats: 29_000 });
    assert.equal(repriced.price_sats, 29_000);

    // Delisted in a batch; an attach draft abandoned and deleted.
    const batch = (await c.http.call('POST /v1/listings/batch', { body: { action: 'delist', listings: [{ listing_id: listed.id }] } })).result;
    assert.deepEqual(batch.listings.map((l) => [l.listing_id, (l as { ok?: boolean }).ok]), [[listed.id, true]]);
    const events = [];
    for await (const e of items((cursor) => c.http.call('GET /v1/address/{address}/events', { params: { address }, query: { ...(cursor ? { cursor } : {}) } }).then((r) => r.body as Extract<typeof r.body, { next_cursor: unknown }>))) events.push(e);
    assert.ok(events.some((e) => e.kind === 'listing_delisted' && JSON.stringify(e).includes(listed.id)), JSON.stringify(events));
    const draft = (await c.http.call('POST /v1/listing-preflights', { body: { seller: address, asset: seller.asset, quantity_raw: '1', mode: 'attach', price_sats: 30_000, idempotency_key: 'client-routes-abandon' } })).result;
    await c.http.call('DELETE /v1/listing-preflights/{id}', { params: { id: draft.id } });
    await assert.rejects(c.http.call('GET /v1/listing-preflights/{id}', { params: { id: draft.id } }), (e) => e instanceof MarketError && e.code === 'not_found');
  });
});

routeCoverage(import.meta.url);
