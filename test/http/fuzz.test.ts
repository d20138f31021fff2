/**
 * Property-based fuzzing of every operation in the served OpenAPI document (issue 14 item 6):
 * malformed path parameters, query strings and JSON bodies (wrong types, non-finite and huge
 * numbers, control characters, long strings, invalid hex and base64, PSBTs with garbage inside,
 * addresses of other networks) must each get an answer below 500 and, when refused, the spec's
 * envelope with one of its codes. Session routes are fuzzed signed in, so requests reach the
 * validators and the handlers, not only the 401.
 *
 * Bounded for `npm test` (FUZZ_RUNS cases per operation, default 10: a few seconds); a long run:
 *   FUZZ_RUNS=500 node --import tsx --test test/http/fuzz.test.ts
 * (add TEST_BACKEND=postgres TEST_POSTGRES_URL=… for PostgreSQL). FUZZ_SEED replays a failure.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { openMarket, type Market } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';
import { EXAMPLES } from '../../src/http/openapi-examples.js';
import { ERROR_CODES } from '../../src/http/errors.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

type Schema = Record<string, any>;
type Operation = { method: string; path: string; params: Schema[]; body?: Schema; secured: boolean; example?: unknown };

let m: Market;
let token = '';
let signedAt = 0;
let ops: Operation[] = [];
let doc: { paths: Record<string, Record<string, Schema>>; components: { schemas: Record<string, Schema> } };

const deref = (s: Schema | undefined): Schema | undefined => (s?.$ref ? doc.components.schemas[String(s.$ref).split('/').pop()!] : s);

before(async () => {
  m = await openMarket();
  token = await m.signIn(makeWallet('p2wpkh', 'fuzzer'));
  signedAt = m.clock.now();
  doc = JSON.parse((await m.app.inject({ method: 'GET', url: '/v1/openapi.json' })).body) as typeof doc;
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      ops.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []) as Schema[],
        body: deref(op.requestBody?.content?.['application/json']?.schema),
        secured: Array.isArray(op.security) && op.security.length > 0,
        example: EXAMPLES[`${method.toUpperCase()} ${path}`]?.body,
      });
    }
  }
  ops = ops.filter((o) => !o.path.startsWith('/devnet/reorg')); // a reorg rewrites the fuzzer's own chain: fuzzed below by its schema only
});
after(async () => m.close());

const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');
/** Percent-encodes the UTF-8 bytes (encodeURIComponent throws on a lone surrogate; a client's bytes do not). */
const pct = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0').toUpperCase()}`)).join('');

/** Strings no sane field holds, or holds only in a narrow form. */
const hostileString = fc.oneof(
  fc.constantFrom(
    'Infinity', '-Infinity', '1e999', '-1e999', 'NaN', '-0', '0x10', '1e2', ' 5', '5 ', '+5', '', '00', '-1', '4294967296',
    '9'.repeat(40), '\u0000', 'a\u0000b', '\u0001', '\u007f', 'line\nbreak', '\ud800', '%', '../..', "' OR 1=1 --", 'null', 'true', '[]', '{}',
    // addresses of other networks and broken ones (the devnet is regtest)
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
    '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt081', 'bcrt1p' + 'q'.repeat(58),
    // base64 and hex that do not decode
    'AA=', '====', '!!!!', 'abc', 'zz', '0', 'PEPECASH', 'A1', 'A' + '9'.repeat(25), 'XCP.SUB',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer({ min: 300, max: 70_000 }).map((n) => 'x'.repeat(n)),
  fc.uint8Array({ maxLength: 120 }).map((b) => `70736274ff${toHex(b)}`), // a PSBT with garbage inside
  fc.uint8Array({ minLength: 1, maxLength: 80 }).map((b) => `${toHex(b)}0`), // odd-length hex
  fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b).toString('base64')),
);

/** A JSON number literal JSON.stringify cannot write (it would print null). */
class RawNumber {
  constructor(readonly text: string) {}
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(1e308, -1e308, 1.5, -1, 0, 2 ** 53, 2 ** 64, 4294967296, null, true, false, [], {}),
  fc.constantFrom(new RawNumber('1e999'), new RawNumber('-1e999'), new RawNumber('1e300'), new RawNumber('-0')),
  fc.double(),
  fc.array(hostileString, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), hostileString, { maxKeys: 3 }),
);

function stringify(value: unknown): string {
  if (value instanceof RawNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(stringify).join(',')}]`;
  if (value && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${stringify(v)}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** JSON nested `n` deep: bare arrays, bare objects, or arrays inside one field of `base`. */
function deep(n: number, shape: 'array' | 'object' | 'field', field: string, base: Record<string, unknown>): string {
  if (shape === 'object') return `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  const arrays = `${'['.repeat(n)}${']'.repeat(n)}`;
  if (shape === 'array') return arrays;
  const rest = stringify({ ...base, [field]: null });
  return rest.replace(`${JSON.stringify(field)}:null`, `${JSON.stringify(field)}:${arrays}`);
}

