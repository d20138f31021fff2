/**
 * Attach relay failures through the front door (POST …/attach and …/attach-and-list): a node
 * refusal for policy (422 mempool_rejected, claims released, the balance free again) and an
 * unknown outcome (502 broadcast_unknown, recovery relays the journaled bytes, repeats are
 * idempotent).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SigHash } from '@scure/btc-signer';
import { makeWallet } from '../helpers/wallets.js';
import { broadcastFaults } from '../helpers/chain.js';
import { openMarket, signPsbt, type Market } from '../helpers/market.js';

const faults = broadcastFaults();
let m: Market;
before(async () => {
  m = await openMarket({}, { wrapChain: faults.wrap });
});
after(async () => m.close());

let n = 0;
const now = () => Math.floor(m.clock.now() / 1000);
const get = async (token: string, id: string) => (await m.call('GET', `/v1/listing-preflights/${id}`, token)).body.result;
const settlements = (ref: string) => m.ctx.store.db.selectFrom('settlements').selectAll().where('ref_id', '=', ref).execute();
const claimsOf = (settlementId: string) => m.ctx.store.db.selectFrom('outpoint_claims').selectAll().where('settlement_id', '=', settlementId).execute();

async function seller(family: 'p2wpkh' | 'p2tr' = 'p2wpkh') {
  const w = makeWallet(family, `rf-seller-${++n}`);
  await m.fund(w, 100_000);
  const asset = await m.issue(w, '1');
  const token = await m.signIn(w);
  return { w, asset, token };
}

async function preflight(s: Awaited<ReturnType<typeof seller>>, extra: Record<string, unknown> = {}) {
  return m.call('POST', '/v1/listing-preflights', s.token, {
    seller: s.w.address, asset: s.asset, quantity_raw: '1', price_sats: 40_000, idempotency_key: `rf-${++n}`, ...extra,
  });
}

function signBoth(d: any, s: Awaited<ReturnType<typeof seller>>, expiresAt: number) {
  return {
    attach_psbt_hex: signPsbt(d.attach.psbt_hex, s.w, [0], SigHash.ALL),
    listing_psbt_hex: signPsbt(d.listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY),
    expires_at: expiresAt,
  };
}

/**
 * The market refuses a rate below the node's floor before composing (fee-rates.ts), so a relay
 * refusal for the fee happens when the floor rises after the quote: here the node restarts with
 * `-minrelaytxfee` at 1 sat/vB (Core up to 29.0) between the quote at 0.5 and the relay.
 */
async function withFloorRaisedTo<T>(satPerVb: number, run: () => Promise<T>): Promise<T> {
  await m.devnet.setMinRelayFeeRate(satPerVb);
  try {
    return await run();
  } finally {
    await m.devnet.setMinRelayFeeRate(0.1);
  }
}

void test('a fee below the relay floor: 422 mempool_rejected fee_floor, claims released, draft failed, the balance free for a new preflight', async () => {
  const s = await seller();
  const low = await preflight(s, { fee_rate: 0.5 });
  assert.equal(low.status, 200, JSON.stringify(low.body));
  const d = low.body.result;
  assert.equal(d.fee_rate, 0.5);
  await withFloorRaisedTo(1, () => refusedForTheFloor(s, d));

  // A new preflight for the same balance is possible, and completes at a fee the node takes.
  const fresh = await preflight(s);
  assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
  const d2 = fresh.body.result;
  assert.deepEqual([d2.mode, d2.status], ['attach', 'awaiting_attach_signature']);
  const ok = await m.call('POST', `/v1/listing-preflights/${d2.id}/attach-and-list`, s.token, signBoth(d2, s, now() + 86400));
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  await m.mine();
  await m.sync();
  const done = await get(s.token, d2.id);
  assert.deepEqual([done.status, done.listing_status], ['completed', 'active']);
  assert.equal((await get(s.token, d.id)).status, 'failed', 'the refused draft stays failed');
});

