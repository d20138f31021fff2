import crypto from 'node:crypto';
import type { Db, Tx } from '../../store/db.js';
import { isUniqueViolation } from '../../store/db.js';
import type { ListingTables } from './tables.js';

export type DraftRow = ListingTables['listing_drafts'];
export type ListingRow = ListingTables['listings'];
export type OwnerEventRow = ListingTables['owner_events'];

/** Statuses whose attach is signed and not yet verified by the indexer. */
export const IN_FLIGHT: DraftRow['status'][] = ['broadcasting', 'awaiting_indexer'];
/** Listing states that still hold the asset outpoint (an exposed one holds it until the unit moves). */
export const LIVE: ListingRow['state'][] = ['pending', 'active', 'reserved', 'exposed'];

export const newId = (prefix: 'pf' | 'lst' | 'op') => `${prefix}_${crypto.randomBytes(12).toString('hex')}`;

export class ListingStore {
  constructor(readonly db: Db) {}

  draft(id: string, db: Db | Tx = this.db): Promise<DraftRow | undefined> {
    return db.selectFrom('listing_drafts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byIdempotencyKey(seller: string, key: string): Promise<DraftRow | undefined> {
    return this.db.selectFrom('listing_drafts').selectAll().where('seller', '=', seller).where('idempotency_key', '=', key).executeTakeFirst();
  }

  /** Inserts a draft; false when the seller's idempotency key is already taken. */
  async insertDraft(row: DraftRow): Promise<boolean> {
    try {
      await this.db.insertInto('listing_drafts').values(row).execute();
      return true;
    } catch (e) {
      if (isUniqueViolation(e)) return false;
      throw e;
    }
  }

  listing(id: string, db: Db | Tx = this.db): Promise<ListingRow | undefined> {
    return db.selectFrom('listings').selectAll().where('id', '=', id).executeTakeFirst();
  }

  listings(ids: string[], db: Db | Tx = this.db): Promise<ListingRow[]> {
    if (!ids.length) return Promise.resolve([]);
    return db.selectFrom('listings').selectAll().where('id', 'in', ids).execute();
  }

  /** The live listing on an outpoint, if any. */
  liveListingAt(outpoint: string, db: Db | Tx = this.db): Promise<ListingRow | undefined> {
    return db.selectFrom('listings').selectAll().where('utxo_outpoint', '=', outpoint).where('state', 'in', LIVE).executeTakeFirst();
  }

  /**
   * Drafts of `source` that promise an address-level balance: unsigned and unexpired, or signed
   * and not yet seen confirmed by the indexer.
   */
  openAttachDrafts(source: string, now: number): Promise<DraftRow[]> {
    return this.db
      .selectFrom('listing_drafts')
      .selectAll()
      .where('asset_source', '=', source)
      .where('mode', '=', 'attach')
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'awaiting_attach_signature'), eb('expires_at', '>', now)]),
          eb('status', 'in', IN_FLIGHT),
        ]),
      )
      .execute();
  }

  /** Drafts of a seller, newest first, after a (created_at, id) position. */
  pageDrafts(seller: string, limit: number, after?: { created_at: number; id: string }): Promise<DraftRow[]> {
    let q = this.db.selectFrom('listing_drafts').selectAll().where('seller', '=', seller);
    if (after) {
      q = q.where((eb) =>
        eb.or([eb('created_at', '<', after.created_at), eb.and([eb('created_at', '=', after.created_at), eb('id', '<', after.id)])]),
      );
    }
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /** Signed attaches still confirming, newest activity first. */
  inFlight(seller: string, limit: number): Promise<DraftRow[]> {
    return this.db
      .selectFrom('listing_drafts')
      .selectAll()
      .where('seller', '=', seller)
      .where('status', 'in', IN_FLIGHT)
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Listings of these ids keyed by id (for draft views). */
  async listingMap(ids: (string | null)[], db: Db | Tx = this.db): Promise<Map<string, ListingRow>> {
    const rows = await this.listings(ids.filter((x): x is string => !!x), db);
    return new Map(rows.map((r) => [r.id, r]));
  }
}
