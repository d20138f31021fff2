/**
 * One table of auth and limit cases over every route the app serves (issue 10 item 7). Each
 * route's limit class and whether it needs a session are written here once; the test asserts
 * the app agrees: a session route without a session is 401, a non-owner gets the spec's 404
 * (a private resource by id) or 403 (an owner feed by address), an unknown method is 405 with
 * Allow. A route added later that is missing from this table, has no limit class, or needs a
 * session without declaring `security`, fails here.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { openMarket, type Market } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { servedRoutes } from '../../src/http/error-handler.js';
import { BUCKET_CLASSES } from '../../src/limits/classes.js';

type Owner = 'id' | 'address';
type Row = { limit: (typeof BUCKET_CLASSES)[number]; session?: Owner | true };

/** Every /v1 route: its limit class, and whether (and how) it is private. */
const TABLE: Record<string, Row> = {
  'POST /v1/auth/challenge': { limit: 'sign_in' },
  'POST /v1/auth/verify': { limit: 'sign_in' },
  'POST /v1/auth/session': { limit: 'sign_in' },
  'POST /v1/listing-preflights': { limit: 'expensive_write', session: true },
  'POST /v1/attach-templates': { limit: 'expensive_write', session: true },
  'GET /v1/listing-preflights/:id': { limit: 'recovery_read', session: 'id' },
  'DELETE /v1/listing-preflights/:id': { limit: 'account_maintenance', session: 'id' },
  'POST /v1/listing-preflights/:id/attach': { limit: 'signed_completion', session: 'id' },
  'POST /v1/listing-preflights/:id/attach-and-list': { limit: 'signed_completion', session: 'id' },
  'POST /v1/listing-preflights/:id/listing': { limit: 'signed_completion', session: 'id' },
  'POST /v1/listing-preflights/:id/price': { limit: 'account_maintenance', session: 'id' },
  'GET /v1/address/:address/listing-preflights': { limit: 'recovery_read', session: 'address' },
  'GET /v1/address/:address/listings': { limit: 'uncached_read', session: 'address' },
  'POST /v1/listings/:id/reprice': { limit: 'signed_completion', session: 'id' },
  'POST /v1/listings/:id/delist': { limit: 'account_maintenance', session: 'id' },
  'POST /v1/listings/:id/rotation': { limit: 'expensive_write', session: 'id' },
  'POST /v1/listings/:id/rotation/signed': { limit: 'signed_completion', session: 'id' },
  'POST /v1/listings/batch': { limit: 'expensive_write', session: true },
  'POST /v1/checkout/quotes': { limit: 'expensive_write', session: true },
  'POST /v1/checkout/quotes/:id/complete': { limit: 'signed_completion', session: 'id' },
  'GET /v1/checkout/quotes/:id': { limit: 'recovery_read', session: 'id' },
  'GET /v1/fills': { limit: 'uncached_read' },
  'GET /v1/inventory/attachable': { limit: 'uncached_read' },
  'GET /v1/inventory/prepared': { limit: 'uncached_read', session: true },
  'POST /v1/inventory/cosigned-withdrawals': { limit: 'expensive_write', session: true },
  'GET /v1/collections': { limit: 'uncached_read' },
  'GET /v1/collections/:slug': { limit: 'uncached_read' },
  'GET /v1/artists': { limit: 'uncached_read' },
  'GET /v1/artists/:key': { limit: 'uncached_read' },
  'GET /v1/artists/:key/assets': { limit: 'uncached_read' },
  'GET /v1/collections/:slug/book': { limit: 'uncached_read' },
  'GET /v1/collections/:slug/offer-targets': { limit: 'uncached_read' },
  'GET /v1/collections/:slug/holders': { limit: 'uncached_read' },
  'GET /v1/analytics': { limit: 'uncached_read' },
  'GET /v1/events': { limit: 'uncached_read' },
  'GET /v1/address/:address/events': { limit: 'uncached_read', session: 'address' },
  'GET /v1/stream/events': { limit: 'uncached_read' },
  'GET /v1/address/:address/stream': { limit: 'uncached_read', session: 'address' },
  'GET /v1/fee-rate': { limit: 'uncached_read' },
  'GET /v1/meta': { limit: 'uncached_read' },
  'GET /v1/attach-fee-estimate': { limit: 'uncached_read' },
  'POST /v1/transactions/status': { limit: 'uncached_read' },
  // Offers (bids): the non-owner case uses an id nobody owns; foreign and missing take the same branch there.
  'POST /v1/offer-funding': { limit: 'expensive_write', session: true },
  'POST /v1/funded-offers': { limit: 'expensive_write', session: true },
  'POST /v1/offers': { limit: 'expensive_write', session: true },
  'GET /v1/offer-placements/:id': { limit: 'recovery_read', session: 'id' },
  'GET /v1/address/:address/offers': { limit: 'uncached_read', session: 'address' },
  'GET /v1/address/:address/offer-placements': { limit: 'uncached_read', session: 'address' },
  'POST /v1/offers/:id/cancel': { limit: 'account_maintenance', session: 'id' },
  'POST /v1/offer-placements/:id/cancel': { limit: 'account_maintenance', session: 'id' },
  'POST /v1/offer-cancellations': { limit: 'account_maintenance', session: true },
  'POST /v1/offer-cancellations/review': { limit: 'account_maintenance', session: true },
  'GET /v1/assets/:asset/best-offer': { limit: 'uncached_read' },
  'GET /v1/market-signer': { limit: 'uncached_read' },
  'GET /v1/artists/:key/profile/eligibility': { limit: 'artist_edit', session: true },
  'PATCH /v1/artists/:key/profile': { limit: 'artist_edit', session: true },
  // Exact offers and counters: acting on someone's offer is the point (any holder may authorize or counter it).
  'POST /v1/offers/:id/exact-authorizations': { limit: 'expensive_write', session: true },
  'POST /v1/exact-offer-authorizations/:id/bidder-psbt': { limit: 'signed_completion', session: 'id' },
  'POST /v1/exact-offer-authorizations/:id/cancel': { limit: 'account_maintenance', session: 'id' },
  'GET /v1/address/:address/exact-authorizations': { limit: 'uncached_read', session: 'address' },
  'GET /v1/address/:address/exact-offers': { limit: 'recovery_read', session: 'address' },
  'POST /v1/exact-offer-authorizations/:id/accept-preflight': { limit: 'expensive_write', session: 'id' },
  'POST /v1/exact-offer-authorizations/:id/accept': { limit: 'signed_completion', session: 'id' },
  'GET /v1/exact-offer-authorizations/:id/accept': { limit: 'recovery_read', session: 'id' },
  'POST /v1/exact-offer-selections/validate': { limit: 'expensive_write', session: true },
  'POST /v1/offers/:id/counters': { limit: 'expensive_write', session: true },
  'POST /v1/counters/:id/withdraw': { limit: 'account_maintenance', session: 'id' },
  'GET /v1/address/:address/counters': { limit: 'uncached_read', session: 'address' },
  // Collection offers: the preflight and placement are the bidder's, the accept any unit holder's.
  'POST /v1/policy-offers/preflight': { limit: 'expensive_write', session: true },
  'POST /v1/policy-offers': { limit: 'expensive_write', session: true },
  'POST /v1/policy-offers/preflights/:id/release': { limit: 'account_maintenance', session: 'id' },
  'GET /v1/policy-offers/capacity': { limit: 'uncached_read' },
  'GET /v1/policy-offers/cancelled': { limit: 'uncached_read' },
  'POST /v1/policy-offers/:id/cancel': { limit: 'account_maintenance', session: 'id' },
  'POST /v1/policy-offers/:id/cancel-transaction': { limit: 'expensive_write', session: 'id' },
  'GET /v1/address/:address/policy-offers': { limit: 'uncached_read', session: 'address' },
  'GET /v1/assets/:asset/policy-offers': { limit: 'uncached_read' },
  'POST /v1/policy-accepts/preflight': { limit: 'expensive_write', session: true },
  'POST /v1/policy-accepts': { limit: 'signed_completion', session: true },
  'GET /v1/policy-accepts/:id': { limit: 'recovery_read', session: 'id' },
  // Webhooks: the owner's own endpoints under its address (another address is 403, another's id 404).
  'POST /v1/address/:address/webhooks': { limit: 'account_maintenance', session: 'address' },
  'GET /v1/address/:address/webhooks': { limit: 'account_maintenance', session: 'address' },
  'DELETE /v1/address/:address/webhooks/:id': { limit: 'account_maintenance', session: 'address' },
  'POST /v1/address/:address/webhooks/:id/secret': { limit: 'account_maintenance', session: 'address' },
  'GET /v1/address/:address/webhooks/:id/deliveries': { limit: 'account_maintenance', session: 'address' },
  'POST /v1/address/:address/webhooks/:id/deliveries/:delivery_id/replay': { limit: 'account_maintenance', session: 'address' },
};

