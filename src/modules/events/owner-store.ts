/**
 * The owner feed's rows: the stored `owner_events` of the address (written by the writers, e.g.
 * listing_delisted / listing_expired / listing_invalidated by the seller side) merged with
 * events derived at read time from the rows they describe:
 *
 * - `listing_expired` for a live (pending or active) listing of the seller already past its
 *   expiry, before the indexer ends it; it carries the id, `at` (= expires_at) and fields of
 *   the row the indexer then stores, and the listing is then no longer live, so the two never
 *   both appear;
 * - `listing_filled` (seller): a non-dropped fill of one of the seller's listings, at its
 *   broadcast; status = the listing's current state;
 * - `sale_confirmed` (seller) and `purchase_confirmed` (buyer = the fill's delivery address): a
 *   confirmed fill, at confirmed_at (when the market saw the block). A reorg that returns the
 *   fill to pending removes them until it confirms again.
 *
 * Stored rows of the derived kinds are skipped, so a writer that also records them can never
 * make an event appear twice.
 */
import { sql, type Expression, type SelectQueryBuilder } from 'kysely';
import type { Db } from '../../store/db.js';
import { before, mergeBranches, nullOf, type KeysetPosition } from '../../store/keyset.js';
import { eventIdSql } from './event-id-sql.js';
import type { OwnerEventRow } from '../../trade/event-rows.js';

export type { OwnerEventRow };

export const DERIVED_KINDS = ['listing_filled', 'sale_confirmed', 'purchase_confirmed'] as const;


type Branch = SelectQueryBuilder<any, any, OwnerEventRow>;

export class OwnerEventStore {
  constructor(private readonly db: Db) {}

  page(address: string, now: number, limit: number, after: KeysetPosition | undefined): Promise<OwnerEventRow[]> {
    return mergeBranches(this.db, this.branches(address, now, limit, after), 'at', 'event_id', limit);
  }

  /** Exported for the query-plan test. */
  branches(address: string, now: number, limit: number, after: KeysetPosition | undefined): Branch[] {
    return [
      this.stored(address, limit, after),
      this.expiringNow(address, now, limit, after),
      this.offerExpiringNow(address, now, limit, after),
      this.filled(address, now, limit, after),
      this.confirmed('sale_confirmed', address, limit, after),
      this.confirmed('purchase_confirmed', address, limit, after),
    ];
  }

  /** The branch in feed order after the position, at most `limit` rows. */
  private ordered<Q extends SelectQueryBuilder<any, any, any>>(q: Q, at: Expression<number | null>, id: Expression<string>, limit: number, after: KeysetPosition | undefined): Branch {
    const paged = after ? q.where(before(at, id, after)) : q;
    return paged.orderBy(at, 'desc').orderBy(id, 'desc').limit(limit) as unknown as Branch;
  }

  private stored(address: string, limit: number, after: KeysetPosition | undefined): Branch {
    const q = this.db
      .selectFrom('owner_events as o')
      .select([
        'o.event_id',
        'o.kind',
        'o.at',
        'o.role',
        'o.status',
        'o.asset',
        'o.price_sats',
        'o.txid',
        'o.listing_id',
        nullOf<string>('text').as('offer_id'),
        nullOf<string>('text').as('utxo_txid'),
        nullOf<number>('integer').as('utxo_vout'),
        nullOf<number>('bigint').as('expires_at'),
        'o.data',
      ])
      .where('o.address', '=', address)
      .where('o.kind', 'not in', [...DERIVED_KINDS]);
    return this.ordered(q, sql.ref('o.at'), sql.ref('o.event_id'), limit, after);
  }

  private expiringNow(address: string, now: number, limit: number, after: KeysetPosition | undefined): Branch {
    const id = eventIdSql('listing_expired', sql.ref('l.id'));
    const q = this.db
      .selectFrom('listings as l')
      .select([
        id.as('event_id'),
        sql.lit('listing_expired').as('kind'),
        'l.expires_at as at',
        sql.lit('seller').as('role'),
        sql.lit('ended').as('status'),
        'l.asset',
        'l.price_sats',
        nullOf<string>('text').as('txid'),
        'l.id as listing_id',
        nullOf<string>('text').as('offer_id'),
        'l.utxo_txid',
        'l.utxo_vout',
        'l.expires_at',
        nullOf<string>('text').as('data'),
      ])
      .where('l.seller', '=', address)
      .where('l.state', 'in', ['pending', 'active'])
      .where('l.expires_at', '<=', now);
    return this.ordered(q, sql.ref('l.expires_at'), id, limit, after);
  }

