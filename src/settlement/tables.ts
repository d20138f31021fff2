export type SettlementState =
  /** Signed bytes stored; not yet known to have reached the network. */
  | 'journaled'
  /** The network accepted it (mempool or chain). */
  | 'relayed'
  /** Seen in a block by the indexer (a reorg can return it to relayed). */
  | 'confirmed'
  /** The node refused it for a reason retrying the same bytes cannot fix; claims released. */
  | 'rejected'
  /** An input was spent by another transaction: provably dead; claims released. */
  | 'conflicted';

/** The states a settlement can still move out of: recovery relays them, and they hold their claims. */
export const LIVE: SettlementState[] = ['journaled', 'relayed'];

/** One member's fate: `pending` (not yet answered), `relayed` (in the mempool or a block), `refused` (the node said no; `reason`). */
export type MemberState = 'pending' | 'relayed' | 'refused';

export interface SettlementTables {
  /** The journal: every signed settlement, stored before it is broadcast. */
  settlements: {
    id: string;
    kind: string;
    ref_id: string;
    state: SettlementState;
    /** JSON array of {txid, hex} in submit order (a package is [parent, child]). */
    txs: string;
    /** The txid that identifies the settlement (the only tx, or the package child). */
    txid: string;
    is_package: number;
    attempts: number;
    last_error: string | null;
    mempool_reason: string | null;
    created_at: number;
    updated_at: number;
    relayed_at: number | null;
    confirmed_height: number | null;
    confirmed_hash: string | null;
    confirmed_at: number | null;
  };
  /**
   * One row per outpoint a live settlement spends: the primary key makes the
   * first claimer win across checkout, exact offers and policy accepts.
   */
  settlement_members: {
    settlement_id: string;
    /** Submit order: 0 for the only transaction or the package's parent, 1 for its child. */
    position: number;
    txid: string;
    state: MemberState;
    reason: string | null;
    updated_at: number;
  };
  outpoint_claims: {
    outpoint: string;
    settlement_id: string;
    created_at: number;
  };
}

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../store/schema.js' {
  interface DatabaseSchema extends SettlementTables {}
}
