/**
 * The public feed's rows, derived from fills and listings at read time (no table of its own):
 * each event reflects its row's current state, and a reorg or a dropped settlement needs no
 * bookkeeping here.
 *
 * - `sale`: a fill that is not dropped; at = broadcast_at.
 * - `listed`: a listing that became public: activated (the indexer verified its attach) before
 *   its expiry; at = activated_at. A pending listing never appears.
 * - `delisted`: a public listing that ended `owner`, `rotated` (reason `owner`: the seller moved
 *   its unit) or `invalid` (at = ended_at) or `expired` (at = expires_at), and an active listing
 *   already past its expiry that the indexer has not ended yet (`expired`, at = expires_at: the
 *   same event, same id, before and after). A listing whose half was exposed (a released checkout
 *   had broadcast it) left the book at its exposure: `invalid` at exposed_at while `exposed`, and
 *   the same event (same id, same at) restated with its ending's reason once it ends `owner`,
 *   `rotated` (`owner`) or `invalid`. A sold listing has no delisted event: its sale is the event
 *   (a listing sold from `exposed` loses its delisted: the released checkout was mined after all).
 */
import { sql, type Expression, type SelectQueryBuilder } from 'kysely';
import type { Db } from '../../store/db.js';
import { before, mergeBranches, nullOf, type KeysetPosition } from '../../store/keyset.js';
import { eventIdSql } from './event-id-sql.js';
import type { OfferEndReason } from '../offers/index.js';
import type { PublicEventRow } from '../../trade/event-rows.js';

export type { PublicEventRow };

export type PublicKindFilter = 'sales' | 'listings' | 'offers';


type Branch = SelectQueryBuilder<any, any, PublicEventRow>;
type ListingAt = 'activated_at' | 'ended_at' | 'exposed_at' | 'expires_at';
/** A delisting's public reason (event-rows.ts `delistReason`): the seller's own move reads `owner`, anything else (an exposure, a foreign spend) `invalid`. */
const OWNER_OR_INVALID = sql<string>`case when ${sql.ref('l.end_reason')} in ('owner', 'rotated') then 'owner' else 'invalid' end`;
/** Bids and collection offers share the offer events' shape. */
type OfferTable = 'offers' | 'policy_offers';

export class PublicEventStore {
  constructor(private readonly db: Db) {}

  /** Up to `limit` events older than `after`, newest first by (at, event_id). */
  page(kind: PublicKindFilter | undefined, now: number, limit: number, after: KeysetPosition | undefined): Promise<PublicEventRow[]> {
    return mergeBranches(this.db, this.branches(kind, now, limit, after), 'at', 'event_id', limit);
  }

  /** The branches a kind filter reads (exported for the query-plan test). */
  branches(kind: PublicKindFilter | undefined, now: number, limit: number, after: KeysetPosition | undefined): Branch[] {
    const out: Branch[] = [];
    if (kind === undefined || kind === 'sales') out.push(this.sales(limit, after));
    if (kind === undefined || kind === 'listings') {
      out.push(this.listed(limit, after), this.delistedEnded(limit, after), this.delistedExposed('exposed', limit, after), this.delistedExposed('ended', limit, after), this.delistedExpired(limit, after), this.expiringNow(now, limit, after));
    }
    if (kind === undefined || kind === 'offers') {
      for (const t of ['offers', 'policy_offers'] as const) {
        out.push(this.offerPlaced(limit, after, t), this.offerEnded(limit, after, t), this.offerExpired('expired', limit, after, undefined, t), this.offerExpired('active', limit, after, now, t));
      }
    }
    return out;
  }

  private sales(limit: number, after: KeysetPosition | undefined): Branch {
    const id = eventIdSql('sale', sql.ref('f.id'));
    const at = sql.ref<number>('f.broadcast_at');
    let q = this.db
      .selectFrom('fills as f')
      .select([
        id.as('event_id'),
        sql.lit('sale').as('kind'),
        'f.broadcast_at as at',
        nullOf<string>('text').as('reason'),
        'f.asset',
        'f.asset_longname',
        nullOf<string>('text').as('collection'),
        nullOf<string>('text').as('bidder'),
        'f.price_sats',
        'f.seller',
        'f.buyer',
        'f.txid',
        'f.kind as fill_kind',
        // A fill a reorg returned to pending is unconfirmed whatever its columns still hold.
        sql<number | null>`case when ${sql.ref('f.state')} = 'confirmed' then ${sql.ref('f.confirmed_at')} end`.as('confirmed_at'),
      ])
      // Not `state in (pending, confirmed)`: that would lead the planner to the (state, …) index and a full sort.
      .where('f.state', '!=', 'dropped');
    if (after) q = q.where(before(at, id, after));
    return q.orderBy(at, 'desc').orderBy(id, 'desc').limit(limit) as unknown as Branch;
  }

