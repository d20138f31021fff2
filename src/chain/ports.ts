/**
 * The two chain ports. The service talks only to these; behind them sit the
 * production adapters (Bitcoin Core JSON-RPC, Counterparty Core API v2) or the
 * in-process devnet. Amounts are integer satoshis; Counterparty quantities are
 * decimal strings (they can exceed 2^53).
 */

export interface ChainTip {
  height: number;
  hash: string;
}

export interface ChainTxOut {
  value_sats: number;
  script_hex: string;
  /** Address of the output script when it has one. */
  address: string | null;
}

export interface ChainTx {
  txid: string;
  hex: string;
}

export interface ChainBlock {
  height: number;
  hash: string;
  prev_hash: string;
  /** Block header time, unix seconds. */
  time: number;
  txs: ChainTx[];
}

export interface ChainTransaction {
  txid: string;
  hex: string;
  /** 0 while in the mempool. */
  confirmations: number;
  block_hash: string | null;
  block_height: number | null;
}

export interface ChainUtxo {
  txid: string;
  vout: number;
  value_sats: number;
  script_hex: string;
  address: string | null;
  /** 0 when the output is unconfirmed (mempool). */
  confirmations: number;
  coinbase: boolean;
}

export interface MempoolEntry {
  txid: string;
  vsize: number;
  fee_sats: number;
  /** Unconfirmed ancestors including itself, as Bitcoin Core counts them. */
  ancestor_count: number;
  descendant_count: number;
  time: number;
}

/** Fee rates in sat/vB. */
export interface FeeEstimates {
  fastest: number;
  half_hour: number;
  hour: number;
  economy: number;
  minimum: number;
}

export interface AcceptResult {
  txid: string;
  allowed: boolean;
  /** Bitcoin Core's reject reason, e.g. `txn-mempool-conflict`, `min relay fee not met`. */
  reject_reason?: string;
  vsize?: number;
  fee_sats?: number;
}

/** One member of a submitted package, in submit order. */
export interface PackageMember {
  txid: string;
  /** In the mempool now (accepted by this call, or already there). */
  accepted: boolean;
  /** The node's reason when refused (`unevaluated` when validation stopped before it). */
  error?: string;
}

export interface PackageResult {
  txids: string[];
  /** Bitcoin Core's `package_msg` (`success` when every transaction is in the mempool). */
  message: string;
  /** Each member's fate: Core validates members one by one first, so a parent can land while its child fails. */
  members: PackageMember[];
  /** Mempool transactions the package replaced (Core's `replaced-transactions`). */
  replaced: string[];
}

/** What a node says about itself, for the start-up check (docs/operating.md). */
export interface NodeDescription {
  /** e.g. `Bitcoin Core 29.0.0`, `Counterparty Core 11.2.0`. */
  version: string;
  /** In the market's vocabulary: `mainnet`, `testnet4`, `signet`, `regtest` (or the node's own word when unknown). */
  network: string;
  /** False while it catches up (initial block download, Counterparty parsing behind Bitcoin Core): a state that passes by itself. */
  ready: boolean;
  /** Facts the operator should know (`txindex on`, `pruned`, `catching up 850100/850214`, …). */
  notes: string[];
  /** Requirements it misses (`txindex off: …`): the operator's to fix. The market starts anyway and says so. */
  problems: string[];
}

export interface BitcoinBackend {
  readonly kind: 'bitcoin-core' | 'devnet';
  /** Version, network, readiness and the settings the market needs (txindex), for the start-up check. */
  describeNode?(): Promise<NodeDescription>;
  getTip(): Promise<ChainTip>;
  /** The tip's hash alone (Core's `getbestblockhash`): the cheapest question, asked every second by the tip check. */
  getBestBlockHash(): Promise<string>;
  getBlockHash(height: number): Promise<string | null>;
  /** A block with its transactions, by hash; null when unknown. */
  getBlock(hash: string): Promise<ChainBlock | null>;
  /** A transaction from the mempool or the chain; null when unknown. */
  getTransaction(txid: string): Promise<ChainTransaction | null>;
  /** An unspent output (mempool spends applied when includeMempool); null when spent or unknown. */
  getTxOut(txid: string, vout: number, includeMempool?: boolean): Promise<ChainUtxo | null>;
  getMempoolEntry(txid: string): Promise<MempoolEntry | null>;
  estimateFees(): Promise<FeeEstimates>;
  testAccept(hexes: string[]): Promise<AcceptResult[]>;
  /** Relays one transaction; throws TxRejected with the node's reason. Already-known is success. */
  broadcast(hex: string): Promise<string>;
  /**
   * Submits a child with its parents. Returns when at least one member is in the mempool
   * (`message` is `success` only when all are; `members` says which were refused); throws
   * TxRejected when none is.
   */
  submitPackage(hexes: string[]): Promise<PackageResult>;
}

export interface CpBalance {
  asset: string;
  asset_longname: string | null;
  quantity_raw: string;
  /** Set on UTXO balances: `txid:vout`. */
  utxo: string | null;
  /** Owner address (for UTXO balances, the address that owns the UTXO). */
  address: string | null;
}

export interface CpAssetInfo {
  asset: string;
  asset_id: string;
  asset_longname: string | null;
  divisible: boolean;
  locked: boolean;
  supply_raw: string;
  /** The first issuer (Core's asset record keeps the first issuance's issuer here). */
  issuer: string | null;
  /**
   * Who holds the issuance rights now: the issuer of the latest issuance, which a transfer of
   * ownership moves. Null for XCP, or from a Core release without the field (then `issuer` is current).
   */
  owner: string | null;
  description: string;
  first_issuance_block_index: number | null;
}

