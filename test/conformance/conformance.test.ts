/**
 * The contract, held against the specification's tables (test/conformance/spec-tables.ts):
 * the served route table and OpenAPI document (every route and its session, limit class and
 * freshness; every error code with its statuses; the envelope as one named response; the feeds'
 * kinds and reasons as enums), the limit classes' numbers, and live answers (every cached route's
 * Cache-Control, the public no-store reads' no-store). A route or code added without its row fails.
 * That every code is triggered by some test is checked over the whole suite (coverage.check.ts).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { openMarket, type Market } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';
import { servedRoutes } from '../../src/http/error-handler.js';
import { ERROR_CODES, ERROR_STATUS } from '../../src/http/errors.js';
import { BUCKET_CLASSES, LIMITS } from '../../src/limits/classes.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import {
  ENVELOPE_FIELDS,
  EXTENSION_CODES,
  EXTRA_OWNER_FEED_KINDS,
  EXTRA_ROUTES,
  LIMIT_CLASSES,
  MEMPOOL_POLICIES,
  OWNER_FEED_KINDS,
  PUBLIC_FEED_FILTERS,
  PUBLIC_FEED_KINDS,
  PUBLIC_FEED_REASONS,
  SPEC_CODES,
  SPEC_ROUTES,
  type RouteRow,
} from './spec-tables.js';

type Json = Record<string, any>;
let m: Market;
let doc: Json;
let slug = '';
let asset = '';
let seller = '';

before(async () => {
  m = await openMarket();
  const w = makeWallet('p2wpkh', 'conformance-artist');
  seller = w.address;
  await m.fund(w, 50_000);
  asset = await m.issue(w);
  slug = 'conformance';
  await importCatalog(m.ctx.store.db, {
    collections: [{ slug, name: 'Conformance' }],
    artists: [{ name: 'Conformance Painter' }],
    assets: [{ asset, collection: slug, artist: 'Conformance Painter' }],
  });
  await m.mine();
  await m.sync();
  doc = JSON.parse((await m.app.inject({ method: 'GET', url: '/v1/openapi.json' })).body) as Json;
});
after(async () => m?.close());

const ROUTES: Record<string, RouteRow> = { ...SPEC_ROUTES, ...EXTRA_ROUTES };
const CODES = { ...SPEC_CODES, ...EXTENSION_CODES };
const toDocPath = (url: string) => url.replace(/:([a-zA-Z_]+)/g, '{$1}');
const served = () =>
  servedRoutes(m.app as unknown as FastifyInstance)
    .filter((r) => !r.hidden && r.method !== 'HEAD' && !r.url.startsWith('/devnet') && r.url !== '/v1/openapi.json')
    .map((r) => ({ key: `${r.method} ${toDocPath(r.url)}`, ...r }));

const schemaOf = (s: Json | undefined): Json | undefined => (s && typeof s.$ref === 'string' ? doc.components.schemas[String(s.$ref).split('/').pop()!] : s);
/** The string values a schema allows: an enum, or a union of consts/enums. */
const valuesOf = (s: Json | undefined): string[] => {
  const x = schemaOf(s);
  if (!x) return [];
  if (Array.isArray(x.enum)) return x.enum.filter((v: unknown) => typeof v === 'string');
  if (typeof x.const === 'string') return [x.const];
  return [...(x.anyOf ?? []), ...(x.oneOf ?? [])].flatMap((y: Json) => valuesOf(y));
};

test('every served route has its row, and every row is served, with the row\'s session, limit class and freshness', () => {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const r of served()) {
    seen.add(r.key);
    const row = ROUTES[r.key];
    if (!row) {
      problems.push(`${r.key} is served but has no row in test/conformance/spec-tables.ts`);
      continue;
    }
    if ((row.auth === 'session') !== r.secured) problems.push(`${r.key}: ${row.auth} in the table, ${r.secured ? 'session' : 'public'} served`);
    if ((r.limit ?? null) !== row.limit) problems.push(`${r.key}: limit ${row.limit} in the table, ${r.limit ?? null} served`);
    const cache = r.cache === undefined || r.cache === 'no-store' ? 'no-store' : r.cache.public;
    if (cache !== row.cache) problems.push(`${r.key}: cache ${row.cache} in the table, ${cache} served`);
  }
  for (const key of Object.keys(ROUTES)) if (!seen.has(key)) problems.push(`${key} has a row but is not served`);
  for (const key of Object.keys(SPEC_ROUTES)) if (EXTRA_ROUTES[key]) problems.push(`${key} is both a spec route and an extension`);
  assert.deepEqual(problems, []);
  assert.ok(Object.keys(SPEC_ROUTES).length >= 40);
});

