/**
 * The cookbook, seller side: attach-and-list and list run with plain `node` on the installed
 * client, while verify-webhook (a receiver registered for the same wallet) checks the signature
 * of the first delivery to it: the delisting of the listing list.mjs made.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fromMnemonic, MarketClient } from '../../client/src/index.js';
import { exampleEnv, mnemonic, openCookbook, type Cookbook } from './cookbook-harness.js';

let c: Cookbook;
void describe('client cookbook: attach-and-list, list, a webhook verified', () => {
  before(async () => {
    c = await openCookbook({ demo: false }); // its examples issue and attach what they list
  });
  after(async () => c?.close());

  void it('attach-and-list, list, and the webhook their events cause, its signature verified', async () => {
    const seller = { MNEMONIC: mnemonic('seller') };
    const hook = spawn(process.execPath, ['examples/verify-webhook.mjs'], { cwd: c.project, env: exampleEnv(c, seller) });
    let out = '';
    let err = '';
    hook.stdout.on('data', (d) => (out += d));
    hook.stderr.on('data', (d) => (err += d));
    const hookDone = new Promise<number | null>((r) => hook.on('exit', r));
    // The receiver says `ready` on stderr once registered; an exit before that fails at once.
    const ready = new Promise<void>((resolve, reject) => {
      hook.stderr.on('data', () => err.includes('ready') && resolve());
      hook.once('exit', () => reject(new Error(`verify-webhook exited: ${err}`)));
    });
    try {
      await ready;
      const attached = await c.example('attach-and-list.mjs', seller);
      assert.equal(attached.status, 'completed', JSON.stringify(attached));
      assert.ok(attached.listing_id);
      const listed = await c.example('list.mjs', seller);
      assert.ok(listed.listing_id);
      // A listing is public news; the owner's feed (what webhooks carry) hears its delisting.
      const market = new MarketClient({ baseUrl: c.market.url, network: 'regtest' });
      await market.signIn(fromMnemonic(seller.MNEMONIC, { type: 'p2wpkh', network: 'regtest' }));
      await market.http.call('POST /v1/listings/{id}/delist', { params: { id: listed.listing_id } });
      assert.equal(await hookDone, 0, err);
      const payload = JSON.parse(out.trim().split('\n').pop()!);
      assert.equal(payload.type, 'listing_delisted', out);
    } finally {
      hook.kill();
    }
  });
});
