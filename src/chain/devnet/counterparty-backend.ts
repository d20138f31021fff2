/** The devnet behind the `CounterpartyBackend` port (confirmed state, like Core's balance routes). */
import type { AddressUtxo, CounterpartyBackend, CpAssetInfo, CpBalance, CpEvent, CpEventName, CpStatus } from '../ports.js';
import type { Devnet } from './devnet.js';

export class DevnetCounterpartyBackend implements CounterpartyBackend {
  readonly kind = 'devnet' as const;

  constructor(private readonly d: Devnet) {}

  async getStatus(): Promise<CpStatus> {
    return this.d.api.status();
  }

  async getAddressBalances(address: string): Promise<CpBalance[]> {
    return this.d.api.addressBalances(address).map((r) => ({
      asset: r.asset, asset_longname: r.asset_longname, quantity_raw: String(r.quantity), utxo: r.utxo, address: r.address ?? r.utxo_address,
    }));
  }

  async getUtxoBalances(utxo: string): Promise<CpBalance[]> {
    return this.d.api.utxoBalances(utxo).map((r) => ({
      asset: r.asset, asset_longname: r.asset_longname, quantity_raw: String(r.quantity), utxo: r.utxo, address: r.utxo_address,
    }));
  }

  async getAssetBalances(asset: string): Promise<CpBalance[]> {
    return this.d.api.assetBalances(asset).map((r) => ({
      asset: r.asset, asset_longname: r.asset_longname, quantity_raw: String(r.quantity), utxo: r.utxo, address: r.utxo ? r.utxo_address : r.address,
    }));
  }

  async getUtxosWithBalances(utxos: string[]): Promise<Set<string>> {
    const map = this.d.api.utxosWithBalances(utxos);
    return new Set(Object.entries(map).filter(([, v]) => v).map(([k]) => k));
  }

  async getAsset(asset: string): Promise<CpAssetInfo | null> {
    const a = this.d.api.asset(asset);
    if (!a) return null;
    return {
      asset: a.asset, asset_id: a.asset_id, asset_longname: a.asset_longname, divisible: a.divisible, locked: a.locked,
      supply_raw: String(a.supply), issuer: a.issuer, owner: a.owner, description: a.description,
      first_issuance_block_index: a.first_issuance_block_index,
    };
  }

  async estimateAttachXcpFee(): Promise<string> {
    return this.d.api.attachEstimateXcpFee().toString();
  }

  async getBlockEvents(height: number, names?: CpEventName[]): Promise<CpEvent[]> {
    return this.d.api.blockEventList(height, names).map((e) => ({ event_index: e.event_index, event: e.event, tx_hash: e.tx_hash, block_index: e.block_index, params: e.params }));
  }

  async getAddressUtxos(address: string): Promise<AddressUtxo[]> {
    return this.d.api.addressUtxoRows(address);
  }
}
