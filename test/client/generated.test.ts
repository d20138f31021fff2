/**
 * The client's generated files are what the served OpenAPI document makes today: a route or a
 * field changed in the app without `npm run client:types` fails here (and so in CI). The
 * document does not depend on the store, so it is built once, on the SQLite run only.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { servedDocument } from '../../client/codegen/document.js';
import { generateSchemas, generateTypes, operations } from '../../client/codegen/generate.js';
import { replySchemas } from '../../client/src/generated/schemas.js';
import { backend } from '../helpers/store.js';

const committed = (name: string) => fs.readFileSync(new URL(`../../client/src/generated/${name}`, import.meta.url), 'utf8');

void test('client/src/generated matches the served document (run `npm run client:types` after changing a route)', { skip: backend !== 'sqlite' && 'the document is the same on every backend' }, async () => {
  const doc = await servedDocument();
  // Every operation has a reply schema for each of its 2xx statuses.
  assert.deepEqual(Object.keys(replySchemas).sort(), operations(doc).map(([k]) => k).sort());
  assert.equal(generateSchemas(doc), committed('schemas.ts'), 'schemas.ts is stale: run `npm run client:types`');
  assert.equal(await generateTypes(doc), committed('api.ts'), 'api.ts is stale: run `npm run client:types`');
  // The check can fail: a route the app gained since is a difference.
  doc.paths['/v1/new-route'] = { get: { responses: { '200': { content: { 'application/json': { schema: { type: 'object' } } } } } } };
  assert.notEqual(generateSchemas(doc), committed('schemas.ts'));
});

void test('client/src uses no Node-only API (it runs in browsers and on edge runtimes)', () => {
  const dir = new URL('../../client/src/', import.meta.url);
  const files = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  assert.ok(files.length > 5);
  for (const f of files) {
    const text = fs.readFileSync(new URL(f, dir), 'utf8');
    assert.doesNotMatch(text, /from ['"](node:|fs|path|os|crypto|http|https|net|child_process|buffer)['"/]|\bprocess\.|\bBuffer\b|\brequire\(/, `${f} uses a Node-only API`);
  }
});
