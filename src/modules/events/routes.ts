import { Type } from '@sinclair/typebox';
import { sessionSecurity } from '../../http/security.js';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { ErrorEnvelope, Page, errorResponses } from '../../http/envelope.js';
import { ApiError, invalid } from '../../http/errors.js';
import { ResyncRequired } from '../../events/log-reader.js';
import { Address, Cursor, Limit } from '../../http/validators.js';
import { nowSeconds } from '../../clock.js';
import { isKeysetPosition, type KeysetPosition } from '../../store/keyset.js';
import { requireOwner } from '../auth/index.js';
import { AssetLongnames } from './asset-longnames.js';
import { EventsService } from './service.js';
import { streamRoutes } from './stream-routes.js';
import { LogPage, OwnerEvent, OwnerLogEntry, PublicEvent, PublicLogEntry } from './schemas.js';

const tags = ['events'];
const PUBLIC_ROUTE = '/v1/events';
const OWNER_ROUTE = '/v1/address/:address/events';

const NoLeaks = 'No PSBT, signature, private counter or raw transaction is ever included.';
const Paging = (extra: string) =>
  `Newest first by (\`at\`, \`event_id\`): events sharing a second are ordered by \`event_id\`, descending. \`limit\` 1 to 100 (default 50). Pass \`next_cursor\` back as \`cursor\` unchanged (and ${extra}) to read older events; it is null on the last page. A cursor from another route or with other filters is 400 invalid_request.`;

const BadRequest = { ...ErrorEnvelope, description: 'invalid_request: a parameter out of range or a cursor not issued for this route and these filters' };

const PUBLIC_DESCRIPTION = `The public market feed. \`kind\` narrows it: \`sales\` (sale), \`listings\` (listed and delisted) or \`offers\` (\`offer_placed\`, \`offer_ended\`, \`collection_offer_placed\`, \`collection_offer_ended\`: asset and collection offers placed and ended). Without \`kind\`, everything.

- \`sale\`: a settlement broadcast by the market (\`fill_kind\` listing or offer), at its broadcast. \`buyer\` is the delivery address. \`confirmed_at\` is set once the market sees the block and back to null if a reorg undoes it. A sale whose settlement was rejected or conflicted disappears.
- \`listed\`: a listing became public (its unit verified by the indexer), at that moment. Pending listings never appear.
- \`delisted\`: a public listing left the book: \`reason\` \`owner\` (the seller delisted it, or rotated its exposed unit), \`invalid\` (its unit moved, or a reorg withdrew it) at the ending, or \`expired\` at its \`expires_at\`. An expiry shows as soon as it passes, before the indexer records it, with the same \`event_id\`. An exposed listing (a checkout carrying its signed half reached the network and then failed, so the half is public and the market takes the listing off the book) is delisted at its exposure, \`invalid\` at that moment; when it later ends, the same event (same \`event_id\`, same \`at\`) is restated with the ending's reason (\`owner\` or \`invalid\`), and back to \`invalid\` if a reorg undoes that ending; if the failed checkout is mined after all, the delisted is withdrawn (an \`event_retracted\` in the ordered log) and the sale is the listing's ending. A filled listing has no delisted event: its sale is the event.
- \`offer_placed\` / \`collection_offer_placed\`: a public offer (asset scope, or collection and trait scope) placed, at its creation. Exact-unit offers are private and never appear.
- \`offer_ended\` / \`collection_offer_ended\`: \`reason\` \`cancelled\` (by the bidder, or consumed by a counter), \`superseded\` (another offer over the same funding, or a sibling alternative, was filled), \`invalid\` (its funding was spent elsewhere, or the package that filled it failed: a \`filled\` ending is then restated \`invalid\` under the same \`event_id\`) at the ending, or \`expired\` at its \`expires_at\` (as for listings). \`filled\` is a collection offer's only: a filled asset-scope offer, like a filled listing, has no ended event (its sale is the event, and names its asset and seller), but a sale names neither the collection offer it filled nor its bidder, so a filled collection offer also ends with \`collection_offer_ended\` reason \`filled\`, at the fill (the sale's broadcast), and a reader that follows the collection offers sees each one end. When the fill is undone before it lands (its settlement released), that ending is withdrawn and the offer is live again.

Every event reflects its subject's current state (a listing's current ask in \`price_sats\`). \`collection\` is the asset's primary curated collection. ${NoLeaks}

${Paging('the same `kind`')} To follow the head, re-read the first page with a short overlap and dedupe on \`event_id\`. Public; cached up to 15 seconds.`;

