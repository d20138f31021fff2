/**
 * Eligibility reads the current holder of issuance rights from the Counterparty port: `owner`
 * when Core reports it (a first issuer who transferred the rights away is not eligible), else
 * `issuer` (releases before `owner` existed). An unreachable backend is a 503, never a
 * refusal. And the two routes are documented as session routes with examples.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { unreachableChain } from '../helpers/chain.js';
import { makeWallet, signMessageBip322 } from '../helpers/wallets.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import type { Chain, CpAssetInfo } from '../../src/chain/ports.js';

const firstIssuer = makeWallet('p2wpkh', 'elig-first');
const holder = makeWallet('p2wpkh', 'elig-holder');
const oldCore = makeWallet('p2tr', 'elig-old-core');

const info = (asset: string, issuer: string, owner: string | null): CpAssetInfo => ({
  asset, asset_id: '1', asset_longname: null, divisible: false, locked: true, supply_raw: '1', issuer, owner, description: '', first_issuance_block_index: 1,
});
const assets: Record<string, CpAssetInfo | 'down'> = {
  MOVEDCARD: info('MOVEDCARD', firstIssuer.address, holder.address),
  OLDCORECARD: info('OLDCORECARD', oldCore.address, null),
  DOWNCARD: 'down',
};

let t: TestApp;
before(async () => {
  const down = unreachableChain().chain;
  const counterparty = new Proxy(down.counterparty, {
    get: (target, prop) =>
      prop === 'getAsset'
        ? async (asset: string) => {
            const a = assets[asset];
            if (a === 'down') return (target as Chain['counterparty']).getAsset(asset);
            return a ?? null;
          }
        : (target as any)[prop],
  });
  t = await testApp({ chain: { chain: { bitcoin: down.bitcoin, counterparty, utxos: down.utxos } } });
  await importCatalog(t.ctx.store.db, {
    collections: [{ slug: 'cards', name: 'Cards' }],
    artists: [{ name: 'Moved' }, { name: 'Old Core' }, { name: 'Down' }],
    assets: [
      { asset: 'MOVEDCARD', collection: 'cards', artist: 'Moved' },
      { asset: 'UNKNOWNCARD', collection: 'cards', artist: 'Moved' },
      { asset: 'OLDCORECARD', collection: 'cards', artist: 'Old Core' },
      { asset: 'DOWNCARD', collection: 'cards', artist: 'Down' },
    ],
  });
});
after(async () => t.close());

let ip = 0;
async function signIn(w: typeof holder): Promise<string> {
  const remoteAddress = `10.62.0.${++ip}`;
  const c = JSON.parse((await t.app.inject({ method: 'POST', url: '/v1/auth/challenge', payload: { address: w.address }, remoteAddress })).body).result;
  const v = await t.app.inject({ method: 'POST', url: '/v1/auth/verify', payload: { address: w.address, issued_at: c.issued_at, signature: signMessageBip322(w, c.message) }, remoteAddress });
  return JSON.parse(v.body).result.token as string;
}
const check = async (key: string, token: string) => {
  const r = await t.app.inject({ method: 'GET', url: `/v1/artists/${key}/profile/eligibility`, headers: { 'x-session-token': token }, remoteAddress: `10.62.1.${++ip}` });
  return { status: r.statusCode, body: JSON.parse(r.body) as Record<string, any> };
};

test('owner, not the first issuer, holds the rights; without owner the issuer does; an unknown asset gives nothing', async () => {
  const moved = await check('moved', await signIn(holder));
  assert.deepEqual([moved.body.result.eligible, moved.body.result.issued_assets, moved.body.result.credited_assets], [true, ['MOVEDCARD'], 2]);
  const first = await check('moved', await signIn(firstIssuer));
  assert.deepEqual([first.body.result.eligible, first.body.result.reason], [false, 'not_issuer']);
  const old = await check('old-core', await signIn(oldCore));
  assert.deepEqual([old.body.result.eligible, old.body.result.issued_assets], [true, ['OLDCORECARD']]);
});

test('an unreachable Counterparty backend answers 503 upstream_unavailable, not a refusal', async () => {
  const r = await check('down', await signIn(holder));
  assert.equal(r.status, 503, JSON.stringify(r.body));
  assert.equal(r.body.code, 'upstream_unavailable');
});

test('both routes are documented as session routes, with examples and their refusals', async () => {
  const doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).body);
  const checkOp = doc.paths['/v1/artists/{key}/profile/eligibility'].get;
  const editOp = doc.paths['/v1/artists/{key}/profile'].patch;
  for (const op of [checkOp, editOp]) {
    assert.deepEqual(op.security, [{ session: [] }]);
    assert.ok(op.responses['401'] && op.responses['404'] && op.responses['200']);
    assert.ok(op.responses['200'].content['application/json'].schema.properties.result.examples?.length, 'a result example');
  }
  assert.ok(editOp.responses['403'] && editOp.responses['409']);
  const body = editOp.requestBody.content['application/json'];
  assert.equal((body.example ?? body.schema.examples?.[0])?.version, 3, 'a body example');
  assert.match(editOp.description, /artist_edit/);
});
