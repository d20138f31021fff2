/**
 * The indexer on one devnet block of 2,000 ordinary payments (plus the coinbase): the block
 * follower reads it, runs every watcher inside one store transaction, and moves its cursor.
 * The transactions are made and broadcast first (the devnet verifies each), then mined in one
 * block; only the indexer's pass over that block is timed.
 */
import type { Context } from '../src/context.js';
import type { Devnet } from '../src/chain/devnet/devnet.js';
import { buildTx } from '../test/helpers/devnet.js';
import { makeWallet } from '../test/helpers/wallets.js';
import { fanOut } from './race.js';

export interface IndexerResult {
  txs: number;
  ms: number;
  tx_per_s: number;
  /** The pass's process CPU (user + system), ms: on a shared machine, the figure a neighbour's load does not inflate much. */
  cpu_ms: number;
  tx_per_cpu_s: number;
}

export async function indexerBench(ctx: Context, txs = 2_000): Promise<IndexerResult> {
  const devnet = ctx.devnet as unknown as Devnet;
  const payers = Array.from({ length: txs }, (_, k) => makeWallet(k % 2 ? 'p2tr' : 'p2wpkh', `indexer-payer-${k}`));
  const fan = await fanOut(devnet, makeWallet('p2wpkh', 'indexer-fan'), payers, 10_000n);
  const to = makeWallet('p2wpkh', 'indexer-payee');
  for (const [k, w] of payers.entries()) {
    // Segwit payers: the parent's bytes are not needed to sign (and the fan-out is large).
    const coin = { txid: fan, vout: k, amount: 10_000n, prevTx: new Uint8Array() };
    await devnet.bitcoin.broadcast(buildTx([{ wallet: w, coin }], [{ script: to.script, amount: 9_000n }]));
  }
  await ctx.indexer.run();
  await devnet.mine(1);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = await ctx.indexer.run();
  const c = process.cpuUsage(c0);
  const ms = performance.now() - t0;
  const cpu = (c.user + c.system) / 1000;
  if (r.to - r.from < 0) throw new Error('indexer bench: no block indexed');
  return { txs: txs + 1, ms: Math.round(ms * 10) / 10, tx_per_s: Math.round(((txs + 1) / ms) * 1000), cpu_ms: Math.round(cpu * 10) / 10, tx_per_cpu_s: Math.round(((txs + 1) / cpu) * 1000) };
}