type Case = { path: Record<string, string>; query: Array<[string, string]>; body: { kind: 'none' } | { kind: 'raw'; text: string } };

function caseOf(op: Operation): fc.Arbitrary<Case> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query').map((p) => String(p.name));
  const pathArb = fc.record(
    Object.fromEntries(pathParams.map((p) => [String(p.name), fc.oneof(hostileString.map(pct), fc.constantFrom('%zz', '%', '%00', 'pf_x', 'lst_x', 'cq_x', 'rare-pepes'))])),
  ) as fc.Arbitrary<Record<string, string>>;
  const queryArb = fc.array(
    fc.tuple(queryParams.length ? fc.oneof(fc.constantFrom(...queryParams), fc.string({ maxLength: 6 })) : fc.string({ maxLength: 6 }), hostileString),
    { maxLength: 4 },
  );
  const props = Object.keys(deref(op.body)?.properties ?? {});
  const base = (op.example ?? {}) as Record<string, unknown>;
  const bodyArb: fc.Arbitrary<Case['body']> = op.method === 'GET' || op.method === 'DELETE'
    ? fc.constant({ kind: 'none' as const })
    : fc.oneof(
        // one or two fields of a plausible body made hostile
        fc.array(fc.tuple(props.length ? fc.constantFrom(...props) : fc.string({ maxLength: 6 }), hostileValue), { minLength: 1, maxLength: 2 })
          .map((edits) => ({ kind: 'raw' as const, text: stringify({ ...base, ...Object.fromEntries(edits) }) })),
        // the whole body of the wrong shape
        hostileValue.map((v) => ({ kind: 'raw' as const, text: stringify(v) })),
        fc.constantFrom('', '{', '{"a":', 'null', '[]', '"x"', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}').map((text) => ({ kind: 'raw' as const, text })),
        // nested far deeper than any schema: objects, arrays, or inside one field of a plausible body (issue 31 item 12)
        fc.tuple(fc.integer({ min: 65, max: 20_000 }), fc.constantFrom('array', 'object', 'field'), props.length ? fc.constantFrom(...props) : fc.constant('x'))
          .map(([n, shape, field]) => ({ kind: 'raw' as const, text: deep(n, shape, field, base) })),
      );
  return fc.record({ path: pathArb, query: queryArb, body: bodyArb });
}

let request = 0;
async function send(op: Operation, c: Case) {
  const url = op.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => c.path[name] ?? 'x');
  const qs = c.query.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&');
  // Past the per-route limits (20 a minute for expensive writes), so requests reach the handlers.
  m.clock.advance(3_100);
  const res = await m.app.inject({
    method: op.method as 'GET',
    url: qs ? `${url}?${qs}` : url,
    headers: {
      ...(op.secured ? { 'x-session-token': token } : {}),
      ...(c.body.kind === 'raw' ? { 'content-type': 'application/json' } : {}),
      // A stream that opens never ends through inject: an invalid Last-Event-ID makes it answer (test/events/stream.test.ts streams for real).
      ...(op.path.includes('/stream') ? { 'last-event-id': 'x' } : {}),
    },
    ...(c.body.kind === 'raw' ? { payload: c.body.text } : {}),
    remoteAddress: `10.63.${(++request >> 8) & 255}.${request & 255}`,
  });
  return { status: res.statusCode, text: res.body, url: qs ? `${url}?${qs}` : url };
}

void test('every operation of the OpenAPI document answers malformed requests with a 4xx envelope, never a 5xx', async () => {
  assert.ok(ops.length > 40, `${ops.length} operations`);
  const seen = new Map<number, number>();
  for (const op of ops) {
    await fc.assert(
      fc.asyncProperty(caseOf(op), async (c) => {
        const r = await send(op, c);
        seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
        const where = `${op.method} ${r.url.slice(0, 300)} ${c.body.kind === 'raw' ? c.body.text.slice(0, 300) : ''} -> ${r.status} ${r.text.slice(0, 300)}`;
        assert.ok(r.status < 500, where);
        if (r.status >= 400 && !op.path.startsWith('/devnet/rpc') && !op.path.startsWith('/devnet/counterparty/')) {
          const body = JSON.parse(r.text) as { code?: string; error?: unknown };
          assert.ok(ERROR_CODES.includes(body.code as never), `not a spec code: ${where}`);
          assert.equal(typeof body.error, 'string', where);
        }
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
    // Sessions last 24 hours of the manual clock; a long run signs in again.
    if (m.clock.now() - signedAt > 80_000_000) {
      token = await m.signIn(makeWallet('p2wpkh', `fuzzer${request}`));
      signedAt = m.clock.now();
    }
  }
  assert.ok([...seen.keys()].some((s) => s === 400), `statuses seen: ${JSON.stringify([...seen])}`);
});