test('the document has every row\'s operation, its security as the row says, and every failure as the one named error response', () => {
  const problems: string[] = [];
  for (const [key, row] of Object.entries(ROUTES)) {
    const [method, path] = key.split(' ') as [string, string];
    const op = doc.paths[path]?.[method.toLowerCase()] as Json | undefined;
    if (!op) {
      problems.push(`${key} is not in the document`);
      continue;
    }
    const secured = Array.isArray(op.security) && op.security.some((s: Json) => 'session' in s);
    if (secured !== (row.auth === 'session')) problems.push(`${key}: security ${secured} in the document, ${row.auth} in the table`);
    const failures = Object.entries((op.responses ?? {}) as Json).filter(([s]) => /^[45]/.test(s));
    if (path.startsWith('/v1/') && (!failures.some(([s]) => s === '4XX') || !failures.some(([s]) => s === '5XX'))) problems.push(`${key}: 4XX and 5XX are not both documented`);
    for (const [status, r] of failures) if (r.$ref !== '#/components/responses/Error') problems.push(`${key} ${status} does not reference components.responses.Error`);
  }
  assert.deepEqual(problems, []);
  assert.equal(schemaOf(doc.components.responses.Error.content['application/json'].schema)?.title ?? 'ErrorEnvelope', 'ErrorEnvelope');
});

test('error codes: the service\'s table, the document\'s enum and the spec\'s table are the same codes, each at one of its statuses', () => {
  const spec = Object.keys(CODES).sort();
  assert.deepEqual([...ERROR_CODES].sort(), spec, 'src/http/errors.ts against the spec table (and its extensions)');
  const envelope = schemaOf(doc.components.responses.Error.content['application/json'].schema)!;
  assert.deepEqual(valuesOf(envelope.properties.code).sort(), spec, 'the document\'s code enum');
  for (const [code, row] of Object.entries(CODES)) {
    assert.ok(row.statuses.includes(ERROR_STATUS[code as keyof typeof ERROR_STATUS]), `${code}: default status ${ERROR_STATUS[code as keyof typeof ERROR_STATUS]} is not one of ${row.statuses}`);
  }
  for (const f of ['error', 'code', ...ENVELOPE_FIELDS]) assert.ok(f in envelope.properties, `envelope field ${f}`);
  assert.deepEqual(envelope.required?.sort(), ['code', 'error']);
  assert.equal(envelope.additionalProperties, true, 'extras are allowed and preserved');
  assert.deepEqual(valuesOf(envelope.properties.mempool_policy).sort(), [...MEMPOOL_POLICIES].sort());
  // Every extra a code promises is named in the envelope's text, so a reader of the document finds it.
  const text = JSON.stringify(envelope);
  for (const [code, row] of Object.entries(CODES)) for (const x of row.extras) assert.ok(text.includes(x), `${code}: extra ${x} is not in the envelope`);
  // Extensions are said to be extensions where the document lists the codes.
  for (const code of Object.keys(EXTENSION_CODES)) assert.match(String(envelope.properties.code.description ?? ''), new RegExp(`${code}[^.]*extension`), `${code} is documented as an extension`);
});

test('limit classes: the numbers of the spec\'s Limits table', () => {
  assert.deepEqual([...BUCKET_CLASSES].sort(), Object.keys(LIMIT_CLASSES).sort());
  for (const cls of BUCKET_CLASSES) {
    const want = LIMIT_CLASSES[cls];
    const got = LIMITS[cls];
    assert.deepEqual(
      { principal: got.principalLimit, ipCeiling: got.ipCeiling, perRoute: got.scope === 'route', failOpen: got.failOpen },
      want,
      cls,
    );
  }
  // Every class has a route, so no budget of the table is dead.
  const used = new Set(Object.values(ROUTES).map((r) => r.limit));
  for (const cls of BUCKET_CLASSES) assert.ok(used.has(cls), `no route uses ${cls}`);
});

