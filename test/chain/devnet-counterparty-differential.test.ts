/**
 * Differential test: the same requests to the devnet's Counterparty face and to Counterparty Core's
 * recorded replies (test/fixtures/counterparty-core: the examples of Core v11.2.0's API
 * description, recorded with `verbose=true`, and Core's failure replies), compared by shape: the
 * envelope's keys, each row's keys and each value's JSON type (null matches any type: Core's
 * columns are nullable). Non-verbose requests are compared with the recorded rows less what
 * `verbose` adds (`asset_info`, `*_normalized`, `*_block_time`/`block_time`). Every route the
 * market's adapter or an integrator of the market calls is covered; the test reports each difference.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';
import { COUNTERPARTY_ERROR_REPLIES } from '../helpers/fixtures.js';
import { buildTx, fund } from '../helpers/devnet.js';
import { makeWallet } from '../helpers/wallets.js';
import { example } from './adapters/counterparty-replay.js';
import { startDevnetFaces, type DevnetFaces } from './devnet-faces.js';

const alice = makeWallet('p2wpkh', 'cp-diff-alice');
const failures = JSON.parse(fs.readFileSync(COUNTERPARTY_ERROR_REPLIES, 'utf8')) as Record<string, { status: number; body: Record<string, unknown> }>;
let f: DevnetFaces;
let utxo: string;
let block: number;
let numeric: string;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/**
 * What `verbose=true` adds (verbose.py): `asset_info`, `*_normalized`, the issuance block times, and
 * `block_time` beside a `block_index` (on event rows and their params; a block row's and
 * NEW_BLOCK's own `block_time` are columns, kept).
 */
function strip(v: Json, eventRow = false, eventName?: string): Json {
  if (Array.isArray(v)) return v.map((x) => strip(x));
  if (v === null || typeof v !== 'object') return v;
  const isEvent = 'event_index' in v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => k !== 'asset_info' && !k.endsWith('_normalized') && !k.endsWith('_issuance_block_time'))
      .filter(([k]) => k !== 'block_time' || !(isEvent || (eventRow && eventName !== 'NEW_BLOCK')))
      .map(([k, x]) => [k, k === 'params' && isEvent ? strip(x, true, String(v.event)) : strip(x)]),
  );
}

/** `/utxos/withbalances` answers a map keyed by the outpoints asked: compare its values' shape. */
const keyless = (v: Json): Json => (v && typeof v === 'object' && !Array.isArray(v) && typeof v.result === 'object' && v.result && !Array.isArray(v.result) ? { ...v, result: { any: Object.values(v.result)[0] ?? null } } : v);

/**
 * Differences between two values' shapes, as `path: what` lines. Lists compare their first row's
 * shape with every row of the other (rows of one route share a shape); for event rows, only rows
 * of the same event name are compared (their params differ by event).
 */
function diff(want: Json, got: Json, path = '$'): string[] {
  const tw = typeOf(want);
  const tg = typeOf(got);
  if (tw === 'null' || tg === 'null') return [];
  if (tw !== tg) return [`${path}: recorded ${tw}, devnet ${tg}`];
  if (tw === 'array') {
    const w = want as Json[];
    const g = got as Json[];
    const out: string[] = [];
    for (const row of g) {
      const name = typeOf(row) === 'object' ? (row as Record<string, Json>).event : undefined;
      const peer = name !== undefined ? w.find((x) => typeOf(x) === 'object' && (x as Record<string, Json>).event === name) : w[0];
      if (peer !== undefined) out.push(...diff(peer, row, `${path}[]`));
    }
    return [...new Set(out)];
  }
  if (tw !== 'object') return [];
  const w = want as Record<string, Json>;
  const g = got as Record<string, Json>;
  const out: string[] = [];
  for (const k of Object.keys(w)) if (!(k in g)) out.push(`${path}.${k}: recorded, missing on the devnet`);
  for (const k of Object.keys(g)) if (!(k in w)) out.push(`${path}.${k}: on the devnet, not recorded`);
  for (const k of Object.keys(w)) if (k in g) out.push(...diff(w[k]!, g[k]!, `${path}.${k}`));
  return out;
}

