/** The cookbook, bids: bid-and-accept and counter, each both sides, run with plain `node` on the installed client. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mnemonic, openCookbook, type Cookbook } from './cookbook-harness.js';

let c: Cookbook;
void describe('client cookbook: bid and accept, counter', () => {
  before(async () => {
    c = await openCookbook();
  });
  after(async () => c?.close());

  void it('bid and accept', async () => {
    const sold = await c.example('bid-and-accept.mjs', { SELLER_MNEMONIC: mnemonic('exact-seller'), BIDDER_MNEMONIC: mnemonic('exact-bidder') });
    assert.equal(sold.price_sats, 30_000);
    assert.match(sold.txid, /^[0-9a-f]{64}$/);
  });

  void it('counter', async () => {
    const countered = await c.example('counter.mjs', { SELLER_MNEMONIC: mnemonic('counter-seller'), BIDDER_MNEMONIC: mnemonic('counter-bidder') });
    assert.equal(countered.price_sats, 23_000);
  });
});
