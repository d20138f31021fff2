/** The cookbook: a collection offer placed and cancelled by a P2TR wallet, then the stream watched, with plain `node` on the installed client. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mnemonic, openCookbook, type Cookbook } from './cookbook-harness.js';

let c: Cookbook;
void describe('client cookbook: collection offer and cancel, the stream', () => {
  before(async () => {
    c = await openCookbook();
  });
  after(async () => c?.close());

  void it('collection offer and cancel; the stream', async () => {
    const offer = await c.example('collection-offer.mjs', { MNEMONIC: mnemonic('collector'), WALLET_TYPE: 'p2tr' });
    assert.match(offer.parent_txid, /^[0-9a-f]{64}$/);
    const watched = await c.example('watch-stream.mjs', { COUNT: '3' });
    assert.equal(watched.events.length, 3);
  });
});
