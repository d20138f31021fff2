/**
 * Issue 14's repros, one by one: non-finite and non-canonical numbers, control characters,
 * and the framework's and Node's own refusals, each answered in the spec's envelope with a
 * 4xx, never a 500 (on both storage backends).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { openMarket, type Market } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';

let t: Market;
let port = 0;
let token = '';
const sellerWallet = makeWallet('p2wpkh', 'hostile-seller');
before(async () => {
  t = await openMarket();
  token = await t.signIn(sellerWallet);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as net.AddressInfo).port;
});
after(async () => t.close());

const json = (r: { body: string }) => JSON.parse(r.body) as Record<string, any>;

function assertEnvelope(r: { statusCode: number; body: string }, status: number, code: string, what: string) {
  assert.equal(r.statusCode, status, `${what}: ${r.body}`);
  const body = json(r);
  assert.equal(body.code, code, what);
  assert.equal(typeof body.error, 'string', what);
}

const seller = sellerWallet.address;
const auth = () => ({ 'x-session-token': token });

test('non-finite and non-canonical numbers in query strings: 400 naming the field', async () => {
  const paged = ['/v1/events', '/v1/fills', '/v1/collections', '/v1/artists', `/v1/address/${seller}/events`];
  for (const path of paged) {
    for (const v of ['Infinity', '-Infinity', '1e999', '1e1', '0x10', '', ' 5', '5.0', '+5']) {
      const r = await t.app.inject({ method: 'GET', url: `${path}?limit=${encodeURIComponent(v)}`, headers: auth() });
      assertEnvelope(r, 400, 'invalid_request', `${path} limit=${v}`);
      assert.equal(json(r).field, 'query.limit');
    }
  }
  const ok = await t.app.inject({ method: 'GET', url: '/v1/artists?limit=7' });
  assert.equal(ok.statusCode, 200, 'a canonical integer still passes');
});

test('non-finite numbers in bodies ("-Infinity", 1e999): 400, never a 500', async () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['/v1/checkout/quotes', { lines: [{ asset: 'PEPECASH', quantity: '-Infinity' }] }, 'body.lines[0]'],
    ['/v1/checkout/quotes', { lines: [{ asset: 'PEPECASH', quantity: 1 }], fee_rate: '-Infinity' }, 'body.fee_rate'],
    ['/v1/listing-preflights', { seller, asset: 'PEPECASH', quantity_raw: '1', fee_rate: 'Infinity', idempotency_key: 'k1' }, 'body.fee_rate'],
    ['/v1/attach-templates', { utxo_owner: seller, asset: 'PEPECASH', quantity_raw: '1', fee_rate: '-Infinity' }, 'body.fee_rate'],
  ];
  for (const [url, body, field] of cases) {
    const r = await t.app.inject({ method: 'POST', url, payload: body, headers: auth() });
    assertEnvelope(r, 400, 'invalid_request', `${url} ${JSON.stringify(body)}`);
    assert.ok(String(json(r).field).startsWith(field), `${url}: field ${json(r).field}`);
  }
  // JSON.parse reads 1e999 as Infinity: refused after validation, wherever it sits.
  const raw = await t.app.inject({ method: 'POST', url: '/v1/listing-preflights', headers: { 'content-type': 'application/json', ...auth() }, payload: `{"seller":"${seller}","asset":"PEPECASH","quantity_raw":"1","fee_rate":1e999,"idempotency_key":"k2"}` });
  assertEnvelope(raw, 400, 'invalid_request', 'fee_rate 1e999');
  assert.equal(json(raw).field, 'body.fee_rate');
});

test('a NUL or control character in a path, a query or a body: 400, and the store never sees it', async () => {
  for (const url of ['/v1/collections/%00', '/v1/artists/%00', '/v1/fills?collection=%00', '/v1/collections/a%01b/book', '/v1/events?asset=%7F', `/v1/address/${seller}%00/events`]) {
    const r = await t.app.inject({ method: 'GET', url, headers: auth() });
    assertEnvelope(r, 400, 'invalid_request', url);
    assert.match(json(r).error, /control character/, url);
  }
  const body = await t.app.inject({ method: 'POST', url: '/v1/auth/challenge', payload: { address: `${seller}\u0000` } });
  assertEnvelope(body, 400, 'invalid_request', 'NUL in a body string');
});

test('malformed percent-encoding and an over-long path parameter: the envelope, 400 and 414', async () => {
  const bad = await t.app.inject({ method: 'GET', url: '/v1/collections/%zz' });
  assertEnvelope(bad, 400, 'invalid_request', 'bad percent-encoding');
  const long = await t.app.inject({ method: 'GET', url: `/v1/collections/${'a'.repeat(400)}` });
  assertEnvelope(long, 414, 'invalid_request', 'over-long path parameter');
});

test('a missing /docs/static file is 404 not_found, not 405', async () => {
  const r = await t.app.inject({ method: 'GET', url: '/docs/static/no-such-file.js' });
  assertEnvelope(r, 404, 'not_found', 'missing static file');
  const wrong = await t.app.inject({ method: 'DELETE', url: '/docs/static/no-such-file.js' });
  assertEnvelope(wrong, 405, 'method_not_allowed', 'a wrong method is still 405');
});

/** Sends raw bytes to the listening server and reads the whole answer. */
function raw(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let out = '';
    s.on('data', (d) => (out += d.toString('latin1')));
    s.on('end', () => resolve(out));
    s.on('close', () => resolve(out));
    s.on('error', (e) => (out ? resolve(out) : reject(e)));
    s.write(bytes);
  });
}

