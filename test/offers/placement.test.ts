/**
 * Bids through the front door with real keys on the devnet: funded in two calls (compose,
 * sign, relay-and-place), or over existing exact-price outputs; the bad inputs the issue names;
 * two placements racing for one output; cancel and review; a slot spent elsewhere retiring its
 * siblings, and a reorg undoing that.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { assertLogReplaysFeeds } from '../helpers/event-log.js';
import { openMarket, signPsbt, type Market } from '../helpers/market.js';
import { makeWallet, type TestWallet } from '../helpers/wallets.js';
import { newSeller, listUnit } from '../helpers/listing.js';
import { buildTx, coinOf } from '../helpers/devnet.js';

let m: Market;
let n = 0;

interface Bidder {
  w: TestWallet;
  token: string;
}

async function newBidder(coins: number[] = [1_000_000]): Promise<Bidder> {
  const w = makeWallet('p2wpkh', `bidder:${++n}`);
  for (const c of coins) await m.fund(w, c);
  return { w, token: await m.signIn(w) };
}

/** Finalized raw hex of a signed PSBT. */
function finalize(psbtHex: string): string {
  const tx = Transaction.fromPSBT(hex.decode(psbtHex), READ_TX_OPTS);
  tx.finalize();
  return hex.encode(tx.extract());
}

/** Composes, signs and finalizes a funding transaction of `slots` slots at `price`. */
async function fundingTx(b: Bidder, price: number, slots: number, mode = 'detached') {
  const f = await m.call('POST', '/v1/offer-funding', b.token, { price_sats: price, slots, delivery_mode: mode, fee_rate: 2 });
  assert.equal(f.status, 200, JSON.stringify(f.body));
  const r = f.body.result;
  return { hex: finalize(signPsbt(r.psbt_hex, b.w, r.inputs_to_sign, SigHash.ALL)), txid: r.expected_txid as string, bids: r.bids as Array<{ txid: string; vout: number }> };
}

const now = () => Math.floor(m.clock.now() / 1000);
const day = 86_400;

let asset: string;
let sellerAsset: string;

before(async () => {
  m = await openMarket();
  const seller = await newSeller(m, 'p2wpkh', 'offer-seller', 3);
  sellerAsset = seller.asset;
  asset = sellerAsset;
  await importCatalog(m.ctx.store.db, {
    collections: [{ slug: 'bids', name: 'Bids' }],
    artists: [],
    assets: [{ asset, collection: 'bids', max_supply_units: 3, issued_year: 2016 }],
  });
  await m.sync();
});
after(async () => m?.close());