export type CpEventName = 'ATTACH_TO_UTXO' | 'DETACH_FROM_UTXO' | 'UTXO_MOVE' | 'SEND' | 'CREDIT' | 'DEBIT' | 'ASSET_ISSUANCE' | 'NEW_BLOCK';

export interface CpEvent {
  event_index: number;
  event: string;
  tx_hash: string | null;
  block_index: number;
  params: Record<string, unknown>;
}

export interface CpStatus {
  counterparty_height: number;
  bitcoin_height: number;
  ready: boolean;
}

export interface AddressUtxo {
  txid: string;
  vout: number;
  value_sats: number;
  /** null while unconfirmed. */
  height: number | null;
  confirmations: number;
}

export interface CounterpartyBackend {
  readonly kind: 'counterparty-core' | 'devnet';
  /** Version, network and readiness from `/v2/`, for the start-up check. */
  describeNode?(): Promise<NodeDescription>;
  getStatus(): Promise<CpStatus>;
  getAddressBalances(address: string): Promise<CpBalance[]>;
  /** Balances attached to one UTXO (`txid:vout`). */
  getUtxoBalances(utxo: string): Promise<CpBalance[]>;
  /**
   * Every non-zero balance of one asset, detached (address) and UTXO-attached alike; a UTXO row's
   * `address` is the UTXO's owner. Confirmed state only, as Core's balance routes serve it.
   */
  getAssetBalances(asset: string): Promise<CpBalance[]>;
  /** Which of the given UTXOs carry any Counterparty balance. */
  getUtxosWithBalances(utxos: string[]): Promise<Set<string>>;
  getAsset(asset: string): Promise<CpAssetInfo | null>;
  /** XCP fee (raw, 8 decimals) an attach would pay now. */
  estimateAttachXcpFee(): Promise<string>;
  /** Events of one confirmed block, optionally narrowed by name. */
  getBlockEvents(height: number, names?: CpEventName[]): Promise<CpEvent[]>;
  /**
   * Bitcoin UTXOs of an address: Core proxies this to the Electrs behind it (`--electrs-url`), so it
   * fails (UpstreamUnavailable, `cause: 'electrs'`) on a node without one. The market reads a
   * wallet's coins through `Chain.utxos` instead, which may or may not be this.
   */
  getAddressUtxos(address: string): Promise<AddressUtxo[]>;
}

/**
 * Where the market learns a wallet's Bitcoin coins (its UTXOs; which of them carry a Counterparty
 * balance is Counterparty's question, asked apart). Two production adapters: Counterparty Core's
 * `/v2/bitcoin/addresses/{a}/utxos` (an Electrs behind Core) and Bitcoin Core's own `scantxoutset`
 * (no indexer, a scan of the whole UTXO set per call); the devnet answers from its own chain.
 * Chosen by `UTXO_SOURCE`. A caller that names its coins (explicit `funding` outpoints) needs neither.
 */
export interface UtxoSource {
  readonly kind: 'counterparty-core' | 'bitcoin-core' | 'devnet';
  /** False when mempool outputs are invisible to it (Bitcoin Core's scan sees the chainstate only). */
  readonly seesMempool: boolean;
  /** Unspent outputs of the address; mempool spends applied; confirmations counted from the tip. */
  getAddressUtxos(address: string): Promise<AddressUtxo[]>;
  /** Whether it answers now: a short description, or a throw saying what is wrong (for /readyz and the start-up log). */
  probe(): Promise<string>;
}

export interface Chain {
  bitcoin: BitcoinBackend;
  counterparty: CounterpartyBackend;
  utxos: UtxoSource;
  /** Where configured: the node's own announcements of new blocks (Bitcoin Core's ZMQ `hashblock`). */
  blocks?: BlockNotices;
}

/**
 * A node's announcements of new blocks, pushed as they connect. A hint, never the truth: a
 * notice can be lost (ZMQ drops messages when a subscriber lags or reconnects), so whoever
 * listens still checks the tip on a timer; a notice only saves the wait for that timer.
 */
export interface BlockNotices {
  /** Calls `onBlock` with each announced block hash (hex, as RPC shows it) until closed. */
  start(onBlock: (hash: string) => void): Promise<void>;
  close(): Promise<void>;
}

/** A node refused a transaction; `reason` is Bitcoin Core's reject reason text. */
export class TxRejected extends Error {
  constructor(
    readonly reason: string,
    readonly rpcCode: number = -26,
    readonly txid?: string,
  ) {
    super(`transaction rejected: ${reason}`);
    this.name = 'TxRejected';
  }
}

/**
 * A backend is down, lagging or answered garbage; retrying later may work. `cause` names what
 * failed behind Counterparty Core when it is not Core itself (`electrs`: Core's address index);
 * `retryAfterSeconds` is when a retry makes sense, when the adapter knows (a not-ready node is
 * measured in blocks, an unconfigured Electrs in operator time).
 */
export class UpstreamUnavailable extends Error {
  constructor(
    readonly backend: 'bitcoin' | 'counterparty',
    message: string,
    readonly status: 502 | 503 = 503,
    readonly detail: { cause?: 'electrs'; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'UpstreamUnavailable';
  }
}
