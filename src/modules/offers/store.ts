/** Reads of the bid side (the writes belong to lifecycle.ts). */
import type { Db, Tx } from '../../store/db.js';
import type { OfferTables } from './tables.js';
import { before } from '../../store/keyset.js';
import { sql } from 'kysely';

export type OfferRow = OfferTables['offers'];
export type SlotRow = OfferTables['offer_slots'];
export type PlacementRow = OfferTables['offer_placements'];

export class OfferStore {
  constructor(readonly db: Db) {}

  offer(id: string, db: Db | Tx = this.db): Promise<OfferRow | undefined> {
    return db.selectFrom('offers').selectAll().where('id', '=', id).executeTakeFirst();
  }

  offers(ids: string[], db: Db | Tx = this.db): Promise<OfferRow[]> {
    return ids.length ? db.selectFrom('offers').selectAll().where('id', 'in', ids).execute() : Promise.resolve([]);
  }

  placement(id: string): Promise<PlacementRow | undefined> {
    return this.db.selectFrom('offer_placements').selectAll().where('id', '=', id).executeTakeFirst();
  }

  offersOfPlacement(id: string, db: Db | Tx = this.db): Promise<OfferRow[]> {
    return db.selectFrom('offers').selectAll().where('placement_id', '=', id).execute();
  }

  slots(ids: string[]): Promise<SlotRow[]> {
    return ids.length ? this.db.selectFrom('offer_slots').selectAll().where('id', 'in', ids).execute() : Promise.resolve([]);
  }

  /** The bidder's offers, newest first, keyset-paged on (created_at, id); `status` narrows to one stored state. */
  bidderOffers(bidder: string, limit: number, after: [number, string] | undefined, state?: OfferRow['state']): Promise<OfferRow[]> {
    let q = this.db.selectFrom('offers').selectAll().where('bidder', '=', bidder);
    if (state) q = q.where('state', '=', state);
    if (after) q = q.where(before(sql.ref('created_at'), sql.ref('id'), after));
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  bidderPlacements(bidder: string, limit: number, after: [number, string] | undefined): Promise<PlacementRow[]> {
    let q = this.db.selectFrom('offer_placements').selectAll().where('bidder', '=', bidder);
    if (after) q = q.where(before(sql.ref('created_at'), sql.ref('id'), after));
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }
}
