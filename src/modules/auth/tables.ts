export interface AuthTables {
  /** Named by a random id, so any number can coexist for one address (migration 012). */
  auth_challenges: {
    id: string;
    address: string;
    issued_at: number;
    message: string;
    expires_at: number;
    used_at: number | null;
  };
  /** Tokens are stored only as their SHA-256. */
  sessions: {
    token_hash: string;
    address: string;
    created_at: number;
    expires_at: number;
  };
  /** Connect-time proofs already turned into a session (replay guard), kept until they age out. */
  auth_used_proofs: {
    proof_hash: string;
    expires_at: number;
  };
}

// This area's tables join the store's one schema (store/schema.ts); the store never imports the areas.
declare module '../../store/schema.js' {
  interface DatabaseSchema extends AuthTables {}
}
