/**
 * An exposed listing in the public feeds (issue 31 item 6): its checkout was released after the
 * seller's half reached the network, so it left the book at that moment, and both views (the
 * ordered log and the newest-first feed) say so with a `delisted` (reason `invalid`, at
 * exposed_at). Every later transition restates that one event (same id, same at) or withdraws it:
 * an ending (`owner`; a rotation reads `owner`; `invalid`), an unrotate or a restore to exposed
 * (`invalid` again), a sale of the exposed listing (withdrawn: the sale is its ending). After each
 * step the log replays to exactly both newest-first feeds (test/helpers/event-log.ts).
 *
 * The transitions are driven through the listing lifecycle itself (its one owner) over rows of
 * chosen times; the devnet flows that reach them are in test/checkout/exposure.test.ts.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { unreachableChain } from '../helpers/chain.js';
import { makeWallet } from '../helpers/wallets.js';
import { listingRow } from '../helpers/feed-rows.js';
import { assertLogReplaysFeeds } from '../helpers/event-log.js';
import { claimListings, createListing, endListing, exposeListing, restoreListing, sellListings, unrotateListing } from '../../src/modules/listings/lifecycle.js';
import { EventsService } from '../../src/modules/events/service.js';
import { AssetLongnames } from '../../src/modules/events/asset-longnames.js';
import { EventLogReader } from '../../src/events/log-reader.js';
import { eventId } from '../../src/trade/event-rows.js';
import type { Tx } from '../../src/store/db.js';

let t: TestApp;
const seller = makeWallet('p2wpkh', 'exposed-feed-seller').address;
const T0 = 1_700_000_000;

before(async () => {
  t = await testApp({ chain: unreachableChain() });
});
after(async () => t.close());

const tx = <T>(fn: (tx: Tx) => Promise<T>) => t.ctx.store.db.transaction().execute(fn);
/** The listing's row now (inside `x` when given: on SQLite the transaction holds the one connection). */
const row = (id: string, x?: Tx) => (x ?? t.ctx.store.db).selectFrom('listings').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** The listing's `delisted` in the newest-first public feed, as [reason, at], or null. */
async function delisted(id: string): Promise<[string | null, number] | null> {
  const service = new EventsService(t.ctx.store.db, new AssetLongnames(t.ctx.chain.counterparty));
  const now = Math.floor(t.clock.now() / 1000);
  const rows: Array<Record<string, any>> = [];
  for (let after: [number, string] | undefined; ; ) {
    const page = await service.publicPage('listings', now, 100, after);
    rows.push(...page.rows);
    if (!page.next) break;
    after = page.next;
  }
  const ev = rows.find((r) => r.event_id === eventId('delisted', id));
  return ev ? [ev.reason, ev.at] : null;
}

/** The listing's `delisted` as the ordered public log leaves it after replay, as [reason, at], or null. */
async function delistedInLog(id: string): Promise<[string | null, number] | null> {
  let last: [string | null, number] | null = null;
  for (const e of await new EventLogReader(t.ctx.store.db).all(0, 100_000)) {
    if (e.feed !== 'public') continue;
    if (e.kind === 'event_retracted' && e.retracts === eventId('delisted', id)) last = null;
    else if (e.event_id === eventId('delisted', id)) last = [JSON.parse(e.row_json).reason, e.at];
  }
  return last;
}

/** Both views agree on the listing's delisted, and it is `want`; the whole log replays to both feeds. */
async function expectDelisted(id: string, want: [string, number] | null, step: string) {
  assert.deepEqual(await delisted(id), want, `${step}: the newest-first feed`);
  assert.deepEqual(await delistedInLog(id), want, `${step}: the ordered log`);
  await assertLogReplaysFeeds(t);
}

