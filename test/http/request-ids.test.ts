import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestIds } from '../../src/http/request-ids.js';

test('request ids are 128 random bits in base64url, distinct across pool refills', () => {
  const ids = new RequestIds();
  const seen = new Set<string>();
  // 256 ids fill the pool once: 2,000 cross seven refills.
  for (let i = 0; i < 2_000; i++) {
    const id = ids.next();
    assert.match(id, /^[A-Za-z0-9_-]{22}$/);
    assert.equal(Buffer.from(id, 'base64url').length, 16);
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
