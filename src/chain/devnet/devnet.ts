/**
 * The devnet: an in-process regtest Bitcoin node with a Counterparty ledger, strict like the
 * real ones, persisted in the market's store. One object per store (no singletons); every
 * state change runs under one lock, is written in one store transaction and only then
 * becomes visible. See README.md in this folder for what it does and does not emulate.
 */
import { hexToBytes, randomBytes } from '@noble/hashes/utils.js';
import { decodeAddress } from '../../bitcoin/address.js';
import type { Network } from '../../bitcoin/networks.js';
import { systemClock, type Clock } from '../../clock.js';
import { ATTACH_GAS_PARAMS, type GasParams } from '../../counterparty/attach-fee.js';
import type { Store } from '../../store/db.js';
import type { CounterpartyFault, DevnetControl } from '../devnet-control.js';
import { TxRejected, type Chain, type FeeEstimates } from '../ports.js';
import { CounterpartyApiViews } from './api-views.js';
import { DevnetBitcoinBackend } from './bitcoin-backend.js';
import type { BlockRecord } from './chain-state.js';
import type { ControlOp } from './control-ops.js';
import { DevnetCounterpartyBackend } from './counterparty-backend.js';
import { DevnetUtxoSource } from './utxo-source.js';
import { Mutex } from './mutex.js';
import { MinerWallet } from './miner-wallet.js';
import { DevnetNode } from './node.js';
import { planIssuance, planCredit, planTransfer, type IssueParams } from './issuance.js';
import { loadDevnet, writeDevnet, type ChainWrite } from './persistence.js';
import { BitcoinRpcViews } from './rpc-views.js';
import { decodeTx, TxDecodeError, type DecodedTx } from './tx-decode.js';
import { COINBASE_MATURITY, rejectText, RPC_DESERIALIZATION_ERROR, RPC_VERIFY_ALREADY_IN_CHAIN, RPC_VERIFY_ERROR } from './validation.js';
import { defaultInputVerifier, type InputVerifier } from './verifier.js';
import { Mempool } from './mempool.js';
import type { CpLedger } from './ledger.js';
import { DevnetUsageError } from './usage-error.js';

export interface DevnetOptions {
  /** Mine one block every N ms once `startMining()` is called (0: on demand only). */
  blockIntervalMs?: number;
  /** A fixed attach fee (raw XCP); absent: Core's dynamic formula. */
  attachFeeRaw?: bigint | string | null;
  /** Overrides of the formula's parameters (e.g. a short period for tests). */
  attachGas?: Partial<GasParams>;
  /** `-minrelaytxfee` in sat/vB (Core 29.1+: 0.1; Core up to 29.0: 1). */
  minRelayFeeRate?: number;
  /** `-incrementalrelayfee` in sat/vB, the RBF step (Core 29.1+: 0.1; Core up to 29.0: 1). */
  incrementalRelayFeeRate?: number;
  /** Blocks mined to the miner when the store is empty (default 101, so the faucet has mature coins). */
  initialBlocks?: number;
  minerSeed?: string;
  /** Devnet fee estimates in sat/vB (partial values override the defaults). */
  feeEstimates?: Partial<FeeEstimates>;
  /** sendrawtransaction's maxfeerate in sat/vB (Core: 0.10 BTC/kvB = 10,000 sat/vB; 0 disables). */
  maxFeeRate?: number;
  verifyInput?: InputVerifier;
  /** Called with errors of interval mining (which has no caller to throw to). */
  onError?: (e: unknown) => void;
  /** Start with the Counterparty face answering as a node catching up, or without a working Electrs. */
  counterpartyFault?: CounterpartyFault;
}

/** Core 29.1's defaults (sat/vB); Core 28 and 29.0 had 1 for both. */
export const DEFAULT_MIN_RELAY_FEE_RATE = 0.1;
export const DEFAULT_INCREMENTAL_RELAY_FEE_RATE = 0.1;

export type { CounterpartyFault } from '../devnet-control.js';

const DEFAULT_FEES: FeeEstimates = { fastest: 5, half_hour: 3, hour: 2, economy: 1, minimum: 1 };

