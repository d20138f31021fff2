/**
 * Bids over a funding transaction that never confirms. A slot is an output of the funding
 * transaction, so when the bidder replaces that transaction (its inputs spent to itself), no block
 * ever spends the slot: the watcher saw nothing to end, and the offers stayed on the book, active
 * and unfillable, until their expiry.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { hex } from '@scure/base';
import { RawTx, SigHash } from '@scure/btc-signer';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { openMarket, signPsbt, type Market } from '../helpers/market.js';
import { newSeller } from '../helpers/listing.js';
import { buildTx, coinOf, txidOf } from '../helpers/devnet.js';
import { finalize, newBidder, placeFunded, type Bidder } from './exact-helpers.js';


let m: Market;
let asset: string;

before(async () => {
  m = await openMarket();
  asset = (await newSeller(m, 'p2wpkh', 'funding-gone-seller', 2)).asset;
  await importCatalog(m.ctx.store.db, { collections: [{ slug: 'gone', name: 'Gone' }], artists: [], assets: [{ asset, collection: 'gone', max_supply_units: 2, issued_year: 2017 }] });
  await m.sync();
});
after(async () => m?.close());

/** The bidder spends its funding transaction's inputs to itself instead (a replacement, as Core 28+ takes it). */
async function replaceFunding(b: Bidder, fundingTxid: string): Promise<string> {
  const raw = m.devnet.rpc.getrawtransaction(fundingTxid, false) as string;
  const coins = RawTx.decode(hex.decode(raw)).inputs.map((i) => coinOf(m.devnet, hex.encode(i.txid), i.index));
  const total = coins.reduce((s, c) => s + c.amount, 0n);
  const replacement = buildTx(coins.map((coin) => ({ wallet: b.w, coin })), [{ script: b.w.script, amount: total - 20_000n }]);
  await m.devnet.bitcoin.broadcast(replacement);
  return txidOf(replacement);
}

const offersOf = async (b: Bidder) => (await m.call('GET', `/v1/address/${b.w.address}/offers`, b.token)).body.result as Array<{ id: string; status: string; end_reason: string | null }>;

/** The bidder of the asset's best offer as the public reads it (past the 30-second cache). */
async function bestBidder(): Promise<string | null> {
  m.clock.advance(31_000);
  const r = await m.call('GET', `/v1/assets/${asset}/best-offer`, null);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result.offer?.bidder ?? null;
}

void it('a funding transaction replaced before it confirmed ends its offers (retired, invalid) once the replacement confirms', async () => {
  const b = await newBidder(m, [1_000_000]);
  const p = await placeFunded(m, b, 20_000, 2, [{ scope: 'asset', asset }]);
  const funding = p.funding_slots[0]!.txid;
  assert.deepEqual((await offersOf(b)).map((o) => o.status), ['active', 'active']);
  assert.equal(await bestBidder(), b.w.address, 'the bid is the best offer');

  const replacement = await replaceFunding(b, funding);
  assert.equal(await m.devnet.bitcoin.getTransaction(funding), null, 'the funding transaction was replaced');
  await m.mine();
  await m.sync();
  assert.ok((await m.devnet.bitcoin.getTransaction(replacement))!.confirmations >= 1);

  const offers = await offersOf(b);
  assert.deepEqual(offers.map((o) => [o.status, o.end_reason]), [['retired', 'invalid'], ['retired', 'invalid']], JSON.stringify(offers));
  assert.equal(await bestBidder(), null, 'no bid over the replaced funding is offered');
});

void it('a block disconnected under the replacement restores the offers; its return retires them again', async () => {
  const b = await newBidder(m, [1_000_000]);
  const p = await placeFunded(m, b, 21_000, 1, [{ scope: 'asset', asset }]);
  await replaceFunding(b, p.funding_slots[0]!.txid);
  await m.mine();
  await m.sync();
  assert.deepEqual((await offersOf(b)).map((o) => o.status), ['retired']);
  await m.devnet.reorg(1); // the replacement goes back to the mempool; the funding stays gone
  await m.sync();
  assert.deepEqual((await offersOf(b)).map((o) => [o.status, o.end_reason]), [['active', null]], 'restored with the block');
  await m.mine();
  await m.sync();
  assert.deepEqual((await offersOf(b)).map((o) => [o.status, o.end_reason]), [['retired', 'invalid']]);
});

void it('a funding that confirms keeps its offers, and its inputs are forgotten once the block is final', async () => {
  const b = await newBidder(m, [1_000_000]);
  const p = await placeFunded(m, b, 22_000, 1, [{ scope: 'asset', asset }]);
  const funding = p.funding_slots[0]!.txid;
  const kept = () => m.ctx.store.db.selectFrom('offer_funding_inputs').select(['outpoint', 'settled_height']).where('funding_txid', '=', funding).execute();
  assert.equal((await kept()).length, 1, 'its one input is kept while it is in the mempool');
  await m.mine();
  await m.sync();
  assert.deepEqual((await offersOf(b)).map((o) => o.status), ['active']);
  assert.notEqual((await kept())[0]!.settled_height, null, 'settled by the block that confirmed it');
  await m.mine(3);
  await m.sync();
  assert.deepEqual(await kept(), []);
  assert.deepEqual((await offersOf(b)).map((o) => o.status), ['active']);
});

void it('POST /v1/offers over outputs of a transaction still in the mempool: its replacement ends them too', async () => {
  const b = await newBidder(m, [1_000_000]);
  const f = await m.call('POST', '/v1/offer-funding', b.token, { price_sats: 23_000, slots: 1, delivery_mode: 'detached', fee_rate: 2 });
  assert.equal(f.status, 200, JSON.stringify(f.body));
  const raw = finalize(signPsbt(f.body.result.psbt_hex, b.w, f.body.result.inputs_to_sign, SigHash.ALL));
  await m.devnet.bitcoin.broadcast(raw); // the bidder's own wallet sends it
  const r = await m.call('POST', '/v1/offers', b.token, { bids: f.body.result.bids, targets: [{ scope: 'asset', asset }], expires_at: Math.floor(m.clock.now() / 1000) + 86_400 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await replaceFunding(b, txidOf(raw));
  await m.mine();
  await m.sync();
  assert.deepEqual((await offersOf(b)).map((o) => [o.status, o.end_reason]), [['retired', 'invalid']]);
});
