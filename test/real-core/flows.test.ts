/**
 * The trade flows on a real Bitcoin Core (BITCOIND): the market with CHAIN=bitcoin-core and its
 * production adapters, Bitcoin at the node, Counterparty at the devnet ledger following that
 * node (core-market.ts). Attach-and-list, checkout, a bid filled by an exact accept with a CPFP
 * child, one held while a reorg left its unit unconfirmed, a collection offer accepted, and the
 * bidder backing out before and after an accept.
 * Every transaction is signed with real keys, relayed and mined by Core, and the asset moves in
 * the ledger that follows Core's blocks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SigHash } from '@scure/btc-signer';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { policyOfferUpkeep } from '../../src/modules/policy-offers/manifest.js';
import { MarketWallet } from '../../src/modules/policy-offers/market-wallet.js';
import { buildTx, txidOf } from '../helpers/devnet.js';
import { heldAt, listingRow, newBuyer, quoteOk, signQuote, complete } from '../helpers/checkout.js';
import { listUnit, newSeller, type Seller } from '../helpers/listing.js';
import { signPsbt } from '../helpers/market.js';
import { makeWallet } from '../helpers/wallets.js';
import { authorizeOne, newBidder, placeFunded } from '../offers/exact-helpers.js';
import { acceptQuote, placePolicy } from '../policy-offers/policy-helpers.js';
import { BITCOIND, SKIP_REASON, startBitcoind, type Bitcoind } from './bitcoind.js';
import { openCoreMarket, type CoreMarket } from './core-market.js';

if (!BITCOIND) {
  it('trade flows on a real Bitcoin Core', { skip: SKIP_REASON }, () => {});
} else {
  let core: Bitcoind;
  let m: CoreMarket;
  let seller: Seller;

  before(async () => {
    core = await startBitcoind();
    m = await openCoreMarket(core, { ANCHOR_POOL_SIZE: '4' });
    seller = await newSeller(m, 'p2wpkh', 'rc-flow-seller', 10);
    await importCatalog(m.ctx.store.db, { collections: [{ slug: 'rc', name: 'Real Core' }], artists: [], assets: [{ asset: seller.asset, collection: 'rc', max_supply_units: 10 }] });
    await m.sync();
  });
  after(async () => {
    await m?.close();
    await core?.stop();
  });

  /** A unit of the seller's attached outside the market, 3 confirmations (an exact offer's minimum), the market caught up. */
  async function unit() {
    const at = await m.attachDirect(seller.w, seller.asset, '1');
    await m.mine(2);
    await m.sync();
    return at;
  }

  const settle = async () => {
    await m.mine();
    await m.sync();
    await m.sync();
  };

  describe('on real Bitcoin Core', () => {
    it('attach-and-list: the market composes the attach, Core relays and mines it, the listing goes live', async () => {
      const coin = await m.fund(seller.w, 100_000);
      assert.ok(coin);
      const pf = await m.call('POST', '/v1/listing-preflights', seller.token, { seller: seller.w.address, asset: seller.asset, quantity_raw: '1', price_sats: 25_000, idempotency_key: 'rc-attach-list' });
      assert.equal(pf.status, 200, JSON.stringify(pf.body));
      const d = pf.body.result;
      const r = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, seller.token, {
        attach_psbt_hex: signPsbt(d.attach.psbt_hex, seller.w, [0], SigHash.ALL),
        listing_psbt_hex: signPsbt(d.listing.psbt_hex, seller.w, [0], SigHash.SINGLE_ANYONECANPAY),
        expires_at: Math.floor(m.clock.now() / 1000) + 86_400,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal((await core.rpc<{ txid: string }>('getmempoolentry', d.expected_txid)) !== null, true, 'the attach is in Core\'s mempool');
      await settle();
      const done = (await m.call('GET', `/v1/listing-preflights/${d.id}`, seller.token)).body.result;
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal((await listingRow(m, done.listing_id)).state, 'active');
    });

    it('checkout: a buyer takes a listing; Core mines it; the unit is the buyer\'s in the ledger following Core', async () => {
      const l = await listUnit(m, seller, 20_000);
      const buyer = await newBuyer(m, 'p2tr', 'rc-buyer');
      const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 2 });
      const r = await complete(m, buyer, q.id, signQuote(q, buyer.w, SigHash.DEFAULT));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const entry = await m.ctx.chain.bitcoin.getMempoolEntry(q.expected_txid);
      assert.equal(entry?.fee_sats, q.totals.network_fee_sats, 'Core holds the checkout at the quoted fee');
      await settle();
      assert.equal(await heldAt(m, buyer.w.address, seller.asset), 1n);
      const fill = await m.ctx.store.db.selectFrom('fills').selectAll().where('ref_id', '=', l.id).executeTakeFirstOrThrow();
      assert.equal(fill.state, 'confirmed');
    });

    it('a bid filled by an exact accept with a CPFP child (submitpackage on Core)', async () => {
      const b = await newBidder(m);
      const receive = makeWallet('p2wpkh', 'rc-exact-receive').address;
      const placed = await placeFunded(m, b, 30_000, 1, [{ scope: 'asset', asset: seller.asset }], { receive });
      await settle();
      const at = await unit();
      // Authorized at the floor (the parent prefunds 1 sat/vB), accepted at 5: the child pays the rest.
      const { a, act } = await authorizeOne(m, b, placed.funding_slots[0]!.offer_ids[0]!, at, 1);
      assert.equal(act.status, 200, JSON.stringify(act.body));
      const pf = await m.call('POST', `/v1/exact-offer-authorizations/${a.authorization_id}/accept-preflight`, seller.token, { fee_rate: 5 });
      assert.equal(pf.status, 200, JSON.stringify(pf.body));
      assert.equal(pf.body.result.requires_cpfp, true, JSON.stringify(pf.body.result));
      const r = await m.call('POST', `/v1/exact-offer-authorizations/${a.authorization_id}/accept`, seller.token, {
        psbt_hex: signPsbt(pf.body.result.psbt_hex, seller.w, [1], SigHash.ALL),
        cpfp_psbt_hex: signPsbt(pf.body.result.cpfp.psbt_hex, seller.w, [0], SigHash.ALL),
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.ok(await core.rpc('getmempoolentry', r.body.result.child_txid), 'the child is in Core\'s mempool');
      await settle();
      assert.equal(await heldAt(m, receive, seller.asset), 1n, 'the unit reached the delivery address');
      const fill = await m.ctx.store.db.selectFrom('fills').selectAll().where('ref_id', '=', placed.funding_slots[0]!.offer_ids[0]!).executeTakeFirstOrThrow();
      assert.equal(fill.state, 'confirmed');
    });

    it('an exact accept whose unit a reorg put back in the mempool: Core refuses it (TRUC), the market holds it (202), and relays the same bytes once the unit confirms', async () => {
      const b = await newBidder(m);
      const placed = await placeFunded(m, b, 28_000, 1, [{ scope: 'asset', asset: seller.asset }]);
      await settle();
      const at = await unit();
      const { a } = await authorizeOne(m, b, placed.funding_slots[0]!.offer_ids[0]!, at);
      const pf = await m.call('POST', `/v1/exact-offer-authorizations/${a.authorization_id}/accept-preflight`, seller.token, {});
      assert.equal(pf.status, 200, JSON.stringify(pf.body));
      assert.equal(pf.body.result.requires_cpfp, false);
      // The unit's attach block and its two successors leave Core's chain; the attach returns to its mempool.
      const out = (await core.rpc('gettxout', at.txid, at.vout)) as { confirmations: number };
      const height = ((await core.rpc('getblockcount')) as number) - out.confirmations + 1;
      await core.rpc('invalidateblock', await core.rpc('getblockhash', height));
      assert.ok(await core.rpc('getmempoolentry', at.txid), 'the attach is unconfirmed again');
      const r = await m.call('POST', `/v1/exact-offer-authorizations/${a.authorization_id}/accept`, seller.token, { psbt_hex: signPsbt(pf.body.result.psbt_hex, seller.w, [1], SigHash.ALL) });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      assert.equal(r.body.result.hold?.mempool_policy, 'truc', JSON.stringify(r.body.result));
      assert.match(r.body.result.hold.mempool_reason, /^TRUC-violation/);
      // Another miner's block (not the invalidated one again) mines the attach; recovery relays the held parent.
      await m.follower.mine(1, makeWallet('p2wpkh', 'rc-other-miner').address);
      await m.sync();
      assert.ok(await core.rpc('getmempoolentry', r.body.result.txid), 'the held parent is in Core\'s mempool');
      await settle();
      assert.equal(await heldAt(m, b.w.address, seller.asset), 1n, 'the unit reached the bidder');
      const read = await m.call('GET', `/v1/exact-offer-authorizations/${a.authorization_id}/accept`, seller.token);
      assert.deepEqual([read.body.result.status, read.body.result.hold], ['confirmed', null], JSON.stringify(read.body.result));
    });

    it('a collection offer placed and accepted (escrow package on Core)', async () => {
      // The market wallet pays the anchors: fund it from Core's coins, then let the upkeep fill the pool.
      await fundMarketWallet(m);
      await policyOfferUpkeep(m.ctx);
      await settle();
      const b = await newBidder(m, [200_000], 'p2tr');
      const { pf } = await placePolicy(m, b.w, b.token, [{ scope: 'collection', collection: 'rc', price_sats: 30_000 }]);
      await settle();
      const u = await unit();
      const acc = await acceptQuote(m, seller.w, seller.token, pf.parent.expected_txid, u);
      assert.equal(acc.q.status, 200, JSON.stringify(acc.q.body));
      const r = await m.call('POST', '/v1/policy-accepts', seller.token, { accept_id: acc.q.body.result.accept_id, psbt_hex: acc.signed });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      await settle();
      const fills = await m.ctx.store.db.selectFrom('fills').select('state').where('settlement_id', '=', r.body.result.settlement_id).execute();
      assert.deepEqual(fills.map((f) => f.state), ['confirmed']);
      // The unit moved to the child's delivery output, the bidder's.
      const child = r.body.result.child_txid ?? r.body.result.txid;
      const held = await m.ctx.chain.counterparty.getUtxoBalances(`${child}:0`);
      assert.deepEqual(held.map((h) => [h.asset, h.quantity_raw, h.address]), [[seller.asset, '1', b.w.address]], JSON.stringify(r.body.result));
    });

    it('the bidder backs out first: its unconfirmed high-fee self-spend of the slot wins; no fill is confirmed', async () => {
      const b = await newBidder(m);
      const placed = await placeFunded(m, b, 30_000, 1, [{ scope: 'asset', asset: seller.asset }]);
      await settle();
      const slot = placed.funding_slots[0]!;
      const at = await unit();
      const { a, act } = await authorizeOne(m, b, slot.offer_ids[0]!, at, 2);
      assert.equal(act.status, 200, JSON.stringify(act.body));
      const slotCoin = await m.coinOf(slot.txid, slot.vout);
      const spend = buildTx([{ wallet: b.w, coin: slotCoin }], [{ script: b.w.script, amount: slotCoin.amount - 5_000n }]);
      await core.rpc('sendrawtransaction', spend);
      const pf = await m.call('POST', `/v1/exact-offer-authorizations/${a.authorization_id}/accept-preflight`, seller.token, {});
      if (pf.status === 200) {
        const p = pf.body.result;
        await m.call('POST', `/v1/exact-offer-authorizations/${a.authorization_id}/accept`, seller.token, {
          psbt_hex: signPsbt(p.psbt_hex, seller.w, [1], SigHash.ALL), ...(p.cpfp ? { cpfp_psbt_hex: signPsbt(p.cpfp.psbt_hex, seller.w, [0], SigHash.ALL) } : {}),
        });
      }
      await settle();
      assert.equal((await core.rpc<{ confirmations: number }>('getrawtransaction', txidOf(spend), 1)).confirmations, 1, 'the bidder\'s spend confirmed');
      const fills = await m.ctx.store.db.selectFrom('fills').selectAll().where('ref_id', '=', slot.offer_ids[0]!).execute();
      assert.ok(fills.every((f) => f.state !== 'confirmed'), JSON.stringify(fills));
      const offer = await m.ctx.store.db.selectFrom('offers').select(['state']).where('id', '=', slot.offer_ids[0]!).executeTakeFirstOrThrow();
      assert.notEqual(offer.state, 'filled');
      assert.notEqual(offer.state, 'active', 'the spent slot ended the offer');
    });

    it('the accept first: the bidder\'s later low-fee self-spend is refused by Core and the fill confirms', async () => {
      const b = await newBidder(m);
      const placed = await placeFunded(m, b, 30_000, 1, [{ scope: 'asset', asset: seller.asset }]);
      await settle();
      const slot = placed.funding_slots[0]!;
      const at = await unit();
      // Prefunded at 5 sat/vB: the accept needs no child at the node's rate.
      const { a, act } = await authorizeOne(m, b, slot.offer_ids[0]!, at, 5);
      assert.equal(act.status, 200, JSON.stringify(act.body));
      const pf = await m.call('POST', `/v1/exact-offer-authorizations/${a.authorization_id}/accept-preflight`, seller.token, {});
      assert.equal(pf.status, 200, JSON.stringify(pf.body));
      const p = pf.body.result;
      const r = await m.call('POST', `/v1/exact-offer-authorizations/${a.authorization_id}/accept`, seller.token, {
        psbt_hex: signPsbt(p.psbt_hex, seller.w, [1], SigHash.ALL), ...(p.cpfp ? { cpfp_psbt_hex: signPsbt(p.cpfp.psbt_hex, seller.w, [0], SigHash.ALL) } : {}),
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const slotCoin = await m.coinOf(slot.txid, slot.vout);
      const spend = buildTx([{ wallet: b.w, coin: slotCoin }], [{ script: b.w.script, amount: slotCoin.amount - 200n }]);
      await assert.rejects(core.rpc('sendrawtransaction', spend), /insufficient fee/);
      await settle();
      const fill = await m.ctx.store.db.selectFrom('fills').selectAll().where('ref_id', '=', slot.offer_ids[0]!).executeTakeFirstOrThrow();
      assert.equal(fill.state, 'confirmed');
    });
  });
}

/** Pays the market wallet (the collection-offer anchors' funder) from the follower's miner. */
async function fundMarketWallet(m: CoreMarket): Promise<void> {
  const w = MarketWallet.open(m.ctx.config.MARKET_WALLET_DIR, m.ctx.config.NETWORK);
  await m.follower.faucet(w.address, 1_000_000);
  await m.sync();
}
