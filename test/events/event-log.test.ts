/**
 * The ordered event log (src/events/): every transition a feed shows appends to it in its own
 * transaction. Over real trades on the devnet (list, reprice, check out, confirm, reorg, confirm
 * again, delist), replaying the log — an event sets its event_id's row, a retraction removes it —
 * gives exactly the newest-first feeds; seq is strictly increasing; a reorg appends explicit
 * retractions. Then concurrent writers (on PostgreSQL: real parallel transactions) against a
 * reader following `seq > after`: the reader sees every event once, in order, none skipped.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { SigHash } from '@scure/btc-signer';
import { openMarket, signPsbt, type Market } from '../helpers/market.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { complete, newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';
import { appendEvent } from '../../src/events/append.js';
import { EventLogReader, type LogRow } from '../../src/events/log-reader.js';
import { EventsService } from '../../src/modules/events/service.js';
import { AssetLongnames } from '../../src/modules/events/asset-longnames.js';
import { eventId } from '../../src/trade/event-rows.js';
import { assertLogReplaysFeeds } from '../helpers/event-log.js';

let m: Market;
let service: EventsService;
before(async () => {
  m = await openMarket();
  service = new EventsService(m.ctx.store.db, new AssetLongnames(m.ctx.chain.counterparty));
});
after(async () => m.close());

const log = async (): Promise<LogRow[]> => new EventLogReader(m.ctx.store.db).all(0, 10_000);

void test('real trades: the log replays to exactly the feeds, in strictly increasing seq, with retractions on a reorg', async () => {
  const s = await newSeller(m, 'p2wpkh', 'evlog', 2);
  const buyer = await newBuyer(m, 'p2tr', 'evlog');
  const sold = await listUnit(m, s, 25_000);
  const kept = await listUnit(m, s, 30_000);
  await m.sync();

  // A reprice: the listed event shows the new ask.
  m.clock.advance(2_000);
  const pf = await m.call('POST', '/v1/listings/batch', s.token, { action: 'reprice_preflight', listings: [{ listing_id: kept.id, price_sats: 31_000 }] });
  assert.equal(pf.status, 200, JSON.stringify(pf.body));
  const half = signPsbt(pf.body.result.listings[0].listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY);
  const rp = await m.call('POST', `/v1/listings/${kept.id}/reprice`, s.token, { psbt_hex: half });
  assert.equal(rp.status, 200, JSON.stringify(rp.body));

  m.clock.advance(2_000);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: sold.id }], fee_rate: 2 });
  const c = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.equal(c.status, 200, JSON.stringify(c.body));
  m.clock.advance(2_000);
  await m.mine();
  await m.sync();
  const fill = await m.ctx.store.db.selectFrom('fills').selectAll().where('ref_id', '=', sold.id).executeTakeFirstOrThrow();
  assert.equal(fill.state, 'confirmed');

  // A reorg disconnects the sale's block: its confirmations are retracted in the log.
  const beforeReorg = (await log()).length;
  m.clock.advance(2_000);
  await m.devnet.reorg(1);
  await m.ctx.indexer.run();
  const reorged = (await log()).slice(beforeReorg);
  const retracted = reorged.filter((e) => e.kind === 'event_retracted').map((e) => [e.feed, e.address, e.retracts]);
  assert.deepEqual(retracted.sort(), [
    ['owner', buyer.w.address, eventId('purchase_confirmed', fill.id)],
    ['owner', s.w.address, eventId('sale_confirmed', fill.id)],
  ].sort());
  assert.ok(reorged.some((e) => e.kind === 'sale' && JSON.parse(e.row_json).confirmed_at === null), 'the sale again, unconfirmed');

  // Mined again, then the other listing delisted.
  m.clock.advance(2_000);
  await m.mine();
  await m.sync();
  m.clock.advance(2_000);
  assert.equal((await m.call('POST', `/v1/listings/${kept.id}/delist`, s.token)).status, 200);
  await m.sync();

  const entries = await log();
  assert.ok(entries.length >= 12, `log holds the flow (${entries.length})`);
  entries.forEach((e, i) => assert.equal(e.seq, i + 1, 'seq strictly increasing, one writer here: no gaps'));

  await assertLogReplaysFeeds(m);
  assert.ok(entries.some((e) => e.feed === 'owner' && e.address === buyer.w.address), 'the buyer has owner entries');
  const kinds = new Set(entries.map((e) => e.kind));
  for (const k of ['listed', 'sale', 'delisted', 'listing_filled', 'sale_confirmed', 'purchase_confirmed', 'listing_delisted', 'event_retracted']) assert.ok(kinds.has(k), `log has ${k}`);
});

void test('concurrent writers: a reader following seq > after sees every committed event once, in order', async () => {
  const db = m.ctx.store.db;
  const reader = new EventLogReader(db);
  const start = (await reader.head()).last;
  const WRITERS = 6;
  const WRITER = 'test-writers'; // an owner feed of its own, so the other tests' feeds stay real
  const TXS = 15;
  let done = false;
  // Each transaction appends 1-3 events and holds itself open a random while first, so commits interleave.
  const writers = Array.from({ length: WRITERS }, (_, w) =>
    (async () => {
      for (let t = 0; t < TXS; t++) {
        await db.transaction().execute(async (tx) => {
          await tx.selectFrom('event_seq').select('last').execute();
          await sleep(Math.random() * 4);
          for (let k = 0; k <= (w + t) % 3; k++) appendEvent(tx, { event_id: `ev_w${w}_${t}_${k}`, feed: 'owner', address: WRITER, kind: 'test', at: 1, row: { w, t, k } });
        });
      }
    })(),
  );
  // One rolled-back appender: its numbers are never seen and leave no hole a reader waits on.
  const aborted = db
    .transaction()
    .execute(async (tx) => {
      appendEvent(tx, { event_id: 'ev_aborted', feed: 'owner', address: WRITER, kind: 'test', at: 1, row: {} });
      throw new Error('rollback');
    })
    .catch(() => undefined);
  const all = Promise.all([...writers, aborted]).then(() => (done = true));
  const seen: number[] = [];
  let position = start;
  for (;;) {
    const finished = done;
    const page = await reader.page({ feed: 'owner', address: WRITER }, position, 7);
    for (const r of page) seen.push(r.seq);
    if (page.length) position = page[page.length - 1]!.seq;
    else if (finished) break;
    else await sleep(1);
  }
  await all;
  const committed = (await reader.page({ feed: 'owner', address: WRITER }, start, 10_000)).map((r) => r.seq);
  assert.equal(committed.length, WRITERS * TXS * 2, 'every append committed once (the rolled-back one is absent)');
  assert.deepEqual(seen, committed, 'the reader saw every committed event, in order, none skipped');
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! > seen[i - 1]!);
});

void test('after= on both feeds: ascending, resumable pages equal to the log; cursor with after is 400; a pruned position is 410 resync_required', async () => {
  const entries = await log();
  const seller = entries.find((e) => e.kind === 'listing_filled')!.address!;
  const follow = async (base: string, token: string | null) => {
    const got: Array<Record<string, any>> = [];
    let after = 0;
    for (;;) {
      const r = await m.call('GET', `${base}${base.includes('?') ? '&' : '?'}after=${after}&limit=4`, token);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(Object.keys(r.body).sort(), ['next_after', 'result', 'result_count']);
      if (!r.body.result.length) {
        assert.equal(r.body.next_after, after, 'an empty read keeps the position');
        return got;
      }
      got.push(...r.body.result);
      after = r.body.next_after;
    }
  };
  await m.ctx.cache.clear();
  assert.deepEqual(await follow('/v1/events', null), await service.renderPublic(entries.filter((e) => e.feed === 'public')));
  const sales = await follow('/v1/events?kind=sales', null);
  assert.ok(sales.length > 0 && sales.every((e) => e.kind === 'sale' || e.kind === 'event_retracted'));
  const token = await m.signIn((await import('../helpers/wallets.js')).makeWallet('p2wpkh', 'evlog-stranger'));
  assert.equal((await m.call('GET', `/v1/address/${seller}/events?after=0`, token)).status, 403, 'after= keeps the owner rule');

  const both = await m.call('GET', '/v1/events?after=0&cursor=abc', null);
  assert.deepEqual([both.status, both.body.code], [400, 'invalid_request']);

  // The retention job prunes everything recorded before now + 1 s: every position before the last is gone.
  const { eventLogRetentionJob } = await import('../../src/events/retention-job.js');
  const clock = { now: () => Date.now() + 1_000 + 86_400_000 };
  await eventLogRetentionJob(m.ctx.store.db, clock, 1).run();
  const head = await new EventLogReader(m.ctx.store.db).head();
  assert.equal(head.prunedThrough, head.last);
  await m.ctx.cache.clear();
  const gone = await m.call('GET', '/v1/events?after=1', null);
  assert.deepEqual([gone.status, gone.body.code, gone.body.pruned_through], [410, 'resync_required', head.last], JSON.stringify(gone.body));
  const fresh = await m.call('GET', `/v1/events?after=${head.last}`, null);
  assert.deepEqual([fresh.status, fresh.body.result], [200, []], 'resuming from the head is fine');
});
