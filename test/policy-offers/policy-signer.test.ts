/**
 * The market signer as its own process (`npm run signer`, HTTP on loopback with the shared
 * secret) behind a collection-offer accept: killed after it co-signed but before its answer
 * reached the market, the accept answers 503 and writes nothing; restarted, the same signed
 * bytes complete the accept with the very signature it recorded (nothing signed twice, nothing
 * lost) and the unit reaches the bidder. And with the signer unreachable, every policy route
 * answers 503 service_unavailable while the rest of the market is unaffected.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { cancelMessage } from '../../src/modules/policy-offers/rules.js';
import { openMarket } from '../helpers/market.js';
import { newSeller } from '../helpers/listing.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { signMessageBip322 } from '../helpers/wallets.js';
import { newBidder } from '../offers/exact-helpers.js';
import { acceptQuote, fillPool, placePolicy } from './policy-helpers.js';
import { entryArgs } from '../../sim/processes.js';

/** A pass-through to the signer that, while `dropCosign` is set, lets the signer answer a co-sign and never relays that answer. */
async function signerProxy(target: string) {
  const state = { dropCosign: false, dropped: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        try {
          const r = await fetch(`${target}${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}) });
          const text = await r.text();
          if (state.dropCosign && req.url === '/signer/cosign') {
            state.dropped++;
            res.socket?.destroy();
            return;
          }
          res.writeHead(r.status, { 'content-type': 'application/json' });
          res.end(text);
        } catch {
          res.socket?.destroy();
        }
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, state, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('collection offers with the market signer in its own process', () => {
  void it('killed after co-signing but before answering: 503 and nothing written; restarted, the same bytes complete with the recorded signature', { timeout: 120_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-policy-signer-'));
    const secret = crypto.randomBytes(24).toString('hex');
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const start = (): ChildProcess =>
      spawn(process.execPath, [...entryArgs('src/cli/main.ts'), 'signer'], { cwd: REPO_ROOT, env: { ...process.env, NETWORK: 'regtest', SIGNER_DIR: dir, SIGNER_SECRET: secret, SIGNER_PORT: String(port), LOG_LEVEL: 'silent' }, stdio: 'ignore' });
    let proc = start();
    const proxy = await signerProxy(`http://127.0.0.1:${port}`);
    const m = await openMarket({ ANCHOR_POOL_SIZE: '2', SIGNER_URL: proxy.url, SIGNER_SECRET: secret });
    const up = async () => {
      for (let i = 0; i < 200; i++) {
        if ((await m.call('GET', '/v1/market-signer', null)).status === 200) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the signer did not come up');
    };
    try {
      await up();
      const seller = await newSeller(m, 'p2tr', 'ps-seller', 2);
      await importCatalog(m.ctx.store.db, { collections: [{ slug: 'ps', name: 'PS' }], artists: [], assets: [{ asset: seller.asset, collection: 'ps', max_supply_units: 2 }] });
      await fillPool(m);
      const b = await newBidder(m, [100_000], 'p2wpkh');
      const { pf, set: placed } = await placePolicy(m, b.w, b.token, [{ scope: 'collection', collection: 'ps', price_sats: 30_000 }]);
      const parent = pf.parent.expected_txid as string;
      const unit = await m.attachDirect(seller.w, seller.asset, '1');
      await m.mine();
      await m.sync();
      const { q, signed } = await acceptQuote(m, seller.w, seller.token, parent, unit);
      assert.equal(q.status, 200, JSON.stringify(q.body));
      const body = { accept_id: q.body.result.accept_id, psbt_hex: signed };

      proxy.state.dropCosign = true;
      const lost = await m.call('POST', '/v1/policy-accepts', seller.token, body);
      assert.equal(lost.status, 503, JSON.stringify(lost.body));
      assert.equal(lost.body.code, 'service_unavailable');
      assert.equal(proxy.state.dropped, 1, 'the signer did co-sign; its answer was lost');
      proc.kill('SIGKILL');
      await new Promise((r) => proc.once('exit', r));
      proxy.state.dropCosign = false;
      // Nothing was written: the set is open, no claim, no settlement.
      const set = await m.ctx.store.db.selectFrom('policy_funding_sets').select('state').where('parent_txid', '=', parent).executeTakeFirstOrThrow();
      assert.equal(set.state, 'open');
      assert.equal((await m.ctx.store.db.selectFrom('settlements').select('id').where('kind', '=', 'policy_accept').execute()).length, 0);
      // Down: the policy routes answer 503, a soft cancel cannot be recorded either.
      const down = await m.call('POST', '/v1/policy-accepts', seller.token, body);
      assert.equal(down.status, 503, JSON.stringify(down.body));
      const cancel = await m.call('POST', `/v1/policy-offers/${placed.offers[0].id}/cancel`, b.token, { address: b.w.address, signature: signMessageBip322(b.w, cancelMessage(parent)) });
      assert.equal(cancel.status, 503, JSON.stringify(cancel.body));

      proc = start();
      await new Promise((r) => setTimeout(r, 2_100)); // past the API's 2-second signer probe cache
      await up();
      const done = await m.call('POST', '/v1/policy-accepts', seller.token, body);
      assert.equal(done.status, 200, JSON.stringify(done.body));
      // The bidder's cancel now finds the signature released first.
      const late = await m.call('POST', `/v1/policy-offers/${placed.offers[0].id}/cancel`, b.token, { address: b.w.address, signature: signMessageBip322(b.w, cancelMessage(parent)) });
      assert.equal(late.status, 200, JSON.stringify(late.body));
      assert.equal(late.body.result.already_signed, true);
      assert.equal(late.body.result.cancelled, false);
      await m.mine();
      await m.sync();
      const held = await m.devnet.chain.counterparty.getUtxoBalances(`${done.body.result.txid}:0`);
      assert.deepEqual(held.map((h) => [h.asset, h.quantity_raw]), [[seller.asset, '1']]);
    } finally {
      proc.kill('SIGKILL');
      await m.close();
      await proxy.close();
    }
  });

  void it('with the signer unreachable every policy route answers 503 service_unavailable and the rest of the market is unaffected', async () => {
    const m = await openMarket({ SIGNER_URL: 'http://127.0.0.1:9', SIGNER_SECRET: 'y'.repeat(32) });
    try {
      const w = await newBidder(m, [50_000], 'p2wpkh');
      const id = 'po_missing';
      const txid = 'ab'.repeat(32);
      const calls: Array<[string, string, unknown?]> = [
        ['POST', '/v1/policy-offers/preflight', { targets: [{ scope: 'collection', collection: 'x', price_sats: 10_000 }], bidder_pubkey: '02'.padEnd(66, '1'), expires_at: Math.floor(m.clock.now() / 1000) + 3600 }],
        ['POST', '/v1/policy-offers', { funding_set_id: 'pf_x', parent_psbt_hex: '70736274ff00', presignatures: [{ index: 0, signature_hex: '00' }] }],
        ['GET', '/v1/policy-offers/capacity'],
        ['GET', '/v1/policy-offers/cancelled'],
        ['POST', `/v1/policy-offers/${id}/cancel`, { address: w.w.address, signature: 'AA==' }],
        ['POST', `/v1/policy-offers/${id}/cancel-transaction`, {}],
        ['GET', `/v1/address/${w.w.address}/policy-offers`],
        ['GET', '/v1/assets/XCP/policy-offers'],
        ['POST', '/v1/policy-accepts/preflight', { parent_txid: txid, asset_txid: txid, asset_vout: 0 }],
        ['POST', '/v1/policy-accepts', { accept_id: 'pa_x', psbt_hex: '70736274ff00' }],
      ];
      for (const [method, url, payload] of calls) {
        const r = await m.call(method as 'GET' | 'POST', url, w.token, payload);
        assert.equal(r.status, 503, `${method} ${url}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, 'service_unavailable', `${method} ${url}`);
      }
      assert.equal((await m.call('GET', '/v1/collections', null)).status, 200);
      assert.equal((await m.call('GET', `/v1/address/${w.w.address}/offers`, w.token)).status, 200);
      assert.equal((await m.call('POST', '/v1/offer-funding', w.token, { price_sats: 10_000, slots: 1 })).status, 200);
    } finally {
      await m.close();
    }
  });
});
