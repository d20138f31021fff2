import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bucketsFor, type BucketClass } from '../../src/limits/classes.js';
import type { Bucket, Limiter } from '../../src/limits/limiter.js';

/**
 * The behaviour every limiter backend must show, run by memory-limiter.test.ts
 * and redis-limiter.test.ts. `make` returns a fresh, isolated limiter (the
 * Redis one under its own random prefix); each test closes its own.
 */
export function limiterContract(label: string, make: () => Promise<Limiter>, skip: string | false = false): void {
  const test = (name: string, fn: (l: Limiter) => Promise<void>): void =>
    void it(name, { skip }, async () => {
      const limiter = await make();
      try {
        await fn(limiter);
      } finally {
        await limiter.close();
      }
    });

  void describe(`${label}: sliding window`, () => {
    test('a request counted at t is inside the window until t + 59999 and gone at t + 60000', async (l) => {
      const b = [{ key: 'k', limit: 1 }];
      assert.deepEqual(await l.consume(b, 0), { allowed: true });
      assert.deepEqual(await l.consume(b, 1), { allowed: false, retryAfterMs: 59_999, bucket: 'k' });
      assert.deepEqual(await l.consume(b, 59_999), { allowed: false, retryAfterMs: 1, bucket: 'k' });
      assert.deepEqual(await l.consume(b, 60_000), { allowed: true });
      assert.deepEqual(await l.consume(b, 60_000), { allowed: false, retryAfterMs: 60_000, bucket: 'k' });
    });

    test('equal timestamps are distinct entries and retryAfter follows the oldest counted request', async (l) => {
      const b = [{ key: 'k', limit: 3 }];
      assert.equal((await l.consume(b, 1_000)).allowed, true);
      assert.equal((await l.consume(b, 1_000)).allowed, true);
      assert.equal((await l.consume(b, 2_000)).allowed, true);
      assert.deepEqual(await l.consume(b, 2_500), { allowed: false, retryAfterMs: 58_500, bucket: 'k' });
      assert.deepEqual(await l.consume(b, 60_999), { allowed: false, retryAfterMs: 1, bucket: 'k' });
      // Both t=1000 entries leave together: two slots free at once.
      assert.equal((await l.consume(b, 61_000)).allowed, true);
      assert.equal((await l.consume(b, 61_000)).allowed, true);
      assert.deepEqual(await l.consume(b, 61_001), { allowed: false, retryAfterMs: 999, bucket: 'k' });
      assert.deepEqual(await l.consume(b, 61_999), { allowed: false, retryAfterMs: 1, bucket: 'k' });
      assert.equal((await l.consume(b, 62_000)).allowed, true);
    });

    test('refused requests never count, so the wait does not grow under hammering', async (l) => {
      const b = [{ key: 'k', limit: 2 }];
      await l.consume(b, 0);
      await l.consume(b, 10_000);
      for (let t = 10_001; t < 60_000; t += 997) assert.equal((await l.consume(b, t)).allowed, false);
      assert.equal((await l.consume(b, 60_000)).allowed, true);
      assert.deepEqual(await l.consume(b, 60_001), { allowed: false, retryAfterMs: 9_999, bucket: 'k' });
    });

    test('when several buckets refuse, retryAfter is the largest wait and names that bucket', async (l) => {
      assert.equal((await l.consume([{ key: 'a', limit: 1 }], 0)).allowed, true);
      assert.equal((await l.consume([{ key: 'b', limit: 1 }], 10_000)).allowed, true);
      const expected = { allowed: false, retryAfterMs: 50_000, bucket: 'b' };
      assert.deepEqual(await l.consume([{ key: 'a', limit: 1 }, { key: 'b', limit: 1 }], 20_000), expected);
      assert.deepEqual(await l.consume([{ key: 'b', limit: 1 }, { key: 'a', limit: 1 }], 20_000), expected);
      // After a's entry leaves, b alone still refuses, with its own wait.
      assert.deepEqual(await l.consume([{ key: 'a', limit: 1 }, { key: 'b', limit: 1 }], 60_000), {
        allowed: false,
        retryAfterMs: 10_000,
        bucket: 'b',
      });
    });

    test('no buckets: allowed; a key named twice counts once, at its strictest limit', async (l) => {
      assert.deepEqual(await l.consume([], 0), { allowed: true });
      const twice = [{ key: 'k', limit: 3 }, { key: 'k', limit: 2 }];
      assert.equal((await l.consume(twice, 0)).allowed, true);
      assert.equal((await l.consume(twice, 0)).allowed, true);
      assert.equal((await l.consume(twice, 0)).allowed, false);
      assert.equal((await l.consume([{ key: 'k', limit: 3 }], 0)).allowed, true);
    });

    test('bad input is a programming error (RangeError), not an outage', async (l) => {
      await assert.rejects(l.consume([{ key: 'k', limit: 0 }], 0), RangeError);
      await assert.rejects(l.consume([{ key: 'k', limit: 1.5 }], 0), RangeError);
      await assert.rejects(l.consume([{ key: '', limit: 1 }], 0), RangeError);
      await assert.rejects(l.consume([{ key: 'k', limit: 1 }], -1), RangeError);
    });
  });

  void describe(`${label}: absorbing counts made elsewhere (an instance's windows during an outage)`, () => {
    test('absorbed requests count without deciding, and retryAfter follows the oldest of them', async (l) => {
      await l.absorb!([{ key: 'k', limit: 3, at: [1_000, 1_000, 2_000] }], 2_500);
      assert.deepEqual(await l.consume([{ key: 'k', limit: 3 }], 2_500), { allowed: false, retryAfterMs: 58_500, bucket: 'k' });
      assert.equal((await l.consume([{ key: 'k', limit: 3 }], 61_000)).allowed, true);
      assert.equal((await l.consume([{ key: 'k', limit: 3 }], 61_000)).allowed, true);
      assert.equal((await l.consume([{ key: 'k', limit: 3 }], 61_000)).allowed, false);
    });

    test('absorbing keeps the window and the newest limit entries, beside what the backend counted itself', async (l) => {
      assert.equal((await l.consume([{ key: 'k', limit: 2 }], 64_000)).allowed, true);
      // 0 has left the window at 65000; of 10000, 20000, 30000 and the own 64000, the newest 2 stay.
      await l.absorb!([{ key: 'k', limit: 2, at: [0, 10_000, 20_000, 30_000] }, { key: 'other', limit: 1, at: [] }], 65_000);
      assert.deepEqual(await l.consume([{ key: 'k', limit: 2 }], 65_000), { allowed: false, retryAfterMs: 25_000, bucket: 'k' });
      assert.equal((await l.consume([{ key: 'k', limit: 2 }], 90_000)).allowed, true, '30000 left at 90000');
      assert.equal((await l.consume([{ key: 'other', limit: 1 }], 65_000)).allowed, true, 'an empty entry counts nothing');
    });
  });

  void describe(`${label}: all or nothing`, () => {
    const route = 'POST /v1/listing-preflights';
    const ew = (address: string | null, ip: string) => bucketsFor('expensive_write', { route, address, ip });

    test('a refusal by the per-IP ceiling does not consume the address bucket', async (l) => {
      // Six sessions fill the ceiling of 120 from one IP.
      for (let a = 0; a < 6; a++) assert.equal(await countAllowed(l, ew(`addr${a}`, '10.0.0.1'), 20, 0), 20);
      const refused = await l.consume(ew('late', '10.0.0.1'), 0);
      assert.deepEqual(refused, { allowed: false, retryAfterMs: 60_000, bucket: ew('late', '10.0.0.1')[1]!.key });
      for (let i = 0; i < 30; i++) assert.equal((await l.consume(ew('late', '10.0.0.1'), 0)).allowed, false);
      // From another IP, the refused address still has its whole budget.
      assert.equal(await countAllowed(l, ew('late', '10.0.0.2'), 25, 0), 20);
    });

    test('a refusal by the address bucket does not consume the per-IP ceiling', async (l) => {
      assert.equal(await countAllowed(l, ew('busy', '10.0.0.1'), 120, 0), 20); // 100 refused by the address bucket
      let others = 0;
      for (let a = 0; a < 10; a++) others += await countAllowed(l, ew(`other${a}`, '10.0.0.1'), 20, 0);
      assert.equal(others, 100); // 20 + 100 = the ceiling of 120
    });
  });

  void describe(`${label}: classes`, () => {
    test('expensive writes: many sessions behind one IP stop at the ceiling of 120; other IPs are unaffected', async (l) => {
      const route = 'POST /v1/offers';
      let allowed = 0;
      let refusal;
      for (let a = 0; a < 200; a++) {
        const r = await l.consume(bucketsFor('expensive_write', { route, address: `s${a}`, ip: '10.1.0.1' }), 5_000);
        if (r.allowed) allowed++;
        else refusal ??= r;
      }
      assert.equal(allowed, 120);
      assert.deepEqual(refusal, { allowed: false, retryAfterMs: 60_000, bucket: `ew|${route}|ip-all|10.1.0.1` });
      assert.equal((await l.consume(bucketsFor('expensive_write', { route, address: 's0', ip: '10.1.0.2' }), 5_000)).allowed, true);
    });

    test('expensive writes: an anonymous IP stops at 20, while sessions from that IP go on to the ceiling', async (l) => {
      const route = 'POST /v1/offers';
      const anon = bucketsFor('expensive_write', { route, address: null, ip: '10.2.0.1' });
      assert.equal(await countAllowed(l, anon, 30, 0), 20);
      assert.deepEqual(await l.consume(anon, 1_000), { allowed: false, retryAfterMs: 59_000, bucket: `ew|${route}|ip|10.2.0.1` });
      let sessions = 0;
      for (let a = 0; a < 6; a++) sessions += await countAllowed(l, bucketsFor('expensive_write', { route, address: `s${a}`, ip: '10.2.0.1' }), 20, 0);
      assert.equal(sessions, 100); // anonymous requests count toward the IP's ceiling too
    });

    test('expensive writes: each route has its own budget', async (l) => {
      const a = bucketsFor('expensive_write', { route: 'POST /v1/offers', address: 'bc1qx', ip: '10.3.0.1' });
      const b = bucketsFor('expensive_write', { route: 'POST /v1/funded-offers', address: 'bc1qx', ip: '10.3.0.1' });
      assert.equal(await countAllowed(l, a, 25, 0), 20);
      assert.equal(await countAllowed(l, b, 25, 0), 20);
    });

    test('uncached reads: one budget of 300 across all routes and filters; recovery reads are separate', async (l) => {
      const read = (route: string) => bucketsFor('uncached_read', { route, address: 'bc1qreader', ip: '10.4.0.1' });
      let allowed = 0;
      for (let i = 0; i < 300; i++) if ((await l.consume(read(`GET /v1/route-${i % 7}?page=${i}`), 0)).allowed) allowed++;
      assert.equal(allowed, 300);
      assert.equal((await l.consume(read('GET /v1/never-used-before'), 0)).allowed, false);
      const recovery = bucketsFor('recovery_read', { route: 'GET /v1/listing-preflights/:id', address: 'bc1qreader', ip: '10.4.0.1' });
      assert.equal(await countAllowed(l, recovery, 301, 0), 300);
    });

    test('uncached reads: the per-IP ceiling of 1,800 holds across sessions', async (l) => {
      let allowed = 0;
      for (let a = 0; a < 7; a++) {
        allowed += await countAllowed(l, bucketsFor('uncached_read', { route: 'GET /v1/x', address: `r${a}`, ip: '10.5.0.1' }), 300, 0);
      }
      assert.equal(allowed, 1_800);
    });

    test('sign-in: 60 per IP across /v1/auth/*, with or without a session', async (l) => {
      const routes = ['POST /v1/auth/challenge', 'POST /v1/auth/verify', 'POST /v1/auth/session'];
      let allowed = 0;
      for (let i = 0; i < 70; i++) {
        const address = i % 2 === 0 ? null : `bc1q${i}`;
        if ((await l.consume(bucketsFor('sign_in', { route: routes[i % 3]!, address, ip: '10.6.0.1' }), 0)).allowed) allowed++;
      }
      assert.equal(allowed, 60);
    });

    test('artist edits: 6 per address and 30 per IP, shared by edit and check', async (l) => {
      const edit = (address: string) => bucketsFor('artist_edit', { route: 'PUT /v1/artists/:key', address, ip: '10.7.0.1' });
      const check = (address: string) => bucketsFor('artist_edit', { route: 'POST /v1/artists/:key/check', address, ip: '10.7.0.1' });
      assert.equal(await countAllowed(l, edit('bc1qart'), 3, 0) + (await countAllowed(l, check('bc1qart'), 5, 0)), 6);
      let others = 0;
      for (let a = 0; a < 10; a++) others += await countAllowed(l, edit(`bc1qo${a}`), 6, 0);
      assert.equal(others, 24);
    });

    test('classes never share a budget', async (l) => {
      const classes: BucketClass[] = ['expensive_write', 'signed_completion', 'sign_in', 'uncached_read', 'recovery_read', 'account_maintenance', 'artist_edit'];
      const subject = { route: 'POST /v1/same', address: 'bc1qsame', ip: '10.8.0.1' };
      for (const cls of classes) assert.equal(await countAllowed(l, bucketsFor(cls, subject), 6, 0), 6, cls);
    });
  });

  void describe(`${label}: concurrency`, () => {
    test('50 concurrent requests at a limit of 20: exactly 20 allowed', async (l) => {
      const results = await Promise.all(Array.from({ length: 50 }, () => l.consume([{ key: 'hot', limit: 20 }], 1_000)));
      assert.equal(results.filter((r) => r.allowed).length, 20);
    });

    test('concurrent sessions behind one IP: exactly the ceiling is allowed, and no address goes past 20', async (l) => {
      const route = 'POST /v1/attach-templates';
      const calls = Array.from({ length: 300 }, (_, i) => bucketsFor('expensive_write', { route, address: `c${i % 10}`, ip: '10.9.0.1' }));
      const results = await Promise.all(calls.map((b) => l.consume(b, 1_000)));
      assert.equal(results.filter((r) => r.allowed).length, 120);
      const perAddress = new Map<number, number>();
      results.forEach((r, i) => r.allowed && perAddress.set(i % 10, (perAddress.get(i % 10) ?? 0) + 1));
      for (const n of perAddress.values()) assert.ok(n <= 20);
    });
  });
}

/** Sends `n` requests in sequence at `nowMs`; returns how many were allowed. */
export async function countAllowed(l: Limiter, buckets: Bucket[], n: number, nowMs: number): Promise<number> {
  let allowed = 0;
  for (let i = 0; i < n; i++) if ((await l.consume(buckets, nowMs)).allowed) allowed++;
  return allowed;
}
