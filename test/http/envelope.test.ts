import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { unreachableChain } from '../helpers/chain.js';

let t: TestApp;
before(async () => {
  t = await testApp({
    chain: unreachableChain(),
    beforeReady: (app, ctx) => {
      app.get('/v1/__test/boom', async () => {
        throw new Error('password=hunter2 at db.internal:5432');
      });
      app.get('/v1/__test/page', { schema: { querystring: { type: 'object', properties: { cursor: { type: 'string' }, asset: { type: 'string' } } } } }, async (req) => {
        const q = req.query as { cursor?: string; asset?: string };
        const pos = ctx.cursors.decode<number>(q.cursor, '/v1/__test/page', { asset: q.asset });
        return { result: [pos ?? 0], result_count: 1, next_cursor: ctx.cursors.encode('/v1/__test/page', { asset: q.asset }, (pos ?? 0) + 1) };
      });
      app.get('/v1/__test/other', async () => ({ result: [] }));
    },
  });
});
after(async () => t.close());

const json = (r: { body: string }) => JSON.parse(r.body) as Record<string, any>;

test('unknown route: 404 not_found envelope', async () => {
  const r = await t.app.inject({ method: 'GET', url: '/v1/nope' });
  assert.equal(r.statusCode, 404);
  assert.equal(json(r).code, 'not_found');
  assert.equal(typeof json(r).error, 'string');
  assert.match(String(r.headers['content-type']), /application\/json/);
});

test('known path, wrong method: 405 method_not_allowed with Allow', async () => {
  const r = await t.app.inject({ method: 'DELETE', url: '/v1/auth/challenge' });
  assert.equal(r.statusCode, 405);
  assert.equal(json(r).code, 'method_not_allowed');
  assert.equal(r.headers.allow, 'POST');
  const g = await t.app.inject({ method: 'POST', url: '/healthz', payload: {} });
  assert.equal(g.statusCode, 405);
  assert.equal(g.headers.allow, 'GET, HEAD');
});

test('malformed JSON: 400 invalid_request', async () => {
  const r = await t.app.inject({ method: 'POST', url: '/v1/auth/challenge', headers: { 'content-type': 'application/json' }, payload: '{"address": ' });
  assert.equal(r.statusCode, 400);
  assert.equal(json(r).code, 'invalid_request');
  assert.match(json(r).error, /JSON/);
});

test('wrong content type: 400 invalid_request, not 415', async () => {
  for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
    const r = await t.app.inject({ method: 'POST', url: '/v1/auth/challenge', headers: { 'content-type': ct }, payload: 'address=x' });
    assert.equal(r.statusCode, 400, ct);
    assert.equal(json(r).code, 'invalid_request', ct);
  }
});

test('empty JSON body and missing body: 400 naming the body', async () => {
  const r = await t.app.inject({ method: 'POST', url: '/v1/auth/challenge', headers: { 'content-type': 'application/json' }, payload: '' });
  assert.equal(r.statusCode, 400);
  assert.equal(json(r).code, 'invalid_request');
  const n = await t.app.inject({ method: 'POST', url: '/v1/auth/challenge' });
  assert.equal(n.statusCode, 400);
  assert.equal(json(n).code, 'invalid_request');
});

test('schema violation: 400 naming the field', async () => {
  const wrongType = await t.app.inject({ method: 'POST', url: '/v1/auth/challenge', payload: { address: 12345 } });
  assert.equal(wrongType.statusCode, 400);
  assert.equal(json(wrongType).field, 'body.address');
  assert.match(json(wrongType).error, /body\.address/);
  const missing = await t.app.inject({ method: 'POST', url: '/v1/auth/verify', payload: { address: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', signature: 'AA==' } });
  assert.equal(missing.statusCode, 400);
  assert.equal(json(missing).field, 'body.issued_at');
  const extra = await t.app.inject({ method: 'POST', url: '/v1/auth/challenge', payload: { address: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', admin: true } });
  assert.equal(extra.statusCode, 400);
  assert.equal(json(extra).field, 'body.admin');
});

test('body over 64 KiB: 413 invalid_request', async () => {
  const r = await t.app.inject({ method: 'POST', url: '/v1/auth/challenge', payload: { address: 'x'.repeat(70 * 1024) } });
  assert.equal(r.statusCode, 413);
  assert.equal(json(r).code, 'invalid_request');
});

test('unexpected failure: 500 internal_error without internals', async () => {
  const r = await t.app.inject({ method: 'GET', url: '/v1/__test/boom' });
  assert.equal(r.statusCode, 500);
  assert.deepEqual(Object.keys(json(r)).sort(), ['code', 'error']);
  assert.equal(json(r).code, 'internal_error');
  assert.doesNotMatch(r.body, /hunter2|db\.internal|at |\.ts/);
});

test('cursors: round trip; forged, foreign-route or changed-filter cursors are 400', async () => {
  const first = await t.app.inject({ method: 'GET', url: '/v1/__test/page?asset=PEPE' });
  const cursor = json(first).next_cursor as string;
  const second = await t.app.inject({ method: 'GET', url: `/v1/__test/page?asset=PEPE&cursor=${encodeURIComponent(cursor)}` });
  assert.equal(second.statusCode, 200);
  assert.deepEqual(json(second).result, [1]);
  const [payload, mac] = cursor.split('.');
  const forgedPayload = Buffer.from(JSON.stringify(999)).toString('base64url');
  for (const bad of [`${forgedPayload}.${mac}`, `${payload}.AAAA${mac!.slice(4)}`, 'garbage', `${payload}`]) {
    const r = await t.app.inject({ method: 'GET', url: `/v1/__test/page?asset=PEPE&cursor=${encodeURIComponent(bad)}` });
    assert.equal(r.statusCode, 400, bad);
    assert.equal(json(r).code, 'invalid_request');
  }
  const changed = await t.app.inject({ method: 'GET', url: `/v1/__test/page?asset=RARE&cursor=${encodeURIComponent(cursor)}` });
  assert.equal(changed.statusCode, 400);
  const other = t.ctx.cursors.decode.bind(t.ctx.cursors);
  assert.throws(() => other(cursor, '/v1/__test/other', { asset: 'PEPE' }), (e: any) => e.code === 'invalid_request');
});

test('success envelope and request id', async () => {
  const r = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
  assert.equal(r.statusCode, 200);
  assert.deepEqual(json(r), { result: { status: 'ok' } });
  assert.equal(r.headers['x-request-id'], 'abc-123');
  const gen = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
  assert.match(String(gen.headers['x-request-id']), /^[A-Za-z0-9_-]{22}$/);
});

test('readyz: 503 service_unavailable when the chain is unreachable', async () => {
  const r = await t.app.inject({ method: 'GET', url: '/readyz' });
  assert.equal(r.statusCode, 503);
  assert.equal(json(r).code, 'service_unavailable');
  assert.equal(json(r).checks.store.ok, true);
  assert.equal(json(r).checks.bitcoin.ok, false);
});

test('OpenAPI 3.1 document and docs page', async () => {
  const r = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
  assert.equal(r.statusCode, 200);
  const doc = json(r);
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.0.0');
  assert.ok(doc.paths['/v1/auth/challenge'].post);
  assert.ok(doc.paths['/v1/auth/verify'].post.requestBody);
  const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
  assert.equal(docs.statusCode, 200);
  assert.match(String(docs.headers['content-type']), /text\/html/);
});