async function refusedForTheFloor(s: Awaited<ReturnType<typeof seller>>, d: any): Promise<void> {

  // While the draft is open its balance is committed: a second preflight for the unit is refused.
  const held = await preflight(s);
  assert.equal(held.status, 422, JSON.stringify(held.body));
  assert.deepEqual([held.body.code, held.body.committed_raw, held.body.held_raw], ['insufficient_asset_balance', '1', '1']);

  const body = signBoth(d, s, now() + 86400);
  const r = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, s.token, body);
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.equal(r.body.code, 'mempool_rejected');
  assert.equal(r.body.mempool_policy, 'fee_floor');
  assert.match(r.body.mempool_reason, /^min relay fee not met/);
  assert.equal(r.body.claims_released, true);
  assert.equal(r.body.wait_for_confirmation, undefined);

  const [st] = await settlements(d.id);
  assert.equal(st?.state, 'rejected');
  assert.deepEqual(await claimsOf(st!.id), [], 'the funding input is no longer claimed');
  assert.equal(await m.devnet.bitcoin.getTransaction(d.expected_txid), null, 'nothing reached the mempool');

  // The draft is terminal and says why; its never-public listing ended with it.
  const failed = await get(s.token, d.id);
  assert.deepEqual([failed.status, failed.next_action, failed.listing_status, failed.listing_end_reason], ['failed', null, 'ended', 'invalid']);
  assert.match(failed.last_error, /^attach rejected: min relay fee not met/);
  assert.equal(failed.attach, undefined, 'no attach template to sign again');
  assert.equal(failed.listing, undefined, 'no listing template to sign');
  const l = await m.ctx.store.db.selectFrom('listings').selectAll().where('id', '=', failed.listing_id).executeTakeFirstOrThrow();
  assert.equal(l.signed_psbt, null, 'the signed half is wiped');
  const inFlight = await m.call('GET', `/v1/address/${s.w.address}/listing-preflights?state=in_flight`, s.token);
  assert.deepEqual(inFlight.body.result, []);

  // The same bytes fail the same way again (no second settlement, no relay).
  const again = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, s.token, body);
  assert.equal(again.status, 422, JSON.stringify(again.body));
  assert.deepEqual([again.body.code, again.body.mempool_policy, again.body.claims_released], ['mempool_rejected', 'fee_floor', true]);
  const alone = await m.call('POST', `/v1/listing-preflights/${d.id}/attach`, s.token, { psbt_hex: body.attach_psbt_hex });
  assert.deepEqual([alone.status, alone.body.code], [422, 'mempool_rejected']);
  assert.equal((await settlements(d.id)).length, 1);

  // With the balance free again, a quote at the old rate is refused before anything is composed,
  // naming the node's new floor.
  const quoted = await preflight(s, { fee_rate: 0.5 });
  assert.deepEqual([quoted.status, quoted.body.code, quoted.body.mempool_policy, quoted.body.minimum_fee_rate], [422, 'mempool_rejected', 'fee_floor', 1]);
}

void test('a refused attach alone (attach template) fails the draft and frees its coins', async () => {
  const s = await seller('p2tr');
  const t = await m.call('POST', '/v1/attach-templates', s.token, { utxo_owner: s.w.address, asset: s.asset, quantity_raw: '1', fee_rate: 0.2 });
  assert.equal(t.status, 200, JSON.stringify(t.body));
  const d = t.body.result;
  const signed = signPsbt(d.attach.psbt_hex, s.w, [0], SigHash.ALL);
  const r = await withFloorRaisedTo(1, () => m.call('POST', `/v1/listing-preflights/${d.id}/attach`, s.token, { psbt_hex: signed }));
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.deepEqual([r.body.code, r.body.mempool_policy, r.body.claims_released], ['mempool_rejected', 'fee_floor', true]);
  assert.match(r.body.mempool_reason, /^min relay fee not met/);
  assert.equal(await m.devnet.bitcoin.getTransaction(d.expected_txid), null, 'nothing reached the mempool');
  const failed = await get(s.token, d.id);
  assert.deepEqual([failed.status, failed.purpose, failed.listing_id], ['failed', 'prepare', null]);
  const again = await m.call('POST', '/v1/attach-templates', s.token, { utxo_owner: s.w.address, asset: s.asset, quantity_raw: '1' });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.deepEqual(JSON.parse(JSON.stringify(again.body.result.attach.signers)), JSON.parse(JSON.stringify(d.attach.signers)));
});

