/**
 * The devnet behind the UtxoSource port, in either production adapter's manner:
 * `counterparty` answers as Counterparty Core's `/v2/bitcoin/addresses/{a}/utxos` does (mempool
 * coins included; fails as Core does while the devnet's Counterparty fault says Electrs is absent
 * or down), `bitcoin-core` as `scantxoutset` followed by `gettxout` does (confirmed coins only,
 * those a mempool transaction spends dropped), so a market on either setting meets its real shape.
 */
import { decodeAddress } from '../../bitcoin/address.js';
import type { AddressUtxo, UtxoSource } from '../ports.js';
import type { Devnet } from './devnet.js';

export class DevnetUtxoSource implements UtxoSource {
  readonly kind = 'devnet' as const;
  readonly seesMempool: boolean;

  constructor(
    private readonly d: Devnet,
    readonly manner: 'counterparty' | 'bitcoin-core',
  ) {
    this.seesMempool = manner === 'counterparty';
  }

  async getAddressUtxos(address: string): Promise<AddressUtxo[]> {
    if (this.manner === 'counterparty') return this.d.counterparty.getAddressUtxos(address);
    const decoded = decodeAddress(address, this.d.network);
    if (!decoded.ok) return [];
    const node = this.d.state;
    const tip = node.chain.height;
    return node.chain
      .coinsOf(decoded.script)
      .filter((c) => !node.mempool.spender(c.txid, c.vout))
      .map((c) => ({ txid: c.txid, vout: c.vout, value_sats: Number(c.value), height: c.height, confirmations: tip - c.height + 1 }));
  }

  async probe(): Promise<string> {
    if (this.manner === 'counterparty') {
      // Any valid regtest address: the answer is the devnet's Counterparty face, faults included.
      await this.d.counterparty.getAddressUtxos(this.d.miner.address);
      return 'devnet, as counterparty-core /v2/bitcoin/addresses/{a}/utxos';
    }
    return 'devnet, as bitcoin-core scantxoutset';
  }
}
