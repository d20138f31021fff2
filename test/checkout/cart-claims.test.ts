/**
 * A cart's listings claimed by one guarded UPDATE (listings/lifecycle.ts `claimListings`): a line
 * another settlement won after the completion read it refuses the whole cart with the line named
 * and nothing of it claimed; two carts sharing listings that reach their claims at once never
 * deadlock (PostgreSQL locks them in id order), one wins and the other is refused.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller, type LiveListing } from '../helpers/listing.js';
import { complete, listingRow, newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';
import { CheckoutCompletion } from '../../src/modules/checkout/complete.js';
import { CheckoutStore } from '../../src/modules/checkout/store.js';
import { ApiError } from '../../src/http/errors.js';
import type { Db, Tx } from '../../src/store/db.js';
import type { ListingRow } from '../../src/modules/listings/index.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

/**
 * A checkout store whose listing reads return the rows as they stood at `freeze()` (the completion
 * read them, then another settlement committed before its claims ran), and which may hold each
 * claim transaction after its read until `hold` resolves.
 */
class StaleReads extends CheckoutStore {
  frozen?: Map<string, ListingRow>;
  hold?: () => Promise<void>;

  async freeze(ids: string[]): Promise<void> {
    this.frozen = new Map((await super.listings(ids)).map((l) => [l.id, l]));
  }

  override async listings(ids: string[], db: Db | Tx = this.db): Promise<ListingRow[]> {
    if (!this.frozen) return super.listings(ids, db);
    const rows = ids.flatMap((id) => (this.frozen!.has(id) ? [this.frozen!.get(id)!] : []));
    // The completion's read before its claim: a test may hold it there (the claim follows at once).
    await this.hold?.();
    return rows;
  }
}

async function listed(label: string, n: number): Promise<LiveListing[]> {
  const seller = await newSeller(m, 'p2wpkh', label, n);
  const out: LiveListing[] = [];
  for (let k = 0; k < n; k++) out.push(await listUnit(m, seller, 20_000 + k * 100));
  return out;
}

async function cartQuote(label: string, ls: LiveListing[]) {
  const buyer = await newBuyer(m, 'p2wpkh', label, [1_000_000]);
  const q = await quoteOk(m, buyer, { lines: ls.map((l) => ({ listing_id: l.id })) });
  return { buyer, q, signed: signQuote(q, buyer.w) };
}

const statesOf = async (ls: LiveListing[]) => Promise.all(ls.map(async (l) => (await listingRow(m, l.id)).state));
const settlementsOf = (quoteId: string) => m.ctx.store.db.selectFrom('settlements').select('id').where('ref_id', '=', quoteId).execute();
const fillsOfTx = (txid: string) => m.ctx.store.db.selectFrom('fills').select('id').where('txid', '=', txid).execute();

void test('a 10-line cart one of whose listings another buyer won after the completion read it: 409 checkout_changed naming it, nothing of the cart claimed', async () => {
  const ls = await listed('cart10-lost', 10);
  const cart = await cartQuote('cart10-lost', ls);
  const sold = ls[6]!;
  const other = await newBuyer(m, 'p2wpkh', 'cart10-winner');
  const single = await quoteOk(m, other, { lines: [{ listing_id: sold.id }] });

  const store = new StaleReads(m.ctx.store.db);
  await store.freeze(ls.map((l) => l.id));
  assert.equal((await complete(m, other, single.id, signQuote(single, other.w))).status, 200);

  const row = (await store.quote(cart.q.id))!;
  await assert.rejects(new CheckoutCompletion(m.ctx, store).complete(row, cart.signed), (e: unknown) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, 'checkout_changed');
    assert.equal(e.extras.listing_id, sold.id);
    assert.match(e.message, new RegExp(`listing ${sold.id} was claimed or changed since the quote`));
    return true;
  });
  const states = await statesOf(ls);
  assert.deepEqual(states, ls.map((l) => (l.id === sold.id ? 'reserved' : 'active')), 'only the other buyer\'s listing is reserved');
  assert.deepEqual(await settlementsOf(cart.q.id), []);
  assert.deepEqual(await fillsOfTx(cart.q.expected_txid as string), []);
  assert.equal((await store.quote(cart.q.id))!.status, 'quoted');
  // The funding coins were not claimed either: the same cart completes once the lost line is gone.
  const rest = ls.filter((l) => l.id !== sold.id);
  const again = await quoteOk(m, cart.buyer, { lines: rest.map((l) => ({ listing_id: l.id })) });
  assert.equal((await complete(m, cart.buyer, again.id, signQuote(again, cart.buyer.w))).status, 200);
  assert.deepEqual(await statesOf(rest), rest.map(() => 'reserved'));
});

void test('a line repriced after the completion read it (another version) is not claimed: 409 naming it, the rest left active', async () => {
  const ls = await listed('cart-reprice', 4);
  const cart = await cartQuote('cart-reprice', ls);
  const store = new StaleReads(m.ctx.store.db);
  await store.freeze(ls.map((l) => l.id));
  const moved = ls[2]!;
  await m.ctx.store.db.updateTable('listings').set((eb) => ({ version: eb('version', '+', 1), price_sats: moved.price_sats + 1 })).where('id', '=', moved.id).execute();
  await assert.rejects(new CheckoutCompletion(m.ctx, store).complete((await store.quote(cart.q.id))!, cart.signed), (e: unknown) => {
    assert.ok(e instanceof ApiError && e.code === 'checkout_changed' && e.extras.listing_id === moved.id, String(e));
    return true;
  });
  assert.deepEqual(await statesOf(ls), ['active', 'active', 'active', 'active']);
  assert.deepEqual(await settlementsOf(cart.q.id), []);
});

