/**
 * The start-up check of the chain (src/chain/startup-check.ts): one line per component. A
 * requirement missed (txindex off, a node that does not answer, Electrs not configured) is an
 * error with what to do; a node only catching up, and a Counterparty-backed UTXO source waiting for
 * it, is a warning, since it passes by itself (sim day 9133: an instance restarted while
 * Counterparty Core was 2 blocks behind logged two errors); a node on another network is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChainNetworkMismatch, checkChainAtStart, type StartupLogger } from '../../src/chain/startup-check.js';
import { UpstreamUnavailable, type Chain, type NodeDescription } from '../../src/chain/ports.js';

type Line = { level: 'info' | 'warn' | 'error'; component: unknown; msg: string };

function logger(): StartupLogger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: Line['level']) => (o: Record<string, unknown>, msg: string) => void lines.push({ level, component: o.component, msg });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

const node = (over: Partial<NodeDescription> = {}): NodeDescription => ({ version: 'v', network: 'mainnet', ready: true, notes: ['height 900000'], problems: [], ...over });

function chain(o: { bitcoin?: NodeDescription | Error; counterparty?: NodeDescription | Error; utxos?: Error; utxoKind?: 'counterparty-core' | 'bitcoin-core' }): Chain {
  const answer = (d: NodeDescription | Error | undefined) => async () => {
    if (d instanceof Error) throw d;
    return d ?? node();
  };
  return {
    bitcoin: { kind: 'bitcoin-core', describeNode: answer(o.bitcoin) },
    counterparty: { kind: 'counterparty-core', describeNode: answer(o.counterparty) },
    utxos: {
      kind: o.utxoKind ?? 'counterparty-core',
      seesMempool: true,
      probe: async () => {
        if (o.utxos) throw o.utxos;
        return 'answers';
      },
    },
  } as unknown as Chain;
}

const levels = (l: { lines: Line[] }) => l.lines.map((x) => `${String(x.component)} ${x.level}`);
const notReady = () => new UpstreamUnavailable('counterparty', 'counterparty /v2/bitcoin/addresses/a/utxos: Counterparty not ready (HTTP 503)', 503, { retryAfterSeconds: 30 });

void test('every component fit: one info line each', async () => {
  const l = logger();
  const checks = await checkChainAtStart(chain({}), 'mainnet', l);
  assert.deepEqual(levels(l), ['bitcoin info', 'counterparty info', 'utxos info']);
  assert.ok(checks.every((c) => c.ok));
});

void test('Counterparty Core catching up, its UTXO source refused meanwhile: warnings that say so, not errors', async () => {
  const l = logger();
  const checks = await checkChainAtStart(chain({ counterparty: node({ ready: false, notes: ['height 324', 'catching up: parsed 324 of 326 blocks'] }), utxos: notReady() }), 'mainnet', l);
  assert.deepEqual(levels(l), ['bitcoin info', 'counterparty warn', 'utxos warn']);
  assert.match(l.lines[1]!.msg, /counterparty is catching up \(height 324, catching up: parsed 324 of 326 blocks\)/);
  assert.deepEqual(checks.map((c) => c.ok), [true, false, false], 'not fit yet: /readyz answers 503 until it has caught up');
});

void test('Bitcoin Core in initial block download: a warning', async () => {
  const l = logger();
  await checkChainAtStart(chain({ bitcoin: node({ ready: false, notes: ['initial block download: 800000 of 900000 headers'] }) }), 'mainnet', l);
  assert.deepEqual(levels(l), ['bitcoin warn', 'counterparty info', 'utxos info']);
});

void test('a requirement missed is an error, even while catching up; a UTXO source failing on its own is an error', async () => {
  const l = logger();
  await checkChainAtStart(
    chain({
      bitcoin: node({ ready: false, problems: ['txindex is off: start bitcoind with -txindex=1'] }),
      counterparty: node({ ready: false }),
      utxos: new UpstreamUnavailable('counterparty', 'Electrs server not configured', 503, { cause: 'electrs' }),
      utxoKind: 'bitcoin-core',
    }),
    'mainnet',
    l,
  );
  assert.deepEqual(levels(l), ['bitcoin error', 'counterparty warn', 'utxos error']);
  const unreachable = logger();
  await checkChainAtStart(chain({ counterparty: new Error('connect ECONNREFUSED 127.0.0.1:4000') }), 'mainnet', unreachable);
  assert.deepEqual(levels(unreachable), ['bitcoin info', 'counterparty error', 'utxos info']);
});

void test('a node on another network is an error and refuses the start', async () => {
  const l = logger();
  await assert.rejects(checkChainAtStart(chain({ bitcoin: node({ network: 'testnet4', ready: false }) }), 'mainnet', l), ChainNetworkMismatch);
  assert.deepEqual(levels(l), ['bitcoin error', 'counterparty info', 'utxos info']);
});
