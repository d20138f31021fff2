/**
 * Anchor holds of unplaced collection-offer preflights are bounded (issue 34 item 3). Before,
 * one session with ten 9,000-sat coins made ten preflights it never placed and took the whole
 * pool (10 → 0 free): the next bidder got 503 offer_capacity_full for 15 minutes, repeatably.
 * Now one address holds at most ANCHOR_HOLDS_PER_ADDRESS (2: its next preflight releases its
 * oldest), one IP at most ANCHOR_HOLDS_PER_IP (4: beyond, the hoarder gets 429 rate_limited),
 * a preflight can be released at once, and the pool refills as anchors are reserved. Many
 * unplaced preflights from one address and from one IP never starve another bidder.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { policyOfferUpkeep } from '../../src/modules/policy-offers/manifest.js';
import { openMarket, type Market } from '../helpers/market.js';
import { newSeller } from '../helpers/listing.js';
import { newBidder, type Bidder } from '../offers/exact-helpers.js';
import { fillPool, placementBody, policyPreflight, type PolicyTarget } from './policy-helpers.js';

let m: Market;
const target: PolicyTarget = { scope: 'collection', collection: 'holds', price_sats: 6_000 };

before(async () => {
  m = await openMarket({ ANCHOR_POOL_SIZE: '10' });
  const s = await newSeller(m, 'p2wpkh', 'holds-seller', 1);
  await importCatalog(m.ctx.store.db, { collections: [{ slug: 'holds', name: 'Holds' }], artists: [], assets: [{ asset: s.asset, collection: 'holds' }] });
  await fillPool(m);
});
after(async () => m?.close());

const free = async () => (await m.call('GET', '/v1/policy-offers/capacity', null)).body.result.free as number;
/** A preflight from another IP than m.call's (10.60.0.1). */
async function preflightFrom(ip: string, b: Bidder) {
  const r = await m.app.inject({
    method: 'POST',
    url: '/v1/policy-offers/preflight',
    headers: { 'x-session-token': b.token },
    remoteAddress: ip,
    payload: { targets: [target], bidder_pubkey: Buffer.from(b.w.xOnly).toString('hex'), expires_at: Math.floor(m.clock.now() / 1000) + 86_400, fee_rate: 2 },
  });
  return { status: r.statusCode, body: JSON.parse(r.body) as Record<string, any> };
}
const sets = (bidder: string) => m.ctx.store.db.selectFrom('policy_funding_sets').select(['id', 'state', 'end_reason']).where('bidder', '=', bidder).orderBy('created_at').orderBy('id').execute();

describe('anchor holds', () => {
  void it('ten unplaced preflights from one address hold two anchors; the others are released and another bidder still gets one', async () => {
    assert.equal(await free(), 10);
    const hoarder = await newBidder(m, Array(10).fill(9_000), 'p2tr');
    const made: any[] = [];
    for (let i = 0; i < 10; i++) {
      if (i % 8 === 7) m.clock.advance(61_000); // the expensive-write budget, not the bound under test
      const pf = await policyPreflight(m, hoarder.w, hoarder.token, [target]);
      assert.equal(pf.status, 200, `preflight ${i + 1}: ${JSON.stringify(pf.body)}`);
      made.push(pf.body.result);
    }
    const rows = await sets(hoarder.w.address);
    const holding = rows.filter((r) => r.state === 'awaiting_signatures').map((r) => r.id);
    assert.equal(holding.length, 2, JSON.stringify(rows));
    assert.ok(holding.includes(made[9].funding_set_id), 'the newest always holds');
    const replaced = rows.filter((r) => r.state === 'lapsed');
    assert.equal(replaced.length, 8);
    assert.ok(replaced.every((r) => r.end_reason === 'preflight_replaced'));
    assert.equal(await free(), 8, 'the hoarder holds two anchors, not ten');
    // A replaced preflight cannot be placed; the newest can.
    const gone = made.find((p) => p.funding_set_id === replaced[0]!.id);
    assert.equal((await m.call('POST', '/v1/policy-offers', hoarder.token, placementBody(gone, hoarder.w))).status, 410);
    const other = await newBidder(m, [60_000], 'p2wpkh');
    const theirs = await preflightFrom('10.77.0.1', other);
    assert.equal(theirs.status, 200, JSON.stringify(theirs.body));
    assert.equal((await m.call('POST', '/v1/policy-offers', hoarder.token, placementBody(made[9], hoarder.w))).status, 200);
  });

  void it('many addresses from one IP hold at most four anchors: the next is 429 for that IP only; a release gives one back at once; the pool refills', async () => {
    m.clock.advance(16 * 60_000);
    await policyOfferUpkeep(m.ctx); // the earlier preflights lapse
    await m.mine();
    await m.sync();
    const before = await free();
    const bidders = await Promise.all(Array.from({ length: 6 }, () => newBidder(m, [9_000, 9_000], 'p2tr')));
    const held: Array<{ b: Bidder; id: string }> = [];
    for (const b of bidders.slice(0, 4)) {
      const pf = await policyPreflight(m, b.w, b.token, [target]);
      assert.equal(pf.status, 200, JSON.stringify(pf.body));
      held.push({ b, id: pf.body.result.funding_set_id });
    }
    const over = await policyPreflight(m, bidders[4]!.w, bidders[4]!.token, [target]);
    assert.deepEqual([over.status, over.body.code, over.body.reason, over.body.limit], [429, 'rate_limited', 'anchor_holds_per_ip', 4], JSON.stringify(over.body));
    assert.ok(over.body.retry_after_seconds >= 1 && over.body.retry_after_seconds <= 15 * 60);
    assert.equal(over.headers['retry-after'], String(over.body.retry_after_seconds));
    assert.equal(await free(), before - 4, 'the refusal took nothing');
    // Everyone else: another IP still gets an anchor.
    assert.equal((await preflightFrom('10.88.0.1', bidders[5]!)).status, 200);

    // A cheap release: the anchor is free at once, and the IP may hold another.
    const { b, id } = held[0]!;
    const rel = await m.call('POST', `/v1/policy-offers/preflights/${id}/release`, b.token);
    assert.deepEqual(rel.body.result, { funding_set_id: id, state: 'lapsed', released: true }, JSON.stringify(rel.body));
    assert.deepEqual((await m.call('POST', `/v1/policy-offers/preflights/${id}/release`, b.token)).body.result.released, false, 'again: nothing changes');
    assert.equal((await m.call('POST', `/v1/policy-offers/preflights/${id}/release`, bidders[1]!.token)).status, 404, "another's preflight");
    assert.equal((await policyPreflight(m, bidders[4]!.w, bidders[4]!.token, [target])).status, 200);

    // The pool grows back: reserved anchors are replaced by the upkeep's refill.
    const reservedNow = 10 - (await free());
    assert.ok(reservedNow > 0);
    await fillPool(m);
    assert.equal(await free(), 10, 'the refill replaced every reserved anchor');
  });
});
