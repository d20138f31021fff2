/**
 * The devnet following a real Bitcoin Core: its chain is the node's, block by block (the same
 * headers and transactions, reorgs followed by disconnecting back to the fork), so its
 * Counterparty ledger, events and API v2 face describe what really confirmed there. Its
 * mempool mirrors the node's. Control actions go to the node: the faucet signs a real payment
 * from the miner key and sends it there, `mine` asks the node to mine, and issuances, credits
 * and transfers of issuance rights ride the next block the node mines (the devnet's control
 * operations, applied as that block connects).
 */
import { hexToBytes } from '@noble/hashes/utils.js';
import { decodeAddress } from '../../bitcoin/address.js';
import type { Clock } from '../../clock.js';
import { systemClock } from '../../clock.js';
import type { Store } from '../../store/db.js';
import { BitcoinCoreBackend } from '../bitcoin-core/backend.js';
import { BitcoinRpcClient, RpcError } from '../bitcoin-core/rpc-client.js';
import { CounterpartyUtxoSource } from '../counterparty-core/utxo-source.js';
import type { DevnetControl } from '../devnet-control.js';
import { Devnet, type DevnetOptions } from '../devnet/devnet.js';
import { planCredit, planIssuance, planTransfer, type IssueParams } from '../devnet/issuance.js';
import { decodeTx } from '../devnet/tx-decode.js';
import { DevnetNodeRefused, DevnetUsageError } from '../devnet/usage-error.js';
import { TxRejected, type Chain } from '../ports.js';
import { SyncingCounterparty } from './syncing-counterparty.js';

/** Core: a coinbase output is spendable once the spending block is 100 blocks above it. */
const COINBASE_MATURITY = 100;
/** Blocks fetched and connected per round trip while catching up. */
const SYNC_BATCH = 50;

export interface CoreFollowerOptions extends Pick<DevnetOptions, 'attachFeeRaw' | 'attachGas' | 'minerSeed'> {
  /** The node's JSON-RPC, `http://user:pass@127.0.0.1:port` (needs `-txindex` for the market's reads). */
  rpcUrl: string;
  /** On open, the node mines to the miner until it is at least this high (default 101: mature faucet coins). */
  initialHeight?: number;
  /** Mirror the node's mempool into the devnet's on each sync (default true; the differential suite keeps its own). */
  mirrorMempool?: boolean;
}

interface BlockV2 {
  hash: string;
  height: number;
  tx: Array<{ txid: string; hex: string }>;
}

interface MempoolVerbose {
  [txid: string]: { ancestorcount: number; depends: string[] };
}

export class CoreFollower implements DevnetControl {
  /** Bitcoin: the node itself (the production adapter). Counterparty and wallet coins: the ledger, synced before each read. */
  readonly chain: Chain;
  private readonly rpc: BitcoinRpcClient;
  private syncing: Promise<void> | null = null;
  private again = false;

  private constructor(
    readonly devnet: Devnet,
    private readonly options: CoreFollowerOptions,
  ) {
    this.rpc = new BitcoinRpcClient({ url: options.rpcUrl, retry: { retries: 2 } });
    const counterparty = new SyncingCounterparty(devnet.counterparty, () => this.sync());
    // Wallet coins as Counterparty Core serves them (its Electrs view: the node's chain and mempool).
    this.chain = { bitcoin: new BitcoinCoreBackend({ url: options.rpcUrl }), counterparty, utxos: new CounterpartyUtxoSource(counterparty, devnet.miner.address) };
  }

  /** Opens the follower on `store` (migrated; a devnet store of its own) and catches up with the node. */
  static async open(store: Store, options: CoreFollowerOptions, clock: Clock = systemClock): Promise<CoreFollower> {
    const devnet = await Devnet.open(store, clock, {
      initialBlocks: 0,
      ...(options.attachFeeRaw === undefined ? {} : { attachFeeRaw: options.attachFeeRaw }),
      ...(options.attachGas ? { attachGas: options.attachGas } : {}),
      ...(options.minerSeed ? { minerSeed: options.minerSeed } : {}),
    });
    const f = new CoreFollower(devnet, options);
    const height = await f.call<number>('getblockcount', []);
    const want = options.initialHeight ?? 101;
    if (height < want) await f.call('generatetoaddress', [want - height, devnet.miner.address]);
    await f.sync();
    return f;
  }