test('every limited route refuses past its class\'s number with 429 rate_limited and retry_after_seconds', async () => {
  // One route of each class, driven past its number from one fresh IP (anonymous or signed in).
  const w = makeWallet('p2wpkh', 'conformance-limits');
  const token = await m.signIn(w);
  const probes: Array<[string, string, string | null, unknown]> = [
    ['sign_in', '/v1/auth/challenge', null, { address: w.address }],
    ['expensive_write', '/v1/checkout/quotes', token, { lines: [] }],
    ['account_maintenance', '/v1/offer-cancellations/review', token, {}],
    ['recovery_read', `/v1/address/${w.address}/listing-preflights`, token, undefined],
    ['artist_edit', '/v1/artists/conformance-painter/profile/eligibility', token, undefined],
  ];
  for (const [cls, url, tok, body] of probes) {
    const limit = LIMIT_CLASSES[cls as keyof typeof LIMIT_CLASSES].principal;
    const ip = `10.31.${probes.findIndex((p) => p[0] === cls)}.1`;
    let last = { statusCode: 0, body: '', headers: {} as Json };
    for (let i = 0; i <= limit; i++) {
      last = await m.app.inject({
        method: body === undefined ? 'GET' : 'POST',
        url,
        headers: { ...(tok ? { 'x-session-token': tok } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        remoteAddress: ip,
      });
      if (i < limit) assert.notEqual(last.statusCode, 429, `${cls}: request ${i + 1} of ${limit} refused`);
    }
    assert.equal(last.statusCode, 429, `${cls}: request ${limit + 1} answered ${last.statusCode} ${last.body}`);
    const b = JSON.parse(last.body) as Json;
    assert.equal(b.code, 'rate_limited', cls);
    assert.ok(Number.isInteger(b.retry_after_seconds) && b.retry_after_seconds >= 1, cls);
    assert.equal(String(last.headers['retry-after']), String(b.retry_after_seconds), cls);
  }
});

test('every cached route answers Cache-Control public with its max-age; public no-store reads answer no-store', async () => {
  const fill = (path: string) =>
    path
      .replace('{slug}', slug)
      .replace('{key}', 'conformance-painter')
      .replace('{asset}', asset)
      .replace('{address}', seller);
  const problems: string[] = [];
  let checked = 0;
  for (const [key, row] of Object.entries(ROUTES)) {
    const [method, path] = key.split(' ') as [string, string];
    if (method !== 'GET' || row.auth !== 'public' || path.includes('/stream')) continue;
    const query = path === '/v1/inventory/attachable' ? `?address=${seller}` : '';
    const r = await m.app.inject({ method: 'GET', url: fill(path) + query, remoteAddress: '10.32.0.1' });
    const cc = String(r.headers['cache-control'] ?? '');
    if (r.statusCode !== 200) {
      problems.push(`${key}: ${r.statusCode} ${r.body.slice(0, 200)}`);
      continue;
    }
    checked++;
    if (row.cache === 'no-store') {
      if (cc !== 'no-store') problems.push(`${key}: Cache-Control ${cc}, want no-store`);
    } else {
      const age = Number(/^public, max-age=(\d+)$/.exec(cc)?.[1] ?? NaN);
      if (!(age <= row.cache && age >= row.cache - 1)) problems.push(`${key}: Cache-Control ${cc}, want public, max-age=${row.cache}`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(checked >= 20, `${checked} public reads checked`);
  // Session-owner reads are never cached.
  const token = await m.signIn(makeWallet('p2wpkh', 'conformance-owner'));
  const own = await m.app.inject({ method: 'GET', url: '/v1/inventory/prepared', headers: { 'x-session-token': token } });
  assert.equal(own.headers['cache-control'], 'no-store');
});

test('the feeds\' kinds and reasons are enums in the document, with every value of the spec\'s tables', () => {
  const op = (path: string) => doc.paths[path].get.responses['200'].content['application/json'].schema;
  // The newest-first page (the first variant when the route also answers the ordered log's shape).
  const itemOf = (s: Json): Json => {
    const page = schemaOf(s)!;
    return schemaOf((page.properties ?? schemaOf(page.anyOf[0])!.properties).result.items)!;
  };
  const publicEvent = itemOf(op('/v1/events'));
  const kinds = valuesOf(publicEvent.properties?.kind ?? (publicEvent.anyOf ?? []).map((x: Json) => schemaOf(x)!.properties?.kind).find(Boolean));
  assert.deepEqual(kinds.sort(), [...PUBLIC_FEED_KINDS].sort(), 'public feed kinds');
  const reason = publicEvent.properties.reason;
  assert.deepEqual(valuesOf(reason).sort(), [...PUBLIC_FEED_REASONS].sort(), 'public feed reasons (enum, nullable)');
  const filter = doc.paths['/v1/events'].get.parameters.find((p: Json) => p.name === 'kind');
  assert.deepEqual(valuesOf(filter.schema).sort(), [...PUBLIC_FEED_FILTERS].sort());
  const ownerEvent = itemOf(op('/v1/address/{address}/events'));
  const ownerKind = ownerEvent.properties.kind;
  assert.ok(Array.isArray(schemaOf(ownerKind)!.enum), 'the owner feed\'s kind is an enum');
  assert.deepEqual(valuesOf(ownerKind).sort(), [...Object.keys(OWNER_FEED_KINDS), ...EXTRA_OWNER_FEED_KINDS].sort(), 'owner feed kinds');
  for (const k of Object.keys(OWNER_FEED_KINDS)) assert.ok(String(schemaOf(ownerKind)!.description).includes(k), `the owner kind's text names ${k}`);
  assert.deepEqual(valuesOf(ownerEvent.properties.role).sort(), ['bidder', 'buyer', 'seller']);
});