void test('an unknown broadcast outcome: 502 broadcast_unknown, draft broadcasting, recovery relays it, repeats are idempotent', async () => {
  const s = await seller();
  const d = (await preflight(s)).body.result;
  const body = signBoth(d, s, now() + 86400);
  const failedBefore = faults.failed;
  faults.failNext(1, 'before');
  const r = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, s.token, body);
  assert.equal(faults.failed, failedBefore + 1, 'the broadcast was attempted and lost');
  assert.equal(r.status, 502, JSON.stringify(r.body));
  assert.deepEqual([r.body.code, r.body.retryable], ['broadcast_unknown', true]);
  assert.equal(r.body.claims_released, undefined, 'nothing is released on an unknown outcome');
  assert.equal(await m.devnet.bitcoin.getTransaction(d.expected_txid), null, 'the node never saw it');

  const pending = await get(s.token, d.id);
  assert.deepEqual([pending.status, pending.next_action, pending.listing_status], ['broadcasting', 'wait_for_indexer', 'pending']);
  const [st] = await settlements(d.id);
  assert.equal(st?.state, 'journaled');
  assert.equal((await claimsOf(st!.id)).length, 1, 'the funding input stays claimed');
  const inFlight = await m.call('GET', `/v1/address/${s.w.address}/listing-preflights?state=in_flight`, s.token);
  assert.deepEqual(inFlight.body.result.map((x: any) => [x.id, x.status]), [[d.id, 'broadcasting']]);
  // The balance stays committed while the outcome is unknown.
  const held = await preflight(s);
  assert.deepEqual([held.status, held.body.code, held.body.committed_raw], [422, 'insufficient_asset_balance', '1']);

  // Recovery (sync runs it before the indexer) relays the journaled bytes.
  await m.sync();
  assert.equal((await m.devnet.bitcoin.getTransaction(d.expected_txid))?.confirmations, 0, 'in the mempool now');
  assert.equal((await get(s.token, d.id)).status, 'awaiting_indexer');

  // The same signed bytes again: the same operation, no second settlement.
  const repeat = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, s.token, body);
  assert.equal(repeat.status, 200, JSON.stringify(repeat.body));
  assert.deepEqual([repeat.body.result.status, repeat.body.result.listing_id], ['awaiting_indexer', pending.listing_id]);
  // Another listing half (another expiry) on the same attach is not a repeat.
  const other = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, s.token, { ...body, expires_at: body.expires_at + 60 });
  assert.deepEqual([other.status, other.body.code], [409, 'state_changed']);

  await m.mine();
  await m.sync();
  const done = await get(s.token, d.id);
  assert.deepEqual([done.status, done.listing_status, done.listing_id], ['completed', 'active', pending.listing_id]);
  const after = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, s.token, body);
  assert.equal(after.status, 200, JSON.stringify(after.body));
  assert.equal(after.body.result.status, 'completed');
  const all = await settlements(d.id);
  assert.deepEqual(all.map((x) => x.state), ['confirmed'], 'one settlement, confirmed');
  const listings = await m.ctx.store.db.selectFrom('listings').select(['id', 'state']).where('draft_id', '=', d.id).execute();
  assert.deepEqual(listings, [{ id: pending.listing_id, state: 'active' }]);
});

void test('a lost reply after the node accepted the attach: 502, then the repeat relays as already known and the draft becomes ready', async () => {
  const s = await seller('p2tr');
  const d = (await preflight(s)).body.result;
  const attach = signPsbt(d.attach.psbt_hex, s.w, [0], SigHash.ALL);
  faults.failNext(1, 'after');
  const r = await m.call('POST', `/v1/listing-preflights/${d.id}/attach`, s.token, { psbt_hex: attach });
  assert.deepEqual([r.status, r.body.code], [502, 'broadcast_unknown']);
  assert.equal((await m.devnet.bitcoin.getTransaction(d.expected_txid))?.confirmations, 0, 'the node did take it');
  assert.equal((await get(s.token, d.id)).status, 'broadcasting');

  const repeat = await m.call('POST', `/v1/listing-preflights/${d.id}/attach`, s.token, { psbt_hex: attach });
  assert.equal(repeat.status, 200, JSON.stringify(repeat.body));
  assert.deepEqual([repeat.body.result.status, repeat.body.result.next_action], ['awaiting_indexer', 'sign_listing']);
  // An attach-and-list repeat of bytes submitted alone would add a listing: not a repeat.
  const withListing = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, s.token, {
    attach_psbt_hex: attach, listing_psbt_hex: signPsbt(d.listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY), expires_at: now() + 3600,
  });
  assert.deepEqual([withListing.status, withListing.body.code], [409, 'state_changed']);

  await m.mine();
  await m.sync();
  assert.equal((await get(s.token, d.id)).status, 'ready');
  assert.equal((await settlements(d.id)).length, 1);
});
