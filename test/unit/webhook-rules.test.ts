/**
 * The webhook pieces that need no store: Standard Webhooks signatures (the published vector, and
 * the reference verifier `standardwebhooks` accepting ours, rotation's two signatures included),
 * the retry policy, Retry-After, and which URLs and addresses a webhook may reach.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { VECTORS_DIR } from '../helpers/fixtures.js';
import { newSecret, sign, webhookHeaders } from '../../src/modules/webhooks/signing.js';
import { DEFAULT_SCHEDULE_MS, MAX_DELAY_MS, failingTooLong, parseRetryAfter, retryDelayMs } from '../../src/modules/webhooks/retry-policy.js';
import { checkWebhookUrl, forbiddenRange, UrlRefused } from '../../src/modules/webhooks/url-rules.js';

const vectors = JSON.parse(fs.readFileSync(path.join(VECTORS_DIR, 'standard-webhooks.json'), 'utf8')) as {
  sign: Array<{ secret: string; id: string; timestamp: number; payload: string; signature: string }>;
  foreign_signature: string;
};

void describe('signatures', () => {
  void it("match Standard Webhooks' published vector", () => {
    for (const v of vectors.sign) assert.equal(sign(v.secret, v.id, v.timestamp, v.payload), v.signature);
  });

  void it('verify with the reference library, with either secret during a rotation, and not when tampered', () => {
    const [oldSecret, newer] = [newSecret(), newSecret()];
    assert.match(newer, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = '{"type":"sale_confirmed","data":{"event_id":"ev_1"}}';
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders([newer, oldSecret], 'ev_0123', now, body);
    assert.equal(headers['webhook-signature']!.split(' ').length, 2);
    for (const s of [newer, oldSecret]) assert.deepEqual(new Webhook(s).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(newSecret()).verify(body, headers), /No matching signature/);
    assert.throws(() => new Webhook(newer).verify(body.replace('ev_1', 'ev_2'), headers), /No matching signature/);
    assert.throws(() => new Webhook(newer).verify(body, { ...headers, 'webhook-id': 'ev_other' }), /No matching signature/);
    // A foreign v1 signature beside ours does not hurt; a stale timestamp is refused by the receiver.
    assert.ok(new Webhook(newer).verify(body, { ...headers, 'webhook-signature': `${vectors.foreign_signature} ${headers['webhook-signature']}` }));
    const stale = webhookHeaders([newer], 'ev_0123', now - 3600, body);
    assert.throws(() => new Webhook(newer).verify(body, stale), /too old/);
  });
});

void describe('retry policy', () => {
  const fixed = (r: number) => ({ scheduleMs: DEFAULT_SCHEDULE_MS, jitter: 0.2, random: () => r });

  void it('follows the schedule, repeats its last step, and jitters within ±20 %', () => {
    assert.equal(retryDelayMs(fixed(0.5), 1, null), 5_000);
    assert.equal(retryDelayMs(fixed(0.5), 2, null), 300_000);
    assert.equal(retryDelayMs(fixed(0.5), 9, null), 24 * 3600_000);
    assert.equal(retryDelayMs(fixed(0.5), 40, null), 24 * 3600_000);
    assert.equal(retryDelayMs(fixed(0), 1, null), 4_000);
    assert.equal(retryDelayMs(fixed(0.999999), 1, null), 6_000);
  });

  void it('waits at least a Retry-After, capped at 24 h', () => {
    assert.equal(retryDelayMs(fixed(0.5), 1, 60_000), 60_000);
    assert.equal(retryDelayMs(fixed(0.5), 2, 1_000), 300_000);
    assert.equal(retryDelayMs(fixed(0.5), 1, 10 * 24 * 3600_000), MAX_DELAY_MS);
  });

  void it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.UTC(2026, 10, 25, 12, 0, 0);
    assert.equal(parseRetryAfter('7', now), 7_000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter(new Date(now + 90_000).toUTCString(), now), 90_000);
    assert.equal(parseRetryAfter(new Date(now - 90_000).toUTCString(), now), null);
    for (const junk of [undefined, '', '-5', '1.5', 'soon']) assert.equal(parseRetryAfter(junk, now), null, String(junk));
  });

  void it('disables after the configured run of failures, not before', () => {
    const h = 3600_000;
    assert.equal(failingTooLong(null, 100 * h, 72 * h), false);
    assert.equal(failingTooLong(0, 72 * h - 1, 72 * h), false);
    assert.equal(failingTooLong(0, 72 * h, 72 * h), true);
  });
});

void describe('URL rules', () => {
  const prod = { allowHttp: false, allowLoopback: false };
  const devnet = { allowHttp: true, allowLoopback: true };

  void it('allows public unicast only; loopback only on the devnet', () => {
    const refused: Record<string, string> = {
      '127.0.0.1': 'loopback',
      '::1': 'loopback',
      '10.1.2.3': 'private',
      '172.16.0.1': 'private',
      '192.168.1.1': 'private',
      '169.254.169.254': 'linkLocal',
      'fe80::1': 'linkLocal',
      'fd00::1': 'uniqueLocal',
      '100.64.0.1': 'carrierGradeNat',
      '0.0.0.0': 'unspecified',
      '::': 'unspecified',
      '::ffff:10.0.0.1': 'private',
      '::ffff:127.0.0.1': 'loopback',
      '224.0.0.1': 'multicast',
      '255.255.255.255': 'broadcast',
    };
    for (const [ip, range] of Object.entries(refused)) assert.equal(forbiddenRange(ip, prod), range, ip);
    for (const ip of ['93.184.216.34', '2606:4700:4700::1111', '8.8.8.8']) assert.equal(forbiddenRange(ip, prod), null, ip);
    assert.equal(forbiddenRange('127.0.0.1', devnet), null);
    assert.equal(forbiddenRange('::1', devnet), null);
    assert.equal(forbiddenRange('10.1.2.3', devnet), 'private');
  });

  void it('refuses schemes, credentials and private hosts with a reason', async () => {
    const reason = async (url: string, rules = prod) => {
      try {
        await checkWebhookUrl(url, rules, 1_000);
        return 'accepted';
      } catch (e) {
        assert.ok(e instanceof UrlRefused, String(e));
        return e.reason;
      }
    };
    assert.equal(await reason('http://93.184.216.34/hook'), 'scheme');
    assert.equal(await reason('ftp://93.184.216.34/hook', devnet), 'scheme');
    assert.equal(await reason('https://user:pw@93.184.216.34/hook'), 'credentials');
    assert.equal(await reason('not a url'), 'invalid_url');
    assert.equal(await reason('https://10.0.0.5/hook'), 'forbidden_address');
    assert.equal(await reason('https://[fd12::1]/hook'), 'forbidden_address');
    assert.equal(await reason('https://localhost:8443/hook'), 'forbidden_address');
    assert.equal(await reason('https://no-such-host.invalid/hook'), 'unresolvable');
    assert.equal(await reason('https://93.184.216.34/hook'), 'accepted');
    assert.equal(await reason('http://127.0.0.1:9999/hook', devnet), 'accepted');
    assert.equal(await reason('http://10.0.0.5/hook', devnet), 'forbidden_address');
  });
});
