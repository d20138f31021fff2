/**
 * The request log never carries a credential put in a query string: the values of
 * credential-looking parameters are replaced, in Fastify's request lines and in the front
 * door's sampled hit lines, while the path and the other parameters stay.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { testApp, type TestApp } from '../helpers/app.js';
import { tableChain } from '../helpers/chain.js';
import { createLogger } from '../../src/bootstrap.js';
import { redactUrl } from '../../src/http/log-redaction.js';

const fake = tableChain({ fees: { fastest: 25, half_hour: 12, hour: 8, economy: 2, minimum: 1 }, xcpFee: '50000000' });
const lines: string[] = [];
let t: TestApp;
before(async () => {
  const logger = createLogger({ LOG_LEVEL: 'info' }, { write: (s: string) => void lines.push(s) });
  t = await testApp({ chain: { chain: fake.chain }, logger, env: { CACHE_HIT_LOG_EVERY: '1' } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => t.close());

const SECRETS = ['s3cr3t-session', 's3cr3t-token', 's3cr3t-key', 's3cr3t-pass', 's3cr3t-auth'];
const QUERY = `x-session-token=${SECRETS[0]}&token=${SECRETS[1]}&limit=5&api_key=${SECRETS[2]}&Password=${SECRETS[3]}&access%5Ftoken=${SECRETS[4]}`;

test('credential-looking query values never reach the request log (Fastify lines and the front door\'s hit lines)', async () => {
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  lines.length = 0;
  for (let i = 0; i < 3; i++) {
    const r = await fetch(`${base}/v1/fee-rate?${QUERY}`);
    assert.equal(r.status, 200);
    await r.text();
  }
  const r = await t.app.inject({ method: 'GET', url: `/v1/no-such-route?${QUERY}` });
  assert.equal(r.statusCode, 404);
  const log = lines.join('');
  assert.match(log, /"msg":"incoming request"/);
  assert.match(log, /"cache":"hit"/, 'the door logged a sampled hit');
  assert.match(log, /\/v1\/fee-rate\?x-session-token=\[redacted\]&token=\[redacted\]&limit=5&api_key=\[redacted\]/);
  for (const s of SECRETS) assert.ok(!log.includes(s), `${s} reached the log`);
});

test('redactUrl keeps paths and ordinary parameters as sent', () => {
  assert.equal(redactUrl('/v1/listings?asset=PEPE&cursor=abc&limit=2'), '/v1/listings?asset=PEPE&cursor=abc&limit=2');
  assert.equal(redactUrl('/v1/x?session=a&token&sig%=b'), '/v1/x?session=[redacted]&token&sig%=b');
  assert.equal(redactUrl('/v1/x'), '/v1/x');
});
