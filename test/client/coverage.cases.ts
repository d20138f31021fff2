/**
 * Issue 16's done criterion: the client's own tests drive every route of the market against the
 * real app. Registered last in market.test.ts, after every other client case has run in this
 * process: every route of the served OpenAPI document must be in `reached` (what the client's
 * fetch sent, recorded by the harness) or named below with why no client test calls it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routeOf } from '../../client/src/index.js';
import { openMarket } from '../helpers/market.js';
import { reached } from './harness.js';

/** Routes no client test calls, each with its reason. Keep this short: a route here is one the client is not proven against. */
const EXCLUDED: Record<string, string> = {};

void describe('client: route coverage', () => {
  void it('every route of the served document is reached by a client test (or excluded with a reason)', async () => {
    const m = await openMarket();
    let doc: { paths: Record<string, Record<string, unknown>> };
    try {
      const r = await m.app.inject({ method: 'GET', url: '/v1/openapi.json' });
      assert.equal(r.statusCode, 200);
      doc = JSON.parse(r.body);
    } finally {
      await m.close();
    }
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((k) => ['get', 'post', 'patch', 'put', 'delete'].includes(k)).map((k) => `${k.toUpperCase()} ${path}`));
    assert.ok(routes.length > 50, `the document lists ${routes.length} routes`);
    // The recorder resolves concrete paths to the document's templates: the check can fail.
    assert.equal(routeOf('GET', '/v1/listing-preflights/lpf_x'), 'GET /v1/listing-preflights/{id}');
    for (const k of Object.keys(EXCLUDED)) assert.ok(routes.includes(k), `excluded ${k} is no route of the document`);
    const missing = routes.filter((r) => !reached.has(r) && !EXCLUDED[r]).sort();
    assert.deepEqual(missing, [], `routes no client test reaches:\n${missing.join('\n')}`);
  });
});
