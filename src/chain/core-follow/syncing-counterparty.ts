/**
 * The follower's Counterparty port: the devnet ledger's answers, each read made after the
 * ledger has caught up with the followed node (as Counterparty Core answers from what its
 * node has; here the catching up happens on demand, not on a timer).
 */
import type { AddressUtxo, CounterpartyBackend, CpAssetInfo, CpBalance, CpEvent, CpEventName, CpStatus } from '../ports.js';

export class SyncingCounterparty implements CounterpartyBackend {
  readonly kind = 'devnet' as const;

  constructor(
    private readonly ledger: CounterpartyBackend,
    private readonly sync: () => Promise<void>,
  ) {}

  private async after<T>(read: () => Promise<T>): Promise<T> {
    await this.sync();
    return read();
  }

  getStatus(): Promise<CpStatus> {
    return this.after(() => this.ledger.getStatus());
  }

  getAddressBalances(address: string): Promise<CpBalance[]> {
    return this.after(() => this.ledger.getAddressBalances(address));
  }

  getUtxoBalances(utxo: string): Promise<CpBalance[]> {
    return this.after(() => this.ledger.getUtxoBalances(utxo));
  }

  getAssetBalances(asset: string): Promise<CpBalance[]> {
    return this.after(() => this.ledger.getAssetBalances(asset));
  }

  getUtxosWithBalances(utxos: string[]): Promise<Set<string>> {
    return this.after(() => this.ledger.getUtxosWithBalances(utxos));
  }

  getAsset(asset: string): Promise<CpAssetInfo | null> {
    return this.after(() => this.ledger.getAsset(asset));
  }

  estimateAttachXcpFee(): Promise<string> {
    return this.after(() => this.ledger.estimateAttachXcpFee());
  }

  getBlockEvents(height: number, names?: CpEventName[]): Promise<CpEvent[]> {
    return this.after(() => this.ledger.getBlockEvents(height, names));
  }

  getAddressUtxos(address: string): Promise<AddressUtxo[]> {
    return this.after(() => this.ledger.getAddressUtxos(address));
  }
}
