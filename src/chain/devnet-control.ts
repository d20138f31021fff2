import type { Chain } from './ports.js';

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
  reorg(depth: number): Promise<{ disconnected: number; tip: { height: number; hash: string } }>;
  addressUtxos(address: string): Promise<Array<{ txid: string; vout: number; value_sats: number; confirmations: number }>>;
  /** Mines a block every `intervalMs` from now on (the sandbox `npm start` runs). */
  startMining(intervalMs: number): void;
  close?(): Promise<void>;
}
