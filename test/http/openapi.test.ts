/**
 * The OpenAPI document covers every public route the app serves, each with a description for
 * integrators and its error responses in the spec's envelope; the devnet's and internal routes
 * stay out of it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { openMarket, type Market } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';
import { servedRoutes } from '../../src/http/error-handler.js';
import { EXAMPLES } from '../../src/http/openapi-examples.js';
import { DEVNET_RPC_METHODS } from '../../src/chain/devnet/http/rpc-methods.js';
import { DEVNET_COUNTERPARTY_ROUTES } from '../../src/chain/devnet/http/counterparty-face.js';

let t: Market;
let doc: Doc;
before(async () => {
  t = await openMarket();
  doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).body) as Doc;
});

type Schema = Record<string, any>;
type Op = { description?: string; security?: Array<Record<string, string[]>>; parameters?: Schema[]; requestBody?: Schema; responses?: Record<string, Schema> };
type Doc = { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Schema> }; tags: Array<{ name: string; description: string }> };

/** Follows a local `$ref` (#/components/schemas/X) to its schema. */
const deref = (s: Schema | undefined): Schema | undefined =>
  s && typeof s.$ref === 'string' ? doc.components.schemas[s.$ref.replace('#/components/schemas/', '')] : s;
after(async () => t.close());

const toOpenApiPath = (url: string) => url.replace(/:([a-zA-Z_]+)/g, '{$1}');

void test('every /v1 route is documented with a description and the error envelope; nothing else is', async () => {
  const served = servedRoutes(t.app as unknown as FastifyInstance);
  const doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).body) as {
    paths: Record<string, Record<string, { description?: string; summary?: string; responses?: Record<string, { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }> }>>;
  };
  const documented = new Set<string>();
  const problems: string[] = [];
  const check = (ok: boolean, problem: string) => {
    if (!ok) problems.push(problem);
  };
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      documented.add(`${method.toUpperCase()} ${path}`);
      check(path.startsWith('/v1/') || path.startsWith('/devnet/') || path === '/healthz' || path === '/readyz', `${path} is not a market route`);
      check(!path.startsWith('/devnet/rpc') && !path.startsWith('/devnet/counterparty/'), `${path}: the devnet's Bitcoin Core and Counterparty faces are those projects' protocols, not in our document`);
      check((op.description ?? '').length >= 40, `${method} ${path} needs a description for integrators`);
      const errors = Object.entries(op.responses ?? {}).filter(([status]) => /^[45]/.test(status));
      if (path.startsWith('/v1/')) check(errors.length > 0, `${method} ${path} documents no error response`);
      for (const [status, r0] of errors) {
        const r = (r0 as { $ref?: string }).$ref ? (doc as any).components.responses[String((r0 as { $ref: string }).$ref).split('/').pop()!] : r0;
        const props = deref(r.content?.['application/json']?.schema)?.properties ?? {};
        check('code' in props && 'error' in props, `${method} ${path} ${status} is not the error envelope`);
      }
    }
  }
  for (const r of served) {
    if (r.hidden || !r.url.startsWith('/v1/') || r.method === 'HEAD' || r.url === '/v1/openapi.json') continue;
    check(documented.has(`${r.method} ${toOpenApiPath(r.url)}`), `${r.method} ${r.url} is served but not documented`);
  }
  assert.deepEqual(problems, []);
  assert.ok(served.length > 30, 'the route table was read');
  for (const must of ['POST /v1/checkout/quotes', 'POST /v1/checkout/quotes/{id}/complete', 'GET /v1/checkout/quotes/{id}', 'GET /v1/collections/{slug}/book', 'GET /v1/events', 'GET /v1/address/{address}/events', 'GET /v1/fills', 'GET /v1/analytics']) {
    assert.ok(documented.has(must), `${must} is documented`);
  }
});

const operations = () => Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, path, method, op })));

