/**
 * The parts of Bitcoin Core's RPC replies the adapter reads (Core 24–29; field
 * names from the RPCHelpMan result docs in src/rpc/*.cpp). Amounts are BTC as
 * JSON numbers with 8 decimals; fee rates are BTC/kvB.
 */

export interface GetBlockchainInfoReply {
  chain: string;
  blocks: number;
  headers: number;
  bestblockhash: string;
  initialblockdownload?: boolean;
  verificationprogress?: number;
}

export interface RpcScriptPubKey {
  hex: string;
  type?: string;
  /** Core 22+. */
  address?: string;
  /** Before Core 22. */
  addresses?: string[];
}

export interface RpcVout {
  value: number;
  n: number;
  scriptPubKey: RpcScriptPubKey;
}

export interface RpcTx {
  txid: string;
  hash?: string;
  hex: string;
  vout?: RpcVout[];
}

/** `getblock <hash> 2` */
export interface GetBlockV2Reply {
  hash: string;
  height: number;
  confirmations: number;
  time: number;
  /** Absent on the genesis block. */
  previousblockhash?: string;
  tx: RpcTx[];
}

/** `getblockheader <hash> true` */
export interface GetBlockHeaderReply {
  hash: string;
  height: number;
  confirmations: number;
  time: number;
  previousblockhash?: string;
}

/** `getrawtransaction <txid> true` */
export interface GetRawTransactionReply extends RpcTx {
  /** Set when the transaction is in a block (and txindex or a block hash found it). */
  blockhash?: string;
  /** Absent in the mempool; 0 for a block off the active chain. */
  confirmations?: number;
  blocktime?: number;
}

/** `gettxout <txid> <n> <include_mempool>`; the RPC answers null when spent or unknown. */
export interface GetTxOutReply {
  bestblock: string;
  /** 0 for a mempool output. */
  confirmations: number;
  value: number;
  scriptPubKey: RpcScriptPubKey;
  coinbase: boolean;
}

/** `getmempoolentry <txid>` */
export interface GetMempoolEntryReply {
  vsize: number;
  weight?: number;
  time: number;
  height: number;
  descendantcount: number;
  ancestorcount: number;
  fees: { base: number; modified: number; ancestor: number; descendant: number };
  /** Removed in Core 23; read only as a fallback. */
  fee?: number;
}

/** `getmempoolinfo` */
export interface GetMempoolInfoReply {
  loaded: boolean;
  size: number;
  mempoolminfee: number;
  minrelaytxfee: number;
}

/** `estimatesmartfee <target>` */
export interface EstimateSmartFeeReply {
  feerate?: number;
  errors?: string[];
  blocks: number;
}

/** One entry of `testmempoolaccept [...]`. */
export interface TestMempoolAcceptEntry {
  txid: string;
  wtxid?: string;
  'package-error'?: string;
  /** Absent when validation stopped at another transaction of the package. */
  allowed?: boolean;
  vsize?: number;
  fees?: { base: number; 'effective-feerate'?: number; 'effective-includes'?: string[] };
  'reject-reason'?: string;
  /** Core 29+: the debug part of the state. */
  'reject-details'?: string;
}

/** `submitpackage [...]` (Core 26+; shape of Core 28). */
export interface SubmitPackageReply {
  package_msg: string;
  'tx-results': Record<
    string,
    { txid: string; 'other-wtxid'?: string; vsize?: number; fees?: { base: number }; error?: string }
  >;
  'replaced-transactions'?: string[];
}

/** Integer satoshis from a BTC amount (8 decimals; exact for every amount below 21M BTC). */
export const btcToSats = (btc: number): number => Math.round(btc * 1e8);

export function addressOf(spk: RpcScriptPubKey): string | null {
  return spk.address ?? (spk.addresses?.length === 1 ? (spk.addresses[0] ?? null) : null);
}
