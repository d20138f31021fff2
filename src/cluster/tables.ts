export interface ClusterTables {
  /** The fencing epoch of each leader role; a new leader increments it when it takes over. */
  leader_epochs: {
    role: string;
    epoch: number;
    /** The instance that took the role last (host:pid:port), for operators. */
    holder: string;
    acquired_at: number;
  };
}

// This layer's table joins the store's one schema (store/schema.ts); the store never imports it.
declare module '../store/schema.js' {
  interface DatabaseSchema extends ClusterTables {}
}
