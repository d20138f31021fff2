/**
 * The holders read's totals (migration 070) and each holder's member assets (migration 085), kept by the database's triggers on every write to
 * `cp_holdings`, `catalog_assets` and `cp_assets`, whoever makes it: nothing in the application
 * writes them, so they cannot drift from the balance view they count.
 */
export interface HoldingTotalsTables {
  /** Per (collection, address) with a whole unit of a member asset: units summed, assets held. */
  holding_totals: {
    collection_slug: string;
    address: string;
    units: number;
    assets: number;
  };
  /** Per collection: holders (lines of holding_totals), their units, catalogue assets, and those fresh in the balance view. */
  collection_holding_totals: {
    collection_slug: string;
    holders: number;
    units: number;
    assets: number;
    indexed: number;
  };
  /** Per (collection, address, member asset held with a whole unit): its units, ranked per holder for the listed holders' assets (migration 085). */
  holder_assets: {
    collection_slug: string;
    address: string;
    units: number;
    asset: string;
  };
}

declare module '../../store/schema.js' {
  interface DatabaseSchema extends HoldingTotalsTables {}
}