/** A public listing (listed at T0 + k), claimed by a checkout and exposed at `at`. */
async function exposed(asset: string, k: number, at: number) {
  const l = listingRow({ seller, asset, created_at: T0 + k, activated_at: T0 + k, expires_at: T0 + 86_400 });
  await tx((x) => createListing(x, l));
  assert.ok((await tx((x) => claimListings(x, [{ id: l.id, version: l.version }], T0 + k + 1))).has(l.id));
  assert.ok(await tx(async (x) => exposeListing(x, await row(l.id, x), 'checkout_replaced', at, 'ab'.repeat(32))));
  assert.equal((await row(l.id)).state, 'exposed');
  return l;
}

void test('exposed: a public delisted (invalid, at the exposure) in both views; the seller\'s delist restates it (owner, same at)', async () => {
  const l = await exposed('PEPEONE', 10, T0 + 100);
  await expectDelisted(l.id, ['invalid', T0 + 100], 'at exposure');
  assert.ok(await tx(async (x) => endListing(x, await row(l.id, x), 'owner', T0 + 200, ['exposed'])));
  await expectDelisted(l.id, ['owner', T0 + 100], 'delisted by its owner');
});

void test('rotated: the newest-first feed shows it (owner); an unrotate restates it as the exposure (invalid); rotated again: owner', async () => {
  const l = await exposed('PEPETWO', 20, T0 + 300);
  assert.ok(await tx(async (x) => endListing(x, await row(l.id, x), 'rotated', T0 + 400, ['exposed'])));
  await expectDelisted(l.id, ['owner', T0 + 300], 'rotated');
  assert.ok(await tx((x) => unrotateListing(x, l.id, T0 + 500)));
  assert.equal((await row(l.id)).state, 'exposed');
  await expectDelisted(l.id, ['invalid', T0 + 300], 'unrotated');
  assert.ok(await tx(async (x) => endListing(x, await row(l.id, x), 'rotated', T0 + 600, ['exposed'])));
  await expectDelisted(l.id, ['owner', T0 + 300], 'rotated again');
});

void test('spent while exposed: invalid; the spend reorged out restores it to exposed, its delisted restated, never back on the book', async () => {
  const l = await exposed('CATTEN', 30, T0 + 700);
  assert.ok(await tx(async (x) => endListing(x, await row(l.id, x), 'invalid', T0 + 800, ['exposed'], { spentHeight: 120 })));
  await expectDelisted(l.id, ['invalid', T0 + 700], 'spent');
  assert.ok(await tx(async (x) => restoreListing(x, await row(l.id, x), 'exposed', T0 + 900)));
  assert.equal((await row(l.id)).state, 'exposed');
  await expectDelisted(l.id, ['invalid', T0 + 700], 'restored to exposed');
});

void test('sold from exposed (the released checkout mined after all): the delisted is withdrawn in both views', async () => {
  const l = await exposed('NONCOA', 40, T0 + 1_000);
  await expectDelisted(l.id, ['invalid', T0 + 1_000], 'exposed');
  await tx((x) => sellListings(x, [l.id], T0 + 1_100));
  assert.equal((await row(l.id)).state, 'sold');
  await expectDelisted(l.id, null, 'sold');
  const retractions = (await new EventLogReader(t.ctx.store.db).all(0, 100_000)).filter((e) => e.kind === 'event_retracted' && e.retracts === eventId('delisted', l.id));
  assert.equal(retractions.length, 1, 'one explicit withdrawal');
});

void test('a listing ended (not exposed) and sold after all: its delisted is withdrawn too, the sale is its ending', async () => {
  const l = listingRow({ seller, asset: 'ZETAONE', created_at: T0 + 50, activated_at: T0 + 50, expires_at: T0 + 86_400 });
  await tx((x) => createListing(x, l));
  assert.ok(await tx(async (x) => endListing(x, await row(l.id, x), 'invalid', T0 + 1_200, ['active'], { spentHeight: 130 })));
  await expectDelisted(l.id, ['invalid', T0 + 1_200], 'spent');
  await tx((x) => sellListings(x, [l.id], T0 + 1_300));
  await expectDelisted(l.id, null, 'sold');
});
