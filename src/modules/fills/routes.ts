import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { ErrorEnvelope, Page, errorResponses } from '../../http/envelope.js';
import { invalid, notFound } from '../../http/errors.js';
import { requireAddressRole } from '../../http/address-rules.js';
import { Address, AssetId, Cursor, Limit } from '../../http/validators.js';
import { isKeysetPosition, type KeysetPosition } from '../../store/keyset.js';
import { CollectionSlug } from '../market/index.js';
import { FillStore, type FillFilters } from './store.js';
import { FillRow, fillRow } from '../../trade/fill-row.js';

const ROUTE = '/v1/fills';

const DESCRIPTION = `Sales (fills), newest first by \`broadcast_at\`, ties by an internal fill id. A fill is one unit sold; a cart or a batch settles several fills in one transaction, so \`txid\` can repeat. Fills whose settlement was rejected or lost to a conflicting spend (dropped) never appear.

Filters, all optional and combined with AND:
- \`address\` with \`role\`: \`seller\`, \`buyer\` (the delivery address that received the unit) or \`any\` (default: either side). \`role\` without \`address\` is 400 invalid_request.
- \`asset\`: a canonical compact asset id (never a longname).
- \`collection\`: a curated collection slug; fills of every member asset, primary or secondary membership. An unknown slug is 404 not_found (a typo should not read as "no sales").
- \`status\`: \`pending\` (broadcast, not yet seen in a block; a reorg returns a confirmed fill here) or \`confirmed\`. Without it, both.

\`confirmed_at\` is when the market first saw the confirming block (not block time) and, with \`block_index\`, is null while the fill is pending.

\`limit\` 1 to 100 (default 50). To page, pass \`next_cursor\` back as \`cursor\` unchanged with the same filters; a cursor replayed with other filters or on another route is 400 invalid_request. \`next_cursor\` is null on the last page. Rows newer than the first page appear on a fresh first page, never between pages. Public; cached up to 30 seconds.`;

export function fillRoutes(app: App, ctx: Context): void {
  const store = new FillStore(ctx.store.db);

  app.get(
    ROUTE,
    {
      config: { cache: { public: 30 }, limit: 'uncached_read' },
      schema: {
        tags: ['market'],
        summary: 'Sales history (fills)',
        description: DESCRIPTION,
        querystring: Type.Object(
          {
            limit: Limit(50),
            cursor: Type.Optional(Cursor),
            address: Type.Optional({ ...Address, description: 'Only fills where this address is the seller or buyer (see role)' }),
            role: Type.Optional(Type.Union([Type.Literal('buyer'), Type.Literal('seller'), Type.Literal('any')], { description: '`buyer`, `seller` or `any` (default); needs `address`' })),
            asset: Type.Optional(AssetId),
            collection: Type.Optional(CollectionSlug),
            status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('confirmed')], { description: '`pending` or `confirmed`; both when absent' })),
          },
          { description: 'Unknown query parameters are ignored (they neither fail nor change the cache key).' },
        ),
        response: {
          200: Page(FillRow),
          400: { ...ErrorEnvelope, description: 'invalid_request: a parameter out of range, `role` without `address`, an invalid address, or a cursor not issued for this route and these filters' },
          404: { ...ErrorEnvelope, description: 'not_found: unknown collection slug' },
          ...errorResponses,
        },
      },
    },
    async (req) => {
      const q = req.query;
      if (q.role !== undefined && q.address === undefined) throw invalid('role needs address', { field: 'query.role' });
      if (q.address !== undefined) requireAddressRole(q.address, 'delivery', ctx.config.NETWORK, 'query.address');
      const filters: FillFilters = {
        ...(q.address !== undefined ? { address: q.address } : {}),
        role: q.role ?? 'any',
        ...(q.asset !== undefined ? { asset: q.asset } : {}),
        ...(q.collection !== undefined ? { collection: q.collection } : {}),
        ...(q.status !== undefined ? { status: q.status } : {}),
      };
      const bound = { address: filters.address, role: filters.address ? filters.role : undefined, asset: filters.asset, collection: filters.collection, status: filters.status };
      const after = ctx.cursors.decode<unknown>(q.cursor, ROUTE, bound);
      if (after !== undefined && !isKeysetPosition(after)) throw invalid('cursor is not valid for this route and these filters', { field: 'query.cursor' });
      if (filters.collection !== undefined && !(await store.collectionExists(filters.collection))) throw notFound('collection');
      const rows = await store.page(filters, q.limit + 1, after);
      const page = rows.slice(0, q.limit);
      const last = page[page.length - 1];
      const next: KeysetPosition | null = rows.length > q.limit && last ? [last.broadcast_at, last.id] : null;
      return { result: page.map(fillRow), result_count: page.length, next_cursor: next ? ctx.cursors.encode(ROUTE, bound, next) : null };
    },
  );
}
