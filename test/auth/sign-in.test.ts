import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { unreachableChain } from '../helpers/chain.js';
import { makeWallet, signMessageBip322, type TestWallet } from '../helpers/wallets.js';
import { requireOwner, requireSession } from '../../src/modules/auth/guard.js';
import { signInMessage } from '../../src/modules/auth/message.js';
import { sessionSecurity } from '../../src/http/security.js';

let t: TestApp;
before(async () => {
  t = await testApp({
    chain: unreachableChain(),
    env: { AUTH_ALLOWED_ORIGINS: 'https://market.example', AUTH_DOMAIN: 'market.example' },
    beforeReady: (app) => {
      app.get('/v1/__test/me', { schema: { security: sessionSecurity } }, async (req) => ({ result: { address: requireSession(req) } }));
      app.get('/v1/__test/undeclared', async (req) => ({ result: { address: requireSession(req) } }));
      app.get('/v1/__test/address/:address/feed', { schema: { security: sessionSecurity } }, async (req) => ({ result: { address: requireOwner(req, (req.params as { address: string }).address) } }));
    },
  });
});
after(async () => t.close());

const json = (r: { body: string }) => JSON.parse(r.body) as Record<string, any>;
let ipCounter = 0;
/** Each test signs in from its own IP so the 60/min sign-in budget of one test never leaks into another. */
const freshIp = () => `10.9.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

async function challenge(w: TestWallet, ip: string) {
  const r = await t.app.inject({ method: 'POST', url: '/v1/auth/challenge', payload: { address: w.address }, remoteAddress: ip });
  assert.equal(r.statusCode, 200, r.body);
  return json(r).result as { message: string; issued_at: number; expires_at: number };
}

async function signIn(w: TestWallet, ip = freshIp()): Promise<string> {
  const c = await challenge(w, ip);
  const r = await t.app.inject({ method: 'POST', url: '/v1/auth/verify', payload: { address: w.address, issued_at: c.issued_at, signature: signMessageBip322(w, c.message) }, remoteAddress: ip });
  assert.equal(r.statusCode, 200, r.body);
  return json(r).result.token as string;
}

for (const family of ['p2wpkh', 'p2tr', 'p2pkh'] as const) {
  test(`${family} wallet signed by an independent implementation signs in`, async () => {
    const w = makeWallet(family, 'signin');
    const ip = freshIp();
    const c = await challenge(w, ip);
    assert.match(c.message, new RegExp(`^market\\.example wants you to sign in with your Bitcoin account:\\n${w.address}\\n`));
    assert.equal(c.expires_at - c.issued_at, 600);
    const r = await t.app.inject({ method: 'POST', url: '/v1/auth/verify', payload: { address: w.address, issued_at: c.issued_at, signature: signMessageBip322(w, c.message) }, remoteAddress: ip });
    assert.equal(r.statusCode, 200, r.body);
    const s = json(r).result;
    assert.equal(s.address, w.address);
    assert.equal(s.expires_at, Math.floor(t.clock.now() / 1000) + 86400);
    const me = await t.app.inject({ method: 'GET', url: '/v1/__test/me', headers: { 'x-session-token': s.token } });
    assert.equal(json(me).result.address, w.address);
  });
}

test('a wrong key, a changed message, a reused or an expired challenge: 401 signature_invalid', async () => {
  const w = makeWallet('p2wpkh', 'victim');
  const thief = makeWallet('p2wpkh', 'thief');
  const ip = freshIp();
  const verify = (payload: object) => t.app.inject({ method: 'POST', url: '/v1/auth/verify', payload, remoteAddress: ip });

  const c = await challenge(w, ip);
  const wrongKey = await verify({ address: w.address, issued_at: c.issued_at, signature: signMessageBip322(thief, c.message) });
  assert.equal(wrongKey.statusCode, 401);
  assert.equal(json(wrongKey).code, 'signature_invalid');
  const changed = await verify({ address: w.address, issued_at: c.issued_at, signature: signMessageBip322(w, c.message.replace('sign in', 'sign-in')) });
  assert.equal(json(changed).code, 'signature_invalid');
  const noSuch = await verify({ address: w.address, issued_at: c.issued_at - 5, signature: signMessageBip322(w, c.message) });
  assert.equal(json(noSuch).code, 'signature_invalid');

  const ok = await verify({ address: w.address, issued_at: c.issued_at, signature: signMessageBip322(w, c.message) });
  assert.equal(ok.statusCode, 200, 'failed attempts do not burn the challenge');
  const reused = await verify({ address: w.address, issued_at: c.issued_at, signature: signMessageBip322(w, c.message) });
  assert.equal(reused.statusCode, 401);
  assert.equal(json(reused).code, 'signature_invalid');

  t.clock.advance(1000);
  const c2 = await challenge(w, ip);
  t.clock.advance(600_000);
  const late = await verify({ address: w.address, issued_at: c2.issued_at, signature: signMessageBip322(w, c2.message) });
  assert.equal(late.statusCode, 401);
  assert.equal(json(late).code, 'signature_invalid');
});

test('two verifies of one challenge at once: exactly one session', async () => {
  const w = makeWallet('p2tr', 'race');
  const ip = freshIp();
  const c = await challenge(w, ip);
  const sig = signMessageBip322(w, c.message);
  const rs = await Promise.all(
    Array.from({ length: 6 }, () => t.app.inject({ method: 'POST', url: '/v1/auth/verify', payload: { address: w.address, issued_at: c.issued_at, signature: sig }, remoteAddress: ip })),
  );
  assert.equal(rs.filter((r) => r.statusCode === 200).length, 1);
  assert.ok(rs.filter((r) => r.statusCode !== 200).every((r) => json(r).code === 'signature_invalid'));
});

test('bad addresses: invalid → 400 invalid_request; another network → 400', async () => {
  const ip = freshIp();
  for (const address of ['bcrt1qnotanaddressatall000000000000', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4']) {
    const r = await t.app.inject({ method: 'POST', url: '/v1/auth/challenge', payload: { address }, remoteAddress: ip });
    assert.equal(r.statusCode, 400, address);
    assert.equal(json(r).code, 'invalid_request');
  }
});

test('tokens: stored only as a hash, many per address, expire after 24 hours', async () => {
  const w = makeWallet('p2wpkh', 'tokens');
  const a = await signIn(w);
  const b = await signIn(w);
  assert.notEqual(a, b);
  const rows = await t.ctx.store.db.selectFrom('sessions').selectAll().where('address', '=', w.address).execute();
  assert.equal(rows.length, 2);
  for (const r of rows) assert.ok(r.token_hash !== a && r.token_hash !== b && /^[0-9a-f]{64}$/.test(r.token_hash));
  for (const tok of [a, b]) assert.equal((await t.app.inject({ method: 'GET', url: '/v1/__test/me', headers: { 'x-session-token': tok } })).statusCode, 200);
  t.clock.advance(86_400_000);
  const expired = await t.app.inject({ method: 'GET', url: '/v1/__test/me', headers: { 'x-session-token': a } });
  assert.equal(expired.statusCode, 401);
  assert.equal(json(expired).code, 'unauthenticated');
});

test('owner guard: no session 401, another address 403, own address 200', async () => {
  const w = makeWallet('p2wpkh', 'owner');
  const other = makeWallet('p2wpkh', 'other');
  const token = await signIn(w);
  const none = await t.app.inject({ method: 'GET', url: `/v1/__test/address/${w.address}/feed` });
  assert.equal(none.statusCode, 401);
  assert.equal(json(none).code, 'unauthenticated');
  const bogus = await t.app.inject({ method: 'GET', url: `/v1/__test/address/${w.address}/feed`, headers: { 'x-session-token': 'x'.repeat(43) } });
  assert.equal(bogus.statusCode, 401);
  const foreign = await t.app.inject({ method: 'GET', url: `/v1/__test/address/${other.address}/feed`, headers: { 'x-session-token': token } });
  assert.equal(foreign.statusCode, 403);
  assert.equal(json(foreign).code, 'forbidden');
  const own = await t.app.inject({ method: 'GET', url: `/v1/__test/address/${w.address}/feed`, headers: { 'x-session-token': token } });
  assert.equal(own.statusCode, 200);
});

test('connect-time proof: fresh and bound to an allowed origin, once', async () => {
  const w = makeWallet('p2tr', 'connect');
  const ip = freshIp();
  const now = Math.floor(t.clock.now() / 1000);
  const proof = (uri: string, issuedAt: number) =>
    signInMessage({ domain: 'market.example', address: w.address, uri, nonce: `n${issuedAt}${uri.length}`, issuedAt, expiresAt: issuedAt + 600 });
  const post = (message: string, signer = w) =>
    t.app.inject({ method: 'POST', url: '/v1/auth/session', payload: { address: w.address, message, signature: signMessageBip322(signer, message), verification: { method: 'BIP-322', format: 'simple' } }, remoteAddress: ip });

  const good = proof('https://market.example/connect', now - 60);
  const ok = await post(good);
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal(json(ok).result.address, w.address);
  const replay = await post(good);
  assert.equal(json(replay).code, 'signature_invalid');
  for (const bad of [proof('https://evil.example', now), proof('https://market.example', now - 301), proof('https://market.example', now + 3600), 'hello world']) {
    const r = await post(bad);
    assert.equal(r.statusCode, 401, bad);
    assert.equal(json(r).code, 'signature_invalid');
  }
  const forged = await post(proof('https://market.example', now - 1), makeWallet('p2tr', 'mallory'));
  assert.equal(json(forged).code, 'signature_invalid');
});

test('sign-in budget: 60 per minute per IP across /v1/auth/*, then 429 with Retry-After', async () => {
  const w = makeWallet('p2wpkh', 'budget');
  const ip = freshIp();
  for (let i = 0; i < 60; i++) {
    const r = await t.app.inject({ method: 'POST', url: i % 2 ? '/v1/auth/challenge' : '/v1/auth/session', payload: i % 2 ? { address: makeWallet('p2wpkh', `budget${i}`).address } : { address: w.address, message: 'x', signature: 'AA==', verification: { method: 'BIP-322' } }, remoteAddress: ip });
    assert.notEqual(r.statusCode, 429, `request ${i}`);
  }
  const r = await t.app.inject({ method: 'POST', url: '/v1/auth/verify', payload: { address: w.address, issued_at: 1, signature: 'AA==' }, remoteAddress: ip });
  assert.equal(r.statusCode, 429);
  assert.equal(json(r).code, 'rate_limited');
  assert.ok(json(r).retry_after_seconds >= 1 && json(r).retry_after_seconds <= 60);
  assert.equal(r.headers['retry-after'], String(json(r).retry_after_seconds));
  const otherIp = await t.app.inject({ method: 'POST', url: '/v1/auth/challenge', payload: { address: w.address }, remoteAddress: freshIp() });
  assert.equal(otherIp.statusCode, 200);
});

test('a stranger cannot lock an address out: any number of challenges coexist, with or without challenge_id', async () => {
  const victim = makeWallet('p2wpkh', 'lockout');
  // The same second throughout (the manual clock stands still): the old (address, second) key had five slots.
  for (let i = 0; i < 12; i++) await challenge(victim, freshIp());
  const ip = freshIp();
  const mine = await challenge(victim, ip);
  const other = (await challenge(victim, ip)) as { message: string; issued_at: number; challenge_id?: string };
  assert.match(String(other.challenge_id), /^[A-Za-z0-9_-]{22}$/);
  const byTime = await t.app.inject({ method: 'POST', url: '/v1/auth/verify', payload: { address: victim.address, issued_at: mine.issued_at, signature: signMessageBip322(victim, mine.message) }, remoteAddress: ip });
  assert.equal(byTime.statusCode, 200, byTime.body);
  const byId = await t.app.inject({ method: 'POST', url: '/v1/auth/verify', payload: { address: victim.address, issued_at: other.issued_at, challenge_id: other.challenge_id, signature: signMessageBip322(victim, other.message) }, remoteAddress: ip });
  assert.equal(byId.statusCode, 200, byId.body);
  const wrongId = await t.app.inject({ method: 'POST', url: '/v1/auth/verify', payload: { address: victim.address, issued_at: other.issued_at, challenge_id: 'A'.repeat(22), signature: signMessageBip322(victim, other.message) }, remoteAddress: ip });
  assert.equal(json(wrongId).code, 'signature_invalid');
});

test('expired challenges are purged', async () => {
  const w = makeWallet('p2wpkh', 'purge');
  await challenge(w, freshIp());
  const count = async () => (await t.ctx.store.db.selectFrom('auth_challenges').select('id').where('address', '=', w.address).execute()).length;
  assert.equal(await count(), 1);
  const purge = t.ctx.areas.find((a) => a.name === 'auth')?.jobs?.(t.ctx).find((j) => j.name === 'auth-purge');
  assert.ok(purge, 'the auth area declares its purge job');
  await purge.run();
  assert.equal(await count(), 1, 'a live challenge stays');
  t.clock.advance(601_000);
  await purge.run();
  assert.equal(await count(), 0);
});

test('issued_at out of range (1e300, a string, Infinity): 400, never a 500', async () => {
  const w = makeWallet('p2wpkh', 'range');
  for (const issued of ['1e300', '"1e300"', '"Infinity"', '1e999', '-1']) {
    const r = await t.app.inject({ method: 'POST', url: '/v1/auth/verify', headers: { 'content-type': 'application/json' }, payload: `{"address":"${w.address}","issued_at":${issued},"signature":"AA=="}`, remoteAddress: freshIp() });
    assert.equal(r.statusCode, 400, `${issued}: ${r.body}`);
    assert.equal(json(r).code, 'invalid_request');
    assert.equal(json(r).field, 'body.issued_at');
  }
});

test('a route that reads the session without declaring security is a programming error, never a silent public route', async () => {
  const app = t.app;
  const r = await app.inject({ method: 'GET', url: '/v1/__test/undeclared' });
  assert.equal(r.statusCode, 500);
});
