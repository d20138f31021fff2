/**
 * One owner of a wallet's coins (src/trade/coins.ts): the market never spends, on its own, a coin
 * that backs one of the wallet's open offers. A second bid funding leaves the first bid's slot
 * alone; a wallet with an open collection offer funds a bid without ending it (the demo wallet
 * carol's case) and an attach the market funds leaves the slot alone; a coin the wallet names
 * explicitly is spent, and the answer says which offers end (bid funding, attach).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { openMarket, signPsbt, type Market } from '../helpers/market.js';
import { newSeller } from '../helpers/listing.js';
import { finalize, newBidder, placeFunded, type Bidder } from './exact-helpers.js';
import { fillPool, placePolicy } from '../policy-offers/policy-helpers.js';

let m: Market;
let asset: string;

before(async () => {
  m = await openMarket({ ANCHOR_POOL_SIZE: '2' });
  const seller = await newSeller(m, 'p2wpkh', 'coin-owner-seller', 2);
  asset = seller.asset;
  await importCatalog(m.ctx.store.db, { collections: [{ slug: 'co', name: 'CO' }], artists: [], assets: [{ asset, collection: 'co', max_supply_units: 2 }] });
  await fillPool(m);
});
after(async () => m?.close());

/** The outpoints a PSBT spends. */
function inputsOf(psbtHex: string): string[] {
  const tx = Transaction.fromPSBT(hex.decode(psbtHex), READ_TX_OPTS);
  return Array.from({ length: tx.inputsLength }, (_, i) => {
    const input = tx.getInput(i);
    return `${hex.encode(input.txid!)}:${input.index}`;
  });
}

const funding = (b: Bidder, body: Record<string, unknown>) => m.call('POST', '/v1/offer-funding', b.token, { slots: 1, delivery_mode: 'detached', fee_rate: 2, ...body });

