/**
 * The devnet's durable state. The chain is stored as its blocks (raw header, raw transactions,
 * the devnet control operations they carry) and the mempool as raw transactions; everything
 * else (UTXO set, Counterparty ledger, events) is rebuilt by replaying them on open, so a
 * restart keeps the chain exactly and there is a single source of truth.
 */
export interface DevnetTables {
  /** The active chain, one row per height. A reorg deletes the disconnected rows. */
  devnet_blocks: {
    height: number;
    hash: string;
    /** 80-byte header, hex. */
    header_hex: string;
    /** JSON array of raw transactions (hex), coinbase first. */
    txs_json: string;
    /** JSON array of control operations (issuances, credits) applied in this block. */
    ops_json: string;
  };
  devnet_mempool: {
    txid: string;
    hex: string;
    /** Acceptance order: replay re-accepts in this order so parents precede children. */
    seq: number;
    /** Unix seconds the transaction entered the mempool. */
    time: number;
  };
  /** Control operations waiting for the next block (those a reorg disconnected). */
  devnet_pending_ops: {
    seq: number;
    op_json: string;
  };
}

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../../store/schema.js' {
  interface DatabaseSchema extends DevnetTables {}
}
