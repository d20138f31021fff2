export interface IndexerTables {
  /** Blocks the market has processed, so a reorg is found by comparing hashes. */
  indexed_blocks: {
    height: number;
    hash: string;
    /** When the market first saw the block (ms): confirmations are stamped with this, not block time. */
    seen_at: number;
  };
}

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../store/schema.js' {
  interface DatabaseSchema extends IndexerTables {}
}
