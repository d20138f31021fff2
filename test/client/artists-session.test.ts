/**
 * Artist profiles and the connect-time session through the client, against the real app on the
 * devnet with real keys:
 * - the issuer of a credited asset reads the profile and its assets, is told it may edit, edits,
 *   and the public read shows the edit; an edit of a stale version is 409 `state_changed` and
 *   changes nothing; a stranger is told it may not and its edit is refused;
 * - a browser wallet's connect-time proof opens a session the client then uses for owner reads;
 *   the same proof again, or one signed by another key, is refused 401 `signature_invalid`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MarketClient, MarketError, type FetchLike } from '../../client/src/index.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { signInMessage } from '../../src/modules/auth/message.js';
import { openMarket, type Market } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';
import { appFetch, clientFor, noSleep, wallet } from './harness.js';
import { routeCoverage } from './coverage.js';

void describe('client: artist profiles and the connect-time session', () => {
  let m: Market;
  before(async () => {
    m = await openMarket({ AUTH_ALLOWED_ORIGINS: 'https://market.example', AUTH_DOMAIN: 'market.example' });
  });
  after(async () => m?.close());

  void it('the issuer edits its artist profile; a stale version is 409 and changes nothing; a stranger is refused', async () => {
    const artist = makeWallet('p2wpkh', 'client-artist-issuer');
    const stranger = makeWallet('p2wpkh', 'client-artist-stranger');
    const asset = await m.issue(artist);
    await importCatalog(m.ctx.store.db, {
      collections: [{ slug: 'cartists', name: 'Client artists' }],
      artists: [{ name: 'Client Painter', bio: 'From the catalogue.' }],
      assets: [{ asset, collection: 'cartists', artist: 'Client Painter' }],
    });
    const c = await clientFor(m, artist, { sign: 0 });
    const key = 'client-painter';
    const profile = await c.artists.get(key);
    assert.deepEqual([profile.bio, profile.version], ['From the catalogue.', 1]);
    const credited = [];
    for await (const a of c.artists.assets(key)) credited.push(a.asset);
    assert.deepEqual(credited, [asset]);

    const check = await c.artists.eligibility(key);
    assert.deepEqual([check.eligible, check.grounds, check.issued_assets, check.version], [true, ['issuer'], [asset], 1]);
    const edited = await c.artists.edit(key, { version: 1, bio: 'Edited by the client.', website: 'https://painter.example' });
    assert.deepEqual([edited.version, edited.changed], [2, ['bio', 'website']]);
    m.clock.advance(31_000); // the public read is cached for 30 s
    const read = await c.artists.get(key);
    assert.deepEqual([read.bio, read.website, read.version], ['Edited by the client.', 'https://painter.example/', 2]);

    // Another edit still naming version 1 lost the race: 409 with nothing changed.
    const stale = await c.artists.edit(key, { version: 1, bio: 'A stale overwrite' }).then(() => null, (e: unknown) => e);
    assert.ok(stale instanceof MarketError && stale.status === 409 && stale.code === 'state_changed', String(stale));
    m.clock.advance(31_000);
    assert.equal((await c.artists.get(key)).bio, 'Edited by the client.');

    // A stranger: told it may not, and its edit refused without a change.
    const s = await clientFor(m, stranger, { sign: 0 });
    const no = await s.artists.eligibility(key);
    assert.deepEqual([no.eligible, no.reason, no.editable_fields], [false, 'not_issuer', []]);
    const refused = await s.artists.edit(key, { version: 2, bio: 'Defaced' }).then(() => null, (e: unknown) => e);
    assert.ok(refused instanceof MarketError && refused.status === 403 && refused.code === 'forbidden', String(refused));
    m.clock.advance(31_000);
    assert.deepEqual([(await c.artists.get(key)).bio, (await c.artists.get(key)).version], ['Edited by the client.', 2]);
  });

  void it('a connect-time proof opens a session once; replayed or signed by another key it is refused', async () => {
    const w = makeWallet('p2tr', 'client-connect');
    const now = Math.floor(m.clock.now() / 1000);
    const message = signInMessage({ domain: 'market.example', address: w.address, uri: 'https://market.example/connect', nonce: 'client-connect-1', issuedAt: now - 30, expiresAt: now + 570 });
    const calls = { sign: 0 };
    const sent: string[] = [];
    const counted: FetchLike = (url, init) => (sent.push(`${init.method} ${new URL(url).pathname}`), appFetch(m)(url, init));
    const c = new MarketClient({ baseUrl: 'http://market.test', fetch: counted, network: 'regtest', ...noSleep });
    const token = await c.connect(wallet(w, calls), message);
    assert.match(token, /^\S{20,}$/);
    // The session is the wallet's: an owner read of its own address answers.
    assert.deepEqual((await c.http.call('GET /v1/address/{address}/webhooks', { params: { address: w.address } })).result, []);

    const replay = new MarketClient({ baseUrl: 'http://market.test', fetch: appFetch(m), network: 'regtest', ...noSleep });
    await assert.rejects(replay.connect(wallet(w, calls), message), (e) => e instanceof MarketError && e.status === 401 && e.code === 'signature_invalid');
    // Refused, the client holds no session: it did not sign in behind the refusal by another path.
    await assert.rejects(replay.http.call('GET /v1/address/{address}/webhooks', { params: { address: w.address } }), (e) => e instanceof MarketError && e.status === 401);
    // A signed-in client whose new proof is refused is told so: no sign-in by the challenge behind the refusal.
    sent.length = 0;
    await assert.rejects(c.connect(wallet(w, calls), message), (e) => e instanceof MarketError && e.status === 401 && e.code === 'signature_invalid');
    assert.deepEqual(sent, ['POST /v1/auth/session']);
    const mallory = makeWallet('p2tr', 'client-connect-mallory');
    const forged = signInMessage({ domain: 'market.example', address: w.address, uri: 'https://market.example/connect', nonce: 'client-connect-2', issuedAt: now - 10, expiresAt: now + 590 });
    await assert.rejects(replay.connect({ ...wallet(mallory, calls), address: w.address }, forged), (e) => e instanceof MarketError && e.status === 401 && e.code === 'signature_invalid');
  });
});

routeCoverage(import.meta.url);
