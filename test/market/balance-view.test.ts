/**
 * The balance-view watcher against a scripted Counterparty port: what a block refreshes
 * (touched, never read, stale, oldest), whole units, a failing asset skipped, an unavailable
 * upstream failing the block, rollback, and as_of_event_index.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { testApp, type TestApp } from '../helpers/app.js';
import { unreachableChain } from '../helpers/chain.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { balanceViewWatcher, wholeUnits } from '../../src/modules/market/balance-view-watcher.js';
import { UpstreamUnavailable, type CounterpartyBackend, type CpBalance, type CpEvent } from '../../src/chain/ports.js';
import type { IndexedBlock } from '../../src/indexer/indexer.js';

let t: TestApp;
const A = 'bcrt1qaaaaaaaaaaaaaaaaaa';
const B = 'bcrt1qbbbbbbbbbbbbbbbbbb';

/** Balances and asset facts per asset; `calls` records what was read. */
const ledger = new Map<string, { divisible: boolean; longname?: string; rows: CpBalance[] } | 'boom' | 'down'>();
const calls: string[] = [];
const cp = {
  kind: 'devnet',
  async getAssetBalances(asset: string) {
    calls.push(`balances:${asset}`);
    const e = ledger.get(asset);
    if (e === 'boom') throw new Error('unexpected reply');
    if (e === 'down') throw new UpstreamUnavailable('counterparty', 'down');
    return e ? e.rows : [];
  },
  async getAsset(asset: string) {
    calls.push(`asset:${asset}`);
    const e = ledger.get(asset);
    if (!e || typeof e === 'string') return null;
    return { asset, asset_id: '1', asset_longname: e.longname ?? null, divisible: e.divisible, locked: false, supply_raw: '0', issuer: null, owner: null, description: '', first_issuance_block_index: 1 };
  },
} as unknown as CounterpartyBackend;

const bal = (asset: string, address: string, q: string, utxo: string | null = null): CpBalance => ({ asset, asset_longname: null, quantity_raw: q, utxo, address });
const block = (height: number, events: Array<Partial<CpEvent> & { event_index: number }>): IndexedBlock => ({
  block: { height, hash: `h${height}`, prev_hash: `h${height - 1}`, time: 0, txs: [] },
  events: events.map((e) => ({ event: 'CREDIT', tx_hash: null, block_index: height, params: {}, ...e })),
  seenAt: height * 1000,
});

const watcher = () => balanceViewWatcher(t.ctx.store.db, cp, pino({ level: 'silent' }), { backfillPerBlock: 2, sweepPerBlock: 1, sweepAgeBlocks: 10, concurrency: 1 });
async function apply(height: number, events: Array<Partial<CpEvent> & { event_index: number }> = []) {
  const w = watcher();
  const b = block(height, events);
  calls.length = 0;
  const pre = await w.prefetch!(b);
  await t.ctx.store.db.transaction().execute((tx) => w.onBlock(tx, b, pre));
  return [...calls];
}
const held = async (asset: string) =>
  (await t.ctx.store.db.selectFrom('cp_holdings').select(['address', 'units']).where('asset', '=', asset).orderBy('address').execute()).map((r) => [r.address, Number(r.units)]);
const asOf = async () => (await t.ctx.store.db.selectFrom('cp_view_blocks').select('as_of_event_index').orderBy('height', 'desc').limit(1).executeTakeFirst())?.as_of_event_index ?? null;

before(async () => {
  t = await testApp({ chain: unreachableChain() });
  await importCatalog(t.ctx.store.db, {
    collections: [{ slug: 'c', name: 'C' }],
    artists: [],
    assets: ['VIEWA', 'VIEWB', 'VIEWC', 'VIEWD', 'VIEWE'].map((asset) => ({ asset, collection: 'c' })),
  });
  ledger.set('VIEWA', { divisible: false, rows: [bal('VIEWA', A, '2'), bal('VIEWA', A, '1', 'aa:0'), bal('VIEWA', B, '1', 'bb:1')] });
  ledger.set('VIEWB', { divisible: true, longname: 'PARENT.b', rows: [bal('VIEWB', A, '150000000'), bal('VIEWB', A, '50000000', 'cc:0'), bal('VIEWB', B, '99999999')] });
  ledger.set('VIEWC', 'boom');
  // VIEWD, VIEWE: not issued
});
after(async () => t.close());

