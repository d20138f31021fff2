/**
 * The OpenAPI document covers every public route the app serves, each with a description for
 * integrators and its error responses in the spec's envelope; the devnet's and internal routes
 * stay out of it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { testApp, type TestApp } from '../helpers/app.js';
import { servedRoutes } from '../../src/http/error-handler.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
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
      for (const [status, r] of errors) {
        const props = r.content?.['application/json']?.schema?.properties ?? {};
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
