/**
 * The market's copy of Counterparty balances for catalogue assets (the holders read uses it).
 * The indexer's balance-view watcher keeps it: Counterparty's answer per asset replaces that
 * asset's rows whole, so the copy never drifts by arithmetic. Times are unix ms.
 */
export interface BalanceViewTables {
  /** One row per catalogue asset the view has fetched at least once. */
  cp_assets: {
    asset: string;
    asset_longname: string | null;
    /** 1 divisible (a unit is 10^8 raw), 0 indivisible (a unit is 1 raw); null while Counterparty does not know the asset. */
    divisible: number | null;
    /** The indexed block whose step last fetched the balances (a reorg below it marks the row stale). */
    refreshed_height: number;
    refreshed_at: number;
    /** 1 when a reorg disconnected the block of the last fetch: fetched again with the next block. */
    stale: number;
  };
  /** Counterparty's balance rows as fetched, non-zero only. */
  cp_balances: {
    asset: string;
    /** `utxo` for an attached balance, else `address`: the row's key within the asset. */
    holder: string;
    /** The owner: the address itself, or the address that owns the UTXO (null when the UTXO has none). */
    address: string | null;
    /** `txid:vout` of an attached balance; null for a detached one. */
    utxo: string | null;
    quantity_raw: string;
  };
  /** Whole units per owner address and asset: detached and attached raw summed, then divided by the unit. */
  cp_holdings: {
    asset: string;
    address: string;
    units: number;
  };
  /** Per indexed block: the highest Counterparty event index the view reflects once that block is applied. */
  cp_view_blocks: {
    height: number;
    as_of_event_index: number | null;
  };
}

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../../store/schema.js' {
  interface DatabaseSchema extends BalanceViewTables {}
}
