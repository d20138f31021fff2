/**
 * The seller's maintenance flows against the real app on the devnet, real keys:
 * - list() met again with the same idempotency key reads the draft and returns its listing
 *   without asking the wallet (it used to resend the template for signing);
 * - rotation of an exposed listing (the buyer double-spent its funding, evicting the checkout):
 *   a server that sends the unit to a thief or takes more fee is refused unsigned; the honest
 *   rotation is signed once, relayed, and the listing ends `rotated` with the unit on the seller's
 *   fresh output;
 * - a co-signed attach-and-list (P2TR seller): a server that attaches to the seller's plain
 *   address, or offers the key path in the half, is refused unsigned; the honest one completes;
 *   then the key-path withdrawal (a thief's delivery refused unsigned), broadcast by the wallet,
 *   moves the unit home.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hex } from '@scure/base';
import { MarketError, type MarketClient } from '../../client/src/index.js';
import { openMarket, type Market } from '../helpers/market.js';
import { newSeller } from '../helpers/listing.js';
import { heldAt, heldOn, listingRow } from '../helpers/checkout.js';
import { buildTx, coinOf } from '../helpers/devnet.js';
import { makeWallet, type TestWallet } from '../helpers/wallets.js';
import { clientFor as harnessClient, editPsbtHex, tampering } from './harness.js';
import { routeCoverage } from './coverage.js';

const thief = makeWallet('p2wpkh', 'client-maint-thief');
const post = (re: RegExp) => (method: string, path: string) => method === 'POST' && re.test(path);

void describe('client flows: list again, rotate, co-signed list and withdraw', () => {
  let m: Market;
  before(async () => {
    m = await openMarket();
  });
  after(async () => m?.close());

  const clientFor = (w: TestWallet, calls: { sign: number }, fetch?: Parameters<typeof harnessClient>[3]) => harnessClient(m, w, calls, fetch);
  const expires = () => Math.floor(m.clock.now() / 1000) + 86_400;

  async function refusedUnsigned(w: TestWallet, route: (method: string, path: string) => boolean, edit: (r: any) => void, attempt: (c: MarketClient) => Promise<unknown>, label: string) {
    const calls = { sign: 0 };
    const c = await clientFor(w, calls, tampering(m, route, edit));
    await assert.rejects(attempt(c), (e) => e instanceof MarketError && e.code === 'unsafe_psbt', label);
    assert.equal(calls.sign, 0, `${label}: the wallet was never asked`);
  }

  void it('list() again reads the draft; an exposed listing is rotated (tampering refused unsigned)', async () => {
    const seller = await newSeller(m, 'p2wpkh', 'client-rotate-seller', 1);
    await m.fund(seller.w, 60_000);
    const unit = await m.attachDirect(seller.w, seller.asset, '1');
    await m.sync();
    const calls = { sign: 0 };
    const c = await clientFor(seller.w, calls);
    const ask = { asset_utxo: unit, asset: seller.asset, price_sats: 25_000, expires_at: expires(), idempotency_key: 'client-rotate-1' };
    const first = await c.list(ask);
    assert.deepEqual([first.signed, calls.sign], [true, 1]);
    const again = await c.list(ask);
    assert.deepEqual([again.id, again.signed, calls.sign], [first.id, false, 1], 'the same draft: read, not signed again');
    await m.sync();

    // A buyer's checkout is relayed, then evicted by the buyer's own double spend: the listing is exposed.
    const buyerW = makeWallet('p2wpkh', 'client-rotate-buyer');
    await m.fund(buyerW, 200_000);
    await m.sync();
    const buyer = await clientFor(buyerW, { sign: 0 });
    const op = await buyer.buy({ lines: [{ listing_id: first.id, max_price_sats: 25_000 }], delivery_mode: 'attached', delivery_address: buyerW.address, maxSpendSats: 40_000 });
    assert.equal(op.status, 'broadcast');
    const raw = m.devnet.rpc.getrawtransaction(op.txid!, false) as string;
    const { Transaction } = await import('@scure/btc-signer');
    const input0 = Transaction.fromRaw(hex.decode(raw), { allowUnknownOutputs: true, disableScriptCheck: true } as never).getInput(0);
    const funding = coinOf(m.devnet, hex.encode(input0.txid!), input0.index!);
    await m.devnet.bitcoin.broadcast(buildTx([{ wallet: buyerW, coin: funding }], [{ script: buyerW.script, amount: funding.amount - 20_000n }]));
    await m.sync();
    assert.equal((await listingRow(m, first.id)).state, 'exposed');

    const rotation = post(/\/rotation$/);
    const rotate = (cl: MarketClient) => cl.rotate({ listing_id: first.id, asset_utxo: unit, fee_rate: 2, maxFeeSats: 2_000 });
    await refusedUnsigned(seller.w, rotation, (t) => (t.psbt_hex = editPsbtHex(t.psbt_hex, (tx) => tx.updateOutput(0, { script: thief.script }, true))), rotate, 'the unit to a thief');
    await refusedUnsigned(seller.w, rotation, (t) => (t.psbt_hex = editPsbtHex(t.psbt_hex, (tx) => tx.updateOutput(tx.outputsLength - 1, { amount: tx.getOutput(tx.outputsLength - 1).amount! - 10_000n }))), rotate, 'a fee above the quote');
    await refusedUnsigned(seller.w, rotation, (t) => (t.psbt_hex = editPsbtHex(t.psbt_hex, (tx) => tx.updateInput(0, { index: 5 }, true))), rotate, 'another input 0');

    const steps: string[] = [];
    const sent = await c.rotate({ listing_id: first.id, asset_utxo: unit, fee_rate: 2, maxFeeSats: 2_000, progress: (s) => steps.push(s) });
    assert.deepEqual(steps, ['rotation_quoted', 'verified', 'signed', 'broadcast']);
    assert.equal(calls.sign, 2);
    await m.mine();
    await m.sync();
    assert.equal(await heldOn(m, `${sent.txid}:0`, seller.asset), 1n, 'the unit sits on the seller\'s fresh output');
    const row = await listingRow(m, first.id);
    assert.deepEqual([row.state, row.end_reason], ['ended', 'rotated']);
  });

  void it('co-signed: attach-and-list (tampering refused unsigned), then the key-path withdrawal the wallet broadcasts', async () => {
    const w = makeWallet('p2tr', 'client-cosigned-seller');
    for (let i = 0; i < 5; i++) await m.fund(w, 60_000);
    const asset = await m.issue(w, '6'); // each refused draft keeps its unit committed while open
    await m.sync();
    const key = hex.encode(w.xOnly);
    const ask = (k: string) => ({ asset, price_sats: 30_000, expires_at: expires(), idempotency_key: k, cosigned: { seller_tap_internal_key: key } });
    const preflight = post(/^\/v1\/listing-preflights$/);
    let k = 0;
    await refusedUnsigned(w, preflight, (d) => (d.attach.psbt_hex = editPsbtHex(d.attach.psbt_hex, (tx) => tx.updateOutput(0, { script: w.script }, true))), (c) => c.attachAndList(ask(`co-${++k}`)), 'attached to the plain address');
    await refusedUnsigned(w, preflight, (d) => (d.listing.psbt_hex = editPsbtHex(d.listing.psbt_hex, (tx) => tx.updateInput(0, { tapInternalKey: w.xOnly }, true))), (c) => c.attachAndList(ask(`co-${++k}`)), 'the key path offered in the half');
    await refusedUnsigned(w, preflight, (d) => (d.cosigned_output.leaf_script_hex = '51'), (c) => c.attachAndList(ask(`co-${++k}`)), 'another leaf described');

    const calls = { sign: 0 };
    const c = await clientFor(w, calls);
    const wait = { sleep: async () => void (await m.mine(), await m.sync()), intervalMs: 1 };
    const done = await c.attachAndList({ ...ask('co-honest'), wait });
    assert.deepEqual([done.status, done.protocol_subtype, done.listing_status], ['completed', 'cosigned', 'active']);
    assert.equal(calls.sign, 2);
    const unit = { txid: done.attach_txid!, vout: 0 };
    const inventory = (await c.http.call('GET /v1/inventory/prepared', {})).result;
    assert.deepEqual(inventory.filter((u) => u.asset_utxo.txid === unit.txid).map((u) => u.custody), ['cosigned']);

    const withdrawal = post(/\/cosigned-withdrawals$/);
    const withdraw = (cl: MarketClient) => cl.withdrawCosigned({ asset_utxo: unit, seller_tap_internal_key: key, fee_rate: 2, maxFeeSats: 2_000 });
    await refusedUnsigned(w, withdrawal, (t) => (t.psbt_hex = editPsbtHex(t.psbt_hex, (tx) => tx.updateOutput(0, { script: thief.script }, true))), withdraw, 'the unit to a thief');
    await refusedUnsigned(w, withdrawal, (t) => (t.psbt_hex = editPsbtHex(t.psbt_hex, (tx) => tx.updateInput(0, { tapMerkleRoot: new Uint8Array(32) }, true))), withdraw, 'another key path');
    const out = await withdraw(c);
    assert.equal(calls.sign, 3);
    await m.devnet.bitcoin.broadcast(out.tx_hex);
    await m.mine();
    await m.sync();
    assert.equal(await heldOn(m, `${out.txid}:0`, asset), 1n, 'the unit is home, on the seller\'s own output');
    assert.equal(await heldAt(m, w.address, asset) >= 1n, true);
    assert.equal((await listingRow(m, done.listing_id!)).state, 'ended', 'spending the co-signed output ended its listing');
  });
});

routeCoverage(import.meta.url);