test('whole units: raw summed per owner before dividing; fractions dropped', () => {
  assert.deepEqual([...wholeUnits([bal('X', A, '150000000'), bal('X', A, '50000000', 'u:0'), bal('X', B, '99999999')], true)], [[A, 2]]);
  assert.deepEqual([...wholeUnits([bal('X', A, '2'), bal('X', A, '1', 'u:0'), { ...bal('X', B, '5', 'v:0'), address: null }], false)], [[A, 3]]);
});

test('first blocks read never-seen catalogue assets, a bounded batch at a time; a failing asset is skipped', async () => {
  const first = await apply(100, [{ event_index: 7 }]);
  assert.deepEqual(first, ['balances:VIEWA', 'asset:VIEWA', 'balances:VIEWB', 'asset:VIEWB'], 'two per block, by name');
  assert.deepEqual(await held('VIEWA'), [[A, 3], [B, 1]], 'the attached unit counts for its owner');
  assert.deepEqual(await held('VIEWB'), [[A, 2]]);
  const b = await t.ctx.store.db.selectFrom('cp_assets').selectAll().where('asset', '=', 'VIEWB').executeTakeFirstOrThrow();
  assert.deepEqual([b.asset_longname, Number(b.divisible), Number(b.refreshed_height), Number(b.stale)], ['PARENT.b', 1, 100, 0]);
  assert.equal(await asOf(), 7);

  const second = await apply(101);
  assert.deepEqual(second, ['balances:VIEWC', 'balances:VIEWD', 'asset:VIEWD'], 'VIEWC fails and is skipped; VIEWD is unknown to Counterparty');
  assert.equal(await asOf(), 7, 'a block without events keeps the last index');
  const d = await t.ctx.store.db.selectFrom('cp_assets').selectAll().where('asset', '=', 'VIEWD').executeTakeFirstOrThrow();
  assert.equal(d.divisible, null);
  assert.equal(await t.ctx.store.db.selectFrom('cp_assets').select('asset').where('asset', '=', 'VIEWC').executeTakeFirst(), undefined);

  const third = await apply(102, [{ event_index: 9, params: { asset: 'VIEWA' } }, { event_index: 8, params: { asset: 'NOTCATALOGUED' } }]);
  assert.deepEqual(third, ['balances:VIEWA', 'balances:VIEWC', 'balances:VIEWE', 'asset:VIEWE'], 'touched first (divisibility known: no asset read), then the backlog');
  assert.equal(await asOf(), 9);
});

test('a touched asset is read again; an unavailable upstream fails the block before anything is written', async () => {
  ledger.set('VIEWA', { divisible: false, rows: [bal('VIEWA', B, '4')] });
  ledger.set('VIEWC', { divisible: false, rows: [bal('VIEWC', B, '1')] });
  await apply(103, [{ event_index: 10, params: { asset: 'VIEWA' } }]);
  assert.deepEqual(await held('VIEWA'), [[B, 4]]);
  assert.deepEqual(await held('VIEWC'), [[B, 1]]);
  ledger.set('VIEWB', 'down');
  await assert.rejects(apply(104, [{ event_index: 11, params: { asset: 'VIEWB' } }]), UpstreamUnavailable);
  assert.deepEqual(await held('VIEWB'), [[A, 2]], 'unchanged');
  assert.equal(await asOf(), 10);
});

test('rollback: assets read at or above the fork are stale, read again with the next block; the index goes back', async () => {
  ledger.set('VIEWB', { divisible: true, rows: [bal('VIEWB', B, '300000000')] });
  await t.ctx.store.db.transaction().execute((tx) => watcher().rollback(tx, 103));
  assert.equal(await asOf(), 9);
  const stale = await t.ctx.store.db.selectFrom('cp_assets').select('asset').where('stale', '=', 1).orderBy('asset').execute();
  assert.deepEqual(stale.map((r) => r.asset), ['VIEWA', 'VIEWC']);
  const next = await apply(103, [{ event_index: 12 }]);
  assert.deepEqual(next, ['balances:VIEWA', 'balances:VIEWC']);
  assert.equal(await asOf(), 12);
  assert.equal((await t.ctx.store.db.selectFrom('cp_assets').select('asset').where('stale', '=', 1).execute()).length, 0);
});

test('the sweep re-reads the asset read longest ago once it is older than the sweep age', async () => {
  assert.deepEqual(await apply(110), [], 'nothing due: VIEWB was read at 100, not older than 10 blocks yet');
  assert.deepEqual(await apply(111), ['balances:VIEWB']);
  assert.deepEqual(await held('VIEWB'), [[B, 3]]);
});