/** Routes that legitimately have no limit class, by pattern: health, docs, the live page and its assets, the devnet's own faces. */
const UNLIMITED = [/^\/$/, /^\/live\//, /^\/healthz$/, /^\/readyz$/, /^\/metrics$/, /^\/v1\/openapi\.json$/, /^\/docs(\/|$)/, /^\/devnet\//];

/** Bodies that pass validation, so a request reaches its owner check. */
const VALID_BODY: Record<string, (now: number) => object> = {
  'POST /v1/listing-preflights/:id/attach': () => ({ psbt_hex: '70736274ff00' }),
  'POST /v1/listing-preflights/:id/attach-and-list': (now) => ({ attach_psbt_hex: '70736274ff00', listing_psbt_hex: '70736274ff00', expires_at: now + 86_400 }),
  'POST /v1/listing-preflights/:id/listing': (now) => ({ psbt_hex: '70736274ff00', expires_at: now + 86_400 }),
  'POST /v1/listing-preflights/:id/price': () => ({ price_sats: 10_000 }),
  'POST /v1/listings/:id/reprice': () => ({ psbt_hex: '70736274ff00' }),
  'POST /v1/listings/:id/rotation': () => ({}),
  'POST /v1/listings/:id/rotation/signed': () => ({ psbt_hex: '70736274ff00' }),
  'POST /v1/checkout/quotes/:id/complete': () => ({ psbt_hex: '70736274ff00' }),
  'POST /v1/exact-offer-authorizations/:id/bidder-psbt': () => ({ psbt_hex: '70736274ff00' }),
  'POST /v1/exact-offer-authorizations/:id/accept-preflight': () => ({}),
  'POST /v1/exact-offer-authorizations/:id/accept': () => ({ psbt_hex: '70736274ff00' }),
  'POST /v1/policy-offers/:id/cancel': () => ({ address: 'bcrt1qxxxxxxxxxxxxxxxxxx', signature: 'AA==' }),
  'POST /v1/policy-offers/:id/cancel-transaction': () => ({}),
  'POST /v1/address/:address/webhooks': () => ({ url: 'https://example.com/hook' }),
};

let m: Market;
const ids: Record<string, string> = {};
let owner = '';
let strangerToken = '';
before(async () => {
  m = await openMarket();
  // Real resources of someone else: a seller's draft and listing, a buyer's quote.
  const seller = await newSeller(m, 'p2wpkh', 'route-table');
  const listing = await listUnit(m, seller, 20_000);
  ids['/v1/listings/'] = listing.id;
  ids['/v1/listing-preflights/'] = (listing as unknown as { preflight_id: string }).preflight_id;
  const buyer = makeWallet('p2wpkh', 'route-table-buyer');
  await m.fund(buyer, 200_000);
  const q = await m.call('POST', '/v1/checkout/quotes', await m.signIn(buyer), { lines: [{ listing_id: listing.id }] });
  assert.equal(q.status, 200, JSON.stringify(q.body));
  ids['/v1/checkout/quotes/'] = q.body.result.id as string;
  owner = seller.w.address;
  strangerToken = await m.signIn(makeWallet('p2tr', 'route-table-stranger'));
});
after(async () => m.close());

const routes = () => servedRoutes(m.app as unknown as FastifyInstance).filter((r) => r.method !== 'HEAD');
const keyOf = (r: { method: string; url: string }) => `${r.method} ${r.url}`;
const concrete = (url: string) =>
  url
    .replace(/:address/, owner)
    .replace(/:id/, Object.entries(ids).find(([prefix]) => url.startsWith(prefix))?.[1] ?? 'x_missing')
    .replace(/:delivery_id/, 'x_missing')
    .replace(/:slug|:key/, 'example')
    .replace(/:asset/, 'PEPECASH');

void test('every route is in the table with its limit class, or explicitly unlimited', () => {
  const problems: string[] = [];
  for (const r of routes()) {
    const row = TABLE[keyOf(r)];
    if (UNLIMITED.some((re) => re.test(r.url))) {
      if (row) problems.push(`${keyOf(r)} is both limited and listed unlimited`);
      continue;
    }
    if (!row) problems.push(`${keyOf(r)} is served but not in the route table (add its limit class and session)`);
    else if (r.limit !== row.limit) problems.push(`${keyOf(r)}: limit class ${String(r.limit)}, the table says ${row.limit}`);
    if (!r.limit) problems.push(`${keyOf(r)} has no limit class`);
    if (row && Boolean(row.session) !== r.secured) problems.push(`${keyOf(r)}: security ${r.secured ? 'declared' : 'not declared'}, the table says ${row.session ? 'session' : 'public'}`);
  }
  const served = new Set(routes().map(keyOf));
  for (const k of Object.keys(TABLE)) if (!served.has(k)) problems.push(`${k} is in the table but not served`);
  assert.deepEqual(problems, []);
});

void test('a session route without a session is 401; a public route never asks for one', async () => {
  for (const r of routes()) {
    const row = TABLE[keyOf(r)];
    if (!row) continue;
    // A stream would never end through inject: a bad Last-Event-ID makes it answer 400 instead (after its session check).
    const headers = r.url.includes('/stream') ? { 'last-event-id': 'not-a-seq' } : {};
    const res = await m.app.inject({ method: r.method as 'GET', url: concrete(r.url), headers, payload: r.method === 'GET' || r.method === 'DELETE' ? undefined : {}, remoteAddress: '10.62.0.1' });
    const code = (JSON.parse(res.body) as { code?: string }).code;
    if (row.session) assert.equal(res.statusCode, 401, `${keyOf(r)}: ${res.body}`);
    else assert.notEqual(code, 'unauthenticated', `${keyOf(r)} is public: ${res.body}`);
    assert.ok(res.statusCode < 500, `${keyOf(r)}: ${res.body}`);
  }
});

void test("a non-owner gets the spec's answer: 404 for another's resource by id, 403 for another's feed", async () => {
  const now = Math.floor(m.clock.now() / 1000);
  for (const r of routes()) {
    const row = TABLE[keyOf(r)];
    if (row?.session !== 'id' && row?.session !== 'address') continue;
    const body = VALID_BODY[keyOf(r)]?.(now);
    const res = await m.app.inject({ method: r.method as 'GET', url: concrete(r.url), headers: { 'x-session-token': strangerToken }, ...(body ? { payload: body } : {}), remoteAddress: '10.62.0.2' });
    const code = (JSON.parse(res.body) as { code?: string }).code;
    if (row.session === 'id') assert.deepEqual([res.statusCode, code], [404, 'not_found'], `${keyOf(r)}: ${res.body}`);
    else assert.deepEqual([res.statusCode, code], [403, 'forbidden'], `${keyOf(r)}: ${res.body}`);
  }
});

void test('an unknown method on every path is 405 method_not_allowed with Allow', async () => {
  const byPath = new Map<string, Set<string>>();
  for (const r of servedRoutes(m.app as unknown as FastifyInstance)) {
    // The devnet's Bitcoin Core and Counterparty faces answer as those projects do (Core's own 405 text).
    if (r.url.includes('*') || r.url.startsWith('/devnet/rpc') || r.url.startsWith('/devnet/counterparty/')) continue;
    byPath.set(r.url, (byPath.get(r.url) ?? new Set()).add(r.method));
  }
  // A concrete path can match more than one pattern (GET /v1/policy-accepts/:id also serves
  // /v1/policy-accepts/preflight, whose POST is static): Allow names every method that answers it.
  const matches = (pattern: string, path: string) => {
    const [p, q] = [pattern.split('/'), path.split('/')];
    return p.length === q.length && p.every((seg, i) => seg.startsWith(':') || seg === q[i]);
  };
  for (const url of byPath.keys()) {
    const path = concrete(url);
    const methods = new Set([...byPath].filter(([pattern]) => matches(pattern, path)).flatMap(([, ms]) => [...ms]));
    const method = (['PATCH', 'PUT', 'DELETE'] as const).find((x) => !methods.has(x))!;
    const res = await m.app.inject({ method, url: path, remoteAddress: '10.62.0.3' });
    assert.equal(res.statusCode, 405, `${method} ${url}: ${res.body}`);
    assert.equal((JSON.parse(res.body) as { code: string }).code, 'method_not_allowed');
    assert.deepEqual(String(res.headers.allow).split(', ').sort(), [...methods].sort(), url);
  }
});