describe('placing bids', () => {
  void it('funds in two calls: compose, sign, relay-and-place; the cross product of slots and targets', async () => {
    const b = await newBidder();
    const f = await fundingTx(b, 20_000, 2);
    const r = await m.call('POST', '/v1/funded-offers', b.token, {
      funding_tx_hex: f.hex,
      bids: f.bids,
      targets: [{ scope: 'asset', asset }, { scope: 'collection', collection: 'bids', max_supply_units: 300 }],
      expires_at: now() + day,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const p = r.body.result;
    assert.equal(p.slot_count, 2);
    assert.equal(p.target_count, 2);
    assert.equal(p.offer_count, 4);
    assert.equal(p.price_sats, 20_000);
    assert.equal(p.platform_fee_sats, 546);
    assert.deepEqual(p.funding, { txid: f.txid });
    assert.deepEqual(p.delivery, { mode: 'detached', address: b.w.address });
    assert.equal(p.signature_validity.bitcoin_expires_at, null);
    // The network has the funding transaction.
    assert.ok(await m.devnet.bitcoin.getTxOut(f.txid, 0, true));
    // An identical repeat answers the same placement and places nothing new.
    const again = await m.call('POST', '/v1/funded-offers', b.token, {
      funding_tx_hex: f.hex, bids: f.bids, targets: [{ scope: 'asset', asset }, { scope: 'collection', collection: 'bids', max_supply_units: 300 }], expires_at: p.expires_at,
    });
    assert.equal(again.status, 200);
    assert.equal(again.body.result.placement_id, p.placement_id);
    const mine = await m.call('GET', `/v1/address/${b.w.address}/offers`, b.token);
    assert.equal(mine.status, 200);
    assert.equal(mine.body.result.length, 4);
    assert.ok(mine.body.result.every((o: any) => o.status === 'active' && o.kind !== undefined));
    const kinds = new Set(mine.body.result.map((o: any) => o.kind));
    assert.deepEqual([...kinds].sort(), ['asset', 'trait']);
  });

  void it('places over existing exact-price outputs (mempool or confirmed), attached delivery adds 330 sats', async () => {
    const b = await newBidder();
    const f = await fundingTx(b, 30_000, 1, 'attached');
    await m.devnet.bitcoin.broadcast(f.hex);
    await m.mine();
    const r = await m.call('POST', '/v1/offers', b.token, { bids: f.bids, targets: [{ scope: 'asset', asset }], expires_at: now() + day, delivery_mode: 'attached' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.result.price_sats, 30_000);
    assert.deepEqual(r.body.result.delivery, { mode: 'attached', address: b.w.address, utxo_value_sats: 330 });
  });

  void it('refuses bad input with the spec codes, and neither places nor relays', async () => {
    const b = await newBidder();
    const other = await newBidder();
    const f = await fundingTx(b, 20_000, 1);
    const base = { funding_tx_hex: f.hex, bids: f.bids, targets: [{ scope: 'asset', asset }], expires_at: now() + day };
    const cases: Array<[string, Record<string, unknown>, string | null, number, string]> = [
      ['another address', { ...base }, other.token, 403, 'forbidden'],
      ['a txid that is not the transaction\'s own', { ...base, bids: [{ txid: 'ab'.repeat(32), vout: 0 }] }, null, 400, 'invalid_request'],
      ['an unknown collection', { ...base, targets: [{ scope: 'collection', collection: 'nope' }] }, null, 409, 'target_unavailable'],
      ['an unknown asset', { ...base, targets: [{ scope: 'asset', asset: 'NOSUCHASSET' }] }, null, 409, 'target_unavailable'],
      ['target_outpoint with collection scope', { ...base, targets: [{ scope: 'collection', collection: 'bids', target_outpoint: { txid: f.txid, vout: 0 } }] }, null, 400, 'invalid_request'],
      ['1,001 rows', { ...base, targets: Array.from({ length: 501 }, (_, i) => ({ scope: 'collection', collection: 'bids', series: i })), bids: [f.bids[0], { txid: f.txid, vout: 1 }] }, null, 400, 'invalid_request'],
      ['an expiry in the past', { ...base, expires_at: now() - 1 }, null, 400, 'invalid_request'],
    ];
    for (const [what, body, token, status, code] of cases) {
      const r = await m.call('POST', '/v1/funded-offers', token ?? b.token, body);
      assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, code, what);
    }
    assert.equal(await m.devnet.bitcoin.getTxOut(f.txid, 0, true), null, 'nothing was relayed');
    const placed = await m.ctx.store.db.selectFrom('offer_slots').select('id').where('txid', '=', f.txid).execute();
    assert.equal(placed.length, 0);

    // A value off by one sat: the price the outputs give is what it is; two outputs must agree.
    const g = await m.call('POST', '/v1/offer-funding', b.token, { price_sats: 20_000, slots: 1, fee_rate: 2 });
    const tx = Transaction.fromPSBT(hex.decode(g.body.result.psbt_hex), READ_TX_OPTS);
    const unequal = new Transaction({ version: 2 });
    for (let i = 0; i < tx.inputsLength; i++) unequal.addInput(tx.getInput(i));
    unequal.addOutput({ script: b.w.script, amount: 20_000n });
    unequal.addOutput({ script: b.w.script, amount: 20_001n });
    unequal.addOutput(tx.getOutput(1));
    unequal.updateOutput(2, { amount: tx.getOutput(1).amount! - 20_001n });
    const signed = finalize(signPsbt(hex.encode(unequal.toPSBT()), b.w, [0], SigHash.ALL));
    const off = await m.call('POST', '/v1/funded-offers', b.token, { ...base, funding_tx_hex: signed, bids: [{ vout: 0 }, { vout: 1 }] });
    assert.equal(off.status, 400, JSON.stringify(off.body));
    assert.equal(off.body.code, 'invalid_request');
  });

  void it('refuses a coin carrying an asset, and an offer on your own listing (self_trade)', async () => {
    const seller = await newSeller(m, 'p2wpkh', 'self-trader', 1);
    const listing = await listUnit(m, seller, 40_000);
    await m.fund(seller.w, 100_000);
    const own = await m.call('POST', '/v1/offer-funding', seller.token, { price_sats: 20_000, slots: 1, fee_rate: 2 });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    const f = finalize(signPsbt(own.body.result.psbt_hex, seller.w, own.body.result.inputs_to_sign, SigHash.ALL));
    const r = await m.call('POST', '/v1/funded-offers', seller.token, {
      funding_tx_hex: f, bids: own.body.result.bids, targets: [{ scope: 'asset', asset: seller.asset, target_outpoint: { txid: listing.utxo_txid, vout: listing.utxo_vout } }], expires_at: now() + day,
    });
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.equal(r.body.code, 'self_trade');
    // The asset UTXO itself as a bid: it carries a Counterparty balance.
    const carrying = await m.call('POST', '/v1/offers', seller.token, { bids: [{ txid: listing.utxo_txid, vout: listing.utxo_vout }], targets: [{ scope: 'asset', asset }], expires_at: now() + day });
    assert.ok([400, 409].includes(carrying.status), JSON.stringify(carrying.body));
  });

  void it('two placements racing for one output: one wins, the other is refused; never two owners of a slot', async () => {
    const b = await newBidder();
    const f = await fundingTx(b, 25_000, 1);
    await m.devnet.bitcoin.broadcast(f.hex);
    const t2 = await m.signIn(b.w);
    const body = (series: number) => ({ bids: f.bids, targets: [{ scope: 'collection', collection: 'bids', series }], expires_at: now() + day });
    const [r1, r2] = await Promise.all([m.call('POST', '/v1/offers', b.token, body(1)), m.call('POST', '/v1/offers', t2, body(2))]);
    const statuses = [r1.status, r2.status].sort();
    assert.deepEqual(statuses, [200, 409], `${JSON.stringify(r1.body)} ${JSON.stringify(r2.body)}`);
    const open = await m.ctx.store.db.selectFrom('offer_slots').select('id').where('outpoint', '=', `${f.txid}:0`).where('state', '=', 'open').execute();
    assert.equal(open.length, 1);
  });
});

describe('ending bids', () => {
  void it('cancel, review, and a slot spent elsewhere retires its siblings; a reorg restores them', async () => {
    const b = await newBidder();
    const f = await fundingTx(b, 20_000, 2);
    const placed = await m.call('POST', '/v1/funded-offers', b.token, {
      funding_tx_hex: f.hex, bids: f.bids, targets: [{ scope: 'asset', asset }, { scope: 'collection', collection: 'bids' }], expires_at: now() + day,
    });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    await m.mine();
    await m.sync();
    const [slotA, slotB] = placed.body.result.funding_slots;

    // Cancel one offer of slot A: the review says slot A is still committed by its live sibling.
    const c = await m.call('POST', `/v1/offers/${slotA.offer_ids[0]}/cancel`, b.token);
    assert.equal(c.status, 200, JSON.stringify(c.body));
    assert.deepEqual(c.body.result, [{ offer_id: slotA.offer_ids[0], ok: true, status: 'cancelled' }]);
    const rv = await m.call('POST', '/v1/offer-cancellations/review', b.token, { offer_ids: [slotA.offer_ids[0]] });
    assert.equal(rv.status, 200, JSON.stringify(rv.body));
    assert.deepEqual(rv.body.result.coins, [{ outpoint: { txid: slotA.txid, vout: slotA.vout }, stillCommitted: true }]);
    // Reviewing an offer that is not cancelled, or someone else's.
    assert.equal((await m.call('POST', '/v1/offer-cancellations/review', b.token, { offer_ids: [slotA.offer_ids[1]] })).body.code, 'state_changed');
    const stranger = await newBidder([]);
    assert.equal((await m.call('POST', `/v1/offers/${slotA.offer_ids[1]}/cancel`, stranger.token)).status, 404);

    // The bidder spends slot B elsewhere: both its offers retire (reason invalid) once mined.
    const coin = coinOf(m.devnet, slotB.txid, slotB.vout);
    const spend = buildTx([{ wallet: b.w, coin }], () => [{ script: b.w.script, amount: 19_000n }]);
    await m.devnet.bitcoin.broadcast(spend);
    await m.mine();
    await m.sync();
    const status = async (id: string) => (await m.ctx.store.db.selectFrom('offers').select(['state', 'end_reason']).where('id', '=', id).executeTakeFirstOrThrow());
    for (const id of slotB.offer_ids) assert.deepEqual(await status(id), { state: 'retired', end_reason: 'invalid' });
    const events = await m.call('GET', `/v1/address/${b.w.address}/events`, b.token);
    const kinds = events.body.result.map((e: any) => e.kind);
    assert.ok(kinds.includes('offer_retired') && kinds.includes('offer_cancelled'), JSON.stringify(kinds));

    // A reorg of that block restores them.
    await m.devnet.reorg(1);
    await m.sync();
    for (const id of slotB.offer_ids) assert.deepEqual(await status(id), { state: 'active', end_reason: null });
    const after = await m.call('GET', `/v1/address/${b.w.address}/events`, b.token);
    assert.ok(!after.body.result.some((e: any) => e.kind === 'offer_retired'));

    // Cancel the whole placement; the review then lists both outputs as free.
    const all = await m.call('POST', `/v1/offer-placements/${placed.body.result.placement_id}/cancel`, b.token);
    assert.equal(all.status, 200);
    const ids = [...slotA.offer_ids, ...slotB.offer_ids];
    const free = await m.call('POST', '/v1/offer-cancellations/review', b.token, { offer_ids: ids });
    assert.equal(free.status, 200, JSON.stringify(free.body));
    assert.ok(free.body.result.coins.every((c: any) => c.stillCommitted === false));
  });
});

describe('the bid side of the market', () => {
  void it('the book shows offer levels (distinct slots per level), offers and the best bids; analytics counts a shared slot once', async () => {
    await m.ctx.cache.clear();
    const before = (await m.call('GET', '/v1/analytics', null)).body.result.market;
    const b = await newBidder([2_000_000]);
    const f = await fundingTx(b, 900_000, 2);
    const placed = await m.call('POST', '/v1/funded-offers', b.token, {
      funding_tx_hex: f.hex, bids: f.bids, targets: [{ scope: 'collection', collection: 'bids' }, { scope: 'collection', collection: 'bids', issued_year: 2016 }, { scope: 'asset', asset }], expires_at: now() + day,
    });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    await m.ctx.cache.clear();
    const book = (await m.call('GET', '/v1/collections/bids/book', null)).body.result;
    const top = book.offer_levels.filter((l: any) => l.price_sats === 900_000);
    assert.deepEqual(top.map((l: any) => [l.kind, l.funded_slots]).sort(), [['asset', 2], ['collection', 2], ['trait', 2]]);
    assert.equal(book.best_offer_sats, 900_000);
    assert.equal(book.top_collection_offer_sats, 900_000);
    assert.equal(book.offers.filter((o: any) => o.bidder === b.w.address).length, 6);
    assert.equal(book.offers_truncated, false);
    const a = (await m.call('GET', '/v1/analytics', null)).body.result;
    assert.equal(a.market.open_offers - before.open_offers, 2, 'two funding outputs, each counted once');
    assert.ok(a.market.bidders >= 1);
    assert.equal(a.depth.find((d: any) => d.price_sats === 900_000)?.offers, 2);

    const best = (await m.call('GET', `/v1/assets/${asset}/best-offer`, null)).body.result;
    assert.equal(best.best_offer_sats, 900_000);
    assert.equal(best.offer.bidder, b.w.address);
    // Another asset of no collection and no bids.
    const none = await m.call('GET', '/v1/assets/NOBIDSHERE/best-offer', null);
    assert.equal(none.status, 200);
    assert.deepEqual([none.body.result.best_offer_sats, none.body.result.live_offers], [null, 0]);

    // The book's bid rows follow the catalogue: the asset joining a second collection brings its asset offer there.
    const catalog = (slugs: string[]) => importCatalog(m.ctx.store.db, { collections: slugs.map((slug) => ({ slug, name: slug })), artists: [], assets: [{ asset, collection: 'bids', max_supply_units: 3, issued_year: 2016, also_in: slugs.slice(1) }] });
    await catalog(['bids', 'more']);
    await m.ctx.cache.clear();
    const more = (await m.call('GET', '/v1/collections/more/book', null)).body.result;
    assert.deepEqual(more.offer_levels.filter((l: any) => l.price_sats === 900_000).map((l: any) => [l.kind, l.funded_slots]), [['asset', 2]]);
    await catalog(['bids']);
    await m.ctx.cache.clear();
    assert.equal((await m.call('GET', '/v1/collections/bids/book', null)).body.result.offer_levels.filter((l: any) => l.price_sats === 900_000).length, 3);

    // Cancelled: gone from the book.
    await m.call('POST', `/v1/offer-placements/${placed.body.result.placement_id}/cancel`, b.token);
    await m.ctx.cache.clear();
    const after = (await m.call('GET', '/v1/collections/bids/book', null)).body.result;
    assert.ok(!after.offers.some((o: any) => o.bidder === b.w.address));
    assert.notEqual(after.best_offer_sats, 900_000);
    assert.notEqual((await m.call('GET', `/v1/assets/${asset}/best-offer`, null)).body.result.best_offer_sats, 900_000);
  });
});

describe('offer events', () => {
  void it('public feed: placed and ended (cancelled, expired before and after the indexer writes it, same id); owner feed: offer_expired; never a PSBT or raw tx', async () => {
    const b = await newBidder();
    const f = await fundingTx(b, 21_000, 1);
    const placed = await m.call('POST', '/v1/funded-offers', b.token, {
      funding_tx_hex: f.hex, bids: f.bids, targets: [{ scope: 'asset', asset }, { scope: 'collection', collection: 'bids' }], expires_at: now() + 600,
    });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    const [assetOffer, collectionOffer] = placed.body.result.funding_slots[0].offer_ids;
    await m.ctx.cache.clear();
    const feed = async () => {
      await m.ctx.cache.clear();
      const r = await m.call('GET', '/v1/events?kind=offers&limit=100', null);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.result.filter((e: any) => e.bidder === b.w.address);
    };
    const first = await feed();
    assert.deepEqual(first.map((e: any) => e.kind).sort(), ['collection_offer_placed', 'offer_placed']);
    const coll = first.find((e: any) => e.kind === 'collection_offer_placed');
    assert.equal(coll.asset, null);
    assert.equal(coll.collection, 'bids');
    assert.equal(coll.price_sats, 21_000);
    assert.ok(!JSON.stringify(first).includes(f.hex.slice(0, 40)));

    // Cancel one; let the other expire.
    await m.call('POST', `/v1/offers/${collectionOffer}/cancel`, b.token);
    m.clock.advance(601_000);
    const ended = await feed();
    const endings = ended.filter((e: any) => e.kind.endsWith('_ended'));
    assert.deepEqual(endings.map((e: any) => [e.kind, e.reason]).sort(), [['collection_offer_ended', 'cancelled'], ['offer_ended', 'expired']]);
    const expiredId = endings.find((e: any) => e.reason === 'expired').event_id;
    const owner = await m.call('GET', `/v1/address/${b.w.address}/events`, b.token);
    const ownerExpired = owner.body.result.find((e: any) => e.kind === 'offer_expired');
    assert.equal(ownerExpired?.offer_id, assetOffer);
    // The indexer writes the expiry: same ids, once each.
    await m.mine();
    await m.sync();
    const written = await m.ctx.store.db.selectFrom('offers').select('state').where('id', '=', assetOffer).executeTakeFirstOrThrow();
    assert.equal(written.state, 'expired');
    const again = (await feed()).filter((e: any) => e.kind.endsWith('_ended'));
    assert.equal(again.filter((e: any) => e.event_id === expiredId).length, 1);
    const owner2 = await m.call('GET', `/v1/address/${b.w.address}/events`, b.token);
    assert.deepEqual(owner2.body.result.filter((e: any) => e.kind === 'offer_expired').map((e: any) => e.event_id), [ownerExpired.event_id]);
    const mine = await m.call('GET', `/v1/address/${b.w.address}/offers?status=expired`, b.token);
    assert.deepEqual(mine.body.result.map((o: any) => o.id), [assetOffer]);
  });
});

describe('the event log', () => {
  void it('replays to exactly the public and owner feeds after every flow above (src/events/)', async () => {
    await assertLogReplaysFeeds(m);
  });
});