  private call<T>(method: string, params: unknown[]): Promise<T> {
    return this.rpc.call<T>(method, params, { idempotent: method !== 'sendrawtransaction' && method !== 'generatetoaddress' });
  }

  /** A control call the node may refuse (mining, invalidating): its refusal is the caller's to retry (409), never a 500. */
  private async control<T>(method: string, params: unknown[]): Promise<T> {
    try {
      return await this.call<T>(method, params);
    } catch (e) {
      if (e instanceof RpcError) throw new DevnetNodeRefused(method, e.rpcMessage);
      throw e;
    }
  }

  /** Several reads in one request; an error answer of any throws it. */
  private async batch<T>(calls: Array<{ method: string; params: unknown[] }>): Promise<T[]> {
    const out = await this.rpc.batch(calls);
    for (const r of out) if (r instanceof RpcError) throw r;
    return out as T[];
  }

  /**
   * Brings the ledger to the node's tip and the mempool to the node's. Concurrent callers share
   * one pass; a call made during a pass gets another pass after it (it may follow a new block).
   */
  sync(): Promise<void> {
    if (this.syncing) {
      this.again = true;
      return this.syncing;
    }
    const run = async (): Promise<void> => {
      do {
        this.again = false;
        await this.syncOnce();
      } while (this.again);
    };
    this.syncing = run().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  private async syncOnce(): Promise<void> {
    const chain = this.devnet.state.chain;
    // Back to the fork: while our tip is not the node's block at that height, disconnect it.
    while (chain.height > 0) {
      const theirs = await this.call<string>('getblockhash', [chain.height]).catch((e: unknown) => {
        if (e instanceof RpcError && e.code === -8) return null; // the node is now shorter
        throw e;
      });
      if (theirs === chain.tip().hash) break;
      await this.devnet.disconnectFollowedTip();
    }
    const height = await this.call<number>('getblockcount', []);
    // In batches: one round trip for the hashes, one for the blocks and headers, one store write.
    for (let from = chain.height + 1; from <= height; from += SYNC_BATCH) {
      const heights = Array.from({ length: Math.min(SYNC_BATCH, height - from + 1) }, (_, i) => from + i);
      const hashes = await this.batch<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] })));
      const bodies = await this.batch<BlockV2 | string>(hashes.flatMap((h) => [{ method: 'getblock', params: [h, 2] }, { method: 'getblockheader', params: [h, false] }]));
      const blocks = hashes.map((hash, i) => {
        const block = bodies[2 * i] as BlockV2;
        if (block.height !== heights[i]) throw new Error(`core-follow: block ${hash} is at ${block.height}, expected ${heights[i]}`);
        return { hash, header: hexToBytes(bodies[2 * i + 1] as string), txs: block.tx.map((t) => decodeTx(t.hex)) };
      });
      try {
        await this.devnet.connectFollowedBlocks(blocks);
      } catch (e) {
        // The node reorganised while we read: start over from the fork.
        if (e instanceof Error && /does not extend the tip/.test(e.message)) {
          this.again = true;
          return;
        }
        throw e;
      }
    }
    if (this.options.mirrorMempool !== false) await this.syncMempool();
  }

  private async syncMempool(): Promise<void> {
    const theirs = await this.call<MempoolVerbose>('getrawmempool', [true]);
    const ours = new Set(this.devnet.state.mempool.ordered().map((e) => e.tx.txid));
    const ids = Object.keys(theirs);
    if (ids.length === ours.size && ids.every((t) => ours.has(t))) return;
    // Parents before children: by ancestor count, then by dependency.
    ids.sort((a, b) => theirs[a]!.ancestorcount - theirs[b]!.ancestorcount);
    const hexes: string[] = [];
    for (const txid of ids) {
      const hex = await this.call<string>('getrawtransaction', [txid, 0]).catch((e: unknown) => {
        if (e instanceof RpcError && e.code === -5) return null; // mined or evicted since
        throw e;
      });
      if (hex) hexes.push(hex);
    }
    await this.devnet.mirrorMempool(hexes);
  }

  /**
   * Interval mining is the real node's business (its own miner, or the operator's
   * generatetoaddress); a following devnet never mines on a timer of its own.
   */
  startMining(_intervalMs: number): void {}

  /** Asks the node to mine `blocks` blocks (to the miner unless `address`), then follows them. */
  async mine(blocks = 1, address?: string): Promise<string[]> {
    if (!Number.isInteger(blocks) || blocks < 1 || blocks > 10_000) throw new DevnetUsageError('devnet: mine 1..10000 blocks');
    const to = address ?? this.devnet.miner.address;
    if (!decodeAddress(to, this.devnet.network).ok) throw new DevnetUsageError(`devnet: ${to} is not a ${this.devnet.network} address`);
    const hashes = await this.control<string[]>('generatetoaddress', [blocks, to]);
    await this.sync();
    return hashes;
  }

  /** A real payment from the miner's mature coins, sent to the node and mined in a block. */
  async faucet(address: string, amountSats: number): Promise<{ txid: string; vout: number }> {
    if (!Number.isSafeInteger(amountSats) || amountSats <= 0) throw new DevnetUsageError('devnet: faucet amount must be a positive integer of sats');
    const d = decodeAddress(address, this.devnet.network);
    if (!d.ok) throw new DevnetUsageError(`devnet: ${address} is not a ${this.devnet.network} address`);
    await this.sync();
    const node = this.devnet.state;
    const spendHeight = node.chain.height + 1;
    const coins = node.chain
      .coinsOf(this.devnet.miner.script)
      .filter((c) => !node.mempool.spender(c.txid, c.vout) && (!c.coinbase || spendHeight - c.height >= COINBASE_MATURITY));
    const raw = this.devnet.miner.pay(coins, { script: d.script, amount: BigInt(amountSats) }, 2n);
    const hex = Buffer.from(raw).toString('hex');
    try {
      await this.call<string>('sendrawtransaction', [hex]);
    } catch (e) {
      if (e instanceof RpcError) throw new TxRejected(e.rpcMessage, e.code);
      throw e;
    }
    await this.mine(1);
    return { txid: decodeTx(raw).txid, vout: 0 };
  }

  async issueAsset(p: IssueParams): Promise<{ asset: string }> {
    await this.sync();
    const op = await this.devnet.queueOperation((ledger) => planIssuance(ledger, p, this.devnet.network));
    await this.mine(1);
    return { asset: op.asset };
  }

  async credit(address: string, asset: string, quantityRaw: string): Promise<void> {
    await this.sync();
    await this.devnet.queueOperation((ledger) => planCredit(ledger, { address, asset, quantity_raw: quantityRaw }, this.devnet.network));
    await this.mine(1);
  }

  async transferIssuance(p: { asset: string; from: string; to: string }): Promise<void> {
    await this.sync();
    await this.devnet.queueOperation((ledger) => planTransfer(ledger, p, this.devnet.network));
    await this.mine(1);
  }

  /** `invalidateblock` on the node at `depth` below the tip, then `depth + 1` new blocks (the devnet's reorg). */
  async reorg(depth: number): Promise<{ disconnected: number; tip: { height: number; hash: string } }> {
    const height = await this.call<number>('getblockcount', []);
    if (!Number.isInteger(depth) || depth < 1 || depth >= height) throw new DevnetUsageError(`devnet: reorg depth must be 1..${height - 1}`);
    const fork = await this.call<string>('getblockhash', [height - depth + 1]);
    await this.control('invalidateblock', [fork]);
    await this.mine(depth + 1);
    const tip = this.devnet.state.chain.tip();
    return { disconnected: depth, tip: { height: tip.height, hash: tip.hash } };
  }

  setCounterpartyFault(): void {
    throw new DevnetUsageError('devnet: following a real node, whose Counterparty faults are its own');
  }

  dropMempool(): Promise<{ dropped: number }> {
    return Promise.reject(new DevnetUsageError('devnet: following a real node, whose mempool is its own'));
  }

  async addressUtxos(address: string) {
    await this.sync();
    return this.devnet.addressUtxos(address);
  }

  async close(): Promise<void> {
    await this.syncing?.catch(() => undefined);
    await this.devnet.close();
  }
}
