/**
 * Preparing units through the client, against the real app on the devnet with real keys:
 * - an attach template (the unit attached to a fresh output of the seller's own, not listed): a
 *   server that attaches to a thief, or takes more fee than quoted, is refused before the wallet
 *   is asked; the honest one is signed once, submitted through the draft's `attach`, and once
 *   mined the draft reads `prepared` with the unit on its output 0;
 * - a listing draft made without a price gets one: its listing half then asks that price, a price
 *   under the minimum is refused, and another address cannot price it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MarketError } from '../../client/src/index.js';
import { openMarket, type Market } from '../helpers/market.js';
import { heldOn } from '../helpers/checkout.js';
import { makeWallet } from '../helpers/wallets.js';
import { clientFor, editPsbtHex, tampering } from './harness.js';
import { routeCoverage } from './coverage.js';

const thief = makeWallet('p2wpkh', 'client-prepare-thief');
const template = (method: string, path: string) => method === 'POST' && path === '/v1/attach-templates';

void describe('client: prepare a unit, price a draft', () => {
  let m: Market;
  before(async () => {
    m = await openMarket();
  });
  after(async () => m?.close());

  void it('attach template: tampering refused unsigned; the honest attach signed once and the unit prepared on its output 0', async () => {
    const w = makeWallet('p2wpkh', 'client-prepare-seller');
    for (let i = 0; i < 4; i++) await m.fund(w, 50_000);
    const asset = await m.issue(w, '4'); // each refused template keeps its unit committed while open
    await m.sync();
    let k = 0;
    for (const [label, edit] of [
      ['the unit to a thief', (d: any) => (d.attach.psbt_hex = editPsbtHex(d.attach.psbt_hex, (tx) => tx.updateOutput(0, { script: thief.script }, true)))],
      ['a fee above the quote', (d: any) => (d.attach.psbt_hex = editPsbtHex(d.attach.psbt_hex, (tx) => tx.updateOutput(tx.outputsLength - 1, { amount: tx.getOutput(tx.outputsLength - 1).amount! - 10_000n })))],
    ] as const) {
      const calls = { sign: 0 };
      const c = await clientFor(m, w, calls, tampering(m, template, edit));
      await assert.rejects(c.prepareUnit({ asset, idempotency_key: `prep-tamper-${++k}` }), (e) => e instanceof MarketError && e.code === 'unsafe_psbt', label);
      assert.equal(calls.sign, 0, `${label}: the wallet was never asked`);
    }

    const calls = { sign: 0 };
    const c = await clientFor(m, w, calls);
    const steps: string[] = [];
    const d = await c.prepareUnit({ asset, fee_rate: 2, maxFeeSats: 3_000, idempotency_key: 'prep-honest', progress: (s) => steps.push(s) });
    assert.deepEqual(steps, ['template', 'verified', 'signed', 'submitted']);
    assert.equal(calls.sign, 1);
    assert.equal(d.purpose, 'prepare');
    assert.ok(['broadcasting', 'awaiting_indexer'].includes(d.status), d.status);
    await m.mine();
    await m.sync();
    const read = (await c.http.call('GET /v1/listing-preflights/{id}', { params: { id: d.id } })).result;
    assert.equal(read.status, 'prepared');
    assert.equal(await heldOn(m, `${d.expected_txid}:0`, asset), 1n, 'the unit sits on the attach\'s output 0');
  });

  void it('a draft without a price is priced: its listing half asks it; under the minimum refused; another address cannot', async () => {
    const w = makeWallet('p2wpkh', 'client-price-seller');
    await m.fund(w, 50_000);
    const asset = await m.issue(w, '1');
    await m.sync();
    const c = await clientFor(m, w, { sign: 0 });
    const d = (await c.http.call('POST /v1/listing-preflights', { body: { seller: w.address, asset, quantity_raw: '1', idempotency_key: 'client-price-1' } })).result;
    assert.equal(d.listing, undefined, 'no price, no listing half yet');
    const priced = await c.priceDraft(d.id, 33_000);
    assert.equal(priced.listing?.price_sats, 33_000);
    assert.equal(priced.fees.platform.amount_sats, 660);
    await assert.rejects(c.priceDraft(d.id, 100), (e) => e instanceof MarketError && e.code === 'price_below_minimum' && e.status! < 500);
    const other = await clientFor(m, makeWallet('p2wpkh', 'client-price-other'), { sign: 0 });
    await assert.rejects(other.priceDraft(d.id, 9_000), (e) => e instanceof MarketError && e.status === 404);
    assert.equal((await c.http.call('GET /v1/listing-preflights/{id}', { params: { id: d.id } })).result.listing?.price_sats, 33_000, 'unchanged by the refusals');
  });
});

routeCoverage(import.meta.url);
