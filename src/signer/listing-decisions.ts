/**
 * The signer's record for co-signed listings (`listing_decisions` in its own decision file):
 * one row per listing outpoint, changed only inside one IMMEDIATE transaction, so a checkout's
 * co-signature and the seller's delist are linearized:
 *
 *   (none) | revoked(other listing) → signed(listing, txid)   the first co-signature
 *   signed(listing, txid)           → signed (same answer)     the same transaction again (recovery
 *                                                              re-uses the journaled bytes)
 *   (none) | signed(other listing)  → revoked(listing)         a delist recorded first: that listing
 *                                                              is never co-signed again
 *
 * A signed outpoint is never signed for another transaction: the market would otherwise hold two
 * fully signed sales of one unit. Relisting the same outpoint after a delist is a new listing id.
 */
import type Database from 'better-sqlite3';
import path from 'node:path';
import { openLogFile } from './decisions.js';

export interface ListingDecision {
  outpoint: string;
  listing_id: string;
  state: 'signed' | 'revoked';
  txid: string | null;
  signature: string | null;
  key_version: number | null;
  recorded_at: number;
}

export class ListingDecisionLog {
  private readonly db: Database.Database;

  constructor(dir: string) {
    this.db = openLogFile(path.join(dir, 'listing-decisions.sqlite'), `CREATE TABLE IF NOT EXISTS listing_decisions (
      outpoint TEXT PRIMARY KEY,
      listing_id TEXT NOT NULL,
      state TEXT NOT NULL,
      txid TEXT,
      signature TEXT,
      key_version INTEGER,
      recorded_at INTEGER NOT NULL
    )`);
  }

  get(outpoint: string): ListingDecision | undefined {
    return this.db.prepare('SELECT * FROM listing_decisions WHERE outpoint = ?').get(outpoint) as ListingDecision | undefined;
  }

  /**
   * In one step: the decision standing for `outpoint`, or `make()`'s when `replaces(before)` says
   * the new one may take its place. `make` signs inside the transaction: nothing is signed that
   * is not recorded.
   */
  decide(outpoint: string, replaces: (before: ListingDecision) => boolean, make: () => ListingDecision): { decision: ListingDecision; first: boolean } {
    const step = this.db.transaction(() => {
      const before = this.get(outpoint);
      if (before && !replaces(before)) return { decision: before, first: false };
      const d = make();
      this.db
        .prepare('INSERT OR REPLACE INTO listing_decisions (outpoint, listing_id, state, txid, signature, key_version, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(d.outpoint, d.listing_id, d.state, d.txid, d.signature, d.key_version, d.recorded_at);
      return { decision: d, first: true };
    });
    return step.immediate();
  }

  close(): void {
    this.db.close();
  }
}