  /** Listing columns shared by listed and delisted rows. */
  private listing(kind: 'listed' | 'delisted', at: ListingAt, reason: Expression<string | null>) {
    return this.db
      .selectFrom('listings as l')
      .select([
        eventIdSql(kind, sql.ref('l.id')).as('event_id'),
        sql.lit(kind).as('kind'),
        sql.ref<number>(`l.${at}`).as('at'),
        sql<string | null>`${reason}`.as('reason'),
        'l.asset',
        nullOf<string>('text').as('asset_longname'),
        nullOf<string>('text').as('collection'),
        nullOf<string>('text').as('bidder'),
        'l.price_sats',
        'l.seller',
        nullOf<string>('text').as('buyer'),
        nullOf<string>('text').as('txid'),
        nullOf<string>('text').as('fill_kind'),
        nullOf<number>('bigint').as('confirmed_at'),
      ])
      // Public: activated before its expiry. A listing activated at or after it was never fillable.
      .where('l.activated_at', 'is not', null)
      .whereRef('l.activated_at', '<', 'l.expires_at');
  }

  private ordered(
    q: ReturnType<PublicEventStore['listing']>,
    kind: 'listed' | 'delisted',
    atCol: ListingAt,
    limit: number,
    after: KeysetPosition | undefined,
  ): Branch {
    const id = eventIdSql(kind, sql.ref('l.id'));
    const at = sql.ref<number>(`l.${atCol}`);
    const paged = after ? q.where(before(at, id, after)) : q;
    return paged.orderBy(at, 'desc').orderBy(id, 'desc').limit(limit) as unknown as Branch;
  }

  private listed(limit: number, after: KeysetPosition | undefined): Branch {
    return this.ordered(this.listing('listed', 'activated_at', nullOf<string>('text')), 'listed', 'activated_at', limit, after);
  }

  /** Ended by its owner (a rotation reads `owner`) or invalidated, never exposed: at its ending. */
  private delistedEnded(limit: number, after: KeysetPosition | undefined): Branch {
    const q = this.listing('delisted', 'ended_at', OWNER_OR_INVALID)
      .where('l.state', '=', 'ended')
      .where('l.end_reason', 'in', ['owner', 'invalid', 'rotated'])
      .where('l.exposed_at', 'is', null);
    return this.ordered(q, 'delisted', 'ended_at', limit, after);
  }

  /**
   * Exposed (its half public: off the book, reason `invalid`), or ended after an exposure with
   * the ending's reason: one event at exposed_at, when the listing left the book.
   */
  private delistedExposed(state: 'exposed' | 'ended', limit: number, after: KeysetPosition | undefined): Branch {
    // One branch per state, so each walks (state, exposed_at) in order (an OR of states would sort).
    let q = this.listing('delisted', 'exposed_at', OWNER_OR_INVALID).where('l.state', '=', state).where('l.exposed_at', 'is not', null);
    if (state === 'ended') q = q.where('l.end_reason', 'in', ['owner', 'invalid', 'rotated']);
    return this.ordered(q, 'delisted', 'exposed_at', limit, after);
  }

  /** Ended by the indexer for expiry: the event sits at its expires_at, where the read-time one stood. */
  private delistedExpired(limit: number, after: KeysetPosition | undefined): Branch {
    const q = this.listing('delisted', 'expires_at', sql.lit('expired')).where('l.state', '=', 'ended').where('l.end_reason', '=', 'expired');
    return this.ordered(q, 'delisted', 'expires_at', limit, after);
  }

  /** Active but past its expiry: ended at read time, before the indexer writes it. */
  private expiringNow(now: number, limit: number, after: KeysetPosition | undefined): Branch {
    const q = this.listing('delisted', 'expires_at', sql.lit('expired')).where('l.state', '=', 'active').where('l.expires_at', '<=', now);
    return this.ordered(q, 'delisted', 'expires_at', limit, after);
  }