const OWNER_DESCRIPTION = `The session address's own events, newest first. Owner only: 401 unauthenticated without a session, 403 forbidden for another address. Not cached (no-store); uncached-read budget.

Kinds now: \`listing_filled\` (seller; a sale of the listing was broadcast; \`status\` is the listing's current state, \`txid\` the settlement), \`listing_delisted\`, \`listing_expired\`, \`listing_invalidated\` (seller; \`asset_utxo\` the unit; an expiry carries \`expires_at\`), \`listing_exposed\` (seller; a checkout carrying the listing's signed half reached the network and failed, \`txid\` that checkout; \`exposure_reason\` says how; the listing left the book and waits for a rotation), \`listing_rotated\` (seller; the rotation moved the unit and voided the old half), \`sale_confirmed\` (seller) and \`purchase_confirmed\` (buyer: the fill's delivery address, which may differ from the payer) once the market sees the settlement confirm. \`purchase_undelivered\` (buyer) and \`sale_undelivered\` (seller): a sale whose unit Counterparty will not deliver, because a reorg mined the unit's attach again and Counterparty found it invalid (\`delivery_failure\` has its verdict; \`purchase_confirmed\` stays, the settlement did confirm); withdrawn if a later reorg undoes that block. Each event carries \`listing_id\`, \`asset_utxo\`, \`txid\` where they apply.

Rules:
1. Dedupe on \`event_id\`. Re-read a short overlap of the head page rather than stopping exactly at the last id seen, since several events can share a second.
2. Follow \`next_cursor\` only to catch up on older events.
3. \`at\` is when the market observed the event. A confirmation is stamped when the market first saw the block, not with block time. An expiry is derived at read time and carries its \`expires_at\`: a listing past its expiry reads \`listing_expired\` at its \`expires_at\` at once, with the same \`event_id\` as the row the indexer records a little later (never both).
4. \`offer_accepted\` appears once the market sees the offer's funding slot spent by the accept's parent (the watcher's pass over the block that holds it, usually within one watch cycle), at that moment, with the parent's \`txid\`; not when the seller's accept is journaled (the offer reads \`filled\` from then on). A reorg that disconnects that block withdraws it until the parent is mined again.

An event reflects its row's current state: if a reorg undoes a confirmation, its \`*_confirmed\` event disappears until it confirms again (same \`event_id\`, new \`at\`); a settlement that is rejected or conflicted takes its \`listing_filled\` with it. The feed includes the delists the owner made. ${NoLeaks}

${Paging('the same address')} Response \`{result, next_cursor}\`.`;

const AFTER_DOC = `

**Ordered log (\`after\`).** With \`after=<seq>\` (0 for the oldest retained entry) the route reads the event log instead: entries oldest first, each with its \`seq\` (strictly increasing in commit order, so an event committed later never appears below a position already read), \`{result, result_count, next_after}\`; pass \`next_after\` back as \`after\` to resume, gap-free and without duplicates. Entries are the feed's events as the feed showed them when they were recorded, and \`event_retracted\` entries (\`retracts\`: the event_id a reorg or a released settlement withdrew; it may come back later, same id). An event_id appears again when its row changes (a sale's \`confirmed_at\`, a repriced listing's ask, a \`listing_filled\` whose listing sold or went back to reserved): apply entries by event_id, the later one wins. Expiries the feed derives at read time enter the log when the market records them (the indexer's or the upkeep's pass). \`cursor\` and \`after\` together are 400. A position older than the retention (EVENT_LOG_RETENTION_DAYS, default 7) is 410 \`resync_required\`: read the newest-first feed again and resume from the \`seq\` of a fresh \`after\` read. The same log feeds the stream (\`GET /v1/stream/events\`).`;

const After = Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Read the ordered log after this seq, oldest first (see the description)' }));
const Gone = { ...ErrorEnvelope, description: 'resync_required: `after` is older than the retained log (`pruned_through` says how far it was pruned)' };

/** Reads the log after `after`, or 410 resync_required for a pruned position. */
async function fromLog<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof ResyncRequired) throw new ApiError('resync_required', 'this position is older than the retained event log: read the feed again from its newest page', { pruned_through: e.oldest });
    throw e;
  }
}

const cursorAndAfter = () => invalid('pass either cursor or after, not both', { field: 'query.after' });