async function devnet(path: string): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(`${f.base}/devnet/counterparty/v2${path}`);
  return { status: res.status, body: JSON.parse(await res.text()) as Json, headers: res.headers };
}

before(async () => {
  f = await startDevnetFaces({ attachFeeRaw: '0' });
  await f.t.devnet.issueAsset({ asset: 'DIFFCARD', issuer: alice.address, quantity_raw: '10', divisible: false, description: 'a card' });
  await f.t.devnet.issueAsset({ longname: 'DIFFCARD.FOIL', issuer: alice.address, quantity_raw: '5', divisible: false });
  await f.t.devnet.credit(alice.address, 'XCP', '500000000');
  numeric = (await f.cp.getAddressBalances(alice.address)).find((b) => b.asset_longname === 'DIFFCARD.FOIL')!.asset;
  const coin = await fund(f.t.devnet, alice, 50_000);
  const attach = buildTx([{ wallet: alice, coin }], (input0) => [
    { script: alice.script, amount: 40_000n },
    { script: attachOutputScript({ input0Txid: input0, asset: 'DIFFCARD', quantity: 1n, destinationVout: 0 }), amount: 0n },
  ]);
  const txid = await f.btc.broadcast(attach);
  await f.t.devnet.mine(1);
  utxo = `${txid}:0`;
  block = (await f.btc.getTip()).height;
});
after(() => f.close());

/** [request path on the devnet, the recorded route whose example it is compared with]. */
const cases = (): Array<[string, string]> => [
  ['/', '/v2/'],
  [`/addresses/${alice.address}/balances`, '/v2/addresses/{address}/balances'],
  [`/utxos/${utxo}/balances`, '/v2/utxos/{utxo}/balances'],
  ['/assets/DIFFCARD', '/v2/assets/{asset}'],
  ['/assets/DIFFCARD/balances', '/v2/assets/{asset}/balances'],
  [`/utxos/withbalances?utxos=${utxo},${'ab'.repeat(32)}:1`, '/v2/utxos/withbalances'],
  ['/compose/attach/estimatexcpfees', '/v2/compose/attach/estimatexcpfees'],
  [`/blocks/${block}/events`, '/v2/blocks/{block_index}/events'],
  [`/blocks/${block}/events/CREDIT`, '/v2/blocks/{block_index}/events/{event}'],
  ['/blocks/last', '/v2/blocks/last'],
  [`/blocks/${block}`, '/v2/blocks/{block_index}'],
  ['/events', '/v2/events'],
];

