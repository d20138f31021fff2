import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestIds } from '../../src/http/request-ids.js';

test('request ids are 22 random base64url characters, distinct across pool refills', () => {
  const ids = new RequestIds();
  const seen = new Set<string>();
  // One pool's text holds 248 ids: 2,000 cross eight refills.
  for (let i = 0; i < 2_000; i++) {
    const id = ids.next();
    assert.match(id, /^[A-Za-z0-9_-]{22}$/);
    seen.add(id);
  }
  assert.equal(seen.size, 2_000);
  // Two sources (two instances) do not share a sequence.
  assert.notEqual(new RequestIds().next(), new RequestIds().next());
});

test("a caller's sane x-request-id is kept; anything else gets a new id", () => {
  const ids = new RequestIds();
  assert.equal(ids.of('trace-1.a:b_C'), 'trace-1.a:b_C');
  for (const bad of [undefined, '', 'has space', 'x'.repeat(65), ['a', 'b'], 'crlf\r\n']) {
    assert.match(ids.of(bad), /^[A-Za-z0-9_-]{22}$/, String(bad));
  }
});
