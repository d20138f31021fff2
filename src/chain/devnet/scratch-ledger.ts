/**
 * A throw-away layer over the ledger that accumulates balance changes, so speculative parsing
 * (the mempool's would-be events) sees earlier transactions without touching confirmed state.
 */
import type { BalanceChange, LedgerReader, UtxoHolding } from '../../counterparty/ledger-rules.js';

export class ScratchLedger implements LedgerReader {
  private readonly addresses = new Map<string, bigint>();
  private readonly utxos = new Map<string, Map<string, UtxoHolding>>();

  constructor(private readonly base: LedgerReader) {}

  addressBalance(address: string, asset: string): bigint {
    return this.addresses.get(`${address}\u0000${asset}`) ?? this.base.addressBalance(address, asset);
  }

  utxoBalances(utxo: string): readonly UtxoHolding[] {
    const m = this.utxos.get(utxo);
    return m ? [...m.values()] : this.base.utxoBalances(utxo);
  }

  apply(changes: readonly BalanceChange[]): void {
    for (const c of changes) {
      if (c.holder.kind === 'address') {
        this.addresses.set(`${c.holder.address}\u0000${c.asset}`, this.addressBalance(c.holder.address, c.asset) + c.delta);
        continue;
      }
      const m = new Map(this.utxoBalances(c.holder.utxo).map((h) => [h.asset, h]));
      const cur = m.get(c.asset);
      m.set(c.asset, { asset: c.asset, quantity: (cur?.quantity ?? 0n) + c.delta, utxoAddress: cur?.utxoAddress ?? c.holder.utxoAddress });
      this.utxos.set(c.holder.utxo, m);
    }
  }
}
