/**
 * Cancelling collection offers: the soft cancel of one alternative (BIP-322 over the fixed prefix
 * and the parent txid) is recorded by the signer with a receipt the market key signs, shows in
 * the public read of cancelled alternatives, and once every alternative is cancelled frees the
 * anchor for the next sweep (policy-soft-cancel.test.ts: one of several); the hard cancel (the bidder's
 * self-send of its funding) kills every alternative on chain, turning a soft-cancelled one into
 * `collection_offer_retired` with status invalid. The sweep and the refill run as one batch.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '@noble/hashes/sha2.js';
import { schnorr } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { SigHash } from '@scure/btc-signer';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { cancelMessage } from '../../src/modules/policy-offers/rules.js';
import { assertLogReplaysFeeds } from '../helpers/event-log.js';
import { openMarket, signPsbt, type Market } from '../helpers/market.js';
import { newSeller, type Seller } from '../helpers/listing.js';
import { signMessageBip322 } from '../helpers/wallets.js';
import { finalize, newBidder } from '../offers/exact-helpers.js';
import { acceptQuote, fillPool, placePolicy } from './policy-helpers.js';
import { policyOfferUpkeep } from '../../src/modules/policy-offers/manifest.js';

let m: Market;
let seller: Seller;

before(async () => {
  m = await openMarket({ ANCHOR_POOL_SIZE: '3' });
  seller = await newSeller(m, 'p2wpkh', 'pc-seller', 4);
  await importCatalog(m.ctx.store.db, { collections: [{ slug: 'pc', name: 'PC' }], artists: [], assets: [{ asset: seller.asset, collection: 'pc', max_supply_units: 4 }] });
  await fillPool(m);
});
after(async () => m?.close());

const events = (address: string, kind: string) => m.ctx.store.db.selectFrom('owner_events').selectAll().where('address', '=', address).where('kind', '=', kind).execute();

describe('collection-offer cancels', () => {
  void it('soft: the signer records it with a receipt the market key signed; accepts are refused; the parent is public; the anchor is swept and the pool refilled', async () => {
    const b = await newBidder(m, [100_000], 'p2wpkh');
    const { pf, set } = await placePolicy(m, b.w, b.token, [
      { scope: 'collection', collection: 'pc', price_sats: 20_000 },
      { scope: 'asset', asset: seller.asset, price_sats: 22_000 },
    ]);
    const parent = pf.parent.expected_txid as string;
    const bad = await m.call('POST', `/v1/policy-offers/${set.offers[0].id}/cancel`, b.token, { address: b.w.address, signature: signMessageBip322(b.w, cancelMessage('00'.repeat(32))) });
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    assert.equal(bad.body.code, 'signature_invalid');

    const r = await m.call('POST', `/v1/policy-offers/${set.offers[0].id}/cancel`, b.token, { address: b.w.address, signature: signMessageBip322(b.w, cancelMessage(parent)) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const c = r.body.result;
    assert.equal(c.cancelled, true);
    assert.equal(c.offer_id, set.offers[0].id);
    assert.equal(c.funding_cancelled, false, 'its sibling is still live');
    const last = await m.call('POST', `/v1/policy-offers/${set.offers[1].id}/cancel`, b.token, { address: b.w.address, signature: signMessageBip322(b.w, cancelMessage(parent)) });
    assert.deepEqual([last.status, last.body.result?.cancelled, last.body.result?.funding_cancelled], [200, true, true], JSON.stringify(last.body));
    assert.equal(c.already_signed, false);
    assert.deepEqual(c.bitcoin_invalidation.outpoints, set.funding_inputs.map((f: any) => ({ txid: f.txid, vout: f.vout })));
    const key = (await m.call('GET', '/v1/market-signer', null)).body.result;
    assert.ok(c.receipt.message.includes(parent) && c.receipt.message.includes(set.offers[0].id) && c.receipt.message.includes(String(c.recorded_at)));
    assert.ok(schnorr.verify(hex.decode(c.receipt.signature), sha256(new TextEncoder().encode(c.receipt.message)), hex.decode(c.receipt.pubkey)));
    assert.ok(JSON.stringify(key).includes(c.receipt.pubkey), 'the receipt names a published market key');
    const again = await m.call('POST', `/v1/policy-offers/${set.offers[0].id}/cancel`, b.token, { address: b.w.address, signature: signMessageBip322(b.w, cancelMessage(parent)) });
    assert.equal(again.body.result.recorded_at, c.recorded_at, 'a repeat answers the first decision');

    assert.equal((await events(b.w.address, 'collection_offer_cancelled')).length, 2);
    const feed = await m.call('GET', '/v1/events?kind=offers', null);
    assert.equal(feed.status, 200, JSON.stringify(feed.body));
    const mineInFeed = feed.body.result.filter((e: any) => e.bidder === b.w.address);
    assert.deepEqual(mineInFeed.map((e: any) => [e.kind, e.reason]).sort(), [['collection_offer_ended', 'cancelled'], ['collection_offer_placed', null], ['offer_ended', 'cancelled'], ['offer_placed', null]], 'the public feed: placed and ended, the asset-scope alternative as offer_*');
    const unit = await m.attachDirect(seller.w, seller.asset, '1');
    await m.mine();
    await m.sync();
    const q = (await acceptQuote(m, seller.w, seller.token, parent, unit)).q;
    assert.equal(q.status, 409, JSON.stringify(q.body));
    assert.equal(q.body.refusal_code, 'funding_set_closed');
    const pub = await m.call('GET', '/v1/policy-offers/cancelled', null);
    assert.equal(pub.status, 200, JSON.stringify(pub.body));
    assert.ok(pub.body.result.some((p: any) => p.parent_txid === parent && p.offer_id === c.offer_id && p.recorded_at === c.recorded_at));

    // The next batch sweeps the cancelled set's anchor (killing its parent) and refills the pool.
    const anchor = set.anchor.outpoint as string;
    const batch = await policyOfferUpkeep(m.ctx);
    assert.ok(batch, 'a sweep batch was journaled');
    await m.mine();
    await m.sync();
    const row = await m.ctx.store.db.selectFrom('market_anchors').select('state').where('outpoint', '=', anchor).executeTakeFirstOrThrow();
    assert.equal(row.state, 'spent');
    const [atxid, avout] = anchor.split(':');
    assert.equal(await m.ctx.chain.bitcoin.getTxOut(atxid!, Number(avout)), null, 'the anchor is spent on chain: the parent can never be valid');
    const cap = (await m.call('GET', '/v1/policy-offers/capacity', null)).body.result;
    assert.equal(cap.free, 3, JSON.stringify(cap));
  });

  void it('hard: the self-send of the funding kills every alternative on chain; soft-cancelled ones turn retired with status invalid', async () => {
    const b = await newBidder(m, [21_000], 'p2tr');
    const { pf, set } = await placePolicy(m, b.w, b.token, [{ scope: 'collection', collection: 'pc', price_sats: 20_000 }]);
    const parent = pf.parent.expected_txid as string;
    const soft = await m.call('POST', `/v1/policy-offers/${set.offers[0].id}/cancel`, b.token, { address: b.w.address, signature: signMessageBip322(b.w, cancelMessage(parent)) });
    assert.equal(soft.body.result.cancelled, true);
    const cancelledId = (await events(b.w.address, 'collection_offer_cancelled'))[0]!.event_id;
    // The body is optional (its one field is): none at all reads as {} and builds at the market's rate.
    const bare = await m.call('POST', `/v1/policy-offers/${set.funding_set_id}/cancel-transaction`, b.token);
    assert.equal(bare.status, 200, JSON.stringify(bare.body));
    // A rate whose fee would leave dust is not fee_floor (a higher rate is no fix): insufficient_funds, with the highest rate that works.
    const steep = await m.call('POST', `/v1/policy-offers/${set.funding_set_id}/cancel-transaction`, b.token, { fee_rate: 500 });
    assert.deepEqual([steep.status, steep.body.code, steep.body.mempool_policy], [422, 'insufficient_funds', undefined], JSON.stringify(steep.body));
    assert.equal(steep.body.shortfall_sats, steep.body.need_sats - steep.body.have_sats);
    assert.ok(steep.body.maximum_fee_rate >= 0.1 && steep.body.maximum_fee_rate < 500, JSON.stringify(steep.body));
    const atMax = await m.call('POST', `/v1/policy-offers/${set.funding_set_id}/cancel-transaction`, b.token, { fee_rate: steep.body.maximum_fee_rate });
    assert.equal(atMax.status, 200, JSON.stringify(atMax.body));
    const ct = await m.call('POST', `/v1/policy-offers/${set.funding_set_id}/cancel-transaction`, b.token, { fee_rate: 2 });
    assert.equal(ct.status, 200, JSON.stringify(ct.body));
    const h = ct.body.result;
    assert.equal(h.funding_inputs.length, 1);
    assert.equal(h.signing.sighash, 'DEFAULT');
    assert.equal(h.output_sats + h.fee_sats, h.funding_inputs[0].value_sats);
    const txid = await m.devnet.bitcoin.broadcast(finalize(signPsbt(h.psbt_hex, b.w, h.signing.inputs_to_sign, SigHash.DEFAULT)));
    assert.equal(txid, h.expected_txid);
    await m.mine();
    await m.sync();
    const mine = await m.call('GET', `/v1/address/${b.w.address}/policy-offers`, b.token);
    assert.deepEqual(mine.body.result.map((o: any) => o.status), ['invalid']);
    const retired = await events(b.w.address, 'collection_offer_retired');
    assert.equal(retired.length, 1);
    assert.equal(retired[0]!.status, 'invalid');
    // Rule 7: the cancelled event turned into the retired one (a new id); it does not stay beside it.
    assert.equal((await events(b.w.address, 'collection_offer_cancelled')).length, 0, 'the soft cancel\'s event is withdrawn');
    const feed = (await m.call('GET', `/v1/address/${b.w.address}/events`, b.token)).body.result as any[];
    assert.deepEqual(feed.filter((e) => e.kind.startsWith('collection_offer_')).map((e) => [e.kind, e.status, e.parent_txid]), [['collection_offer_retired', 'invalid', parent]]);
    assert.notEqual(retired[0]!.event_id, cancelledId, 'a new event_id');
    const again = await m.call('POST', `/v1/policy-offers/${set.funding_set_id}/cancel-transaction`, b.token, {});
    assert.equal(again.status, 409, JSON.stringify(again.body));
    // Another address's offer is not found.
    const other = await newBidder(m, [], 'p2wpkh');
    assert.equal((await m.call('POST', `/v1/policy-offers/${set.funding_set_id}/cancel-transaction`, other.token, {})).status, 404);
  });

  void it('a reorg that undoes the hard cancel restores the offer (its retired event gone); a block with the spend again retires it again', async () => {
    const b = await newBidder(m, [80_000], 'p2wpkh');
    const { set } = await placePolicy(m, b.w, b.token, [{ scope: 'collection', collection: 'pc', price_sats: 20_000 }]);
    const ct = (await m.call('POST', `/v1/policy-offers/${set.funding_set_id}/cancel-transaction`, b.token, { fee_rate: 2 })).body.result;
    const raw = finalize(signPsbt(ct.psbt_hex, b.w, ct.signing.inputs_to_sign, SigHash.ALL));
    await m.devnet.bitcoin.broadcast(raw);
    await m.mine();
    await m.sync();
    const status = async () => (await m.call('GET', `/v1/address/${b.w.address}/policy-offers`, b.token)).body.result.map((o: any) => o.status);
    assert.deepEqual(await status(), ['invalid']);
    await m.devnet.reorg(1);
    await m.devnet.dropMempool();
    await m.sync();
    assert.deepEqual(await status(), ['active'], 'restored by the reorg');
    assert.equal((await events(b.w.address, 'collection_offer_retired')).length, 0);
    const row = await m.ctx.store.db.selectFrom('market_anchors').select('state').where('outpoint', '=', set.anchor.outpoint).executeTakeFirstOrThrow();
    assert.equal(row.state, 'reserved', 'its anchor back with it');
    await m.devnet.bitcoin.broadcast(raw);
    await m.mine();
    await m.sync();
    assert.deepEqual(await status(), ['invalid']);
  });
});

describe('a reorg of a hard cancel after a soft cancel', () => {
  void it('brings the collection_offer_cancelled event back in place of the retired one, with its first time', async () => {
    const b = await newBidder(m, [40_000], 'p2wpkh');
    const { pf, set } = await placePolicy(m, b.w, b.token, [{ scope: 'collection', collection: 'pc', price_sats: 20_000 }]);
    const parent = pf.parent.expected_txid as string;
    const soft = await m.call('POST', `/v1/policy-offers/${set.offers[0].id}/cancel`, b.token, { address: b.w.address, signature: signMessageBip322(b.w, cancelMessage(parent)) });
    assert.equal(soft.status, 200, JSON.stringify(soft.body));
    const feed = async () =>
      ((await m.call('GET', `/v1/address/${b.w.address}/events`, b.token)).body.result as any[]).filter((e) => e.kind.startsWith('collection_offer_')).map((e) => [e.kind, e.status, e.parent_txid, e.at]);
    const [before] = await feed();
    assert.deepEqual(before!.slice(0, 3), ['collection_offer_cancelled', 'cancelled', parent]);
    const ct = (await m.call('POST', `/v1/policy-offers/${set.funding_set_id}/cancel-transaction`, b.token, { fee_rate: 2 })).body.result;
    await m.devnet.bitcoin.broadcast(finalize(signPsbt(ct.psbt_hex, b.w, ct.signing.inputs_to_sign, SigHash.ALL)));
    m.clock.advance(5_000);
    await m.mine();
    await m.sync();
    assert.deepEqual((await feed()).map((e) => e.slice(0, 3)), [['collection_offer_retired', 'invalid', parent]]);
    await m.devnet.reorg(1);
    await m.devnet.dropMempool();
    await m.sync();
    assert.deepEqual(await feed(), [before], 'the cancellation stands again, as it was');
  });
});

describe('the event log', () => {
  void it('replays to exactly the public and owner feeds after every flow above (src/events/)', async () => {
    await assertLogReplaysFeeds(m);
  });
});