function parseRaw(text: string): { status: number; body: Record<string, any> } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  return { status, body: JSON.parse(body) as Record<string, any> };
}

test("Node's own refusals (HTTP framing, oversized headers) speak the envelope", async () => {
  const framing = parseRaw(await raw('GARBAGE\r\n\r\n'));
  assert.equal(framing.status, 400);
  assert.equal(framing.body.code, 'invalid_request');
  const badLength = parseRaw(await raw('POST /v1/auth/challenge HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'));
  assert.equal(badLength.status, 400);
  assert.equal(badLength.body.code, 'invalid_request');
  const huge = parseRaw(await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
  assert.equal(huge.status, 431);
  assert.equal(huge.body.code, 'invalid_request');
});

test('a body nested 10,000 deep (objects, arrays, inside one field) is 400 invalid_request, never a 500', async () => {
  const n = 10_000;
  const bodies: Array<[string, string]> = [
    ['arrays', `${'['.repeat(n)}${']'.repeat(n)}`],
    ['objects', `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`],
    ['inside one field', `{"address":"${seller}","x":${'['.repeat(n)}${']'.repeat(n)}}`],
    // a string full of brackets is not nesting: only structure counts
    ['brackets in a string, then deep', `{"s":"${'['.repeat(100)}\\"","x":${'{"a":'.repeat(65)}1${'}'.repeat(65)}}`],
  ];
  for (const url of ['/v1/auth/challenge', '/v1/auth/verify', '/v1/checkout/quotes', '/v1/listing-preflights', '/v1/offers']) {
    for (const [what, payload] of bodies) {
      const r = await t.app.inject({ method: 'POST', url, payload, headers: { ...auth(), 'content-type': 'application/json' } });
      assertEnvelope(r, 400, 'invalid_request', `${url} ${what}`);
      assert.equal(json(r).field, 'body', `${url} ${what}`);
    }
  }
  // 64 levels still parse (and then meet the schema like any other body).
  const ok = await t.app.inject({ method: 'POST', url: '/v1/auth/challenge', payload: `{"address":"${seller}","x":${'['.repeat(63)}${']'.repeat(63)}}`, headers: { 'content-type': 'application/json' } });
  assertEnvelope(ok, 400, 'invalid_request', 'an unknown field at depth 64');
  assert.equal(json(ok).field, 'body.x');
});

test('Expect: bogus and a request without Host get the envelope, not Node\'s bare answer', async () => {
  const expect = parseRaw(await raw('GET /v1/fee-rate HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\n\r\n'));
  assert.equal(expect.status, 417);
  assert.equal(expect.body.code, 'invalid_request');
  assert.equal(expect.body.field, 'headers.expect');
  const noHost = parseRaw(await raw('GET /v1/fee-rate HTTP/1.1\r\nConnection: close\r\n\r\n'));
  assert.equal(noHost.status, 400);
  assert.equal(noHost.body.code, 'invalid_request');
  assert.equal(noHost.body.field, 'headers.host');
  const post = parseRaw(await raw(`POST /v1/auth/challenge HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`));
  assert.equal(post.status, 400);
  assert.equal(post.body.code, 'invalid_request');
  // HTTP/1.0 has no Host requirement, and a request with Host is served as before.
  const h10 = await raw('GET /healthz HTTP/1.0\r\n\r\n');
  assert.match(h10, /^HTTP\/1\.1 200/);
});

test('the public stream refuses unknown parameters and invalid filters with 400 before opening', async () => {
  for (const q of ['foo=1', 'collection=-1', 'collection=a--b', 'collection=a&collection=b', 'kind=sales&kind=offers', 'after=9007199254740993', 'asset=A9007199254740993', 'asset=A99999999999999999999', 'kind=nope']) {
    const r = await t.app.inject({ method: 'GET', url: `/v1/stream/events?${q}`, remoteAddress: '10.9.9.9' });
    assertEnvelope(r, 400, 'invalid_request', `stream ?${q}`);
  }
  const own = await t.app.inject({ method: 'GET', url: `/v1/address/${seller}/stream?kind=sales`, headers: auth() });
  assertEnvelope(own, 400, 'invalid_request', 'owner stream with a filter it has not');
});