export class Devnet implements DevnetControl {
  readonly network: Network = 'regtest';
  readonly bitcoin: DevnetBitcoinBackend;
  readonly counterparty: DevnetCounterpartyBackend;
  readonly chain: Chain;
  /** Bitcoin Core JSON-RPC shaped reads and writes, for the HTTP face. */
  readonly rpc: BitcoinRpcViews;
  /** Counterparty API v2 shaped reads, for the HTTP face. */
  readonly api: CounterpartyApiViews;
  readonly miner: MinerWallet;
  feeEstimates: FeeEstimates;
  /** Settable at any time (tests, `POST /devnet/counterparty-fault`); both faces read it on every request. */
  counterpartyFault: CounterpartyFault;
  private node: DevnetNode;
  private readonly lock = new Mutex();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  private constructor(
    private readonly store: Store,
    readonly clock: Clock,
    private options: DevnetOptions,
  ) {
    this.miner = new MinerWallet(options.minerSeed ?? 'devnet', this.network);
    this.feeEstimates = { ...DEFAULT_FEES, ...options.feeEstimates };
    this.counterpartyFault = options.counterpartyFault ?? 'none';
    this.node = this.freshNode();
    this.bitcoin = new DevnetBitcoinBackend(this);
    this.counterparty = new DevnetCounterpartyBackend(this);
    this.chain = { bitcoin: this.bitcoin, counterparty: this.counterparty, utxos: new DevnetUtxoSource(this, 'counterparty') };
    this.rpc = new BitcoinRpcViews(this);
    this.api = new CounterpartyApiViews(this);
  }

  /** Opens the devnet on `store` (migrated), replaying its chain, or starting one. */
  static async open(store: Store, clock: Clock = systemClock, options: DevnetOptions = {}): Promise<Devnet> {
    const d = new Devnet(store, clock, options);
    await d.lock.run(() => d.load());
    return d;
  }

  /** The in-memory node, for read-only views. Never mutate it from outside. */
  get state(): DevnetNode {
    return this.node;
  }

