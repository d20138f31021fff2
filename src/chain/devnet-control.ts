import type { Chain } from './ports.js';

/**
 * Failures a real Counterparty Core shows that the devnet can put on, so a market or an integrator
 * meets them before mainnet does: `not_ready` (503 `Counterparty not ready` on every route but
 * `/v2/`, X-COUNTERPARTY-READY False), `electrs_not_configured` / `electrs_failed` (400 with Core's
 * Electrs messages on `/v2/bitcoin/addresses/{a}/utxos`).
 */
export type CounterpartyFault = 'none' | 'not_ready' | 'electrs_not_configured' | 'electrs_failed';
export const COUNTERPARTY_FAULTS: readonly CounterpartyFault[] = ['none', 'not_ready', 'electrs_not_configured', 'electrs_failed'];

/** What the market's /devnet/* routes and CLI drive; the devnet engine provides it. */
export interface DevnetControl {
  readonly chain: Chain;
  faucet(address: string, amountSats: number): Promise<{ txid: string; vout: number }>;
  mine(blocks: number, address?: string): Promise<string[]>;
  issueAsset(p: { asset?: string; longname?: string; issuer: string; quantity_raw: string; divisible: boolean; description?: string }): Promise<{ asset: string }>;
  credit(address: string, asset: string, quantityRaw: string): Promise<void>;
  /** Forgets every unconfirmed transaction (a node restarted without its mempool). */
  dropMempool(): Promise<{ dropped: number }>;
  /** Moves an asset's issuance rights from its current owner to `to` (Core: an issuance with a transfer destination). */
  transferIssuance(p: { asset: string; from: string; to: string }): Promise<void>;
  /** Puts a Counterparty Core failure on (or `none` takes it off) from now on; the devnet only (a followed node's Counterparty is its own). */
  setCounterpartyFault(fault: CounterpartyFault): void;
  reorg(depth: number): Promise<{ disconnected: number; tip: { height: number; hash: string } }>;
  addressUtxos(address: string): Promise<Array<{ txid: string; vout: number; value_sats: number; confirmations: number }>>;
  /** Mines a block every `intervalMs` from now on (the sandbox `npm start` runs). */
  startMining(intervalMs: number): void;
  close?(): Promise<void>;
}
