/**
 * The signer's record for co-signed listings, in its own decision file
 * (`listing-decisions.sqlite`), two tables changed only inside one IMMEDIATE transaction, so a
 * co-signature and a delist are one linearized decision:
 *
 * - `listing_decisions`: one row per unit outpoint, the transaction the signer co-signed it into
 *   (a checkout of its listing, or an offer accept under the accept's id). A signed outpoint is
 *   never signed for another transaction (the market would otherwise hold two fully signed spends
 *   of one unit) unless the market shows the signed one can no longer settle (`supersedes`).
 * - `listing_revocations`: one row per delisted listing id, kept forever and consulted first by
 *   every co-signature for that id. It is a table of its own, not a state of the outpoint's row,
 *   because the outpoint's row changes hands (an accept of the unit after the delist, a dead
 *   transaction superseded): a revoke kept there was overwritten by the next co-signature, and a
 *   delist arriving while another transaction's signature stood had nowhere to go.
 *
 *   listing revoked                      → refused `listing_delisted`, whatever the outpoint holds
 *   (none)                               → signed(id, txid)            the first co-signature
 *   signed(id, txid), same id and txid   → the same answer             recovery re-uses the bytes
 *   signed(_, dead txid) + supersedes    → signed(id, txid)            the dead one replaced
 *   anything                             → revoked(id)                 a delist, recorded once
 *
 * Relisting the same outpoint after a delist is a new listing id.
 */
import type Database from 'better-sqlite3';
import path from 'node:path';
import { openLogFile } from './decisions.js';

export interface ListingDecision {
  outpoint: string;
  listing_id: string;
  state: 'signed';
  txid: string;
  signature: string;
  key_version: number;
  recorded_at: number;
}

export interface ListingRevocation {
  listing_id: string;
  outpoint: string;
  /** When the delist was first recorded; a repeat never moves it. */
  recorded_at: number;
}

const DDL = `CREATE TABLE IF NOT EXISTS listing_decisions (
  outpoint TEXT PRIMARY KEY,
  listing_id TEXT NOT NULL,
  state TEXT NOT NULL,
  txid TEXT,
  signature TEXT,
  key_version INTEGER,
  recorded_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS listing_revocations (
  listing_id TEXT PRIMARY KEY,
  outpoint TEXT NOT NULL,
  recorded_at INTEGER NOT NULL
)`;

/**
 * The file's own schema versions (`PRAGMA user_version`; the market's migrations never reach this
 * file). Version 1: revokes move out of `listing_decisions` (where a file of version 0 kept them
 * as `state = 'revoked'` rows) into `listing_revocations`, with their recorded time.
 */
function migrate(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version >= 1) return;
  db.transaction(() => {
    db.exec(`INSERT OR IGNORE INTO listing_revocations (listing_id, outpoint, recorded_at)
               SELECT listing_id, outpoint, recorded_at FROM listing_decisions WHERE state = 'revoked';
             DELETE FROM listing_decisions WHERE state = 'revoked'`);
    db.pragma('user_version = 1');
  }).immediate();
}

export class ListingDecisionLog {
  private readonly db: Database.Database;

  constructor(dir: string) {
    this.db = openLogFile(path.join(dir, 'listing-decisions.sqlite'), DDL);
    migrate(this.db);
  }

  get(outpoint: string): ListingDecision | undefined {
    return this.db.prepare('SELECT * FROM listing_decisions WHERE outpoint = ?').get(outpoint) as ListingDecision | undefined;
  }

  revocation(listingId: string): ListingRevocation | undefined {
    return this.db.prepare('SELECT * FROM listing_revocations WHERE listing_id = ?').get(listingId) as ListingRevocation | undefined;
  }

  /**
   * In one step: the delist recorded for `listingId` (nothing is signed), else the decision
   * standing for `outpoint`, else `make()`'s when there is none or `replaces(before)` says the new
   * one may take its place. `make` signs inside the transaction: nothing is signed that is not
   * recorded, and nothing is signed after a delist is.
   */
  cosign(
    listingId: string,
    outpoint: string,
    replaces: (before: ListingDecision) => boolean,
    make: () => ListingDecision,
  ): { revoked: ListingRevocation } | { decision: ListingDecision; first: boolean } {
    const step = this.db.transaction(() => {
      const revoked = this.revocation(listingId);
      if (revoked) return { revoked };
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

  /**
   * In one step: the delist of `listingId` recorded (the first time; a repeat keeps the first
   * recorded time), whatever the outpoint's row holds, and that row as it stands (a co-signature
   * released before the delist cannot be taken back; the caller says so).
   */
  revoke(listingId: string, outpoint: string, now: number): { revocation: ListingRevocation; signed: ListingDecision | undefined } {
    const step = this.db.transaction(() => {
      this.db.prepare('INSERT OR IGNORE INTO listing_revocations (listing_id, outpoint, recorded_at) VALUES (?, ?, ?)').run(listingId, outpoint, now);
      const revocation = this.revocation(listingId)!;
      return { revocation, signed: this.get(revocation.outpoint) };
    });
    return step.immediate();
  }

  close(): void {
    this.db.close();
  }
}
