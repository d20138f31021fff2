/**
 * Placing collection offers: the pre-signatures are checked one by one (wrong hash type, a
 * signature over another alternative's output, one missing), an identical repeat is idempotent
 * and other bytes are not, the anchor pool runs out (503 offer_capacity_full) and refills after
 * a lapse, and the 26th live funding set of an address is 409 open_offer_limit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { policyOfferUpkeep } from '../../src/modules/policy-offers/manifest.js';
import { openMarket, type Market } from '../helpers/market.js';
import { newSeller, type Seller } from '../helpers/listing.js';
import { newBidder } from '../offers/exact-helpers.js';
import { fillPool, placementBody, policyPreflight, presign } from './policy-helpers.js';

let m: Market;
let seller: Seller;

before(async () => {
  // One bidder exhausts the pool below: its holds are not the bound under test (anchor-holds.test.ts).
  m = await openMarket({ ANCHOR_POOL_SIZE: '2', ANCHOR_HOLDS_PER_ADDRESS: '5' });
  seller = await newSeller(m, 'p2wpkh', 'pp-seller', 3);
  await importCatalog(m.ctx.store.db, { collections: [{ slug: 'pp', name: 'PP' }], artists: [], assets: [{ asset: seller.asset, collection: 'pp', max_supply_units: 3 }] });
  await fillPool(m);
});
after(async () => m?.close());

const targets = [
  { scope: 'collection' as const, collection: 'pp', price_sats: 20_000 },
  { scope: 'collection' as const, collection: 'pp', max_supply_units: 10, price_sats: 25_000 },
];

describe('collection-offer placement', () => {
  void it('refuses a wrong hash type, a pre-signature over another alternative and a missing one; an identical repeat answers the same set', async () => {
    const b = await newBidder(m, [100_000], 'p2wpkh');
    const pf = await policyPreflight(m, b.w, b.token, targets);
    assert.equal(pf.status, 200, JSON.stringify(pf.body));
    const p = pf.body.result;
    assert.equal(p.parent.version, 3);
    assert.equal(p.escrow.value_sats, 25_330);
    const good = placementBody(p, b.w);

    const allHash = { ...good, presignatures: [good.presignatures[0], { index: 1, signature_hex: presign(p.alternatives[1].child_template.psbt_hex, b.w, p.escrow.accept_leaf_hex, 0x01) }] };
    const r1 = await m.call('POST', '/v1/policy-offers', b.token, allHash);
    assert.equal(r1.status, 422, JSON.stringify(r1.body));
    assert.equal(r1.body.code, 'policy_offer_refused');
    assert.equal(r1.body.refusal_code, 'presignature_sighash');

    const swapped = { ...good, presignatures: [good.presignatures[0], { index: 1, signature_hex: good.presignatures[0].signature_hex }] };
    const r2 = await m.call('POST', '/v1/policy-offers', b.token, swapped);
    assert.equal(r2.status, 422, JSON.stringify(r2.body));
    assert.equal(r2.body.refusal_code, 'presignature_invalid');
    assert.equal(r2.body.alternative_index, 1);

    const missing = { ...good, presignatures: [good.presignatures[0]] };
    const r3 = await m.call('POST', '/v1/policy-offers', b.token, missing);
    assert.equal(r3.status, 422, JSON.stringify(r3.body));
    assert.equal(r3.body.refusal_code, 'presignature_missing');

    // Someone else's set is not found.
    const other = await newBidder(m, [], 'p2tr');
    assert.equal((await m.call('POST', '/v1/policy-offers', other.token, good)).status, 404);

    const ok = await m.call('POST', '/v1/policy-offers', b.token, good);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.result.status, 'open');
    const again = await m.call('POST', '/v1/policy-offers', b.token, good);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual(again.body.result.offers.map((o: any) => o.id), ok.body.result.offers.map((o: any) => o.id));
    const otherBytes = await m.call('POST', '/v1/policy-offers', b.token, { ...good, presignatures: [...good.presignatures].reverse() });
    assert.equal(otherBytes.status, 200, 'the same signatures in another order are the same placement');
    const changed = await m.call('POST', '/v1/policy-offers', b.token, { ...good, parent_psbt_hex: p.parent.psbt_hex });
    assert.equal(changed.status, 409, JSON.stringify(changed.body));
    assert.equal(changed.body.code, 'state_changed');
  });

  void it('exhausts the anchor pool (503 offer_capacity_full), then a lapsed preflight frees its anchor and the pool refills', async () => {
    const cap = (await m.call('GET', '/v1/policy-offers/capacity', null)).body.result;
    const b = await newBidder(m, [60_000, 60_000, 60_000], 'p2tr');
    const held = [];
    for (let i = 0; i < cap.free; i++) {
      const pf = await policyPreflight(m, b.w, b.token, [targets[0]!]);
      assert.equal(pf.status, 200, JSON.stringify(pf.body));
      held.push(pf.body.result);
    }
    const full = await policyPreflight(m, b.w, b.token, [targets[0]!]);
    assert.equal(full.status, 503, JSON.stringify(full.body));
    assert.equal(full.body.code, 'offer_capacity_full');
    assert.ok(full.body.retry_after_seconds >= 1);
    // The preflights lapse unplaced: their anchors are free again at once.
    m.clock.advance(16 * 60 * 1000);
    await policyOfferUpkeep(m.ctx);
    const late = await m.call('POST', '/v1/policy-offers', b.token, placementBody(held[0], b.w));
    assert.equal(late.status, 410, JSON.stringify(late.body));
    const freed = (await m.call('GET', '/v1/policy-offers/capacity', null)).body.result;
    assert.ok(freed.free >= held.length, JSON.stringify(freed));
    const again = await policyPreflight(m, b.w, b.token, [targets[0]!]);
    assert.equal(again.status, 200, JSON.stringify(again.body));
  });
});

describe('collection-offer preflight funds', () => {
  void it('coins short of the escrow: 422 insufficient_funds with need_sats, have_sats and shortfall_sats', async () => {
    const b = await newBidder(m, [10_000], 'p2wpkh');
    const pf = await policyPreflight(m, b.w, b.token, targets);
    assert.deepEqual([pf.status, pf.body.code], [422, 'insufficient_funds'], JSON.stringify(pf.body));
    assert.deepEqual([pf.body.need_sats, pf.body.have_sats, pf.body.shortfall_sats], [25_330, 10_000, 15_330], JSON.stringify(pf.body));
  });
});

describe('collection-offer expiry', () => {
  void it('an offer past its market expiry ends expired (its event), the set expires and its anchor goes to the next sweep', async () => {
    await fillPool(m);
    const b = await newBidder(m, [60_000], 'p2wpkh');
    const now = Math.floor(m.clock.now() / 1000);
    const pf = await policyPreflight(m, b.w, b.token, [targets[0]!], { expires_at: now + 3_600 });
    assert.equal(pf.status, 200, JSON.stringify(pf.body));
    const placed = await m.call('POST', '/v1/policy-offers', b.token, placementBody(pf.body.result, b.w));
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    m.clock.advance(3_601_000);
    const read = await m.call('GET', `/v1/address/${b.w.address}/policy-offers`, b.token);
    assert.deepEqual(read.body.result.map((o: any) => o.status), ['expired'], 'read time: past its expiry');
    await policyOfferUpkeep(m.ctx);
    const events = await m.ctx.store.db.selectFrom('owner_events').selectAll().where('address', '=', b.w.address).where('kind', '=', 'collection_offer_expired').execute();
    assert.equal(events.length, 1);
    const set = await m.ctx.store.db.selectFrom('policy_funding_sets').select(['state', 'anchor_outpoint']).where('id', '=', placed.body.result.funding_set_id).executeTakeFirstOrThrow();
    assert.equal(set.state, 'expired');
    const anchor = await m.ctx.store.db.selectFrom('market_anchors').select('state').where('outpoint', '=', set.anchor_outpoint).executeTakeFirstOrThrow();
    assert.ok(['retired', 'sweeping'].includes(anchor.state), anchor.state);
  });
});

describe('the open-offer limit', () => {
  void it('the 26th live funding set of one address is 409 open_offer_limit', { timeout: 120_000 }, async () => {
    // 25 unplaced preflights of one address: above the default anchor holds, which anchor-holds.test.ts covers.
    const big = await openMarket({ ANCHOR_POOL_SIZE: '26', ANCHOR_HOLDS_PER_ADDRESS: '30', ANCHOR_HOLDS_PER_IP: '30' });
    try {
      const s = await newSeller(big, 'p2wpkh', 'limit-seller', 1);
      await importCatalog(big.ctx.store.db, { collections: [{ slug: 'lim', name: 'Lim' }], artists: [], assets: [{ asset: s.asset, collection: 'lim' }] });
      await fillPool(big);
      const b = await newBidder(big, Array(26).fill(30_000), 'p2wpkh');
      for (let i = 0; i < 25; i++) {
        if (i % 8 === 7) big.clock.advance(61_000); // the expensive-write budget, not the limit under test
        const pf = await policyPreflight(big, b.w, b.token, [{ scope: 'collection', collection: 'lim', price_sats: 10_000 }]);
        assert.equal(pf.status, 200, `set ${i + 1}: ${JSON.stringify(pf.body)}`);
      }
      const over = await policyPreflight(big, b.w, b.token, [{ scope: 'collection', collection: 'lim', price_sats: 10_000 }]);
      assert.equal(over.status, 409, JSON.stringify(over.body));
      assert.equal(over.body.code, 'open_offer_limit');
    } finally {
      await big.close();
    }
  });
});
