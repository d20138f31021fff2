/**
 * The UtxoSource over Counterparty Core's `/v2/bitcoin/addresses/{a}/utxos`, which Core answers
 * from the Electrs behind it (`--electrs-url`): confirmed and mempool coins, with mempool spends
 * applied by Electrs. A node without Electrs answers 400 `Electrs server not configured`, which
 * the client turns into an upstream failure with a log line for the operator.
 */
import type { AddressUtxo, CounterpartyBackend, UtxoSource } from '../ports.js';

export class CounterpartyUtxoSource implements UtxoSource {
  readonly kind = 'counterparty-core' as const;
  readonly seesMempool = true;

  /** `probeAddress`: any valid address of the network (the market's fee address): probing asks Electrs for its coins. */
  constructor(
    private readonly counterparty: CounterpartyBackend,
    private readonly probeAddress: string,
  ) {}

  getAddressUtxos(address: string): Promise<AddressUtxo[]> {
    return this.counterparty.getAddressUtxos(address);
  }

  async probe(): Promise<string> {
    await this.counterparty.getAddressUtxos(this.probeAddress);
    return 'counterparty-core /v2/bitcoin/addresses/{a}/utxos (Electrs behind Counterparty Core answers)';
  }
}
