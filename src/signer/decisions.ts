/**
 * The signer's durable record, in a SQLite file of its own: for each parent transaction, the one
 * decision it ever made — `signed` (with the child it co-signed) or `cancelled` (when the bidder's
 * soft cancel was recorded). Sign and cancel go through one linearized step (an IMMEDIATE
 * transaction on this file), so a cancel and an accept can never both win: whichever is recorded
 * first stands, and a repeat of the same request answers the same.
 */
import Database from 'better-sqlite3';
import path from 'node:path';

export interface Decision {
  parent_txid: string;
  state: 'signed' | 'cancelled';
  child_txid: string | null;
  signature: string | null;
  key_version: number | null;
  recorded_at: number;
}

/** A decision file: durable on every commit (FULL), with its table. */
export function openLogFile(file: string, ddl: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(ddl);
  return db;
}

export class DecisionLog {
  private readonly db: Database.Database;

  constructor(dir: string) {
    this.db = openLogFile(path.join(dir, 'decisions.sqlite'), `CREATE TABLE IF NOT EXISTS decisions (
      parent_txid TEXT PRIMARY KEY,
      state TEXT NOT NULL,
      child_txid TEXT,
      signature TEXT,
      key_version INTEGER,
      recorded_at INTEGER NOT NULL
    )`);
  }

  get(parent: string): Decision | undefined {
    return this.db.prepare('SELECT * FROM decisions WHERE parent_txid = ?').get(parent) as Decision | undefined;
  }

  /**
   * In one step: the decision already recorded for `parent`, or `make()`'s, recorded now.
   * `make` runs inside the transaction (it signs), so nothing is signed that is not recorded.
   */
  decide(parent: string, make: () => Decision): { decision: Decision; first: boolean } {
    const step = this.db.transaction(() => {
      const before = this.get(parent);
      if (before) return { decision: before, first: false };
      const d = make();
      this.db
        .prepare('INSERT INTO decisions (parent_txid, state, child_txid, signature, key_version, recorded_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(d.parent_txid, d.state, d.child_txid, d.signature, d.key_version, d.recorded_at);
      return { decision: d, first: true };
    });
    return step.immediate();
  }

  close(): void {
    this.db.close();
  }
}