void test('shared schemas are named components referenced by $ref, and the document is small', () => {
  const size = JSON.stringify(doc).length;
  // The bound guards against inlining shared schemas again (516 KB at 2026-11 when everything was inlined); it grows with the API (collection offers added ~35 KB; the event log's after= reads, the streams, webhooks, exposure, rotation and co-signed listings ~60 KB, no operation above 10 KB; meta, seller listings, named coins and anchor holds ~30 KB; the feeds' exposure, filled and offer_accepted rules and the per-alternative soft cancel ~6 KB).
  assert.ok(size < 380_000, `the document is ${size} bytes (516 KB when everything was inlined)`);
  for (const name of ['ErrorEnvelope', 'Outpoint', 'Address', 'Txid', 'Sats', 'PositiveSats', 'AssetId', 'Fill', 'BookListing', 'ListingDraft', 'CheckoutQuote', 'UnixSeconds']) {
    assert.ok(doc.components.schemas[name], `component ${name}`);
  }
  for (const { key, op } of operations()) {
    for (const [status, r] of Object.entries(op.responses ?? {})) {
      if (!/^[45]/.test(status)) continue;
      // One named response, referenced by every operation (issue 31 item 11); a status may add its own description.
      assert.equal(r.$ref, '#/components/responses/Error', `${key} ${status}`);
      assert.deepEqual(Object.keys(r).filter((k) => k !== '$ref' && k !== 'description'), [], `${key} ${status}`);
    }
  }
  assert.equal((doc as any).components.responses.Error.content['application/json'].schema.$ref, '#/components/schemas/ErrorEnvelope');
  const fills = doc.paths['/v1/fills']!.get!.responses!['200']!.content['application/json'].schema;
  assert.equal(fills.properties.result.items.$ref, '#/components/schemas/Fill');
});

void test('a query parameter with a default is not required', () => {
  const wrong = operations().flatMap(({ key, op }) => (op.parameters ?? []).filter((p) => p.in === 'query' && p.required && p.schema && 'default' in p.schema).map((p) => `${key} ?${p.name}`));
  assert.deepEqual(wrong, []);
  const limit = doc.paths['/v1/events']!.get!.parameters!.find((p) => p.name === 'limit');
  assert.equal(limit?.required, false);
});

void test('session routes declare security with the x-session-token apiKey scheme', () => {
  assert.deepEqual(doc.components.securitySchemes.session, {
    type: 'apiKey',
    in: 'header',
    name: 'x-session-token',
    description: doc.components.securitySchemes.session?.description,
  });
  const secured = operations().filter(({ op }) => op.security?.length);
  assert.ok(secured.length >= 17, `${secured.length} session routes`);
  for (const { key, op } of secured) for (const s of op.security!) for (const name of Object.keys(s)) assert.ok(doc.components.securitySchemes[name], `${key} names scheme ${name}`);
  for (const must of ['POST /v1/checkout/quotes', 'GET /v1/address/{address}/events', 'POST /v1/listing-preflights', 'GET /v1/inventory/prepared']) {
    assert.ok(secured.some((o) => o.key === must), `${must} declares security`);
  }
});

void test('the main routes carry a realistic example, and every request example passes validation', async () => {
  const token = await t.signIn(makeWallet('p2wpkh', 'openapi-examples'));
  for (const [key, ex] of Object.entries(EXAMPLES)) {
    const [method, path] = key.split(' ') as [string, string];
    const op = doc.paths[path]?.[method.toLowerCase()];
    assert.ok(op, `${key} is documented`);
    if (ex.body !== undefined) assert.deepEqual(op.requestBody?.content?.['application/json']?.example, ex.body, key);
    for (const name of Object.keys(ex.query ?? {})) assert.ok(op.parameters?.find((p) => p.name === name)?.example !== undefined, `${key} ?${name}`);
    const url = path.replace(/\{id\}/g, 'x_example').replace(/\{[a-z_]+\}/g, 'example') + (ex.query ? `?${new URLSearchParams(ex.query).toString()}` : '');
    const r = await t.app.inject({ method: method as 'GET', url, headers: op.security ? { 'x-session-token': token } : {}, ...(ex.body !== undefined ? { payload: ex.body as object } : {}), remoteAddress: '10.61.0.1' });
    const body = JSON.parse(r.body) as { code?: string; field?: string };
    assert.ok(!(r.statusCode === 400 && /^(body|query)/.test(body.field ?? '')), `${key} example fails validation: ${r.body}`);
    assert.ok(r.statusCode < 500, `${key}: ${r.body}`);
  }
  for (const must of ['POST /v1/checkout/quotes', 'POST /v1/listing-preflights', 'POST /v1/auth/challenge', 'POST /v1/auth/verify']) assert.ok(EXAMPLES[must], must);
});

