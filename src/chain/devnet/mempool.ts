/**
 * The devnet mempool: accepted transactions with their fee and the links Core's ancestor and
 * descendant limits (and TRUC's 1-parent-1-child rule) are computed from.
 */
import { outpointKey, type DecodedTx, type TxOut } from './tx-decode.js';

export interface MempoolEntry {
  tx: DecodedTx;
  fee: bigint;
  /** Unix seconds it entered the mempool. */
  time: number;
  /** Chain height when it entered. */
  height: number;
  /** Acceptance order; parents always have a lower seq than their children. */
  seq: number;
  parents: Set<string>;
  children: Set<string>;
}

export class Mempool {
  readonly entries = new Map<string, MempoolEntry>();
  /** Outpoint → txid of the mempool transaction spending it. */
  readonly spends = new Map<string, string>();
  private nextSeq = 0;

  get size(): number {
    return this.entries.size;
  }

  get(txid: string): MempoolEntry | undefined {
    return this.entries.get(txid);
  }

  /** An output created by a mempool transaction (spent or not). */
  output(txid: string, vout: number): TxOut | undefined {
    return this.entries.get(txid)?.tx.outputs[vout];
  }

  spender(txid: string, vout: number): string | undefined {
    return this.spends.get(outpointKey(txid, vout));
  }

  add(e: { tx: DecodedTx; fee: bigint; time: number; height: number; seq?: number }): MempoolEntry {
    const seq = e.seq ?? this.nextSeq;
    this.nextSeq = Math.max(this.nextSeq, seq + 1);
    const entry: MempoolEntry = { tx: e.tx, fee: e.fee, time: e.time, height: e.height, seq, parents: new Set(), children: new Set() };
    for (const i of e.tx.inputs) {
      this.spends.set(outpointKey(i.txid, i.vout), e.tx.txid);
      const parent = this.entries.get(i.txid);
      if (parent) {
        entry.parents.add(i.txid);
        parent.children.add(e.tx.txid);
      }
    }
    this.entries.set(e.tx.txid, entry);
    return entry;
  }

  /** Removes one transaction (its descendants stay; callers remove them when they must). */
  remove(txid: string): MempoolEntry | undefined {
    const e = this.entries.get(txid);
    if (!e) return undefined;
    for (const i of e.tx.inputs) {
      const k = outpointKey(i.txid, i.vout);
      if (this.spends.get(k) === txid) this.spends.delete(k);
    }
    for (const p of e.parents) this.entries.get(p)?.children.delete(txid);
    for (const c of e.children) this.entries.get(c)?.parents.delete(txid);
    this.entries.delete(txid);
    return e;
  }

  /** Removes a transaction and everything that spends it, children first. */
  removeWithDescendants(txid: string): MempoolEntry[] {
    const all = [txid, ...this.descendants(txid)];
    const removed: MempoolEntry[] = [];
    for (const t of all.reverse()) {
      const e = this.remove(t);
      if (e) removed.push(e);
    }
    return removed;
  }

  /** All in-mempool ancestors reachable from `parents` (the set itself included). */
  ancestorsOf(parents: Iterable<string>): Set<string> {
    const out = new Set<string>();
    const stack = [...parents];
    while (stack.length) {
      const t = stack.pop()!;
      if (out.has(t) || !this.entries.has(t)) continue;
      out.add(t);
      stack.push(...this.entries.get(t)!.parents);
    }
    return out;
  }

  descendants(txid: string): string[] {
    const out = new Set<string>();
    const stack = [...(this.entries.get(txid)?.children ?? [])];
    while (stack.length) {
      const t = stack.pop()!;
      if (out.has(t)) continue;
      out.add(t);
      stack.push(...(this.entries.get(t)?.children ?? []));
    }
    return [...out].sort((a, b) => this.entries.get(a)!.seq - this.entries.get(b)!.seq);
  }

  /** Entries in acceptance order (a valid topological order). */
  ordered(): MempoolEntry[] {
    return [...this.entries.values()].sort((a, b) => a.seq - b.seq);
  }

  /** A copy to try transactions against (testmempoolaccept, packages) without touching this one. */
  clone(): Mempool {
    const m = new Mempool();
    for (const e of this.ordered()) m.add({ tx: e.tx, fee: e.fee, time: e.time, height: e.height, seq: e.seq });
    return m;
  }
}
