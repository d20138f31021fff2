/**
 * The signer's durable record, in a SQLite file of its own: for each parent transaction, the one
 * decision it ever made — `signed` (with the child it co-signed), or `cancelled` (a whole-parent
 * soft cancel, recorded before cancels named one alternative; it still refuses every child) —
 * and beside it, for each alternative (parent txid + offer id) the bidder soft-cancelled, its
 * refusal. Sign and cancel go through one linearized step (an IMMEDIATE transaction on this
 * file, so two signer processes over one directory agree too): a co-signature of an alternative
 * and its cancel can never both win; whichever is recorded first stands, and a repeat of the same
 * request answers the same.
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

/** A refusal of one alternative: the signer never co-signs a child of `parent_txid` for `offer_id`. */
export interface AlternativeCancel {
  parent_txid: string;
  offer_id: string;
  /** The bidder address whose BIP-322 signature over the parent the signer verified. */
  address: string;
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
    );
    CREATE TABLE IF NOT EXISTS alternative_cancels (
      parent_txid TEXT NOT NULL,
      offer_id TEXT NOT NULL,
      address TEXT NOT NULL,
      recorded_at INTEGER NOT NULL,
      PRIMARY KEY (parent_txid, offer_id)
    )`);
  }

  get(parent: string): Decision | undefined {
    return this.db.prepare('SELECT * FROM decisions WHERE parent_txid = ?').get(parent) as Decision | undefined;
  }

  cancelOf(parent: string, offerId: string): AlternativeCancel | undefined {
    return this.db.prepare('SELECT * FROM alternative_cancels WHERE parent_txid = ? AND offer_id = ?').get(parent, offerId) as AlternativeCancel | undefined;
  }

  /**
   * In one step: the decision already recorded for `parent`; else the refusal of `offerId` when
   * its cancel was recorded first; else `make()`'s decision, recorded now. `make` runs inside the
   * transaction (it signs), so nothing is signed that is not recorded.
   */
  decide(parent: string, offerId: string, make: () => Decision): { decision: Decision; first: boolean } | { refused: AlternativeCancel } {
    const step = this.db.transaction(() => {
      const before = this.get(parent);
      if (before) return { decision: before, first: false };
      const cancelled = this.cancelOf(parent, offerId);
      if (cancelled) return { refused: cancelled };
      const d = make();
      this.db
        .prepare('INSERT INTO decisions (parent_txid, state, child_txid, signature, key_version, recorded_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(d.parent_txid, d.state, d.child_txid, d.signature, d.key_version, d.recorded_at);
      return { decision: d, first: true };
    });
    return step.immediate();
  }

  /**
   * The soft cancel of one alternative, in one step with `decide`: its refusal recorded before
   * stands (the first `recorded_at`); else a parent already co-signed (for this alternative or a
   * sibling: one child per parent) or cancelled whole answers that decision; else it is recorded now.
   */
  cancelAlternative(c: AlternativeCancel): { parent: Decision } | { cancel: AlternativeCancel; first: boolean } {
    const step = this.db.transaction(() => {
      // A repeat answers the first decision, even when a sibling was co-signed since.
      const before = this.cancelOf(c.parent_txid, c.offer_id);
      if (before) return { cancel: before, first: false };
      const parent = this.get(c.parent_txid);
      if (parent) return { parent };
      this.db.prepare('INSERT INTO alternative_cancels (parent_txid, offer_id, address, recorded_at) VALUES (?, ?, ?, ?)').run(c.parent_txid, c.offer_id, c.address, c.recorded_at);
      return { cancel: c, first: true };
    });
    return step.immediate();
  }

  close(): void {
    this.db.close();
  }
}
