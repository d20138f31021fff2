/**
 * The devnet's Counterparty ledger: address and UTXO balances, assets, listed transactions and
 * the event journal. Every write made while a block is open records how to undo it, so
 * `rollbackBlock` restores the state before that block exactly (Core rolls back by deleting
 * rows at or above a block index; event indexes are then reused, as in Core).
 */
import type { UtxoHolding, LedgerReader } from '../../counterparty/ledger-rules.js';
import type { CpEvent } from '../ports.js';

export interface AssetRecord {
  asset: string;
  asset_id: string;
  asset_longname: string | null;
  divisible: boolean;
  locked: boolean;
  supply: bigint;
  issuer: string | null;
  owner: string | null;
  description: string;
  first_issuance_block_index: number | null;
  last_issuance_block_index: number | null;
  first_issuance_block_time: number | null;
  last_issuance_block_time: number | null;
}

/** An event as `/v2/events` serves it: the port's fields plus the block time. */
export interface LedgerEvent extends CpEvent {
  block_time: number;
}

/** A row of Core's `transactions` table (what `/v2/transactions/{tx_hash}` shows). */
export interface CpTransactionRecord {
  tx_index: number;
  tx_hash: string;
  block_index: number;
  block_hash: string;
  block_time: number;
  source: string;
  destination: string | null;
  btc_amount: number | null;
  fee: number | null;
  data: string | null;
  supported: boolean;
  utxos_info: string;
  transaction_type: string;
}

export interface BlockSummary {
  block_index: number;
  block_hash: string;
  block_time: number;
  previous_block_hash: string | null;
  difficulty: number;
  transaction_count: number;
  ledger_hash: string;
  txlist_hash: string;
  messages_hash: string;
}

export const XCP_RECORD: Readonly<AssetRecord> = Object.freeze({
  asset: 'XCP', asset_id: '1', asset_longname: null, divisible: true, locked: true, supply: 0n, issuer: null, owner: null,
  description: 'The Counterparty protocol native currency', first_issuance_block_index: null, last_issuance_block_index: null,
  first_issuance_block_time: null, last_issuance_block_time: null,
});

type Undo = () => void;

export class CpLedger implements LedgerReader {
  readonly addresses = new Map<string, Map<string, bigint>>();
  readonly utxos = new Map<string, Map<string, UtxoHolding>>();
  readonly assets = new Map<string, AssetRecord>([['XCP', { ...XCP_RECORD }]]);
  readonly longnames = new Map<string, string>();
  readonly events: LedgerEvent[] = [];
  readonly eventsByBlock = new Map<number, LedgerEvent[]>();
  readonly transactions = new Map<string, CpTransactionRecord>();
  readonly blocks = new Map<number, BlockSummary>();
  /** Valid attaches per block (the gas counter of `gas.py`). */
  readonly attachCounts = new Map<number, number>();
  nextTxIndex = 0;
  private journal: Undo[] | null = null;
  private readonly undo = new Map<number, Undo[]>();

  addressBalance(address: string, asset: string): bigint {
    return this.addresses.get(address)?.get(asset) ?? 0n;
  }

  utxoBalances(utxo: string): readonly UtxoHolding[] {
    return [...(this.utxos.get(utxo)?.values() ?? [])];
  }

  beginBlock(height: number): void {
    if (this.journal) throw new Error('devnet ledger: a block is already open');
    this.journal = [];
    this.undo.set(height, this.journal);
  }

  endBlock(): void {
    this.journal = null;
  }

  /** Undoes every write of the block at `height` (which must be the last one applied). */
  rollbackBlock(height: number): void {
    const undo = this.undo.get(height) ?? [];
    for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
    this.undo.delete(height);
  }

  private record(u: Undo): void {
    if (!this.journal) throw new Error('devnet ledger: write outside a block');
    this.journal.push(u);
  }

  /** Undoable `map.set` / `map.delete`. */
  private put<K, V>(map: Map<K, V>, key: K, value: V | undefined): void {
    const had = map.has(key);
    const before = map.get(key);
    this.record(() => (had ? map.set(key, before as V) : map.delete(key)));
    if (value === undefined) map.delete(key);
    else map.set(key, value);
  }

  addToAddress(address: string, asset: string, delta: bigint): void {
    const cur = this.addresses.get(address);
    const next = new Map(cur ?? []);
    const q = (next.get(asset) ?? 0n) + delta;
    if (q < 0n) throw new Error(`devnet ledger: ${address} would hold ${q} ${asset}`);
    next.set(asset, q);
    this.put(this.addresses, address, next);
  }

  addToUtxo(utxo: string, utxoAddress: string | null, asset: string, delta: bigint): void {
    const next = new Map(this.utxos.get(utxo) ?? []);
    const cur = next.get(asset);
    const q = (cur?.quantity ?? 0n) + delta;
    if (q < 0n) throw new Error(`devnet ledger: ${utxo} would hold ${q} ${asset}`);
    if (q === 0n) next.delete(asset);
    else next.set(asset, { asset, quantity: q, utxoAddress: cur?.utxoAddress ?? utxoAddress });
    this.put(this.utxos, utxo, next.size ? next : undefined);
  }

  putAsset(rec: AssetRecord): void {
    this.put(this.assets, rec.asset, rec);
    if (rec.asset_longname) this.put(this.longnames, rec.asset_longname, rec.asset);
  }

  changeSupply(asset: string, delta: bigint): void {
    const cur = this.assets.get(asset);
    if (cur) this.put(this.assets, asset, { ...cur, supply: cur.supply + delta });
  }

  putTransaction(rec: CpTransactionRecord): void {
    this.put(this.transactions, rec.tx_hash, rec);
    const before = this.nextTxIndex;
    this.nextTxIndex = rec.tx_index + 1;
    this.record(() => (this.nextTxIndex = before));
  }

  putBlock(summary: BlockSummary): void {
    this.put(this.blocks, summary.block_index, summary);
  }

  countAttach(height: number): void {
    this.put(this.attachCounts, height, (this.attachCounts.get(height) ?? 0) + 1);
  }

  /** Valid attaches in blocks [from, to). */
  attachesBetween(from: number, to: number): number {
    let n = 0;
    for (const [h, c] of this.attachCounts) if (h >= from && h < to) n += c;
    return n;
  }

  pushEvent(e: Omit<LedgerEvent, 'event_index'>): LedgerEvent {
    const full: LedgerEvent = { event_index: (this.events.at(-1)?.event_index ?? -1) + 1, ...e };
    this.events.push(full);
    const list = this.eventsByBlock.get(e.block_index) ?? [];
    if (!this.eventsByBlock.has(e.block_index)) this.put(this.eventsByBlock, e.block_index, list);
    list.push(full);
    this.record(() => {
      this.events.pop();
      list.pop();
    });
    return full;
  }

  resolveAsset(nameOrLongname: string): AssetRecord | undefined {
    const name = this.longnames.get(nameOrLongname) ?? nameOrLongname;
    return this.assets.get(name);
  }
}
