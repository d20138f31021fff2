/**
 * What `scantxoutset` costs on a real Bitcoin Core as its UTXO set grows, for the
 * UTXO_SOURCE=bitcoin-core adapter (docs/operating.md): a regtest node (BITCOIND) is given a
 * UTXO set of `--utxos` outputs (default 1,000,000) made by real signed transactions of 2,500
 * outputs each, then one address's coins are scanned for, three times, at the start and at the
 * full size. The scan walks the whole chainstate whatever it looks for, so its time is linear in
 * the set's size: the figure per million outputs, times mainnet's set, is what one wallet read
 * costs there.
 *
 *   BITCOIND=/path/to/bitcoind npx tsx bench/core-utxo-scan.ts [--utxos 1000000] [--json]
 */
import { performance } from 'node:perf_hooks';
import { startBitcoind } from '../test/real-core/bitcoind.js';
import { outCoin, pay } from '../test/real-core/shapes.js';
import { makeWallet } from '../test/helpers/wallets.js';

const arg = (name: string, fallback: number) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback);
const UTXOS = arg('--utxos', 1_000_000);
const PER_TX = 2_500;
/** Mainnet's UTXO set, order of magnitude at the time of writing (gettxoutsetinfo: about 170 million). */
const MAINNET_UTXOS = 170_000_000;
const JSON_OUT = process.argv.includes('--json');
const say = (s: string) => (JSON_OUT ? process.stderr : process.stdout).write(s + '\n');

const funder = makeWallet('p2wpkh', 'scan-funder');
const filler = makeWallet('p2wpkh', 'scan-filler');
const scanned = makeWallet('p2wpkh', 'scan-target');

const core = await startBitcoind(['-maxmempool=1000']);
/** The raw coinbase transaction of the block at `height`. */
const coinbaseAt = async (height: number) => {
  const hash = await core.rpc<string>('getblockhash', height);
  return (await core.rpc<{ tx: Array<{ hex: string }> }>('getblock', hash, 2)).tx[0]!.hex;
};
try {
  const txs = Math.ceil(UTXOS / PER_TX);
  say(`${core.version}: building a set of ${txs * PER_TX} outputs (${txs} transactions of ${PER_TX})`);
  const built = performance.now();
  await core.rpc('generatetoaddress', txs, funder.address);
  await core.rpc('generatetoaddress', 100, scanned.address);
  const scan = async () => {
    const times: number[] = [];
    let found = 0;
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const r = await core.rpc<{ success: boolean; unspents: unknown[] }>('scantxoutset', 'start', [`addr(${scanned.address})`]);
      times.push(performance.now() - t);
      found = r.unspents.length;
    }
    const info = await core.rpc<{ txouts: number }>('gettxoutsetinfo', 'none');
    return { txouts: info.txouts, ms: Math.min(...times), found };
  };
  const before = await scan();

  for (let h = 1; h <= txs; h++) {
    const coinbase = outCoin(await coinbaseAt(h), 0);
    await core.rpc('sendrawtransaction', pay(funder, coinbase, filler, 100_000n, { outputs: PER_TX }));
    // A block holds about twelve of these (78 kvB each): mine as the mempool fills.
    if (h % 12 === 0 || h === txs) await core.rpc('generatetoaddress', 1, scanned.address);
  }
  const buildS = (performance.now() - built) / 1000;
  const after = await scan();

  // The whole scan over the whole set (its fixed part, a chainstate flush, included): an upper bound per million.
  const perMillion = (after.ms / after.txouts) * 1e6;
  const figures = {
    core_version: core.version,
    scan_utxos_small: before.txouts,
    scan_ms_small: Math.round(before.ms * 10) / 10,
    scan_utxos: after.txouts,
    scan_ms: Math.round(after.ms),
    scan_ms_per_million_utxos: Math.round(perMillion),
    scan_ms_mainnet_estimate: Math.round(perMillion * (MAINNET_UTXOS / 1e6)),
    scan_found: after.found,
    set_build_s: Math.round(buildS),
  };
  say(`scantxoutset for one address: ${figures.scan_ms_small} ms over ${before.txouts} outputs, ${figures.scan_ms} ms over ${after.txouts} (${figures.scan_ms_per_million_utxos} ms per million; at mainnet's ~${MAINNET_UTXOS / 1e6} M: ~${(figures.scan_ms_mainnet_estimate / 1000).toFixed(0)} s)`);
  if (JSON_OUT) process.stdout.write(JSON.stringify(figures) + '\n');
} finally {
  await core.stop();
}