void test("expires_at says which one it is: the draft's 15-minute template deadline, or the listing's market expiry", () => {
  const draft = deref(doc.components.schemas.ListingDraft)!.properties.expires_at;
  assert.match(draft.description, /15 minutes/);
  assert.match(draft.description, /not the listing's market expiry/i);
  const book = doc.components.schemas.BookListing!.properties.expires_at;
  assert.match(JSON.stringify(book), /market expiry/);
  const body = doc.paths['/v1/listing-preflights/{id}/listing']!.post!.requestBody!.content['application/json'].schema;
  assert.match(JSON.stringify(body.properties.expires_at), /marketplace expiry/);
});

void test('the devnet tag documents its Bitcoin Core RPC methods and Counterparty routes; the advertised routes link answers', async () => {
  const devnet = doc.tags.find((x) => x.name === 'devnet')!.description;
  for (const m of DEVNET_RPC_METHODS) assert.ok(devnet.includes(m), `RPC method ${m}`);
  for (const r of DEVNET_COUNTERPARTY_ROUTES) assert.ok(devnet.includes(r.replace(/:([a-z_]+)/g, '{$1}')), `Counterparty route ${r}`);
  const root = JSON.parse((await t.app.inject({ method: 'GET', url: '/devnet/counterparty/v2/' })).body) as { result: { routes: string } };
  const routes = await t.app.inject({ method: 'GET', url: new URL(root.result.routes).pathname });
  assert.equal(routes.statusCode, 200, routes.body);
  assert.ok(Object.keys((JSON.parse(routes.body) as { result: Record<string, unknown> }).result).includes('/v2/addresses/<address>/balances'));
});

void test('every number the API reads (path, query, body) has a maximum', () => {
  const unbounded: string[] = [];
  const walk = (s: unknown, where: string, seen: ReadonlySet<string>): void => {
    if (Array.isArray(s)) return s.forEach((x) => walk(x, where, seen));
    if (!s || typeof s !== 'object') return;
    const o = s as Schema;
    if (typeof o.$ref === 'string') {
      const name = o.$ref.split('/').pop()!;
      if (!seen.has(name)) walk(doc.components.schemas[name], `${where}->${name}`, new Set([...seen, name]));
    }
    if ((o.type === 'integer' || o.type === 'number') && o.maximum === undefined) unbounded.push(where);
    for (const [k, v] of Object.entries(o)) if (k !== '$ref') walk(v, ['properties', 'items', 'anyOf'].includes(k) ? where : `${where}.${k}`, seen);
  };
  for (const { key, op } of operations()) {
    for (const p of op.parameters ?? []) walk(p.schema, `${key} ${p.in} ${p.name}`, new Set());
    walk(op.requestBody?.content?.['application/json']?.schema, `${key} body`, new Set());
  }
  assert.deepEqual(unbounded, []);
});

void test("every route's schemas compile: the ones no request has used yet are compiled by compileSchemas, as serve does before listening", async () => {
  const m = await openMarket();
  try {
    // One request compiles its route's validators and serializers on the way.
    assert.equal((await m.app.inject({ method: 'GET', url: '/v1/collections' })).statusCode, 200);
    const compiled = m.app.compileSchemas();
    // Every route's params, query, body and response schemas (about a hundred routes, most with
    // several of each), except the ones that request compiled; schemas that are the same (the error
    // envelopes of each status, the same params or page query on many routes) compile once
    // (http/lazy-schemas.ts): 166 on 2026-11-27.
    assert.ok(compiled > 150, `compiled ${compiled}`);
    assert.equal(m.app.compileSchemas(), 0, 'a second call has nothing left to compile');
    // And the routes answer as before once compiled.
    assert.equal((await m.app.inject({ method: 'GET', url: '/v1/fee-rate' })).statusCode, 200);
  } finally {
    await m.close();
  }
});
