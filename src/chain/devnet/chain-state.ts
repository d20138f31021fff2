/**
 * The active chain in memory: blocks by height, the UTXO set, and where each confirmed
 * transaction sits. Connecting a block spends and creates coins and keeps what it spent, so
 * disconnecting restores the UTXO set exactly (Core's undo data).
 */
import { decodeHeader } from './block-builder.js';
import type { ControlOp } from './control-ops.js';
import { outpointKey, type DecodedTx } from './tx-decode.js';
import type { ChainView, Coin } from './validation.js';

export interface StoredCoin extends Coin {
  txid: string;
  vout: number;
}

export interface BlockRecord {
  height: number;
  hash: string;
  header: Uint8Array;
  prevHash: string;
  time: number;
  bits: number;
  txs: DecodedTx[];
  ops: ControlOp[];
  /** Coins this block spent, in spend order (undo data). */
  spent: StoredCoin[];
}

/** Provably unspendable outputs never enter the UTXO set (Core's `IsUnspendable`). */
const unspendable = (script: Uint8Array): boolean => (script.length > 0 && script[0] === 0x6a) || script.length > 10_000;

export class ChainState implements ChainView {
  readonly blocks: BlockRecord[] = [];
  readonly utxos = new Map<string, StoredCoin>();
  readonly txLocation = new Map<string, { height: number; index: number }>();
  /**
   * Transactions of disconnected blocks not mined again, with the block they were last in: Core's
   * txindex keeps such an entry (it is overwritten only when the transaction is mined again), and
   * `getrawtransaction` answers it with that block's hash and 0 confirmations once the
   * transaction is not in the mempool. In memory only (docs/devnet.md).
   */
  readonly staleTx = new Map<string, { tx: DecodedTx; hash: string }>();
  private readonly byHash = new Map<string, number>();

  get height(): number {
    return this.blocks.length - 1;
  }

  tip(): BlockRecord {
    const b = this.blocks.at(-1);
    if (!b) throw new Error('devnet: empty chain');
    return b;
  }

  block(height: number): BlockRecord | undefined {
    return this.blocks[height];
  }

  heightOf(hash: string): number | undefined {
    return this.byHash.get(hash);
  }

  coin(txid: string, vout: number): StoredCoin | undefined {
    return this.utxos.get(outpointKey(txid, vout));
  }

  medianTimePast(height: number): number {
    const times: number[] = [];
    for (let h = height; h >= 0 && h > height - 11; h--) times.push(this.blocks[h]!.time);
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)] ?? 0;
  }

  confirmedTx(txid: string): { tx: DecodedTx; block: BlockRecord } | undefined {
    const loc = this.txLocation.get(txid);
    if (!loc) return undefined;
    const block = this.blocks[loc.height]!;
    return { tx: block.txs[loc.index]!, block };
  }

  /**
   * Appends a block. `onTx` sees every transaction with the coins it spends, before the block's
   * later transactions run, which is what the Counterparty ledger needs.
   */
  connect(
    b: { hash: string; header: Uint8Array; txs: DecodedTx[]; ops: ControlOp[] },
    onTx?: (tx: DecodedTx, prevouts: StoredCoin[]) => void,
  ): BlockRecord {
    const h = decodeHeader(b.header);
    const height = this.blocks.length;
    if (height > 0 && h.prevHash !== this.tip().hash) throw new Error(`devnet: block ${b.hash} does not extend the tip`);
    const record: BlockRecord = { height, hash: b.hash, header: b.header, prevHash: h.prevHash, time: h.time, bits: h.bits, txs: b.txs, ops: b.ops, spent: [] };
    b.txs.forEach((tx, index) => {
      const prevouts: StoredCoin[] = [];
      if (!tx.isCoinbase) {
        for (const i of tx.inputs) {
          const key = outpointKey(i.txid, i.vout);
          const coin = this.utxos.get(key);
          if (!coin) throw new Error(`devnet: block ${b.hash} spends missing ${key}`);
          this.utxos.delete(key);
          record.spent.push(coin);
          prevouts.push(coin);
        }
      }
      onTx?.(tx, prevouts);
      // The genesis coinbase is famously not in the UTXO set.
      if (height > 0) {
        tx.outputs.forEach((o, vout) => {
          if (!unspendable(o.script)) this.utxos.set(outpointKey(tx.txid, vout), { txid: tx.txid, vout, value: o.value, script: o.script, height, coinbase: tx.isCoinbase });
        });
      }
      this.txLocation.set(tx.txid, { height, index });
      this.staleTx.delete(tx.txid);
    });
    this.blocks.push(record);
    this.byHash.set(record.hash, height);
    return record;
  }

  /** Removes the tip and restores the coins it spent. */
  disconnectTip(): BlockRecord {
    const b = this.blocks.pop();
    if (!b) throw new Error('devnet: nothing to disconnect');
    if (b.height === 0) {
      this.blocks.push(b);
      throw new Error('devnet: cannot disconnect the genesis block');
    }
    // Undo in reverse: a coin created and spent inside this block is restored by its spender,
    // then deleted again when its creator is undone.
    const spent = [...b.spent];
    for (const tx of [...b.txs].reverse()) {
      tx.outputs.forEach((_, vout) => this.utxos.delete(outpointKey(tx.txid, vout)));
      this.txLocation.delete(tx.txid);
      this.staleTx.set(tx.txid, { tx, hash: b.hash });
      if (tx.isCoinbase) continue;
      for (let k = 0; k < tx.inputs.length; k++) {
        const c = spent.pop()!;
        this.utxos.set(outpointKey(c.txid, c.vout), c);
      }
    }
    this.byHash.delete(b.hash);
    return b;
  }

  /** How many unspent confirmed outputs the chainstate holds (`scantxoutset`'s `txouts`). */
  get coinCount(): number {
    return this.utxos.size;
  }

  /** Unspent confirmed outputs paying `script`, oldest first. */
  coinsOf(script: Uint8Array): StoredCoin[] {
    const out: StoredCoin[] = [];
    for (const c of this.utxos.values()) if (sameBytes(c.script, script)) out.push(c);
    return out.sort((a, b) => a.height - b.height || (a.txid < b.txid ? -1 : 1) || a.vout - b.vout);
  }
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