void describe('devnet Counterparty face ≡ Core v11.2.0 recorded replies (shapes)', () => {
  void it('verbose=true: every route the market or an integrator calls has the recorded shape', async () => {
    const report: string[] = [];
    for (const [path, route] of cases()) {
      const r = await devnet(`${path}${path.includes('?') ? '&' : '?'}verbose=true`);
      assert.equal(r.status, 200, path);
      const [want, got] = route === '/v2/utxos/withbalances' ? [keyless(example(route) as Json), keyless(r.body)] : [example(route) as Json, r.body];
      report.push(...diff(want, got).map((d) => `${route} (verbose): ${d}`));
    }
    assert.deepEqual(report, []);
  });

  void it('without verbose: the recorded shape less what verbose adds', async () => {
    const report: string[] = [];
    for (const [path, route] of cases()) {
      const r = await devnet(path);
      const [want, got] = route === '/v2/utxos/withbalances' ? [keyless(example(route) as Json), keyless(r.body)] : [strip(example(route) as Json), r.body];
      report.push(...diff(want, got).map((d) => `${route}: ${d}`));
      // And nothing verbose-only leaks into a plain reply.
      const leaked = JSON.stringify(r.body).match(/"(asset_info|[a-z_]+_normalized)"/);
      if (leaked) report.push(`${route}: ${leaked[1]} without verbose`);
    }
    assert.deepEqual(report, []);
  });

  void it('balance rows leave a subasset’s longname null (Core); its asset info carries it', async () => {
    const rows = (await devnet(`/addresses/${alice.address}/balances?verbose=true`)).body as { result: Array<Record<string, Json>> };
    const sub = rows.result.find((x) => x.asset === numeric)!;
    assert.equal(sub.asset_longname, null);
    assert.equal((sub.asset_info as Record<string, Json>).asset_longname, 'DIFFCARD.FOIL');
    assert.equal(((await devnet('/assets/diffcard.foil')).body as { result: Record<string, Json> }).result.asset, numeric);
  });

  void it('/assets/XCP as Core: null asset_id, no issuer, first issuance 278319', async () => {
    const recorded = failures.xcp_asset!.body as Json;
    const r = await devnet('/assets/XCP');
    assert.deepEqual(diff(recorded, r.body), []);
    const row = (r.body as { result: Record<string, Json> }).result;
    assert.deepEqual([row.asset_id, row.issuer, row.owner, row.first_issuance_block_index, row.last_issuance_block_index], [null, null, null, 278319, 283810]);
  });

  void it('strict parameters: Core’s 400s, word for word', async () => {
    const bad: Array<[string, string]> = [
      [`/addresses/${alice.address}/balances?bogus=1&zzz=2`, 'Unrecognized parameter(s): bogus, zzz'],
      [`/addresses/${alice.address}/balances?limit=0`, failures.limit_zero!.body.error as string],
      [`/bitcoin/addresses/${alice.address}/utxos?unconfirmed=maybe`, failures.invalid_boolean!.body.error as string],
      [`/bitcoin/addresses/${alice.address}/utxos?unconfirmed=true&bogus=1`, failures.unrecognized_parameter!.body.error as string],
      ['/assets/DIFFCARD/balances?type=nope', 'Invalid value for type: nope (expected one of: all, utxo, address)'],
      ['/addresses/nope/balances', 'Invalid address: nope'],
    ];
    for (const [path, error] of bad) {
      const r = await devnet(path);
      assert.deepEqual([r.status, r.body], [400, { error }], path);
    }
    // `verbose` is accepted on every route whatever its value; `none` is an absent parameter; a limit above 1000 is served (capped).
    for (const path of [`/utxos/${utxo}/balances?verbose=maybe`, `/addresses/${alice.address}/balances?cursor=none`, '/events?limit=5000']) {
      assert.equal((await devnet(path)).status, 200, path);
    }
    assert.equal(((await devnet('/assets/diffcard')).body as { result: Record<string, Json> }).result.asset, 'DIFFCARD');
  });

  void it('faults: not ready (503 on every route but /v2/) and Electrs absent or down (400 with Core’s text)', async () => {
    const d = f.t.devnet;
    try {
      d.counterpartyFault = 'not_ready';
      const r = await devnet(`/addresses/${alice.address}/balances`);
      assert.deepEqual([r.status, r.body, r.headers.get('x-counterparty-ready')], [503, failures.counterparty_not_ready!.body, 'False']);
      assert.equal((await devnet(`/blocks/${block}/events`)).status, 503);
      const root = await devnet('/');
      assert.deepEqual([root.status, (root.body as { result: Record<string, Json> }).result.server_ready], [200, false]);
      assert.equal((await f.cp.getStatus()).ready, false);

      d.counterpartyFault = 'electrs_not_configured';
      const nc = await devnet(`/bitcoin/addresses/${alice.address}/utxos`);
      assert.deepEqual([nc.status, nc.body], [400, failures.electrs_not_configured!.body]);
      d.counterpartyFault = 'electrs_failed';
      const down = await devnet(`/bitcoin/addresses/${alice.address}/utxos`);
      assert.equal(down.status, 400);
      assert.match((down.body as { error: string }).error, /^All Electrs backends failed\. Last error: /);
      assert.equal((await devnet(`/addresses/${alice.address}/balances`)).status, 200, 'only the Electrs route fails');
    } finally {
      d.counterpartyFault = 'none';
    }
  });

  void it('/v2/bitcoin/addresses/{a}/utxos has Core’s row shape (Electrs rows plus amount)', async () => {
    await fund(f.t.devnet, alice, 20_000);
    const r = await devnet(`/bitcoin/addresses/${alice.address}/utxos?unconfirmed=true`);
    assert.deepEqual(diff(failures.address_utxos!.body as Json, r.body), []);
  });
});
