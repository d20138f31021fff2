/**
 * A bidder's cancel meeting an accept over the same slot (day 9161, PostgreSQL): an accept takes
 * the slot's row first and then ends the sibling offers over it (lifecycle.ts `fillOffer`); the
 * cancel ended its offer first and then asked for the slot to close it. The two closed a cycle,
 * PostgreSQL aborted the cancel, and `POST /v1/offer-cancellations` answered 500. Ending offers
 * now takes their slots first, in id order, as every fill does; and a cancel chosen as some other
 * deadlock's victim is run again. Either way the bidder gets the cancel's real answer.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { openMarket, signPsbt, type Market } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';
import { newSeller } from '../helpers/listing.js';

let m: Market;
let asset: string;

before(async () => {
  m = await openMarket();
  asset = (await newSeller(m, 'p2wpkh', 'lock-order-seller', 1)).asset;
  await importCatalog(m.ctx.store.db, { collections: [{ slug: 'locks', name: 'Locks' }], artists: [], assets: [{ asset, collection: 'locks', max_supply_units: 1, issued_year: 2017 }] });
  await m.sync();
});
after(async () => m?.close());

void it('a cancel and an accept over one slot reach their locks crosswise: no deadlock 500, the cancel answers what happened', async (t) => {
  if (m.ctx.store.dialect !== 'postgres') return t.skip('PostgreSQL only: SQLite has one writer at a time');
  const w = makeWallet('p2wpkh', 'lock-order-bidder');
  await m.fund(w, 1_000_000);
  const token = await m.signIn(w);
  const f = await m.call('POST', '/v1/offer-funding', token, { price_sats: 20_000, slots: 1, fee_rate: 2 });
  assert.equal(f.status, 200, JSON.stringify(f.body));
  const signed = Transaction.fromPSBT(hex.decode(signPsbt(f.body.result.psbt_hex, w, f.body.result.inputs_to_sign, SigHash.ALL)), READ_TX_OPTS);
  signed.finalize();
  // One slot, two offers over it (an asset and its collection).
  const placed = await m.call('POST', '/v1/funded-offers', token, {
    funding_tx_hex: hex.encode(signed.extract()),
    bids: f.body.result.bids,
    targets: [{ scope: 'asset', asset }, { scope: 'collection', collection: 'locks' }],
    expires_at: Math.floor(m.clock.now() / 1000) + 86_400,
  });
  assert.equal(placed.status, 200, JSON.stringify(placed.body));
  const [slot] = placed.body.result.funding_slots as Array<{ offer_ids: string[] }>;
  const [cancelled, sibling] = slot!.offer_ids as [string, string];
  const { slot_id: slotId } = await m.ctx.store.db.selectFrom('offers').select('slot_id').where('id', '=', cancelled).executeTakeFirstOrThrow();

  // The accept's order, held open: the slot's row, then (once the cancel is under way) the
  // offers over it ended as superseded, as fillOffer does for the sibling it fills.
  let slotTaken!: () => void;
  const tookSlot = new Promise<void>((r) => (slotTaken = r));
  let cancelSent!: () => void;
  const cancelStarted = new Promise<void>((r) => (cancelSent = r));
  const accept = m.ctx.store.db.transaction().execute(async (tx) => {
    await tx.updateTable('offer_slots').set({ state: 'spent', spent_txid: 'ff'.repeat(32), updated_at: 1 }).where('id', '=', slotId).where('state', '=', 'open').execute();
    slotTaken();
    await cancelStarted;
    await new Promise((r) => setTimeout(r, 300)); // the cancel now waits for what it needs
    await tx.updateTable('offers').set({ state: 'filled', end_reason: 'filled', ended_at: 1, updated_at: 1 }).where('id', '=', sibling).where('state', '=', 'active').execute();
    await tx.updateTable('offers').set({ state: 'retired', end_reason: 'superseded', ended_at: 1, updated_at: 1 }).where('id', '=', cancelled).where('state', '=', 'active').execute();
  });
  await tookSlot;
  // The bidder cancels both: with every offer over the slot ended, the slot is closed too.
  const cancel = m.call('POST', '/v1/offer-cancellations', token, { offer_ids: [cancelled, sibling] });
  cancelSent();
  const [c, a] = await Promise.allSettled([cancel, accept]);
  assert.equal(a.status, 'fulfilled', a.status === 'rejected' ? String(a.reason) : '');
  assert.equal(c.status, 'fulfilled');
  const r = (c as PromiseFulfilledResult<Awaited<typeof cancel>>).value;
  // The accept committed first: neither offer is the bidder's to cancel any more, and the slot stays spent.
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.result, [
    { offer_id: cancelled, ok: false, status: 'retired', code: 'state_changed' },
    { offer_id: sibling, ok: false, status: 'filled', code: 'state_changed' },
  ]);
  const state = await m.ctx.store.db.selectFrom('offer_slots').select('state').where('id', '=', slotId).executeTakeFirstOrThrow();
  assert.equal(state.state, 'spent');
});
