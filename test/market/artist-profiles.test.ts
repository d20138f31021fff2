/**
 * Artist profile edits on the devnet, through the front door: the issuer of a credited asset
 * signs in, checks, edits, sees the edit in the public read, loses a race with 409, and is
 * refused as a non-issuer and past the shared `artist_edit` limit.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openMarket, type Market } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';
import { importCatalog, type CatalogFile } from '../../src/modules/market/catalog-import.js';
import { artistEditsCommand } from '../../src/modules/market/artist-edits-cli.js';

let m: Market;
const artist = makeWallet('p2wpkh', 'artist-profile-issuer');
const stranger = makeWallet('p2wpkh', 'artist-profile-stranger');
const named = makeWallet('p2tr', 'artist-profile-named');
let frogAsset: string;
let lockedAsset: string;
let strangerAsset: string;
let catalog: CatalogFile;

let ipCounter = 0;
/** Each test calls from its own IP, so the 30-per-IP ceiling of one test never leaks into another. */
const freshIp = () => `10.61.${Math.floor(++ipCounter / 250) % 250}.${ipCounter % 250}`;

async function call(method: 'GET' | 'PATCH', url: string, token: string | null, ip: string, payload?: unknown) {
  const r = await m.app.inject({
    method,
    url,
    headers: token ? { 'x-session-token': token } : {},
    remoteAddress: ip,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  return { status: r.statusCode, body: JSON.parse(r.body) as Record<string, any>, headers: r.headers };
}

/** Past every sliding window (limits and the 30 s public cache). */
const nextMinute = () => m.clock.advance(61_000);

before(async () => {
  m = await openMarket();
  frogAsset = await m.issue(artist);
  lockedAsset = await m.issue(artist);
  strangerAsset = await m.issue(stranger);
  catalog = {
    collections: [{ slug: 'frogs', name: 'Frogs' }],
    artists: [
      { name: 'Frog Painter', bio: 'Catalogue bio.', name_editable: true },
      { name: 'Named Only', editors: [named.address] },
      { name: 'Locked Name', website: 'https://example.org/locked' },
      { name: 'Twin A', slug: 'twin' },
      { name: 'Twin B', slug: 'twin' },
    ],
    assets: [
      { asset: frogAsset, collection: 'frogs', artist: 'Frog Painter' },
      { asset: 'FROGTWO', collection: 'frogs', artist: 'Frog Painter' },
      { asset: 'NAMEDONE', collection: 'frogs', artist: 'Named Only' },
      { asset: lockedAsset, collection: 'frogs', artist: 'Locked Name' },
      { asset: strangerAsset, collection: 'frogs', artist: 'Uncurated Credit' },
    ],
  };
  await importCatalog(m.ctx.store.db, catalog);
});
after(async () => m.close());

test('the issuer of a credited asset checks, edits, and the public read shows the edit with its version', async () => {
  const ip = freshIp();
  const token = await m.signIn(artist);
  const before = await call('GET', '/v1/artists/frog-painter', null, ip);
  assert.equal(before.status, 200, JSON.stringify(before.body));
  assert.equal(before.body.result.version, 1);
  assert.equal(before.body.result.bio, 'Catalogue bio.');

  const check = await call('GET', '/v1/artists/frog-painter/profile/eligibility', token, ip);
  assert.equal(check.status, 200, JSON.stringify(check.body));
  assert.deepEqual(check.body.result, {
    key: 'frog-painter', id: before.body.result.id, address: artist.address, eligible: true, grounds: ['issuer'], reason: null,
    issued_assets: [frogAsset], credited_assets: 2, editable_fields: ['bio', 'website', 'x_url', 'name'], version: 1,
  });
  assert.equal(check.headers['cache-control'], 'no-store');

  const edit = await call('PATCH', '/v1/artists/frog-painter/profile', token, ip, {
    version: 1, bio: 'Paints frogs.\nSince 2016.', website: 'https://frogs.example', x_url: 'https://x.com/frogpainter', name: 'The Frog Painter',
  });
  assert.equal(edit.status, 200, JSON.stringify(edit.body));
  assert.deepEqual(edit.body.result, {
    key: 'frog-painter', id: before.body.result.id, name: 'The Frog Painter', bio: 'Paints frogs.\nSince 2016.', website: 'https://frogs.example/',
    x_url: 'https://x.com/frogpainter', version: 2, changed: ['bio', 'website', 'x_url', 'name'],
  });

  // The public read is cached for 30 s: within that window it shows the edit.
  m.clock.advance(30_000);
  const after = await call('GET', '/v1/artists/frog-painter', null, ip);
  assert.equal(after.body.result.version, 2);
  assert.equal(after.body.result.bio, 'Paints frogs.\nSince 2016.');
  assert.equal(after.body.result.website, 'https://frogs.example/');
  assert.equal(after.body.result.x_url, 'https://x.com/frogpainter');
  assert.equal(after.body.result.name, 'The Frog Painter');
  const list = await call('GET', '/v1/artists?q=frog', null, ip);
  assert.deepEqual(list.body.result.map((r: any) => [r.key, r.name]), [['frog-painter', 'The Frog Painter']]);

  const record = await artistEditsCommand(m.ctx, ['--artist', 'frog-painter']);
  assert.equal(record.length, 1);
  assert.equal(record[0]!.editor, artist.address);
  assert.equal(record[0]!.version, 2);
  assert.equal(record[0]!.artist_name, 'Frog Painter');
  assert.equal(record[0]!.edited_at, Math.floor((m.clock.now() - 30_000) / 1000));
  assert.deepEqual(record[0]!.grounds, { catalogue_editor: false, issued_assets: [frogAsset] });
  assert.deepEqual(record[0]!.changes.bio, { from: 'Catalogue bio.', to: 'Paints frogs.\nSince 2016.' });
  assert.deepEqual(record[0]!.changes.name, { from: null, to: 'The Frog Painter' });
  nextMinute();
});

test('two edits of the same version: one wins, the other is 409 state_changed with the current version', async () => {
  const token = await m.signIn(artist);
  const ip = freshIp();
  const { version } = (await call('GET', '/v1/artists/frog-painter/profile/eligibility', token, ip)).body.result;
  const [a, b] = await Promise.all([
    call('PATCH', '/v1/artists/frog-painter/profile', token, ip, { version, bio: 'Edit A' }),
    call('PATCH', '/v1/artists/frog-painter/profile', token, ip, { version, bio: 'Edit B' }),
  ]);
  const statuses = [a.status, b.status].sort();
  assert.deepEqual(statuses, [200, 409], JSON.stringify([a.body, b.body]));
  const [won, lost] = a.status === 200 ? [a, b] : [b, a];
  assert.equal(won.body.result.version, version + 1);
  assert.equal(lost.body.code, 'state_changed');
  assert.equal(lost.body.current_version, version + 1);

  // A stale version is refused before anything is written; the winner's bio stands.
  const stale = await call('PATCH', '/v1/artists/frog-painter/profile', token, ip, { version, bio: 'Late' });
  assert.equal(stale.status, 409);
  assert.equal(stale.body.current_version, version + 1);
  const record = await artistEditsCommand(m.ctx, ['--artist', 'frog-painter']);
  assert.equal(record.length, 2, 'only the winner is recorded');
  assert.equal(record[0]!.changes.bio!.to, won.body.result.bio);
  nextMinute();
});

test('a non-issuer is refused with the reason; a catalogue-named editor may edit; an uncurated credit has no profile', async () => {
  const ip = freshIp();
  const token = await m.signIn(stranger);
  const check = await call('GET', '/v1/artists/frog-painter/profile/eligibility', token, ip);
  assert.equal(check.status, 200);
  assert.equal(check.body.result.eligible, false);
  assert.equal(check.body.result.reason, 'not_issuer');
  assert.deepEqual(check.body.result.issued_assets, []);
  assert.deepEqual(check.body.result.editable_fields, []);
  const current = check.body.result.version;
  const edit = await call('PATCH', '/v1/artists/frog-painter/profile', token, ip, { version: current, bio: 'Hijacked' });
  assert.equal(edit.status, 403);
  assert.equal(edit.body.code, 'forbidden');
  assert.equal(edit.body.reason, 'not_issuer');

  const uncurated = `~${encodeURIComponent('Uncurated Credit')}`;
  const noProfile = await call('GET', `/v1/artists/${uncurated}/profile/eligibility`, token, ip);
  assert.equal(noProfile.status, 200);
  assert.deepEqual([noProfile.body.result.eligible, noProfile.body.result.reason, noProfile.body.result.version], [false, 'not_curated', null]);
  const noEdit = await call('PATCH', `/v1/artists/${uncurated}/profile`, token, ip, { version: 1, bio: 'x' });
  assert.deepEqual([noEdit.status, noEdit.body.reason], [403, 'not_curated']);

  const namedToken = await m.signIn(named);
  const namedCheck = await call('GET', '/v1/artists/named-only/profile/eligibility', namedToken, ip);
  assert.deepEqual([namedCheck.body.result.eligible, namedCheck.body.result.grounds], [true, ['catalogue_editor']]);
  const namedEdit = await call('PATCH', '/v1/artists/named-only/profile', namedToken, ip, { version: 1, x_url: 'https://twitter.com/named' });
  assert.equal(namedEdit.status, 200, JSON.stringify(namedEdit.body));
  const rename = await call('PATCH', '/v1/artists/named-only/profile', namedToken, ip, { version: 2, name: 'Renamed' });
  assert.deepEqual([rename.status, rename.body.reason], [403, 'name_not_editable']);
  nextMinute();
  const unchanged = await call('GET', '/v1/artists/frog-painter', null, ip);
  assert.notEqual(unchanged.body.result.bio, 'Hijacked');
  nextMinute();
});

test('bad fields: 400 invalid_request naming the field, nothing written; unknown or ambiguous key 404; no session 401', async () => {
  const ip = freshIp();
  const token = await m.signIn(artist);
  const version = (await call('GET', '/v1/artists/locked-name/profile/eligibility', token, ip)).body.result.version;
  const cases: [Record<string, unknown>, string][] = [
    [{ version, bio: 'bell\u0007' }, 'body.bio'],
    [{ version, bio: 'x'.repeat(2001) }, 'body.bio'],
    [{ version, website: 'http://example.org' }, 'body.website'],
    [{ version, website: 'not a url' }, 'body.website'],
    [{ version, x_url: 'https://example.org/frog' }, 'body.x_url'],
    [{ version, x_url: 'https://x.com/' }, 'body.x_url'],
    [{ version, bio: 'ok', colour: 'green' }, 'body.colour'],
    [{ version }, 'body'],
    [{ bio: 'no version' }, 'body.version'],
  ];
  for (const [payload, field] of cases) {
    const r = await call('PATCH', '/v1/artists/locked-name/profile', token, ip, payload);
    assert.equal(r.status, 400, JSON.stringify([payload, r.body]));
    assert.equal(r.body.code, 'invalid_request');
    assert.equal(r.body.field, field, JSON.stringify(r.body));
    nextMinute();
  }
  const record = await artistEditsCommand(m.ctx, ['--artist', 'locked-name']);
  assert.equal(record.length, 0);

  for (const key of ['nobody', 'twin', '~nobody']) {
    const r = await call('GET', `/v1/artists/${key}/profile/eligibility`, token, ip);
    assert.deepEqual([r.status, r.body.code], [404, 'not_found'], key);
    const e = await call('PATCH', `/v1/artists/${key}/profile`, token, ip, { version: 1, bio: 'x' });
    assert.deepEqual([e.status, e.body.code], [404, 'not_found'], key);
    nextMinute();
  }
  const anonymous = await call('PATCH', '/v1/artists/locked-name/profile', null, ip, { version, bio: 'bell\u0007' });
  assert.deepEqual([anonymous.status, anonymous.body.code], [401, 'unauthenticated']);
  const anonCheck = await call('GET', '/v1/artists/locked-name/profile/eligibility', null, ip);
  assert.deepEqual([anonCheck.status, anonCheck.body.code], [401, 'unauthenticated']);
  nextMinute();
});

test('check and edit share the artist_edit limit: 6 per address, then 429 with retry_after_seconds', async () => {
  const ip = freshIp();
  const token = await m.signIn(artist);
  let version = (await call('GET', '/v1/artists/locked-name/profile/eligibility', token, ip)).body.result.version;
  for (let i = 0; i < 5; i++) {
    const r = await call('PATCH', '/v1/artists/locked-name/profile', token, ip, { version, bio: `bio ${i}` });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    version = r.body.result.version;
  }
  for (const r of [
    await call('GET', '/v1/artists/locked-name/profile/eligibility', token, ip),
    await call('PATCH', '/v1/artists/locked-name/profile', token, ip, { version, bio: 'seventh' }),
  ]) {
    assert.equal(r.status, 429);
    assert.equal(r.body.code, 'rate_limited');
    assert.ok(r.body.retry_after_seconds >= 1);
  }
  // Another address from the same IP still has its own budget.
  const other = await call('GET', '/v1/artists/locked-name/profile/eligibility', await m.signIn(stranger), ip);
  assert.equal(other.status, 200);
  nextMinute();
  const again = await call('PATCH', '/v1/artists/locked-name/profile', token, ip, { version, bio: 'after the window' });
  assert.equal(again.status, 200);
  nextMinute();
});

test('eligibility follows the issuance rights: after a transfer the former issuer is refused and the new owner may edit', async () => {
  const ip = freshIp();
  const heir = makeWallet('p2tr', 'artist-profile-heir');
  const transferred = await m.call('POST', '/devnet/transfer-issuance', null, { asset: lockedAsset, from: artist.address, to: heir.address });
  assert.equal(transferred.status, 200, JSON.stringify(transferred.body));
  const former = await call('GET', '/v1/artists/locked-name/profile/eligibility', await m.signIn(artist), ip);
  assert.deepEqual([former.body.result.eligible, former.body.result.reason, former.body.result.issued_assets], [false, 'not_issuer', []]);
  const heirToken = await m.signIn(heir);
  const now = await call('GET', '/v1/artists/locked-name/profile/eligibility', heirToken, ip);
  assert.deepEqual([now.body.result.eligible, now.body.result.grounds, now.body.result.issued_assets], [true, ['issuer'], [lockedAsset]]);
  const edit = await call('PATCH', '/v1/artists/locked-name/profile', heirToken, ip, { version: now.body.result.version, website: null });
  assert.equal(edit.status, 200, JSON.stringify(edit.body));
  assert.deepEqual([edit.body.result.website, edit.body.result.changed], [null, ['website']]);
  // The same edit again changes nothing: no new version, nothing recorded.
  const again = await call('PATCH', '/v1/artists/locked-name/profile', heirToken, ip, { version: edit.body.result.version, website: null });
  assert.deepEqual([again.status, again.body.result.version, again.body.result.changed], [200, edit.body.result.version, []]);
  const record = await artistEditsCommand(m.ctx, ['--artist', 'locked-name']);
  assert.deepEqual([record[0]!.editor, record[0]!.version], [heir.address, edit.body.result.version]);
  nextMinute();
});

test('a catalogue import keeps an edited profile and its version; an unedited one takes the file and moves its version', async () => {
  const ip = freshIp();
  const frog = (await call('GET', '/v1/artists/frog-painter', null, ip)).body.result;
  const named1 = (await call('GET', '/v1/artists/twin', null, ip)).status;
  assert.equal(named1, 404);
  const edited = { ...catalog, artists: catalog.artists.map((a) => (a.name === 'Frog Painter' ? { ...a, bio: 'New catalogue bio' } : a.name === 'Twin A' ? { ...a, bio: 'Twin bio' } : a)) };
  await importCatalog(m.ctx.store.db, edited);
  nextMinute();
  const frogAfter = (await call('GET', '/v1/artists/frog-painter', null, ip)).body.result;
  assert.deepEqual([frogAfter.bio, frogAfter.version, frogAfter.name], [frog.bio, frog.version, frog.name]);
  const twin = (await call('GET', `/v1/artists/~${encodeURIComponent('Twin A')}`, null, ip)).body.result;
  assert.deepEqual([twin.bio, twin.version], ['Twin bio', 2]);

  // The catalogue withdraws the name permission: the credit shows again, as a new version.
  await importCatalog(m.ctx.store.db, { ...edited, artists: edited.artists.map((a) => (a.name === 'Frog Painter' ? { ...a, name_editable: false } : a)) });
  nextMinute();
  const renamed = (await call('GET', '/v1/artists/frog-painter', null, ip)).body.result;
  assert.deepEqual([renamed.name, renamed.version, renamed.bio], ['Frog Painter', frog.version + 1, frog.bio]);
});
