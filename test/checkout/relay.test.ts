/** After the claim: node refusals, conflicts, unknown broadcasts and recovery, reorgs, a released settlement mined anyway. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { openMarket, type Market } from '../helpers/market.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { buildTx, coinOf } from '../helpers/devnet.js';
import { makeWallet } from '../helpers/wallets.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { complete, fillsOf, listingRow, newBuyer, quoteOk, readOp, signQuote } from '../helpers/checkout.js';
import { UpstreamUnavailable } from '../../src/chain/ports.js';
import { spentOutpoints } from '../../src/settlement/journal.js';

let m: Market;
before(async () => {
  // A node relaying from 1 sat/vB (Core up to 29.0) whose floor the market read as 0.1: the node's
  // floor rose after the market read it (a filling mempool raises `mempoolminfee`), so a quote the
  // market accepted is refused at relay, after its claims were taken.
  m = await openMarket(
    { DEVNET_MIN_RELAY_FEE_RATE: '1', DEVNET_INCREMENTAL_RELAY_FEE_RATE: '1' },
    {
      wrapChain: (chain) => ({
        ...chain,
        bitcoin: new Proxy(chain.bitcoin, {
          get(target, prop) {
            if (prop === 'estimateFees') return async () => ({ ...(await target.estimateFees()), minimum: 0.1 });
            const v = Reflect.get(target, prop) as unknown;
            return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
          },
        }),
      }),
    },
  );
});
after(async () => m.close());

const claimsOf = (settlementId: string) => m.ctx.store.db.selectFrom('outpoint_claims').selectAll().where('settlement_id', '=', settlementId).execute();
const settlementOf = (quoteId: string) => m.ctx.store.db.selectFrom('settlements').selectAll().where('ref_id', '=', quoteId).executeTakeFirstOrThrow();
const inMempool = async (txid: string) => (await m.ctx.chain.bitcoin.getMempoolEntry(txid)) !== null;

async function quoted(label: string, body: Record<string, unknown> = {}) {
  const seller = await newSeller(m, 'p2wpkh', label);
  const l = await listUnit(m, seller, 20_000);
  const buyer = await newBuyer(m, 'p2wpkh', label);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], ...body });
  return { seller, l, buyer, q };
}

void test('below the relay floor: 422 mempool_rejected fee_floor, claims released, listing active again, fill dropped', async () => {
  const { l, buyer, q } = await quoted('floor', { fee_rate: 0.1 });
  assert.ok(q.totals.network_fee_sats < 100, 'a 0.1 sat/vB quote is below this node\'s 1 sat/vB relay floor');
  const signed = signQuote(q, buyer.w);
  const r = await complete(m, buyer, q.id, signed);
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.deepEqual([r.body.code, r.body.mempool_policy, r.body.claims_released], ['mempool_rejected', 'fee_floor', true]);
  assert.match(r.body.mempool_reason, /min relay fee not met/);
  const s = await settlementOf(q.id);
  assert.equal(s.state, 'rejected');
  assert.deepEqual(await claimsOf(s.id), []);
  assert.equal((await listingRow(m, l.id)).state, 'active');
  assert.deepEqual((await fillsOf(m, l.id)).map((f) => f.state), ['dropped']);
  const op = (await readOp(m, buyer, q.id)).body.result;
  assert.deepEqual([op.status, op.claims_released, op.failure_code, op.mempool_policy, op.txid], ['failed', true, 'mempool_rejected', 'fee_floor', q.expected_txid]);
  // The same bytes again fail the same way and make no second settlement.
  const again = await complete(m, buyer, q.id, signed);
  assert.deepEqual([again.status, again.body.code, again.body.mempool_policy, again.body.claims_released], [422, 'mempool_rejected', 'fee_floor', true]);
  assert.equal((await m.ctx.store.db.selectFrom('settlements').selectAll().where('ref_id', '=', q.id).execute()).length, 1);
  // Quote again at a higher rate: the listing and the buyer's coin are free again.
  const q2 = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 2 });
  assert.equal((await complete(m, buyer, q2.id, signQuote(q2, buyer.w))).status, 200);
});

void test('an input spent first by a transaction in the mempool: the broadcast lost to a conflicting spend, 409 state_changed with mempool_reason, claims released', async () => {
  const { l, buyer, q } = await quoted('conflict');
  // The buyer spends the quoted coin in another transaction before completing.
  const input0 = Transaction.fromPSBT(hex.decode(q.psbt_hex), READ_TX_OPTS).getInput(0);
  const coin = coinOf(m.devnet, hex.encode(input0.txid!), input0.index!);
  const away = makeWallet('p2wpkh', 'relay-conflict-away');
  await m.devnet.bitcoin.broadcast(buildTx([{ wallet: buyer.w, coin }], [{ script: away.script, amount: coin.amount - 1_000n }]));
  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.equal(r.status, 409, JSON.stringify(r.body));
  assert.deepEqual([r.body.code, r.body.claims_released], ['state_changed', true]);
  assert.equal(typeof r.body.mempool_reason, 'string', 'the node\'s reject reason');
  assert.equal((await listingRow(m, l.id)).state, 'active');
  assert.deepEqual((await fillsOf(m, l.id)).map((f) => f.state), ['dropped']);
  const read = (await readOp(m, buyer, q.id)).body.result;
  assert.deepEqual([read.status, read.failure_code, read.claims_released], ['failed', 'state_changed', true]);
});

void test('an input already spent in the chain: 409 conflict_spend, claims released', async () => {
  const { l, buyer, q } = await quoted('conflict-mined');
  const input0 = Transaction.fromPSBT(hex.decode(q.psbt_hex), READ_TX_OPTS).getInput(0);
  const coin = coinOf(m.devnet, hex.encode(input0.txid!), input0.index!);
  const away = makeWallet('p2wpkh', 'relay-conflict-mined-away');
  await m.devnet.bitcoin.broadcast(buildTx([{ wallet: buyer.w, coin }], [{ script: away.script, amount: coin.amount - 1_000n }]));
  await m.mine();
  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.equal(r.status, 409, JSON.stringify(r.body));
  assert.deepEqual([r.body.code, r.body.claims_released], ['conflict_spend', true]);
  assert.equal((await listingRow(m, l.id)).state, 'active');
  const read = (await readOp(m, buyer, q.id)).body.result;
  assert.deepEqual([read.status, read.failure_code], ['failed', 'conflict_spend']);
});

void test('an unknown broadcast outcome: 502 broadcast_unknown, the operation reads broadcasting, recovery relays it, a block confirms it', async () => {
  const { l, buyer, q } = await quoted('unknown');
  const bitcoin = m.devnet.bitcoin;
  const original = bitcoin.broadcast.bind(bitcoin);
  bitcoin.broadcast = async () => {
    bitcoin.broadcast = original;
    throw new UpstreamUnavailable('bitcoin', 'connect ECONNRESET 127.0.0.1:8332');
  };
  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.equal(r.status, 502, JSON.stringify(r.body));
  assert.deepEqual([r.body.code, r.body.retryable], ['broadcast_unknown', true]);
  assert.equal(bitcoin.broadcast, original, 'the network failed exactly once');
  assert.equal(await inMempool(q.expected_txid), false);
  const op = (await readOp(m, buyer, q.id)).body.result;
  assert.deepEqual([op.status, op.txid, op.claims_released], ['broadcasting', q.expected_txid, false]);
  assert.equal((await listingRow(m, l.id)).state, 'reserved');
  assert.deepEqual((await fillsOf(m, l.id)).map((f) => f.state), ['pending']);

  await m.sync(); // recovery relays the journaled bytes
  assert.equal(await inMempool(q.expected_txid), true);
  assert.equal((await readOp(m, buyer, q.id)).body.result.status, 'broadcast');
  await m.mine();
  await m.sync();
  assert.equal((await readOp(m, buyer, q.id)).body.result.status, 'confirmed');
  assert.deepEqual((await fillsOf(m, l.id)).map((f) => f.state), ['confirmed']);
  assert.equal((await listingRow(m, l.id)).state, 'sold');
});

void test('after a 502 the same signed bytes again relay the journaled settlement (no second one)', async () => {
  const { buyer, q } = await quoted('unknown-repeat');
  const bitcoin = m.devnet.bitcoin;
  const original = bitcoin.broadcast.bind(bitcoin);
  bitcoin.broadcast = async () => {
    bitcoin.broadcast = original;
    throw new Error('socket hang up');
  };
  const signed = signQuote(q, buyer.w);
  assert.equal((await complete(m, buyer, q.id, signed)).status, 502);
  const again = await complete(m, buyer, q.id, signed);
  assert.deepEqual([again.status, again.body.result?.status], [200, 'broadcast'], JSON.stringify(again.body));
  assert.equal(await inMempool(q.expected_txid), true);
  assert.equal((await m.ctx.store.db.selectFrom('settlements').selectAll().where('ref_id', '=', q.id).execute()).length, 1);
});

void test('a reorg after confirmation returns the fill to pending and the listing to reserved; mining again confirms it', async () => {
  const { l, buyer, q } = await quoted('reorg');
  assert.equal((await complete(m, buyer, q.id, signQuote(q, buyer.w))).status, 200);
  await m.mine();
  await m.sync();
  const confirmedAt = (await fillsOf(m, l.id))[0]!.block_index;
  assert.equal((await listingRow(m, l.id)).state, 'sold');

  await m.devnet.reorg(1);
  await m.sync();
  const [back] = await fillsOf(m, l.id);
  assert.deepEqual([back?.state, back?.confirmed_at, back?.block_index], ['pending', null, null]);
  assert.equal((await listingRow(m, l.id)).state, 'reserved');
  assert.equal((await readOp(m, buyer, q.id)).body.result.status, 'broadcast');
  assert.equal(await inMempool(q.expected_txid), true, 'the reorged checkout is back in the mempool');

  m.clock.advance(5_000);
  await m.mine();
  await m.sync();
  const [again] = await fillsOf(m, l.id);
  assert.equal(again?.state, 'confirmed');
  assert.ok(again!.block_index! > confirmedAt!);
  assert.equal(again?.confirmed_at, Math.floor(m.clock.now() / 1000));
  const sold = await listingRow(m, l.id);
  assert.deepEqual([sold.state, sold.end_reason], ['sold', null]);
  assert.equal((await readOp(m, buyer, q.id)).body.result.status, 'confirmed');
});

void test('a settlement released but mined anyway: the chain wins (listing sold, fill confirmed, never invalidated)', async () => {
  const { l, buyer, q } = await quoted('released-mined');
  assert.equal((await complete(m, buyer, q.id, signQuote(q, buyer.w))).status, 200);
  const s = await settlementOf(q.id);
  // As if the node had answered with a conflict the market believed: claims released; the
  // relayed half is public, so the listing is exposed (off the book), not active.
  assert.equal(await m.ctx.journal.release(s.id, 'conflicted', 'txn-mempool-conflict'), true);
  assert.equal((await listingRow(m, l.id)).state, 'exposed');
  assert.deepEqual((await fillsOf(m, l.id)).map((f) => f.state), ['dropped']);

  await m.mine();
  await m.sync();
  const sold = await listingRow(m, l.id);
  assert.deepEqual([sold.state, sold.end_reason, sold.signed_psbt], ['sold', null, null]);
  const events = await m.ctx.store.db.selectFrom('owner_events').select('kind').where('listing_id', '=', l.id).execute();
  assert.deepEqual(events, [{ kind: 'listing_exposed' }], 'the spend was never taken for a foreign one (no listing_invalidated)');
  assert.deepEqual((await fillsOf(m, l.id)).map((f) => f.state), ['confirmed']);
  assert.equal((await settlementOf(q.id)).state, 'confirmed');
  assert.equal((await readOp(m, buyer, q.id)).body.result.status, 'confirmed');
  const claims = (await claimsOf(s.id)).map((c) => c.outpoint).sort();
  assert.deepEqual(claims, spentOutpoints(JSON.parse(s.txs)), 'the mined settlement holds a claim on every outpoint it spent again');
  assert.ok(claims.includes(`${l.utxo_txid}:${l.utxo_vout}`));
});
