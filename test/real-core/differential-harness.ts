/**
 * The differential harness: one chain, two mempools. A real Bitcoin Core mines; the devnet
 * follows its blocks (src/chain/core-follow), so every coin exists on both and the very same
 * transaction bytes can be sent to each. Every call goes to Core and to the devnet's Bitcoin
 * Core JSON-RPC face (the dispatcher the market's adapter meets), and the replies (result or
 * error object) and the two mempools afterwards are compared field by field.
 */
import { hexToBytes } from '@noble/hashes/utils.js';
import { SigHash, Transaction } from '@scure/btc-signer';
import { CoreFollower } from '../../src/chain/core-follow/follower.js';
import type { Devnet } from '../../src/chain/devnet/index.js';
import { devnetRpcDispatch, RpcFault } from '../../src/chain/devnet/http/index.js';
import { testStore, type TestStoreHandle } from '../helpers/store.js';
import type { Coin } from '../helpers/devnet.js';
import { makeWallet, signInput, walletInput, type TestWallet } from '../helpers/wallets.js';
import { RpcError, startBitcoind, type Bitcoind } from './bitcoind.js';

export type Reply = { result: unknown } | { error: { code: number; message: string } };

export interface Step {
  label: string;
  method: string;
  core: Reply;
  devnet: Reply;
  differences: string[];
}

/** Field-by-field differences of two JSON values (paths like `[0].reject-reason`). */
export function differences(a: unknown, b: unknown, path = ''): string[] {
  if (a === b) return [];
  const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return [`${path || '.'}: core ${show(a)}, devnet ${show(b)}`];
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const out: string[] = [];
    if (a.length !== b.length) out.push(`${path}.length: core ${a.length}, devnet ${b.length}`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) out.push(...differences(a[i], b[i], `${path}[${i}]`));
    return out;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(ao), ...Object.keys(bo)])].sort();
  return keys.flatMap((k) => differences(ao[k], bo[k], `${path}.${k}`));
}

export class Differential {
  readonly bank = makeWallet('p2wpkh', 'real-core-bank');
  private readonly dispatch;
  private usedBankCoins = new Set<string>();
  steps: Step[] = [];

  private constructor(
    readonly core: Bitcoind,
    readonly follower: CoreFollower,
    private readonly handle: TestStoreHandle,
  ) {
    this.dispatch = devnetRpcDispatch(follower.devnet);
  }

  get devnet(): Devnet {
    return this.follower.devnet;
  }

  /** On a fresh `bitcoind` (or on `node`, anything that answers Core's RPCs). */
  static async start(node?: Bitcoind): Promise<Differential> {
    const core = node ?? (await startBitcoind());
    const handle = await testStore();
    const follower = await CoreFollower.open(handle.store, { rpcUrl: core.url, initialHeight: 0, mirrorMempool: false });
    const d = new Differential(core, follower, handle);
    // The bank's coinbases, matured: 150 blocks leave 50 spendable 50-BTC coins.
    await d.mine(150, d.bank.address);
    return d;
  }

  async stop(): Promise<void> {
    await this.follower.close().catch(() => undefined);
    await this.handle.cleanup().catch(() => undefined);
    await this.core.stop();
  }

  async coreCall(method: string, params: unknown[]): Promise<Reply> {
    try {
      return { result: await this.core.rpc(method, ...params) };
    } catch (e) {
      if (e instanceof RpcError) return { error: { code: e.code, message: e.rpcMessage } };
      throw e;
    }
  }

  async devnetCall(method: string, params: unknown[]): Promise<Reply> {
    try {
      return { result: await this.dispatch(method, params) };
    } catch (e) {
      if (e instanceof RpcFault) return { error: { code: e.code, message: e.message } };
      throw e;
    }
  }

  /** Sends one call to both (Core first), records it and the mempools after it. */
  async both(label: string, method: string, params: unknown[]): Promise<Step> {
    const core = await this.coreCall(method, params);
    const devnet = await this.devnetCall(method, params);
    const diffs = differences(core, devnet);
    const [cm, dm] = [await this.coreCall('getrawmempool', []), await this.devnetCall('getrawmempool', [])];
    const sorted = (r: Reply) => ('result' in r ? [...(r.result as string[])].sort() : r);
    const memDiffs = differences(sorted(cm), sorted(dm)).map((d) => `mempool after: ${d}`);
    const step = { label, method, core, devnet, differences: [...diffs, ...memDiffs] };
    this.steps.push(step);
    return step;
  }

  /** Mines on Core, then the devnet follows the blocks. */
  async mine(blocks = 1, address = this.bank.address): Promise<void> {
    await this.core.rpc('generatetoaddress', blocks, address);
    await this.follower.sync();
  }

  /** Both mempools empty: Core's mined, what only the devnet kept dropped. */
  async clean(): Promise<void> {
    const pool = await this.core.rpc<string[]>('getrawmempool');
    if (pool.length) await this.mine(1);
    await this.devnet.dropMempool();
    this.steps = [];
  }

  /** Confirmed coins of `sats` paid to each wallet from one mature bank coinbase, in one block. */
  async fund(specs: Array<{ wallet: TestWallet; sats: number }>): Promise<Coin[]> {
    const chain = this.devnet.state.chain;
    const coin = chain.coinsOf(this.bank.script).find((c) => c.coinbase && chain.height + 1 - c.height >= 100 && !this.usedBankCoins.has(`${c.txid}:${c.vout}`));
    if (!coin) throw new Error('the bank has no mature coinbase left');
    this.usedBankCoins.add(`${coin.txid}:${coin.vout}`);
    const tx = new Transaction({ allowUnknownOutputs: true });
    tx.addInput(walletInput(this.bank, { txid: coin.txid, index: coin.vout, amount: coin.value }));
    for (const s of specs) tx.addOutput({ script: s.wallet.script, amount: BigInt(s.sats) });
    const out = specs.reduce((n, s) => n + BigInt(s.sats), 0n);
    tx.addOutput({ script: this.bank.script, amount: coin.value - out - 10_000n });
    signInput(tx, 0, this.bank, SigHash.ALL);
    tx.finalize();
    await this.core.rpc('sendrawtransaction', tx.hex);
    await this.mine(1);
    const prevTx = hexToBytes(tx.hex);
    return specs.map((s, vout) => ({ txid: tx.id, vout, amount: BigInt(s.sats), prevTx }));
  }
}
