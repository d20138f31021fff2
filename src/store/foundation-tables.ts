export interface FoundationTables {
  /** Small durable settings: the derived secret, job cursors. */
  meta: { key: string; value: string; updated_at: number };
}
