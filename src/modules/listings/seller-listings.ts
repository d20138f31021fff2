/**
 * GET /v1/address/{address}/listings: a seller's own listings, newest first, by state. Before it a
 * seller found its listings only through its drafts (inventory/prepared, listing-preflights).
 *
 * States read as the book reads them: a pending or active listing past its market expiry is
 * `ended` with `end_reason: expired` (the indexer records the ending with its next block), so
 * `state=active` is exactly what a buyer can fill now.
 */
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { Page, errorResponses } from '../../http/envelope.js';
import { Address, Cursor, Limit, Nullable, Outpoint, Sats, UnixSeconds } from '../../http/validators.js';
import { sessionSecurity } from '../../http/security.js';
import { requireOwner } from '../auth/index.js';
import { EndReason, ListingExposure, ListingStatus, ListingSubtypeSchema } from './schemas.js';
import type { ListingTables } from './tables.js';

type Row = ListingTables['listings'];
const STATES = ['pending', 'active', 'reserved', 'sold', 'ended', 'exposed'] as const;
type State = (typeof STATES)[number];

export const SellerListing = Type.Object(
  {
    id: Type.String({ description: 'lst_…' }),
    preflight_id: Type.String({ description: 'the draft it was listed from' }),
    asset: Type.String(),
    quantity_raw: Type.String(),
    price_sats: Sats({ minimum: 1 }),
    asset_utxo: Outpoint,
    state: ListingStatus,
    end_reason: Nullable(EndReason),
    exposure: Nullable(ListingExposure),
    version: Type.Integer({ minimum: 1, description: 'bumped by every reprice' }),
    protocol_subtype: ListingSubtypeSchema,
    expires_at: { ...UnixSeconds, description: "the listing's market expiry" },
    created_at: UnixSeconds,
    activated_at: Nullable(UnixSeconds),
    ended_at: Nullable(UnixSeconds),
    updated_at: UnixSeconds,
  },
  { additionalProperties: false, title: 'SellerListing' },
);

/** A stored row as the seller reads it now (an open listing past its expiry reads ended/expired). */
export function sellerListingView(l: Row, now: number) {
  const lapsed = (l.state === 'pending' || l.state === 'active') && l.expires_at <= now;
  return {
    id: l.id,
    preflight_id: l.draft_id,
    asset: l.asset,
    quantity_raw: l.quantity_raw,
    price_sats: Number(l.price_sats),
    asset_utxo: { txid: l.utxo_txid, vout: l.utxo_vout },
    state: lapsed ? ('ended' as const) : l.state,
    end_reason: lapsed ? ('expired' as const) : l.end_reason,
    exposure: l.state === 'exposed' && l.exposure_reason && l.exposed_at !== null ? { reason: l.exposure_reason, at: Number(l.exposed_at) } : null,
    version: l.version,
    protocol_subtype: l.protocol_subtype,
    expires_at: Number(l.expires_at),
    created_at: Number(l.created_at),
    activated_at: l.activated_at === null ? null : Number(l.activated_at),
    ended_at: lapsed ? Number(l.expires_at) : l.ended_at === null ? null : Number(l.ended_at),
    updated_at: Number(l.updated_at),
  };
}

export function sellerListingRoutes(app: App, ctx: Context): void {
  app.get(
    '/v1/address/:address/listings',
    {
      config: { limit: 'uncached_read', cache: 'no-store' },
      schema: {
        tags: ['listings'],
        security: sessionSecurity,
        summary: "The seller's listings",
        description:
          'Owner only (403 for another address, 401 without a session). Newest first by (created_at, id); `limit` 1 to 100 (default 50), opaque `cursor` (bound to the filter). `state` narrows to one state as read now: a pending or active listing past its market expiry reads `ended` with `end_reason: expired`, so `state=active` lists exactly what buyers can fill. Never carries the signed half.',
        params: Type.Object({ address: Address }, { additionalProperties: false }),
        querystring: Type.Object(
          {
            limit: Limit(50),
            cursor: Type.Optional(Cursor),
            state: Type.Optional(Type.Union(STATES.map((s) => Type.Literal(s)))),
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(SellerListing), ...errorResponses },
      },
    },
    async (req) => {
      const me = requireOwner(req, req.params.address);
      const route = 'address-listings';
      const state = (req.query.state ?? null) as State | null;
      const filters = { me, state };
      const after = ctx.cursors.decode<[number, string]>(req.query.cursor, route, filters);
      const now = nowSeconds(ctx.clock);
      const rows = await sellerListings(ctx, me, state, now, req.query.limit + 1, after);
      const page = rows.slice(0, req.query.limit);
      const last = page[page.length - 1];
      return {
        result: page.map((l) => sellerListingView(l, now)),
        result_count: page.length,
        next_cursor: rows.length > req.query.limit && last ? ctx.cursors.encode(route, filters, [Number(last.created_at), last.id]) : null,
      };
    },
  );
}

async function sellerListings(ctx: Context, seller: string, state: State | null, now: number, limit: number, after: [number, string] | undefined): Promise<Row[]> {
  let q = ctx.store.db.selectFrom('listings').selectAll().where('seller', '=', seller);
  if (state === 'pending' || state === 'active') q = q.where('state', '=', state).where('expires_at', '>', now);
  else if (state === 'ended') q = q.where((eb) => eb.or([eb('state', '=', 'ended'), eb.and([eb('state', 'in', ['pending', 'active']), eb('expires_at', '<=', now)])]));
  else if (state) q = q.where('state', '=', state);
  if (after) q = q.where((eb) => eb.or([eb('created_at', '<', after[0]), eb.and([eb('created_at', '=', after[0]), eb('id', '<', after[1])])]));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
