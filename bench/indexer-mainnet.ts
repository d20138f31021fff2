/**
 * The indexer on mainnet-sized blocks (#33 item 2): each block holds `txs` transactions, `cp` of
 * them Counterparty (attaches of one unit to a UTXO, which the ledger turns into attach events the
 * watchers act on), the rest ordinary payments. Made by the devnet like any transaction (each
 * verified on broadcast) and mined by its block builder; indexed by the real indexer
 * (src/indexer/indexer.ts) with every watcher of the market, as the bench market runs it.
 *
 * `indexer_mainnet_block_ms`: one such block's pass, from the run's start to its cursor moved
 * (the block bytes and events read from the devnet, prefetches, the store transaction).
 * `indexer_day_catchup_s`: `blocks` such blocks mined back to back, then one catch-up timed, and
 * scaled to a day's 144 blocks when fewer were made (`indexer_day_blocks` says how many: making a
 * block's 3,000 transactions takes the devnet longer than indexing it).
 */
import { SigHash } from '@scure/btc-signer';
import type { Context } from '../src/context.js';
import type { Devnet } from '../src/chain/devnet/devnet.js';
import { attachOutputScript } from '../src/counterparty/attach-detach.js';
import { buildTx } from '../test/helpers/devnet.js';
import { makeWallet, type TestWallet } from '../test/helpers/wallets.js';
import { fanOut } from './race.js';

export const INDEXER_BOUNDS = { block_ms: 300, day_s: 60 };
const DAY = 144;

export interface MainnetIndexer {
  txs: number;
  counterparty_txs: number;
  block_ms: number;
  block_cpu_ms: number;
  day_blocks: number;
  /** Seconds for `day_blocks` blocks, scaled to 144. */
  day_catchup_s: number;
}

/** Indexes until the cursor reaches the node's tip (runs take at most 500 blocks). */
async function catchUp(ctx: Context): Promise<void> {
  const devnet = ctx.devnet as unknown as Devnet;
  const tip = await devnet.bitcoin.getBestBlockHash();
  for (let i = 0; (await ctx.indexer.cursor())?.hash !== tip; i++) {
    if (i > 100) throw new Error('indexer bench: the indexer never caught up');
    await ctx.indexer.run();
  }
}

interface Prepared {
  payers: TestWallet[];
  fan: string;
  holders: Array<{ w: TestWallet; asset: string }>;
  holderFan: string;
}

/**
 * Everything a block's transactions spend, confirmed and indexed first: a coin for each payer
 * (one fan-out), and for the Counterparty ones ten attach coins on each of `cp / 10` holders
 * of an asset of their own.
 */
async function prepare(ctx: Context, k: number, txs: number, cp: number): Promise<Prepared> {
  const devnet = ctx.devnet as unknown as Devnet;
  const payers = Array.from({ length: txs - cp }, (_, i) => makeWallet(i % 2 ? 'p2tr' : 'p2wpkh', `mainnet-${k}-payer-${i}`));
  const fan = await fanOut(devnet, makeWallet('p2wpkh', `mainnet-${k}-fan`), payers, 10_000n);
  const holders: Prepared['holders'] = [];
  for (let i = 0; i < cp / 10; i++) {
    const w = makeWallet('p2wpkh', `mainnet-${k}-holder-${i}`);
    const { asset } = await devnet.issueAsset({ issuer: w.address, quantity_raw: '10', divisible: false });
    holders.push({ w, asset });
  }
  const holderFan = await fanOut(devnet, makeWallet('p2wpkh', `mainnet-${k}-hfan`), holders.flatMap((h) => Array<TestWallet>(10).fill(h.w)), 10_000n);
  return { payers, fan, holders, holderFan };
}

/** Broadcasts the block's transactions (payments, then attaches), then mines them in one block. */
async function fill(ctx: Context, p: Prepared): Promise<void> {
  const devnet = ctx.devnet as unknown as Devnet;
  const to = makeWallet('p2wpkh', 'mainnet-payee');
  for (const [i, w] of p.payers.entries()) {
    await devnet.bitcoin.broadcast(buildTx([{ wallet: w, coin: { txid: p.fan, vout: i, amount: 10_000n, prevTx: new Uint8Array() } }], [{ script: to.script, amount: 9_000n }]));
  }
  for (const [i, h] of p.holders.entries()) {
    for (let j = 0; j < 10; j++) {
      const coin = { txid: p.holderFan, vout: i * 10 + j, amount: 10_000n, prevTx: new Uint8Array() };
      await devnet.bitcoin.broadcast(buildTx([{ wallet: h.w, coin, sighash: SigHash.ALL }], (input0) => [
        { script: h.w.script, amount: 330n },
        { script: attachOutputScript({ input0Txid: input0, asset: h.asset, quantity: 1n, destinationVout: 0 }), amount: 0n },
        { script: h.w.script, amount: 10_000n - 330n - 1_000n },
      ]));
    }
  }
  const [hash] = await devnet.mine(1);
  const block = await devnet.bitcoin.getBlock(hash!);
  if ((block?.txs.length ?? 0) !== p.payers.length + p.holders.length * 10 + 1) throw new Error(`indexer bench: the block holds ${block?.txs.length} transactions`);
}

export async function mainnetIndexerBench(ctx: Context, opts: { txs?: number; cp?: number; dayBlocks?: number } = {}): Promise<MainnetIndexer> {
  const txs = opts.txs ?? 3_000;
  const cp = opts.cp ?? 500;
  const dayBlocks = opts.dayBlocks ?? Number(process.env.BENCH_DAY_BLOCKS ?? 6);
  // One block, indexed alone.
  const one = await prepare(ctx, 0, txs, cp);
  await catchUp(ctx);
  await fill(ctx, one);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = await ctx.indexer.run();
  const c = process.cpuUsage(c0);
  const blockMs = performance.now() - t0;
  if (r.to !== r.from) throw new Error(`indexer bench: indexed ${r.from}..${r.to}, not one block`);
  // `dayBlocks` blocks back to back, then one catch-up.
  const ready: Prepared[] = [];
  for (let k = 1; k <= dayBlocks; k++) ready.push(await prepare(ctx, k, txs, cp));
  await catchUp(ctx);
  for (const p of ready) await fill(ctx, p);
  const t1 = performance.now();
  await catchUp(ctx);
  const daySecs = (performance.now() - t1) / 1000;
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    txs,
    counterparty_txs: cp,
    block_ms: round(blockMs),
    block_cpu_ms: round((c.user + c.system) / 1000),
    day_blocks: dayBlocks,
    day_catchup_s: dayBlocks ? round((daySecs * DAY) / dayBlocks) : 0,
  };
}