  /**
   * Public offers (exact-unit offers are private): `offer_placed` / `collection_offer_placed` at
   * creation; `*_ended` at the ending (cancelled, superseded, invalid) or, for an expiry, at
   * expires_at — before the indexer writes it too (same id). A filled offer's sale is its event.
   */
  private offer(kind: 'placed' | 'ended', at: 'created_at' | 'ended_at' | 'expires_at', reason: Expression<string | null>, table: OfferTable = 'offers') {
    const scoped = sql<string>`case when ${sql.ref('o.scope')} = 'asset' then ${sql.lit(`offer_${kind}`)} else ${sql.lit(`collection_offer_${kind}`)} end`;
    // Collection offers (policy_offers) read the same columns; they have no exact units.
    const q = this.db
      .selectFrom(`${table} as o` as 'offers as o')
      .select([
        eventIdSql(`offer_${kind}`, sql.ref('o.id')).as('event_id'),
        scoped.as('kind'),
        sql.ref<number>(`o.${at}`).as('at'),
        sql<string | null>`${reason}`.as('reason'),
        'o.asset',
        nullOf<string>('text').as('asset_longname'),
        'o.collection',
        'o.bidder',
        'o.price_sats',
        nullOf<string>('text').as('seller'),
        nullOf<string>('text').as('buyer'),
        nullOf<string>('text').as('txid'),
        nullOf<string>('text').as('fill_kind'),
        nullOf<number>('bigint').as('confirmed_at'),
      ]);
    return table === 'offers' ? q.where('o.target_txid', 'is', null) : q;
  }

  private offerOrdered(q: ReturnType<PublicEventStore['offer']>, kind: 'placed' | 'ended', atCol: 'created_at' | 'ended_at' | 'expires_at', limit: number, after: KeysetPosition | undefined): Branch {
    const id = eventIdSql(`offer_${kind}`, sql.ref('o.id'));
    const at = sql.ref<number>(`o.${atCol}`);
    const paged = after ? q.where(before(at, id, after)) : q;
    return paged.orderBy(at, 'desc').orderBy(id, 'desc').limit(limit) as unknown as Branch;
  }

  private offerPlaced(limit: number, after: KeysetPosition | undefined, table: OfferTable): Branch {
    return this.offerOrdered(this.offer('placed', 'created_at', nullOf<string>('text'), table), 'placed', 'created_at', limit, after);
  }

  /**
   * Ended reasons: an offer's own; a collection offer's funding_spent or failed package reads
   * `invalid`. A fill is `filled` for a collection-scoped offer only: its sale names neither the
   * offer nor its bidder, so the ending says it; an asset-scoped offer's sale is its event.
   */
  private offerEnded(limit: number, after: KeysetPosition | undefined, table: OfferTable): Branch {
    const reason = sql<string>`case when ${sql.ref('o.end_reason')} = 'consumed' then 'cancelled' when ${sql.ref('o.end_reason')} in ('cancelled', 'superseded', 'filled') then ${sql.ref('o.end_reason')} else 'invalid' end`;
    const ended = (table === 'offers' ? ['cancelled', 'superseded', 'invalid', 'consumed'] : ['cancelled', 'superseded', 'funding_spent', 'package_conflicted', 'package_rejected']) as OfferEndReason[];
    const q = this.offer('ended', 'ended_at', reason, table)
      .where('o.ended_at', 'is not', null)
      .where((eb) => eb.or([eb('o.end_reason', 'in', ended), eb.and([eb('o.end_reason', '=', 'filled'), eb('o.scope', '=', 'collection')])]));
    return this.offerOrdered(q, 'ended', 'ended_at', limit, after);
  }

  /** Expired: written by the indexer (`expired`), or still active past expires_at (read time). */
  private offerExpired(state: 'expired' | 'active', limit: number, after: KeysetPosition | undefined, now: number | undefined, table: OfferTable): Branch {
    let q = this.offer('ended', 'expires_at', sql.lit('expired'), table).where('o.state', '=', state);
    if (state === 'active') q = q.where('o.expires_at', '<=', now!);
    return this.offerOrdered(q, 'ended', 'expires_at', limit, after);
  }
}
