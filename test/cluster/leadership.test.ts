/**
 * Leader election and fencing in process, on the backend under test. Two leaderships over one
 * store stand for two instances: a new leader's epoch makes the old one's indexer block and
 * journal release fail (FencedOut) and change nothing, while the new leader's apply. On
 * PostgreSQL the takeover is real: the leader's session is terminated (it loses every role at
 * once), the follower's next tick takes the role; a leader that stops hands over at once
 * (notification, not the follower's tick); and GET /metrics shows the roles this instance leads.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import pino from 'pino';
import { openMarket, type Market } from '../helpers/market.js';
import { backend, pgUrl } from '../helpers/store.js';
import { until } from '../helpers/crash.js';
import { LocalLeadership, type Leadership } from '../../src/cluster/leadership.js';
import { PgLeadership } from '../../src/cluster/pg-leadership.js';
import { FencedOut, type Lease } from '../../src/cluster/fence.js';

let m: Market | undefined;
const started: Leadership[] = [];
after(async () => {
  for (const l of started) await l.stop();
  await m?.close();
});

/** An instance's leadership over the market's store; `intervalMs` is its tick (PostgreSQL). */
function instance(name: string, intervalMs = 100): Leadership {
  const s = m!.ctx.store;
  const l =
    s.dialect === 'postgres'
      ? new PgLeadership(s.db, s.url, s.schema!, name, intervalMs, pino({ level: 'silent' }), () => Date.now())
      : new LocalLeadership(s.db, name, () => Date.now());
  started.push(l);
  return l;
}

async function lead(l: Leadership, roles: string[]): Promise<Map<string, Lease | undefined>> {
  const seen = new Map<string, Lease | undefined>();
  await l.start(roles, async (role, lease) => void seen.set(role, lease));
  return seen;
}

const height = async () => Number((await m!.ctx.indexer.cursor())?.height);

void test('a stale leader cannot apply a block or release a settlement; the new leader can', { timeout: 120_000 }, async () => {
  m = await openMarket();
  const { db } = m.ctx.store;
  // A's tick is a minute: it does not win its roles back before B's next tick.
  const a = instance('A', 60_000);
  const aSeen = await lead(a, ['indexer', 'recovery']);
  const staleA = new Map(a.held());
  const leaseA = staleA.get('indexer')!;
  assert.ok(leaseA, 'the first instance leads');
  await m.mine(1);
  await m.ctx.indexer.run(leaseA);
  const h0 = await height();

  // A journaled settlement (claims only; never relayed here) for the release race.
  const settlement = await db.transaction().execute((tx) =>
    m!.ctx.journal.journal(tx, { kind: 'fence-test', ref_id: 'r1', txs: [{ txid: 'aa'.repeat(32), hex: '00' }], claims: [`${'bb'.repeat(32)}:0`] }),
  );

  // Another instance takes the roles over: on PostgreSQL by ending A's session for real.
  const b = instance('B');
  let bSeen: Map<string, Lease | undefined>;
  if (backend === 'postgres') {
    bSeen = await lead(b, ['indexer', 'recovery']);
    assert.equal(bSeen.get('indexer'), undefined, 'the lock is held: B follows');
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    const ended = await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'market-leader A'");
    await admin.end();
    assert.equal(ended.rowCount, 1, "A's leadership session");
    await until('A to lose its roles at once', async () => (a.held().size === 0 && aSeen.get('indexer') === undefined ? true : undefined), 5_000);
    await until('B to take the roles', async () => (b.held().size === 2 ? true : undefined), 10_000);
  } else {
    bSeen = await lead(b, ['indexer', 'recovery']);
  }
  const leaseB = b.held().get('indexer')!;
  assert.equal(leaseB.epoch, leaseA.epoch + 1, 'the takeover increments the epoch');
  const row = await db.selectFrom('leader_epochs').selectAll().where('role', '=', 'indexer').executeTakeFirstOrThrow();
  assert.deepEqual([Number(row.epoch), row.holder], [leaseB.epoch, 'B']);

  // The stale leader's next block fails whole: no cursor row, no watcher write.
  await m.mine(1);
  await assert.rejects(m.ctx.indexer.run(leaseA), FencedOut);
  assert.equal(await height(), h0, 'the stale block left nothing behind');
  const r = await m.ctx.indexer.run(leaseB);
  assert.deepEqual([r.from, r.to, await height()], [h0 + 1, h0 + 1, h0 + 1], 'the new leader applies that block once');

  // The same for a journal state write by recovery.
  await assert.rejects(m.ctx.journal.release(settlement.id, 'rejected', 'test', staleA.get('recovery')), FencedOut);
  assert.equal((await m.ctx.journal.byId(settlement.id))?.state, 'journaled');
  assert.equal(await m.ctx.journal.release(settlement.id, 'rejected', 'test', b.held().get('recovery')), true);
  assert.equal((await m.ctx.journal.byId(settlement.id))?.state, 'rejected');
});

void test('PostgreSQL: a leader that stops hands its roles over at once; /metrics shows who leads', { timeout: 60_000, skip: backend !== 'postgres' && 'PostgreSQL only (on SQLite one process always leads)' }, async () => {
  m ??= await openMarket();
  // Ticks of a minute: only the stopping leader's notification can hand the role over in time.
  const c = instance('C', 60_000);
  await lead(c, ['event-log-pruning']);
  assert.equal(c.held().has('event-log-pruning'), true);
  const d = instance('D', 60_000);
  await lead(d, ['event-log-pruning']);
  assert.equal(d.held().size, 0);
  const t0 = Date.now();
  await c.stop();
  await until('D to take over', async () => (d.held().has('event-log-pruning') ? true : undefined), 5_000);
  assert.ok(Date.now() - t0 < 5_000);

  // The app's own leadership, as the serve command starts it.
  await m.ctx.leadership.start(['webhook-dispatcher', 'event-log-pruning'], async () => {});
  started.push(m.ctx.leadership);
  const text = (await m.app.inject({ method: 'GET', url: '/metrics' })).body;
  assert.match(text, /market_leader\{role="webhook-dispatcher"\} 1/);
  assert.match(text, /market_leader\{role="event-log-pruning"\} 0/);
});