  /** `offer_expired` for an active offer of the bidder already past its expiry, before the indexer ends it (same id as the stored row then). */
  private offerExpiringNow(address: string, now: number, limit: number, after: KeysetPosition | undefined): Branch {
    const id = eventIdSql('offer_expired', sql.ref('o.id'));
    const q = this.db
      .selectFrom('offers as o')
      .select([
        id.as('event_id'),
        sql.lit('offer_expired').as('kind'),
        'o.expires_at as at',
        sql.lit('bidder').as('role'),
        sql.lit('expired').as('status'),
        'o.asset',
        'o.price_sats',
        nullOf<string>('text').as('txid'),
        nullOf<string>('text').as('listing_id'),
        'o.id as offer_id',
        nullOf<string>('text').as('utxo_txid'),
        nullOf<number>('integer').as('utxo_vout'),
        'o.expires_at',
        sql<string>`'{"funding_slot_id":"' || ${sql.ref('o.slot_id')} || '"}'`.as('data'),
      ])
      .where('o.bidder', '=', address)
      .where('o.state', '=', 'active')
      .where('o.expires_at', '<=', now);
    return this.ordered(q, sql.ref('o.expires_at'), id, limit, after);
  }

  /** Fills joined to the listing they sold (kind listing), for the listing id, unit and state. */
  private fills(kind: string, at: 'broadcast_at' | 'confirmed_at', role: 'seller' | 'buyer', status: Expression<string>) {
    return this.db
      .selectFrom('fills as f')
      .leftJoin('listings as l', (j) => j.onRef('l.id', '=', 'f.ref_id').on('f.kind', '=', 'listing'))
      .select([
        eventIdSql(kind, sql.ref('f.id')).as('event_id'),
        sql.lit(kind).as('kind'),
        sql.ref<number>(`f.${at}`).as('at'),
        sql.lit(role).as('role'),
        sql<string>`${status}`.as('status'),
        'f.asset',
        'f.price_sats',
        'f.txid',
        sql<string | null>`case when ${sql.ref('f.kind')} = 'listing' then ${sql.ref('f.ref_id')} end`.as('listing_id'),
        sql<string | null>`case when ${sql.ref('f.kind')} = 'offer' then ${sql.ref('f.ref_id')} end`.as('offer_id'),
        'l.utxo_txid',
        'l.utxo_vout',
        nullOf<number>('bigint').as('expires_at'),
        nullOf<string>('text').as('data'),
      ]);
  }

  private filled(address: string, now: number, limit: number, after: KeysetPosition | undefined): Branch {
    // The listing's current state, with expiry derived at read time as everywhere else.
    const status = sql<string>`case when ${sql.ref('l.state')} in ('pending', 'active') and ${sql.ref('l.expires_at')} <= ${now} then 'ended' else coalesce(${sql.ref('l.state')}, ${sql.ref('f.state')}) end`;
    const q = this.fills('listing_filled', 'broadcast_at', 'seller', status)
      .where('f.seller', '=', address)
      .where('f.kind', '=', 'listing')
      .where('f.state', 'in', ['pending', 'confirmed']);
    return this.ordered(q, sql.ref('f.broadcast_at'), eventIdSql('listing_filled', sql.ref('f.id')), limit, after);
  }

  private confirmed(kind: 'sale_confirmed' | 'purchase_confirmed', address: string, limit: number, after: KeysetPosition | undefined): Branch {
    const party = kind === 'sale_confirmed' ? 'f.seller' : 'f.buyer';
    const q = this.fills(kind, 'confirmed_at', kind === 'sale_confirmed' ? 'seller' : 'buyer', sql.ref('f.state'))
      .where(party, '=', address)
      .where('f.state', '=', 'confirmed')
      .where('f.confirmed_at', 'is not', null);
    return this.ordered(q, sql.ref('f.confirmed_at'), eventIdSql(kind, sql.ref('f.id')), limit, after);
  }
}