const badCursor = () => invalid('cursor is not valid for this route and these filters', { field: 'query.cursor' });

function position(p: unknown): KeysetPosition | undefined {
  if (p !== undefined && !isKeysetPosition(p)) throw badCursor();
  return p;
}

export function eventRoutes(app: App, ctx: Context): void {
  const service = new EventsService(ctx.store.db, new AssetLongnames(ctx.chain.counterparty));
  streamRoutes(app, ctx, service);

  app.get(
    PUBLIC_ROUTE,
    {
      config: { cache: { public: 15 }, limit: 'uncached_read' },
      schema: {
        tags,
        summary: 'Public market feed',
        description: PUBLIC_DESCRIPTION + AFTER_DOC,
        querystring: Type.Object(
          {
            kind: Type.Optional(Type.Union([Type.Literal('sales'), Type.Literal('listings'), Type.Literal('offers')], { description: '`sales`, `listings` or `offers`; all when absent' })),
            limit: Limit(50),
            cursor: Type.Optional(Cursor),
            after: After,
            tail: Type.Optional(
              Type.Boolean({
                description:
                  'With `tail=true` (and no `after` or `cursor`): the newest `limit` entries of the ordered log, oldest first, in the `after` shape; follow on with `after=next_after` (or the stream with `after`). Where a reader that starts from now begins, in the order the market committed the events.',
              }),
            ),
          },
          { description: 'Unknown query parameters are ignored (they neither fail nor change the cache key).' },
        ),
        response: { 200: Type.Union([Page(PublicEvent), LogPage(PublicLogEntry)]), 400: BadRequest, 410: Gone, ...errorResponses },
      },
    },
    async (req) => {
      if (req.query.tail === true) {
        if (req.query.cursor !== undefined || req.query.after !== undefined) throw invalid('tail reads the newest entries: pass neither cursor nor after with it', { field: 'query.tail' });
        const { rows, next } = await service.publicTail(req.query.kind, req.query.limit);
        return { result: rows, result_count: rows.length, next_after: next };
      }
      if (req.query.after !== undefined) {
        if (req.query.cursor !== undefined) throw cursorAndAfter();
        const { rows, next } = await fromLog(() => service.publicAfter(req.query.kind, req.query.after!, req.query.limit));
        return { result: rows, result_count: rows.length, next_after: next };
      }
      const filters = { kind: req.query.kind };
      const after = position(ctx.cursors.decode<unknown>(req.query.cursor, PUBLIC_ROUTE, filters));
      const { rows, next } = await service.publicPage(req.query.kind, nowSeconds(ctx.clock), req.query.limit, after);
      return { result: rows, result_count: rows.length, next_cursor: next ? ctx.cursors.encode(PUBLIC_ROUTE, filters, next) : null };
    },
  );

  app.get(
    OWNER_ROUTE,
    {
      config: { cache: 'no-store', limit: 'uncached_read' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: "The session address's event feed",
        description: OWNER_DESCRIPTION + AFTER_DOC,
        params: Type.Object({ address: Address }, { additionalProperties: false }),
        querystring: Type.Object({ limit: Limit(50), cursor: Type.Optional(Cursor), after: After }),
        response: {
          200: Type.Union([
            Type.Object(
              {
                result: Type.Array(OwnerEvent),
                next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Opaque; pass back unchanged for older events. Null on the last page.' }),
              },
              { additionalProperties: false },
            ),
            LogPage(OwnerLogEntry),
          ]),
          400: BadRequest,
          410: Gone,
          401: { ...ErrorEnvelope, description: 'unauthenticated: no session, or an unknown or expired one' },
          403: { ...ErrorEnvelope, description: "forbidden: another address's feed" },
          ...errorResponses,
        },
      },
    },
    async (req) => {
      const address = requireOwner(req, req.params.address);
      if (req.query.after !== undefined) {
        if (req.query.cursor !== undefined) throw cursorAndAfter();
        const { rows, next } = await fromLog(() => service.ownerAfter(address, req.query.after!, req.query.limit));
        return { result: rows, result_count: rows.length, next_after: next };
      }
      const filters = { address };
      const after = position(ctx.cursors.decode<unknown>(req.query.cursor, OWNER_ROUTE, filters));
      const { rows, next } = await service.ownerPage(address, nowSeconds(ctx.clock), req.query.limit, after);
      return { result: rows, next_cursor: next ? ctx.cursors.encode(OWNER_ROUTE, filters, next) : null };
    },
  );
}
