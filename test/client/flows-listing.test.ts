/**
 * The client's attach-and-list flow against the real app on the devnet, real keys: a server that
 * redirects the attach's change, attaches another quantity, or moves the listing's price is
 * refused before the wallet signs anything; the honest flow reports its steps, signs twice, reads
 * the draft back when the submission's reply is lost (never signing again), and waits (mining and syncing between reads) until the draft reads `completed` and the listing is
 * active.
 */
import assert from 'node:assert/strict';
import { after, before, it, describe } from 'node:test';
import { hex } from '@scure/base';
import { MarketClient, MarketError, type FetchLike } from '../../client/src/index.js';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';
import { openMarket, type Market } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';
import { appFetch, editPsbtHex, noSleep, tampering, wallet } from './harness.js';
import { routeCoverage } from './coverage.js';

let m: Market;
void describe('client flows: attach and list', () => {
  before(async () => {
    m = await openMarket();
  });
  after(async () => m?.close());

  void it('attach-and-list: tampered templates refused unsigned; the honest one signed, submitted and waited to completed', async () => {
    const seller = makeWallet('p2wpkh', 'client-attach-seller');
    // One coin per preflight: an open draft keeps the coin it chose.
    for (let i = 0; i < 5; i++) await m.fund(seller, 100_000);
    const asset = await m.issue(seller, '5'); // open drafts commit their units too
    await m.sync();
    const thief = makeWallet('p2wpkh', 'client-attach-thief');
    const expires_at = Math.floor(m.clock.now() / 1000) + 86_400;
    const isPreflight = (method: string, path: string) => method === 'POST' && path === '/v1/listing-preflights';

    const edits: Array<[string, (d: any) => void]> = [
      ['change to a thief', (d) => (d.attach.psbt_hex = editPsbtHex(d.attach.psbt_hex, (tx) => tx.updateOutput(2, { script: thief.script }, true)))],
      ['attaches more than asked', (d) => (d.attach.psbt_hex = editPsbtHex(d.attach.psbt_hex, (tx) => tx.updateOutput(1, { script: attachOutputScript({ input0Txid: hex.encode(tx.getInput(0).txid!), asset, quantity: 3n, destinationVout: 0 }) }, true)))],
      ['a lower listing price', (d) => (d.listing.psbt_hex = editPsbtHex(d.listing.psbt_hex, (tx) => tx.updateOutput(0, { amount: 5_000n })))],
      ['a fee above the quote', (d) => (d.attach.psbt_hex = editPsbtHex(d.attach.psbt_hex, (tx) => tx.updateOutput(2, { amount: tx.getOutput(2).amount! - 20_000n })))],
    ];
    let k = 0;
    for (const [label, edit] of edits) {
      const calls = { sign: 0 };
      const c = new MarketClient({ baseUrl: 'http://market.test', fetch: tampering(m, isPreflight, edit), network: 'regtest', ...noSleep });
      await c.signIn(wallet(seller, calls));
      await assert.rejects(c.attachAndList({ asset, price_sats: 40_000, expires_at, idempotency_key: `tamper-${++k}` }), (e) => e instanceof MarketError && e.code === 'unsafe_psbt', label);
      assert.equal(calls.sign, 0, `${label}: the wallet was never asked`);
    }

    // The submission is taken, but its reply lost behind an edge's 502: the flow reads the draft back, never signs again.
    const calls = { sign: 0 };
    const steps: string[] = [];
    let lost = 0;
    const lossy: FetchLike = async (url, init) => {
      const r = await appFetch(m)(url, init);
      if (!url.endsWith('/attach-and-list')) return r;
      lost++;
      return { status: 502, headers: { get: () => null }, text: async () => '<html>bad gateway</html>' };
    };
    const c = new MarketClient({ baseUrl: 'http://market.test', fetch: lossy, network: 'regtest', ...noSleep });
    await c.signIn(wallet(seller, calls));
    const wait = { sleep: async () => void (await m.mine(), await m.sync()), intervalMs: 1 };
    const done = await c.attachAndList({ asset, price_sats: 40_000, expires_at, idempotency_key: 'honest-1', wait, progress: (s) => steps.push(s) });
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(calls.sign, 2, 'the attach and the listing half, once each');
    assert.deepEqual(steps.filter((s) => s !== 'waiting'), ['preflight', 'verified', 'signed', 'uncertain', 'submitted']);
    assert.equal(lost, 1, 'a 502 that is not the envelope is not retried blindly: the draft is read instead');
    assert.deepEqual([done.listing_status, done.listed_price_sats], ['active', 40_000]);
    const row = await m.ctx.store.db.selectFrom('listings').select(['state', 'utxo_txid', 'price_sats']).where('id', '=', done.listing_id!).executeTakeFirstOrThrow();
    assert.deepEqual([row.state, row.utxo_txid, Number(row.price_sats)], ['active', done.attach_txid, 40_000]);
  });
});

routeCoverage(import.meta.url);