  nowSeconds(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  private freshNode(): DevnetNode {
    const o = this.options;
    const fixed = o.attachFeeRaw === undefined || o.attachFeeRaw === null ? undefined : BigInt(o.attachFeeRaw);
    return new DevnetNode({
      ledger: { network: this.network, attachFee: { ...(fixed === undefined ? {} : { fixedRaw: fixed }), gas: { ...ATTACH_GAS_PARAMS, ...o.attachGas } } },
      minRelayFeeRate: BigInt(Math.round((o.minRelayFeeRate ?? DEFAULT_MIN_RELAY_FEE_RATE) * 1000)),
      incrementalRelayFeeRate: BigInt(Math.round((o.incrementalRelayFeeRate ?? DEFAULT_INCREMENTAL_RELAY_FEE_RATE) * 1000)),
      verify: o.verifyInput ?? defaultInputVerifier,
    });
  }

  private async load(): Promise<void> {
    const stored = await loadDevnet(this.store);
    const node = this.freshNode();
    if (stored.blocks.length === 0) {
      this.node = node;
      const blocks = [node.connectGenesis()];
      for (let i = 0; i < (this.options.initialBlocks ?? 101); i++) blocks.push(this.mineOne([], [], this.miner.script));
      await writeDevnet(this.store, { addBlocks: blocks });
      return;
    }
    for (const b of stored.blocks) {
      const header = hexToBytes(b.header_hex);
      node.connectBlock({ hash: b.hash, header, txs: b.txs.map((h) => decodeTx(h)), ops: b.ops });
    }
    const dropped: string[] = [];
    for (const m of stored.mempool) {
      const r = node.accept(decodeTx(m.hex), m.time, { seq: m.seq, bypassLimits: true });
      if (!r.ok) dropped.push(m.txid);
    }
    node.pendingOps = stored.pendingOps;
    this.node = node;
    if (dropped.length) await writeDevnet(this.store, { removeMempool: dropped });
  }

  /** Persists a step; if the store refuses, memory is rebuilt from the store so both agree. */
  private async commit(w: ChainWrite): Promise<void> {
    try {
      await writeDevnet(this.store, w);
    } catch (e) {
      await this.load();
      throw e;
    }
  }

  /** Mines one block on the node (memory only) with these mempool entries and the pending ops. */
  private mineOne(entries: ReturnType<DevnetNode['blockTemplate']>, extraOps: ControlOp[], script: Uint8Array): BlockRecord {
    const ops = [...this.node.pendingOps, ...extraOps];
    const b = this.node.buildBlock({ entries, ops, coinbaseScript: script, time: this.nowSeconds(), extraNonce: randomBytes(8) });
    const record = this.node.connectBlock(b);
    this.node.pendingOps = [];
    return record;
  }

  private payoutScript(address?: string): Uint8Array {
    if (address === undefined) return this.miner.script;
    const d = decodeAddress(address, this.network);
    if (!d.ok) throw new DevnetUsageError(`devnet: ${address} is not a ${this.network} address`);
    return d.script;
  }

  /** Mines `blocks` blocks of mempool transactions; returns their hashes. */
  async mine(blocks = 1, address?: string): Promise<string[]> {
    if (!Number.isInteger(blocks) || blocks < 1 || blocks > 10_000) throw new DevnetUsageError('devnet: mine 1..10000 blocks');
    return this.lock.run(async () => {
      const script = this.payoutScript(address);
      const hadOps = this.node.pendingOps.length > 0;
      const mined: BlockRecord[] = [];
      for (let i = 0; i < blocks; i++) mined.push(this.mineOne(this.node.blockTemplate(), [], script));
      await this.commit({ addBlocks: mined, removeMempool: mined.flatMap((b) => b.txs.slice(1).map((t) => t.txid)), ...(hadOps ? { pendingOps: [] } : {}) });
      return mined.map((b) => b.hash);
    });
  }

  /** A real signed payment from the miner, confirmed in a block of its own. */
  async faucet(address: string, amountSats: number): Promise<{ txid: string; vout: number }> {
    if (!Number.isSafeInteger(amountSats) || amountSats <= 0) throw new DevnetUsageError('devnet: faucet amount must be a positive integer of sats');
    return this.lock.run(async () => {
      const script = this.payoutScript(address);
      // Mature coins only: a coinbase output waits 100 blocks, as on Core.
      const next = this.node.chain.height + 1;
      const coins = this.node.chain
        .coinsOf(this.miner.script)
        .filter((c) => !this.node.mempool.spender(c.txid, c.vout) && (!c.coinbase || next - c.height >= COINBASE_MATURITY));
      const tx = decodeTx(this.miner.pay(coins, { script, amount: BigInt(amountSats) }, 2n));
      const r = this.node.accept(tx, this.nowSeconds());
      if (!r.ok) throw new TxRejected(rejectText(r.reject), r.reject.rpcCode, tx.txid);
      const block = this.mineOne([r.entry], [], this.miner.script);
      await this.commit({ addBlocks: [block], pendingOps: [] });
      return { txid: tx.txid, vout: 0 };
    });
  }

  /** Issues (or reissues) an asset to `issuer` in a block of its own. */
  async issueAsset(p: IssueParams): Promise<{ asset: string }> {
    return this.lock.run(async () => {
      const op = planIssuance(this.node.ledger, p, this.network);
      const block = this.mineOne([], [op], this.miner.script);
      await this.commit({ addBlocks: [block], pendingOps: [] });
      return { asset: op.asset };
    });
  }

  /** Moves an asset's issuance rights from its current owner `from` to `to`, in a block of its own. */
  async transferIssuance(p: { asset: string; from: string; to: string }): Promise<void> {
    await this.lock.run(async () => {
      const op = planTransfer(this.node.ledger, p, this.network);
      const block = this.mineOne([], [op], this.miner.script);
      await this.commit({ addBlocks: [block], pendingOps: [] });
    });
  }

  /** Credits an address-level balance (XCP included) in a block of its own. */
  async credit(address: string, asset: string, quantityRaw: string): Promise<void> {
    await this.lock.run(async () => {
      const op = planCredit(this.node.ledger, { address, asset, quantity_raw: quantityRaw }, this.network);
      const block = this.mineOne([], [op], this.miner.script);
      await this.commit({ addBlocks: [block], pendingOps: [] });
    });
  }

  setCounterpartyFault(fault: CounterpartyFault): void {
    this.counterpartyFault = fault;
  }

  /** Forgets every unconfirmed transaction, as a node restarted without its mempool does. */
  async dropMempool(): Promise<{ dropped: number }> {
    return this.lock.run(async () => {
      const dropped = this.node.mempool.ordered().length;
      this.node.mempool = new Mempool();
      await this.commit({ replaceMempool: [] });
      return { dropped };
    });
  }

  /**
   * The node restarted with another `-minrelaytxfee` (sat/vB), its mempool kept: transactions
   * offered from now on meet the new floor and `getmempoolinfo` reports it. Core sets the floor
   * only at start-up (no RPC changes it); this lets a test raise it between a quote and its relay.
   */
  async setMinRelayFeeRate(satPerVb: number): Promise<void> {
    if (!(satPerVb >= 0)) throw new RangeError(`minrelaytxfee must be a rate ≥ 0 sat/vB, got ${satPerVb}`);
    await this.lock.run(async () => {
      this.options = { ...this.options, minRelayFeeRate: satPerVb };
      this.node.params.minRelayFeeRate = BigInt(Math.round(satPerVb * 1000));
    });
  }

  /** Disconnects down to (excluding) `forkHeight`, returning transactions to the mempool. */
  private disconnectTo(forkHeight: number): BlockRecord[] {
    const old = this.node.mempool.ordered();
    const gone: BlockRecord[] = [];
    while (this.node.chain.height > forkHeight) gone.unshift(this.node.disconnectTip());
    const now = this.nowSeconds();
    this.node.mempool = new Mempool();
    // Core re-accepts disconnected transactions first (without fee and chain limits), then
    // keeps the old mempool; whatever no longer validates (e.g. spends a vanished coinbase) is dropped.
    for (const b of gone) for (const tx of b.txs) if (!tx.isCoinbase) this.node.accept(tx, now, { bypassLimits: true });
    for (const e of old) this.node.accept(e.tx, e.time, { bypassLimits: true });
    this.node.pendingOps = [...gone.flatMap((b) => b.ops), ...this.node.pendingOps];
    return gone;
  }

  /**
   * A reorg of `depth` blocks: the last `depth` blocks are disconnected (their transactions go
   * back to the mempool, their control operations are re-applied in the first new block),
   * then `depth + 1` new blocks without mempool transactions are mined, so every height from
   * the fork up gets a new hash and the chain grows by one.
   */
  async reorg(depth: number): Promise<{ disconnected: number; tip: { height: number; hash: string } }> {
    return this.lock.run(async () => {
      if (!Number.isInteger(depth) || depth < 1 || depth > this.node.chain.height) throw new DevnetUsageError(`devnet: reorg depth must be 1..${this.node.chain.height}`);
      const fork = this.node.chain.height - depth;
      this.disconnectTo(fork);
      const added: BlockRecord[] = [];
      for (let i = 0; i <= depth; i++) added.push(this.mineOne([], [], this.miner.script));
      await this.commit({ truncateFrom: fork + 1, addBlocks: added, replaceMempool: this.node.mempool.ordered(), pendingOps: [] });
      const tip = this.node.chain.tip();
      return { disconnected: depth, tip: { height: tip.height, hash: tip.hash } };
    });
  }

  /** Core's `invalidateblock`: disconnects the block and its descendants; mines nothing. */
  async invalidateBlock(hash: string): Promise<{ disconnected: number; tip: { height: number; hash: string } }> {
    return this.lock.run(async () => {
      const height = this.node.chain.heightOf(hash);
      if (height === undefined) throw new Error('Block not found');
      if (height === 0) throw new DevnetUsageError('devnet: cannot invalidate the genesis block');
      const gone = this.disconnectTo(height - 1);
      await this.commit({ truncateFrom: height, replaceMempool: this.node.mempool.ordered(), pendingOps: this.node.pendingOps });
      const tip = this.node.chain.tip();
      return { disconnected: gone.length, tip: { height: tip.height, hash: tip.hash } };
    });
  }

  /** Unspent outputs of an address: confirmed and mempool, minus those the mempool spends. */
  async addressUtxos(address: string): Promise<Array<{ txid: string; vout: number; value_sats: number; confirmations: number; height: number | null }>> {
    return this.api.addressUtxoRows(address);
  }

  private decodeOrThrow(hex: string): DecodedTx {
    try {
      return decodeTx(hex);
    } catch (e) {
      if (e instanceof TxDecodeError) throw new TxRejected(e.message, RPC_DESERIALIZATION_ERROR);
      throw e;
    }
  }

  /** `sendrawtransaction`: relays or throws TxRejected with Core's reason and RPC code. */
  async sendRawTransaction(hex: string): Promise<string> {
    return this.lock.run(async () => {
      const tx = this.decodeOrThrow(hex);
      if (this.node.mempool.get(tx.txid)?.tx.wtxid === tx.wtxid) return tx.txid;
      if (tx.outputs.some((_, n) => this.node.chain.coin(tx.txid, n))) {
        throw new TxRejected('Transaction outputs already in utxo set', RPC_VERIFY_ALREADY_IN_CHAIN, tx.txid);
      }
      const v = this.node.verdict(tx, this.node.mempool, this.nowSeconds(), { allowReplacement: true, allowSiblingEviction: true });
      if (!v.ok) throw new TxRejected(rejectText(v.reject), v.reject.rpcCode, tx.txid);
      const maxRate = BigInt(Math.round((this.options.maxFeeRate ?? 10_000) * 1000));
      if (maxRate > 0n && v.fee * 1000n > maxRate * BigInt(tx.vsize)) {
        throw new TxRejected('max-fee-exceeded, Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)', RPC_VERIFY_ERROR, tx.txid);
      }
      // A failed write reloads memory from the store (commit), which undoes the evictions too.
      const r = this.node.admit(v, this.nowSeconds());
      await this.commit({ removeMempool: r.replaced.map((e) => e.tx.txid), addMempool: [r.entry] });
      return tx.txid;
    });
  }

  /**
   * `submitpackage` (child with parents; see DevnetNode.acceptPackage). Core's reply shape; what
   * entered the mempool stays there whatever happened to the other members.
   */
  async submitPackage(hexes: string[]) {
    return this.lock.run(async () => {
      const txs = hexes.map((h) => this.decodeOrThrow(h));
      const outcome = this.node.acceptPackage(txs, this.nowSeconds());
      if (outcome.rpcError) throw new TxRejected(outcome.rpcError, RPC_VERIFY_ERROR);
      // A failed write reloads memory from the store (commit): members out, replaced back.
      if (outcome.added.length || outcome.replaced.length) await this.commit({ removeMempool: outcome.replaced, addMempool: outcome.added });
      return this.rpc.packageReply(outcome);
    });
  }

  /** `testmempoolaccept`: Core's reply shape; nothing changes. */
  async testMempoolAccept(hexes: string[]) {
    return this.lock.run(async () => this.rpc.testAcceptReply(this.node.testAccept(hexes.map((h) => this.decodeOrThrow(h)), this.nowSeconds())));
  }

  /** Starts interval mining (every `intervalMs`, default the `blockIntervalMs` option). */
  startMining(intervalMs = this.options.blockIntervalMs ?? 0): void {
    if (this.timer || this.closed || intervalMs <= 0) return;
    const schedule = () => {
      this.timer = setTimeout(() => {
        void this.mine(1)
          .catch((e: unknown) => this.options.onError?.(e))
          .finally(() => {
            if (this.timer) schedule();
          });
      }, intervalMs);
    };
    schedule();
  }

  stopMining(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Stops interval mining and waits for the step in progress; the store stays open (it is the caller's). */
  async close(): Promise<void> {
    this.closed = true;
    this.stopMining();
    await this.lock.run(async () => undefined);
  }

  // Follower mode (src/chain/core-follow/): the chain is a real node's, block by block; the
  // ledger parses it as it parses its own blocks, and control operations ride the next block.

  /** Connects blocks mined by another node (the first must extend the tip), the pending operations riding the first. */
  async connectFollowedBlocks(blocks: ReadonlyArray<{ hash: string; header: Uint8Array; txs: DecodedTx[] }>): Promise<void> {
    if (!blocks.length) return;
    await this.lock.run(async () => {
      const hadOps = this.node.pendingOps.length > 0;
      const records: BlockRecord[] = [];
      try {
        for (const b of blocks) {
          records.push(this.node.connectBlock({ ...b, ops: this.node.pendingOps }));
          this.node.pendingOps = [];
        }
      } catch (e) {
        // Nothing of a batch that does not connect stays in memory.
        await this.load();
        throw e;
      }
      await this.commit({ addBlocks: records, replaceMempool: this.node.mempool.ordered(), ...(hadOps ? { pendingOps: [] } : {}) });
    });
  }

  /** Disconnects the tip (the followed node reorganised); its transactions return to the mempool. */
  async disconnectFollowedTip(): Promise<void> {
    await this.lock.run(async () => {
      const height = this.node.chain.height;
      if (height === 0) throw new DevnetUsageError('devnet: cannot disconnect the genesis block');
      this.disconnectTo(height - 1);
      await this.commit({ truncateFrom: height, replaceMempool: this.node.mempool.ordered(), pendingOps: this.node.pendingOps });
    });
  }

  /** Queues a control operation, planned against the current ledger, for the next connected block. */
  async queueOperation<T extends ControlOp>(plan: (ledger: CpLedger) => T): Promise<T> {
    return this.lock.run(async () => {
      const op = plan(this.node.ledger);
      this.node.pendingOps = [...this.node.pendingOps, op];
      await this.commit({ pendingOps: this.node.pendingOps });
      return op;
    });
  }

  /**
   * Makes the mempool the followed node's (`hexes` parents first): each is re-accepted without
   * fee and chain limits, as after a reorg; what does not validate here is left out.
   */
  async mirrorMempool(hexes: readonly string[]): Promise<void> {
    await this.lock.run(async () => {
      this.node.mempool = new Mempool();
      const now = this.nowSeconds();
      for (const h of hexes) this.node.accept(decodeTx(h), now, { bypassLimits: true });
      await this.commit({ replaceMempool: this.node.mempool.ordered() });
    });
  }
}
