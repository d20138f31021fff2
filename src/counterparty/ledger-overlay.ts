/**
 * A copy-on-write view over the ledger for the duration of one transaction, so the rules can
 * read their own earlier writes (an attach then a move, several detaches) while staying pure:
 * the caller gets the list of changes and applies it to its store.
 */
import type { Holder } from './ledger-events.js';

export interface UtxoHolding {
  asset: string;
  quantity: bigint;
  /** The address that owned the UTXO when the balance was credited (Core's `utxo_address`). */
  utxoAddress: string | null;
}

/** What the rules read from the current ledger. */
export interface LedgerReader {
  addressBalance(address: string, asset: string): bigint;
  /** Balances attached to `utxo` (`txid:vout`); any order, zero rows allowed. */
  utxoBalances(utxo: string): readonly UtxoHolding[];
}

export class LedgerOverlay implements LedgerReader {
  readonly changes: { holder: Holder; asset: string; delta: bigint }[] = [];
  private readonly addresses = new Map<string, bigint>();
  private readonly utxos = new Map<string, Map<string, UtxoHolding>>();

  constructor(private readonly base: LedgerReader) {}

  addressBalance(address: string, asset: string): bigint {
    return this.addresses.get(`${address}\u0000${asset}`) ?? this.base.addressBalance(address, asset);
  }

  /** Non-zero and zero rows, sorted by asset name as Core's `get_utxo_balances` orders them. */
  utxoBalances(utxo: string): UtxoHolding[] {
    return [...this.utxoMap(utxo).values()].sort((a, b) => (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : 0));
  }

  utxoHasBalance(utxo: string): boolean {
    return this.utxoBalances(utxo).some((b) => b.quantity > 0n);
  }

  debit(holder: Holder, asset: string, quantity: bigint): void {
    this.add(holder, asset, -quantity);
  }

  credit(holder: Holder, asset: string, quantity: bigint): void {
    this.add(holder, asset, quantity);
  }

  move(from: Holder, to: Holder, asset: string, quantity: bigint): void {
    this.debit(from, asset, quantity);
    this.credit(to, asset, quantity);
  }

  private utxoMap(utxo: string): Map<string, UtxoHolding> {
    let m = this.utxos.get(utxo);
    if (!m) {
      m = new Map(this.base.utxoBalances(utxo).map((b) => [b.asset, { ...b }]));
      this.utxos.set(utxo, m);
    }
    return m;
  }

  private add(holder: Holder, asset: string, delta: bigint): void {
    if (holder.kind === 'address') {
      const next = this.addressBalance(holder.address, asset) + delta;
      // The rules check balances first; a negative balance here is a bug, not bad input.
      if (next < 0n) throw new Error(`ledger: ${holder.address} would hold ${next} ${asset}`);
      this.addresses.set(`${holder.address}\u0000${asset}`, next);
    } else {
      const m = this.utxoMap(holder.utxo);
      const cur = m.get(asset);
      const next = (cur?.quantity ?? 0n) + delta;
      if (next < 0n) throw new Error(`ledger: ${holder.utxo} would hold ${next} ${asset}`);
      m.set(asset, { asset, quantity: next, utxoAddress: cur?.utxoAddress ?? holder.utxoAddress });
    }
    this.changes.push({ holder, asset, delta });
  }
}
