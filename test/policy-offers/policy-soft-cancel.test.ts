/**
 * The soft cancel of ONE collection-offer alternative (issue 31 item 2). The path names the
 * alternative, the bidder's BIP-322 signature over the parent proves control of the funding, and
 * the market signer records a refusal of that alternative only: its siblings stay on the book and
 * acceptable (a real accept, signed with real keys, fills one), the set keeps its anchor while any
 * is live, and `funding_cancelled` turns true (the anchor to the sweep) only with the last one.
 * An accept racing a cancel of the same alternative: exactly one wins. The refusal survives a
 * restart of the signer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { policyOfferUpkeep } from '../../src/modules/policy-offers/manifest.js';
import { cancelMessage } from '../../src/modules/policy-offers/rules.js';
import { SignerRefused } from '../../src/signer/port.js';
import { assertLogReplaysFeeds } from '../helpers/event-log.js';
import { newSeller, type Seller } from '../helpers/listing.js';
import { openMarket, type Market } from '../helpers/market.js';
import { signMessageBip322 } from '../helpers/wallets.js';
import { newBidder } from '../offers/exact-helpers.js';
import { acceptQuote, fillPool, placePolicy } from './policy-helpers.js';

let m: Market;
let seller: Seller;

before(async () => {
  m = await openMarket({ ANCHOR_POOL_SIZE: '8' });
  seller = await newSeller(m, 'p2wpkh', 'sc-seller', 14);
  await importCatalog(m.ctx.store.db, { collections: [{ slug: 'sc', name: 'SC' }], artists: [], assets: [{ asset: seller.asset, collection: 'sc', max_supply_units: 14 }] });
  await fillPool(m);
});
after(async () => m?.close());

/** A funding set of two alternatives over one parent: offers[0] the collection at 20,000, offers[1] the asset at 22,000 (the best). */
async function twoAlternatives() {
  const b = await newBidder(m, [150_000], 'p2tr');
  const { pf, set } = await placePolicy(m, b.w, b.token, [
    { scope: 'collection', collection: 'sc', price_sats: 20_000 },
    { scope: 'asset', asset: seller.asset, price_sats: 22_000 },
  ]);
  const offers = set.offers as Array<{ id: string; price_sats: number }>;
  assert.deepEqual(offers.map((o) => o.price_sats), [20_000, 22_000]);
  return { b, pf, set, parent: pf.parent.expected_txid as string, offers };
}

const cancel = (b: Awaited<ReturnType<typeof newBidder>>, offerId: string, parent: string) =>
  m.call('POST', `/v1/policy-offers/${offerId}/cancel`, b.token, { address: b.w.address, signature: signMessageBip322(b.w, cancelMessage(parent)) });

async function unit() {
  const at = await m.attachDirect(seller.w, seller.asset, '1');
  await m.mine();
  await m.sync();
  return at;
}

