/**
 * The devnet behind the `CounterpartyBackend` port (confirmed state, like Core's balance routes).
 * Its Counterparty fault (`devnet.counterpartyFault`) fails these reads as the production adapter
 * fails them against a real Core in that state, so the market's answer is the same on both.
 */
import { ElectrsUnavailable } from '../counterparty-core/api-client.js';
import { UpstreamUnavailable, type AddressUtxo, type CounterpartyBackend, type CpAssetInfo, type CpBalance, type CpEvent, type CpEventName, type CpStatus } from '../ports.js';
import type { Devnet } from './devnet.js';

const ELECTRS_MESSAGES = {
  electrs_not_configured: 'Electrs server not configured',
  electrs_failed: 'All Electrs backends failed. Last error: 503 Server Error: Service Unavailable for url: http://127.0.0.1:3002/address/{a}/utxo',
} as const;

/** Core's 400 text for an Electrs fault, or null. */
export function electrsFaultMessage(d: Devnet): string | null {
  const f = d.counterpartyFault;
  return f === 'electrs_not_configured' || f === 'electrs_failed' ? ELECTRS_MESSAGES[f] : null;
}

export class DevnetCounterpartyBackend implements CounterpartyBackend {
  readonly kind = 'devnet' as const;

  constructor(private readonly d: Devnet) {}

  async getStatus(): Promise<CpStatus> {
    return this.d.api.status();
  }

  /** Core answers 503 `Counterparty not ready` on every ledger route while it catches up. */
  private ready(): void {
    if (this.d.counterpartyFault === 'not_ready') {
      const s = this.d.api.status();
      throw new UpstreamUnavailable('counterparty', `counterparty not caught up (${s.counterparty_height} of ${s.bitcoin_height}): Counterparty not ready`, 503, { retryAfterSeconds: 30 });
    }
  }

  async getAddressBalances(address: string): Promise<CpBalance[]> {
    this.ready();
    return this.d.api.addressBalances(address).map((r) => ({
      asset: r.asset, asset_longname: this.d.api.longname(r.asset), quantity_raw: String(r.quantity), utxo: r.utxo, address: r.address ?? r.utxo_address,
    }));
  }

  async getUtxoBalances(utxo: string): Promise<CpBalance[]> {
    this.ready();
    return this.d.api.utxoBalances(utxo).map((r) => ({
      asset: r.asset, asset_longname: this.d.api.longname(r.asset), quantity_raw: String(r.quantity), utxo: r.utxo, address: r.utxo_address,
    }));
  }

  async getAssetBalances(asset: string): Promise<CpBalance[]> {
    this.ready();
    return this.d.api.assetBalances(asset).map((r) => ({
      asset: r.asset, asset_longname: this.d.api.longname(r.asset), quantity_raw: String(r.quantity), utxo: r.utxo, address: r.utxo ? r.utxo_address : r.address,
    }));
  }

  async getUtxosWithBalances(utxos: string[]): Promise<Set<string>> {
    this.ready();
    const map = this.d.api.utxosWithBalances(utxos);
    return new Set(Object.entries(map).filter(([, v]) => v).map(([k]) => k));
  }

  async getAsset(asset: string): Promise<CpAssetInfo | null> {
    this.ready();
    const a = this.d.api.asset(asset);
    if (!a) return null;
    return {
      asset: a.asset, asset_id: a.asset_id ?? '1', asset_longname: a.asset_longname, divisible: a.divisible, locked: a.locked,
      supply_raw: String(a.supply), issuer: a.issuer, owner: a.owner, description: a.description,
      first_issuance_block_index: a.first_issuance_block_index,
    };
  }

  async estimateAttachXcpFee(): Promise<string> {
    this.ready();
    return this.d.api.attachEstimateXcpFee().toString();
  }

  async getBlockEvents(height: number, names?: CpEventName[]): Promise<CpEvent[]> {
    this.ready();
    return this.d.api.blockEventList(height, names).map((e) => ({ event_index: e.event_index, event: e.event, tx_hash: e.tx_hash, block_index: e.block_index, params: e.params }));
  }

  async getAddressUtxos(address: string): Promise<AddressUtxo[]> {
    this.ready();
    const electrs = electrsFaultMessage(this.d);
    if (electrs) throw new ElectrsUnavailable(`/v2/bitcoin/addresses/${address}/utxos`, this.d.counterpartyFault === 'electrs_failed' ? 'backends_failed' : 'not_configured', electrs);
    return this.d.api.addressUtxoRows(address);
  }
}
