import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUCKET_CLASSES, LIMITS, bucketsFor } from '../../src/limits/classes.js';
import { ipBucketId } from '../../src/limits/ip-key.js';

void describe('bucketsFor', () => {
  const route = 'POST /v1/listings/:id/reprice';

  void it('the table carries the spec numbers', () => {
    const numbers = Object.fromEntries(BUCKET_CLASSES.map((c) => [c, [LIMITS[c].principalLimit, LIMITS[c].ipCeiling]]));
    assert.deepEqual(numbers, {
      expensive_write: [20, 120],
      signed_completion: [120, 600],
      sign_in: [60, null],
      uncached_read: [300, 1_800],
      recovery_read: [300, 1_800],
      account_maintenance: [120, 600],
      artist_edit: [6, 30],
    });
    assert.deepEqual(BUCKET_CLASSES.filter((c) => LIMITS[c].failOpen), ['signed_completion']);
    assert.equal(new Set(BUCKET_CLASSES.map((c) => LIMITS[c].tag)).size, BUCKET_CLASSES.length);
  });

  void it('a session counts per route and address, under a per-route IP ceiling', () => {
    assert.deepEqual(bucketsFor('expensive_write', { route, address: 'bc1qabc', ip: '1.2.3.4' }), [
      { key: 'ew|POST /v1/listings/:id/reprice|addr|bc1qabc', limit: 20 },
      { key: 'ew|POST /v1/listings/:id/reprice|ip-all|1.2.3.4', limit: 120 },
    ]);
  });

  void it('anonymous: the per-IP bucket (20) and the ceiling (120) are different keys', () => {
    const [own, ceiling] = bucketsFor('expensive_write', { route, address: null, ip: '1.2.3.4' });
    assert.deepEqual(own, { key: 'ew|POST /v1/listings/:id/reprice|ip|1.2.3.4', limit: 20 });
    assert.deepEqual(ceiling, { key: 'ew|POST /v1/listings/:id/reprice|ip-all|1.2.3.4', limit: 120 });
    // Anonymous and session requests from one IP meet in the ceiling only.
    assert.equal(ceiling!.key, bucketsFor('expensive_write', { route, address: 'bc1qabc', ip: '1.2.3.4' })[1]!.key);
    assert.deepEqual(bucketsFor('expensive_write', { route, address: '', ip: '1.2.3.4' }), [own, ceiling]);
  });

  void it('shared classes ignore the route; sign-in ignores the session', () => {
    const a = bucketsFor('uncached_read', { route: 'GET /v1/a', address: 'bc1qx', ip: '1.2.3.4' });
    assert.deepEqual(a, bucketsFor('uncached_read', { route: 'GET /v1/b', address: 'bc1qx', ip: '1.2.3.4' }));
    assert.deepEqual(a, [
      { key: 'read|addr|bc1qx', limit: 300 },
      { key: 'read|ip-all|1.2.3.4', limit: 1_800 },
    ]);
    const signIn = [{ key: 'signin|ip|1.2.3.4', limit: 60 }];
    assert.deepEqual(bucketsFor('sign_in', { route: 'POST /v1/auth/session', address: 'bc1qx', ip: '1.2.3.4' }), signIn);
    assert.deepEqual(bucketsFor('sign_in', { route: 'POST /v1/auth/verify', address: null, ip: '1.2.3.4' }), signIn);
  });

  void it('a route, address or IP cannot forge another bucket key', () => {
    const forged = bucketsFor('expensive_write', { route: 'POST /x|addr|victim', address: null, ip: '1.2.3.4' });
    assert.equal(forged[0]!.key, 'ew|POST /x%7Caddr%7Cvictim|ip|1.2.3.4');
    const percent = bucketsFor('artist_edit', { route: '', address: 'a%7Cb', ip: '1.2.3.4' });
    assert.equal(percent[0]!.key, 'artist|addr|a%257Cb');
  });
});

void describe('ipBucketId', () => {
  void it('IPv4 is itself, and so is IPv4 mapped into IPv6', () => {
    assert.equal(ipBucketId('203.0.113.9'), '203.0.113.9');
    assert.equal(ipBucketId('::ffff:203.0.113.9'), '203.0.113.9');
    assert.equal(ipBucketId('::ffff:cb00:7109'), '203.0.113.9');
  });

  void it('IPv6 counts as its /64, whatever the spelling', () => {
    const id = '2001:db8:1:2::/64';
    for (const ip of ['2001:db8:1:2::1', '2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:DB8:1:2:a:b:c:d', '2001:db8:1:2::1%eth0']) {
      assert.equal(ipBucketId(ip), id, ip);
    }
    assert.notEqual(ipBucketId('2001:db8:1:3::1'), id);
    assert.equal(ipBucketId('::1'), '0:0:0:0::/64');
    assert.equal(ipBucketId('fe80::1:2:3:4'), 'fe80:0:0:0::/64');
  });

  void it('anything else is used as is', () => {
    assert.equal(ipBucketId('unix-socket'), 'unix-socket');
    assert.equal(ipBucketId(''), '');
  });
});