describe('the coin owner', () => {
  void it("a second offer funding does not spend the first bid's slot, even when the slot is the largest coin", async () => {
    // One coin: the first funding leaves a 60,000-sat slot and a smaller change.
    const b = await newBidder(m, [100_000]);
    const placed = await placeFunded(m, b, 60_000, 1, [{ scope: 'asset', asset }]);
    const slot = placed.funding_slots[0]!;
    await m.mine();
    await m.sync();

    const f = await funding(b, { price_sats: 10_000 });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    assert.ok(!inputsOf(f.body.result.psbt_hex).includes(`${slot.txid}:${slot.vout}`), 'the bid slot is not spent');
    assert.deepEqual(f.body.result.ends_offers, []);

    // Not enough without the slot: the slot does not count.
    const big = await funding(b, { price_sats: 45_000 });
    assert.equal(big.status, 422, JSON.stringify(big.body));
    assert.equal(big.body.code, 'insufficient_funds');
  });

  void it('a wallet with an open collection offer funds a bid through the market and its collection offer stays open (the carol case)', async () => {
    const b = await newBidder(m, [200_000, 50_000]);
    const { pf, set } = await placePolicy(m, b.w, b.token, [{ scope: 'collection', collection: 'co', price_sats: 100_000 }]);
    const fundingInputs = pf.funding_inputs.map((c: { txid: string; vout: number }) => `${c.txid}:${c.vout}`);
    assert.ok(fundingInputs.length >= 1);

    const f = await funding(b, { price_sats: 20_000 });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    const spent = inputsOf(f.body.result.psbt_hex);
    for (const k of fundingInputs) assert.ok(!spent.includes(k), `the collection offer's funding ${k} is not spent`);

    // Relayed, placed and mined: the collection offer is still open.
    const raw = finalize(signPsbt(f.body.result.psbt_hex, b.w, f.body.result.inputs_to_sign, SigHash.ALL));
    const placed = await m.call('POST', '/v1/funded-offers', b.token, { funding_tx_hex: raw, bids: f.body.result.bids, targets: [{ scope: 'asset', asset }], expires_at: Math.floor(m.clock.now() / 1000) + 86_400 });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    await m.mine();
    await m.sync();
    const row = await m.ctx.store.db.selectFrom('policy_funding_sets').select(['state', 'end_reason']).where('id', '=', set.funding_set_id ?? pf.funding_set_id).executeTakeFirstOrThrow();
    assert.equal(row.state, 'open', JSON.stringify(row));
    const read = await m.call('GET', `/v1/address/${b.w.address}/policy-offers`, b.token);
    assert.deepEqual(read.body.result.map((o: { status: string }) => o.status), ['active']);
  });

  void it('a coin named explicitly is spent, and the answer names the offers it would end', async () => {
    const b = await newBidder(m, [100_000]);
    const placed = await placeFunded(m, b, 60_000, 1, [{ scope: 'asset', asset }, { scope: 'collection', collection: 'co', max_supply_units: 300 }]);
    const slot = placed.funding_slots[0]!;
    await m.mine();
    await m.sync();

    const f = await funding(b, { price_sats: 10_000, funding: [{ txid: slot.txid, vout: slot.vout }] });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    assert.deepEqual(inputsOf(f.body.result.psbt_hex), [`${slot.txid}:${slot.vout}`]);
    assert.deepEqual(f.body.result.ends_offers, [{ outpoint: `${slot.txid}:${slot.vout}`, kind: 'bid', offer_ids: [...slot.offer_ids].sort() }]);

    // The field is in the published contract.
    const doc = (await m.call('GET', '/v1/openapi.json', null)).body;
    const result = doc.paths['/v1/offer-funding'].post.responses['200'].content['application/json'].schema.properties.result;
    assert.ok(result.properties.ends_offers, 'ends_offers in the OpenAPI document');
    assert.ok(doc.paths['/v1/offer-funding'].post.requestBody.content['application/json'].schema.properties.funding, 'funding in the OpenAPI document');
  });

  void it("an attach that names a bid's slot as funding says which bids it would end; one the market funds ends none", async () => {
    const s = await newSeller(m, 'p2wpkh', 'coin-owner-attacher', 2);
    await m.fund(s.w, 100_000);
    const placed = await placeFunded(m, s, 30_000, 1, [{ scope: 'asset', asset }]);
    const slot = placed.funding_slots[0]!;
    await m.mine();
    await m.sync();
    const preflight = (extra: Record<string, unknown>, key: string) =>
      m.call('POST', '/v1/listing-preflights', s.token, { seller: s.w.address, asset: s.asset, quantity_raw: '1', price_sats: 20_000, idempotency_key: key, ...extra });

    const named = await preflight({ funding: [{ txid: slot.txid, vout: slot.vout }] }, 'co-named');
    assert.equal(named.status, 200, JSON.stringify(named.body));
    assert.deepEqual(named.body.result.ends_offers, [{ outpoint: `${slot.txid}:${slot.vout}`, kind: 'bid', offer_ids: slot.offer_ids }]);
    const again = await m.call('GET', `/v1/listing-preflights/${named.body.result.id}`, s.token);
    assert.deepEqual(again.body.result.ends_offers, named.body.result.ends_offers, 'the draft read says it too');

    const picked = await preflight({}, 'co-picked');
    assert.equal(picked.status, 200, JSON.stringify(picked.body));
    assert.ok(!inputsOf(picked.body.result.attach.psbt_hex).includes(`${slot.txid}:${slot.vout}`), 'the market does not pick the slot');
    assert.deepEqual(picked.body.result.ends_offers, []);
  });

  void it('a named coin that is not a spendable coin of the session address is refused, naming the field', async () => {
    const b = await newBidder(m, [100_000]);
    const other = await newBidder(m, [100_000]);
    const theirs = (await m.ctx.chain.counterparty.getAddressUtxos(other.w.address))[0]!;
    const f = await funding(b, { price_sats: 10_000, funding: [{ txid: theirs.txid, vout: theirs.vout }] });
    assert.equal(f.status, 400, JSON.stringify(f.body));
    assert.equal(f.body.code, 'invalid_request');
    assert.equal(f.body.field, 'body.funding[0]');
  });
});