const setRow = (id: string) => m.ctx.store.db.selectFrom('policy_funding_sets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const anchorState = async (outpoint: string) => (await m.ctx.store.db.selectFrom('market_anchors').select('state').where('outpoint', '=', outpoint).executeTakeFirstOrThrow()).state;
const offerStates = async (setId: string) =>
  (await m.ctx.store.db.selectFrom('policy_offers').select(['id', 'state']).where('funding_set_id', '=', setId).orderBy('alt_index').execute()).map((o) => o.state);

describe('soft cancel of one alternative', () => {
  void it('cancel one of two: the other stays on the book and a real accept of it succeeds; funding_cancelled false; the anchor stays with the set', async () => {
    const { b, set, parent, offers } = await twoAlternatives();
    const r = await cancel(b, offers[1]!.id, parent);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const c = r.body.result;
    assert.deepEqual([c.offer_id, c.cancelled, c.funding_cancelled, c.already_signed], [offers[1]!.id, true, false, false]);
    assert.ok(c.receipt.message.includes(offers[1]!.id), 'the receipt names the alternative');
    assert.equal((await setRow(set.funding_set_id)).state, 'open');
    assert.deepEqual(await offerStates(set.funding_set_id), ['active', 'cancelled']);
    // The next upkeep batch leaves a live set's anchor alone.
    await policyOfferUpkeep(m.ctx);
    assert.equal(await anchorState(set.anchor.outpoint), 'reserved');
    const book = await m.call('GET', `/v1/assets/${seller.asset}/policy-offers`, null);
    assert.equal(book.status, 200, JSON.stringify(book.body));
    const ids = book.body.result.map((o: any) => o.id);
    assert.ok(ids.includes(offers[0]!.id) && !ids.includes(offers[1]!.id), JSON.stringify(ids));
    const evs = await m.ctx.store.db.selectFrom('owner_events').selectAll().where('address', '=', b.w.address).where('kind', 'like', 'collection_offer_%').execute();
    assert.deepEqual(evs.map((e) => [e.kind, JSON.parse(e.data).offer_id]), [['collection_offer_cancelled', offers[1]!.id]]);

    // A real accept: the quote skips the cancelled (better-priced) alternative and fills its sibling.
    const u = await unit();
    const acc = await acceptQuote(m, seller.w, seller.token, parent, u);
    assert.equal(acc.q.status, 200, JSON.stringify(acc.q.body));
    assert.deepEqual([acc.q.body.result.offer_id, acc.q.body.result.price_sats], [offers[0]!.id, 20_000]);
    const done = await m.call('POST', '/v1/policy-accepts', seller.token, { accept_id: acc.q.body.result.accept_id, psbt_hex: acc.signed });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    await m.mine();
    await m.sync();
    const held = await m.devnet.chain.counterparty.getUtxoBalances(`${done.body.result.txid}:0`);
    assert.deepEqual(held.map((h) => [h.asset, h.quantity_raw]), [[seller.asset, '1']], 'the unit reached the bidder');
    assert.equal((await setRow(set.funding_set_id)).state, 'filled');
    assert.deepEqual(await offerStates(set.funding_set_id), ['filled', 'cancelled'], 'the cancelled one stays cancelled (not superseded)');

    // Idempotent: the first decision again; the filled one's cancel comes too late.
    const again = await cancel(b, offers[1]!.id, parent);
    assert.deepEqual([again.body.result.cancelled, again.body.result.recorded_at], [true, c.recorded_at]);
    const late = await cancel(b, offers[0]!.id, parent);
    assert.equal(late.status, 200, JSON.stringify(late.body));
    assert.deepEqual([late.body.result.cancelled, late.body.result.already_signed, late.body.result.funding_cancelled], [false, true, false]);
  });

  void it('cancel the second: funding_cancelled true, the set ends and its anchor goes to the sweep', async () => {
    const { b, set, parent, offers } = await twoAlternatives();
    const first = await cancel(b, offers[0]!.id, parent);
    assert.deepEqual([first.body.result.cancelled, first.body.result.funding_cancelled], [true, false], JSON.stringify(first.body));
    assert.equal(await anchorState(set.anchor.outpoint), 'reserved');
    const second = await cancel(b, offers[1]!.id, parent);
    assert.deepEqual([second.body.result.cancelled, second.body.result.funding_cancelled], [true, true], JSON.stringify(second.body));
    const row = await setRow(set.funding_set_id);
    assert.equal(row.state, 'cancelled');
    assert.equal(JSON.parse(row.cancel_json!).recorded_at, first.body.result.recorded_at, 'the set reads the first recorded cancellation');
    assert.equal(await anchorState(set.anchor.outpoint), 'retired');
    const u = await unit();
    const q = (await acceptQuote(m, seller.w, seller.token, parent, u)).q;
    assert.deepEqual([q.status, q.body.refusal_code], [409, 'funding_set_closed'], JSON.stringify(q.body));
    assert.ok(await policyOfferUpkeep(m.ctx), 'a sweep batch was journaled');
    await m.mine();
    await m.sync();
    assert.equal(await anchorState(set.anchor.outpoint), 'spent');
    const [atxid, avout] = (set.anchor.outpoint as string).split(':');
    assert.equal(await m.ctx.chain.bitcoin.getTxOut(atxid!, Number(avout)), null, 'the parent can never be valid');
    const pub = (await m.call('GET', '/v1/policy-offers/cancelled', null)).body.result.filter((p: any) => p.parent_txid === parent);
    assert.deepEqual(pub.map((p: any) => p.offer_id).sort(), offers.map((o) => o.id).sort(), 'each cancelled alternative with its receipt');
    // The path names an alternative: a funding set id is not one.
    const bySet = await m.call('POST', `/v1/policy-offers/${set.funding_set_id}/cancel`, b.token, { address: b.w.address, signature: signMessageBip322(b.w, cancelMessage(parent)) });
    assert.equal(bySet.status, 404, JSON.stringify(bySet.body));
    // Another bidder's session cannot cancel it, even with the bidder's own signature replayed.
    const other = await newBidder(m, [], 'p2wpkh');
    const stranger = await m.call('POST', `/v1/policy-offers/${offers[0]!.id}/cancel`, other.token, { address: b.w.address, signature: signMessageBip322(b.w, cancelMessage(parent)) });
    assert.equal(stranger.status, 404, JSON.stringify(stranger.body));
  });

  void it('an accept racing the cancel of the same alternative: exactly one wins; when the cancel wins the sibling stays live', async () => {
    const outcomes = new Set<string>();
    for (let round = 0; round < 4; round++) {
      const { b, set, parent, offers } = await twoAlternatives();
      const u = await unit();
      const acc = await acceptQuote(m, seller.w, seller.token, parent, u);
      assert.equal(acc.q.body.result.offer_id, offers[1]!.id);
      const acceptNow = () => m.call('POST', '/v1/policy-accepts', seller.token, { accept_id: acc.q.body.result.accept_id, psbt_hex: acc.signed });
      // Each side starts first in turn, so both outcomes are met.
      const [ra, rc] = round % 2 ? await Promise.all([acceptNow(), cancel(b, offers[1]!.id, parent)]) : await Promise.all([cancel(b, offers[1]!.id, parent), acceptNow()]).then(([c, a]) => [a, c] as const);
      assert.equal(rc.status, 200, JSON.stringify(rc.body));
      const accepted = ra.status === 200 || ra.status === 202;
      assert.notEqual(accepted, rc.body.result.cancelled, JSON.stringify([ra.status, ra.body, rc.body]));
      assert.equal(rc.body.result.funding_cancelled, false, 'one alternative of two: never the whole funding');
      outcomes.add(accepted ? 'accepted' : 'cancelled');
      if (accepted) {
        assert.equal(rc.body.result.already_signed, true);
        assert.equal((await setRow(set.funding_set_id)).state, 'filled');
        assert.deepEqual(await offerStates(set.funding_set_id), ['retired', 'filled']);
      } else {
        assert.equal(ra.status, 409, JSON.stringify(ra.body));
        assert.ok(['alternative_cancelled', 'funding_set_closed'].includes(ra.body.refusal_code), JSON.stringify(ra.body));
        assert.equal((await setRow(set.funding_set_id)).state, 'open');
        assert.deepEqual(await offerStates(set.funding_set_id), ['active', 'cancelled']);
      }
    }
    if (process.env.SHOW_RACE) process.stderr.write(`race outcomes: ${[...outcomes].join(', ')}\n`);
  });

  void it('the signer records the cancel before the market does: the accept of that alternative is refused (alternative_cancelled); a restarted signer still refuses it and co-signs its sibling', async () => {
    const { b, pf, set, parent, offers } = await twoAlternatives();
    const u = await unit();
    const acc = await acceptQuote(m, seller.w, seller.token, parent, u);
    assert.equal(acc.q.body.result.offer_id, offers[1]!.id);
    // The cancel reaches the signer; the market's own write has not happened yet.
    const direct = await m.ctx.signer.cancel({ parent_txid: parent, offer_id: offers[1]!.id, address: b.w.address, signature: signMessageBip322(b.w, cancelMessage(parent)) });
    assert.equal(direct.cancelled, true);
    const refused = await m.call('POST', '/v1/policy-accepts', seller.token, { accept_id: acc.q.body.result.accept_id, psbt_hex: acc.signed });
    assert.deepEqual([refused.status, refused.body.code, refused.body.refusal_code], [409, 'policy_offer_refused', 'alternative_cancelled'], JSON.stringify(refused.body));
    assert.equal((await setRow(set.funding_set_id)).state, 'open', 'the claim transaction rolled back');

    // Restart the signer (its decision file reopened from disk): the refusal stands.
    (m.ctx.signer as unknown as { close(): void }).close();
    await assert.rejects(
      m.ctx.signer.cosign({ parent_txid: parent, offer_id: offers[1]!.id, child_psbt_hex: acc.q.body.result.psbt_hex, input_index: 0, leaf_script_hex: pf.escrow.accept_leaf_hex, key_version: set.market_key.version }),
      (e) => e instanceof SignerRefused && e.code === 'alternative_cancelled',
    );
    // The market's cancel completes with the signer's first time; the sibling fills with real signatures.
    const r = await cancel(b, offers[1]!.id, parent);
    assert.deepEqual([r.body.result.cancelled, r.body.result.recorded_at, r.body.result.funding_cancelled], [true, direct.recorded_at, false], JSON.stringify(r.body));
    const acc0 = await acceptQuote(m, seller.w, seller.token, parent, u);
    assert.equal(acc0.q.body.result.offer_id, offers[0]!.id);
    const done = await m.call('POST', '/v1/policy-accepts', seller.token, { accept_id: acc0.q.body.result.accept_id, psbt_hex: acc0.signed });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    await m.mine();
    await m.sync();
    assert.ok(await m.devnet.bitcoin.getTransaction(done.body.result.txid), 'the sibling\'s child is on chain');
  });
});

describe('the event log', () => {
  void it('replays to exactly the public and owner feeds after every flow above (src/events/)', async () => {
    await assertLogReplaysFeeds(m);
  });
});