void test('two carts sharing listings reach their claims at once: one wins, the other is refused naming a shared line, no deadlock', async () => {
  const ls = await listed('cart-overlap', 9);
  // Interleaved ids: each cart holds listings on both sides of the shared ones.
  const a = ls.slice(0, 6);
  const b = [...ls.slice(3, 9)].reverse();
  const shared = new Set(ls.slice(3, 6).map((l) => l.id));
  const [ca, cb] = [await cartQuote('cart-overlap-a', a), await cartQuote('cart-overlap-b', b)];
  const store = new StaleReads(m.ctx.store.db);
  await store.freeze(ls.map((l) => l.id));
  // PostgreSQL: both claim transactions are held open after their reads until both have read, so
  // their claims run at once. SQLite has one writer: the second transaction begins after the first ends.
  if (m.ctx.store.dialect === 'postgres') {
    let arrived = 0;
    let release!: () => void;
    const both = new Promise<void>((r) => (release = r));
    store.hold = () => {
      if (++arrived === 2) release();
      return Promise.race([both, new Promise<void>((r) => setTimeout(r, 5_000))]);
    };
  }
  const completion = new CheckoutCompletion(m.ctx, store);
  const [ra, rb] = await Promise.allSettled([
    completion.complete((await store.quote(ca.q.id))!, ca.signed),
    completion.complete((await store.quote(cb.q.id))!, cb.signed),
  ]);
  const outcomes = [ra, rb].map((r) => r.status);
  assert.deepEqual([...outcomes].sort(), ['fulfilled', 'rejected'], JSON.stringify([ra, rb].map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))));
  const lost = (ra.status === 'rejected' ? ra : rb) as PromiseRejectedResult;
  assert.ok(lost.reason instanceof ApiError, `a refusal, not ${String(lost.reason)}`);
  assert.equal(lost.reason.code, 'checkout_changed');
  assert.ok(shared.has(lost.reason.extras.listing_id as string), String(lost.reason.extras.listing_id));
  const [won, lostCart] = ra.status === 'fulfilled' ? [a, b] : [b, a];
  assert.deepEqual(await statesOf(won), won.map(() => 'reserved'));
  assert.deepEqual(await statesOf(lostCart.filter((l) => !shared.has(l.id))), lostCart.filter((l) => !shared.has(l.id)).map(() => 'active'));
  assert.deepEqual(await settlementsOf((ra.status === 'fulfilled' ? cb : ca).q.id), []);
});

void test('a claim meeting a transaction that ends the same listings in the other order: the deadlock\'s victim is run again, the buyer gets 409, never a 500', async (t) => {
  if (m.ctx.store.dialect !== 'postgres') return t.skip('PostgreSQL only: SQLite has one writer at a time');
  const ls = (await listed('cart-deadlock', 2)).sort((x, y) => x.id.localeCompare(y.id));
  const [first, second] = [ls[0]!, ls[1]!];
  const c = await cartQuote('cart-deadlock', ls);
  const store = new StaleReads(m.ctx.store.db);
  await store.freeze(ls.map((l) => l.id));
  // Another kind of transaction (a block's invalidations, say) ends both listings, the later id
  // first. It takes `second`, lets the claim lock `first` and wait for `second`, then asks for
  // `first`: a cycle. PostgreSQL aborts the claim (it waited first, so its check runs first).
  let tookSecond!: () => void;
  const secondTaken = new Promise<void>((r) => (tookSecond = r));
  let claimWaiting!: () => void;
  const claimStarted = new Promise<void>((r) => (claimWaiting = r));
  const ender = m.ctx.store.db.transaction().execute(async (tx) => {
    const end = (id: string) => tx.updateTable('listings').set({ state: 'ended', end_reason: 'invalid', ended_at: 1, updated_at: 1 }).where('id', '=', id).where('state', 'in', ['active', 'reserved']).execute();
    await end(second.id);
    tookSecond();
    await claimStarted;
    await new Promise((r) => setTimeout(r, 300)); // the claim is now waiting for `second`
    await end(first.id);
  });
  let held = false;
  store.hold = async () => {
    if (held) return; // the run again reads and claims at once
    held = true;
    await secondTaken;
    claimWaiting();
  };
  const completion = new CheckoutCompletion(m.ctx, store);
  const [r, e] = await Promise.allSettled([completion.complete((await store.quote(c.q.id))!, c.signed), ender]);
  assert.equal(e.status, 'fulfilled', e.status === 'rejected' ? String(e.reason) : '');
  assert.equal(r.status, 'rejected');
  const why = (r as PromiseRejectedResult).reason;
  assert.ok(why instanceof ApiError, `the claim's real answer, not ${String(why)}`);
  assert.equal(why.code, 'checkout_changed');
  assert.deepEqual(await statesOf(ls), ['ended', 'ended']);
  assert.deepEqual(await settlementsOf(c.q.id), []);
});
