/**
 * An accept that lands before the indexer activates the listing of its unit (issue 34 item 2):
 * attach-and-list, mine 3 blocks, then authorize and accept an exact offer while the listing is
 * still `pending`. The accept reserves the listing (pending → reserved, one guarded UPDATE at the
 * listings' state owner), the indexer's activation of that listing then changes nothing, and the
 * sale's confirmation sells it: it leaves the book and stays out. Before, the listing was left
 * `pending`, the watcher activated it, the spend by the accept's own settlement was skipped as
 * "the claimer's to settle", and the listing stayed `active` on the book forever.
 * A released early accept puts the listing back where the chain says it is.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SigHash } from '@scure/btc-signer';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { openMarket, signPsbt, type Market } from '../helpers/market.js';
import { listThroughSeller, newSeller, type Seller } from '../helpers/listing.js';
import { authorizeOne, newBidder, placeFunded } from './exact-helpers.js';
import { claimListingAt, releaseClaimAt } from '../../src/modules/listings/lifecycle.js';
import { eventId } from '../../src/trade/event-rows.js';

let m: Market;
let seller: Seller;

before(async () => {
  m = await openMarket();
  seller = await newSeller(m, 'p2wpkh', 'early-seller', 4);
  await m.fund(seller.w, 100_000);
  await importCatalog(m.ctx.store.db, { collections: [{ slug: 'early', name: 'Early' }], artists: [], assets: [{ asset: seller.asset, collection: 'early', max_supply_units: 4 }] });
  await m.mine();
  await m.sync();
});
after(async () => m?.close());

const listing = (id: string) => m.ctx.store.db.selectFrom('listings').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const onBook = async (id: string) => (await m.ctx.store.db.selectFrom('book_asks').select('listing_id').where('listing_id', '=', id).execute()).length > 0;

/** A listing through attach-and-list, 3 blocks mined but not indexed, and an active exact authorization over its unit. */
async function earlyAuthorization() {
  const b = await newBidder(m);
  const placed = await placeFunded(m, b, 40_000, 1, [{ scope: 'asset', asset: seller.asset }]);
  await m.mine();
  await m.sync();
  const l = await listThroughSeller(m, seller.w, seller.token, seller.asset, { price: 90_000 });
  await m.mine(3);
  assert.equal((await listing(l.listingId)).state, 'pending', 'the indexer has not seen the attach yet');
  const { a, act } = await authorizeOne(m, b, placed.funding_slots[0]!.offer_ids[0]!, l.utxo, 25);
  assert.equal(act.status, 200, JSON.stringify(act.body));
  const pf = await m.call('POST', `/v1/exact-offer-authorizations/${a.authorization_id}/accept-preflight`, seller.token, { fee_rate: 1 });
  assert.equal(pf.status, 200, JSON.stringify(pf.body));
  assert.equal(pf.body.result.requires_cpfp, false);
  return { b, l, a, parent: signPsbt(pf.body.result.psbt_hex, seller.w, [1], SigHash.ALL) };
}

describe('an accept before the listing is activated', () => {
  void it('reserves the pending listing; after the indexer runs and the sale confirms, the listing is sold and off the book', async () => {
    const { l, a, parent } = await earlyAuthorization();
    const r = await m.call('POST', `/v1/exact-offer-authorizations/${a.authorization_id}/accept`, seller.token, { psbt_hex: parent });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((await listing(l.listingId)).state, 'reserved', 'the accept took the listing off the book at once');
    await m.sync();
    assert.equal((await listing(l.listingId)).state, 'reserved', 'the activation of a reserved listing changes nothing');
    assert.equal(await onBook(l.listingId), false);
    await m.mine();
    await m.sync();
    const sold = await listing(l.listingId);
    assert.equal(sold.state, 'sold');
    assert.equal(await onBook(l.listingId), false);
    await m.ctx.cache.clear();
    const book = await m.call('GET', `/v1/listings/${l.listingId}`, null);
    assert.notEqual(book.body?.result?.state, 'active', JSON.stringify(book.body));
  });

  void it('a released early claim goes back as the chain has the unit: pending before the indexer verified it, active (and listed) after', async () => {
    const l = await listThroughSeller(m, seller.w, seller.token, seller.asset, { price: 70_000 });
    const outpoint = `${l.utxo.txid}:${l.utxo.vout}`;
    const now = Math.floor(m.clock.now() / 1000);
    const inTx = <T>(f: (tx: any) => Promise<T>) => m.ctx.store.db.transaction().execute(f);
    assert.equal(await inTx((tx) => claimListingAt(tx, outpoint, now)), l.listingId, 'a pending listing is claimed');
    assert.equal(await inTx((tx) => claimListingAt(tx, outpoint, now)), null, 'once');
    assert.equal(await inTx((tx) => releaseClaimAt(tx, l.listingId, now)), true);
    assert.equal((await listing(l.listingId)).state, 'pending', 'the attach is not verified yet: back to pending, off the book');
    assert.equal(await onBook(l.listingId), false);
    await inTx((tx) => claimListingAt(tx, outpoint, now));
    await m.mine();
    await m.sync();
    const held = await listing(l.listingId);
    assert.deepEqual([held.state, held.activated_at], ['reserved', null], 'verified while reserved: not activated');
    assert.equal(await inTx((tx) => releaseClaimAt(tx, l.listingId, now)), true);
    const back = await listing(l.listingId);
    assert.equal(back.state, 'active', 'verified meanwhile: back on the book');
    assert.notEqual(back.activated_at, null);
    assert.equal(await onBook(l.listingId), true);
    const listed = await m.ctx.store.db.selectFrom('event_log').select('kind').where('feed', '=', 'public').where('event_id', '=', eventId('listed', l.listingId)).execute();
    assert.equal(listed.length, 1, 'its listed event, once');
  });
});
