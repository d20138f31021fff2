/**
 * A batch delist meeting a checkout's claim of the same listings. A cart claims its listings in
 * id order (listings/lifecycle.ts `claimListings`); the batch ended its listings in request
 * order, so a batch naming them the other way round could close a cycle with the claim, and
 * PostgreSQL would abort whichever waited first: when that was the batch, the seller got a 500.
 * The batch now ends its listings in id order (its answer stays in request order), and a batch
 * chosen as some other deadlock's victim is run again.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller } from '../helpers/listing.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m?.close());

void it('a batch delist naming two listings in the other order than a claim holding one: no deadlock 500, the batch answers what happened', async (t) => {
  if (m.ctx.store.dialect !== 'postgres') return t.skip('PostgreSQL only: SQLite has one writer at a time');
  const seller = await newSeller(m, 'p2wpkh', 'batch-lock-order', 2);
  const sorted = [await listUnit(m, seller, 30_000), await listUnit(m, seller, 31_000)].sort((a, b) => a.id.localeCompare(b.id));
  const [first, second] = [sorted[0]!, sorted[1]!];

  // A cart's claim, held open: `first`, then (once the batch is under way) `second`.
  let tookFirst!: () => void;
  const firstTaken = new Promise<void>((r) => (tookFirst = r));
  let batchSent!: () => void;
  const batchStarted = new Promise<void>((r) => (batchSent = r));
  const claim = m.ctx.store.db.transaction().execute(async (tx) => {
    const reserve = (id: string) => tx.updateTable('listings').set({ state: 'reserved', updated_at: 1 }).where('id', '=', id).where('state', '=', 'active').execute();
    await reserve(first.id);
    tookFirst();
    await batchStarted;
    await new Promise((r) => setTimeout(r, 300)); // the batch now waits for what it needs
    await reserve(second.id);
  });
  await firstTaken;
  const batch = m.call('POST', '/v1/listings/batch', seller.token, { action: 'delist', listings: [{ listing_id: second.id }, { listing_id: first.id }] });
  batchSent();
  const [b, c] = await Promise.allSettled([batch, claim]);
  assert.equal(c.status, 'fulfilled', c.status === 'rejected' ? String(c.reason) : '');
  assert.equal(b.status, 'fulfilled');
  const r = (b as PromiseFulfilledResult<Awaited<typeof batch>>).value;
  // The claim committed first: both listings are a buyer's now, and the answer keeps the request's order.
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(
    r.body.result.listings.map((o: { index: number; listing_id: string; ok: boolean; code?: string }) => [o.index, o.listing_id, o.ok, o.code]),
    [
      [0, second.id, false, 'state_changed'],
      [1, first.id, false, 'state_changed'],
    ],
  );
  const states = await m.ctx.store.db.selectFrom('listings').select('state').where('id', 'in', [first.id, second.id]).execute();
  assert.deepEqual(states.map((s) => s.state), ['reserved', 'reserved']);
});
