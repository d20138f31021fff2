/**
 * The client's bid-side flows against the real app on the devnet, real keys. For each PSBT the
 * flows hand to a wallet, a server that tampers with it is refused before the wallet is called:
 * funding (a slot paid to a thief, an inflated fee), an exact authorization (the detach naming a
 * thief, another unit), a seller's accept (proceeds to a thief, a child that takes more fee).
 * Honest runs go end to end: bids placed, authorized, accepted with a CPFP child when the fee
 * rate rose (its replies lost first: the error carries the signed bytes, resent unsigned), the unit
 * delivered; and a counter made by the seller, taken by the bidder, accepted.
 */
import assert from 'node:assert/strict';
import { after, before, it, describe } from 'node:test';
import { hex } from '@scure/base';
import { MarketClient, MarketError, type FetchLike } from '../../client/src/index.js';
import { detachOutputScript } from '../../src/counterparty/attach-detach.js';
import { openMarket, type Market } from '../helpers/market.js';
import { newSeller } from '../helpers/listing.js';
import { heldAt } from '../helpers/checkout.js';
import { makeWallet, type TestWallet } from '../helpers/wallets.js';
import { appFetch, clientFor as harnessClient, editPsbtHex, tampering } from './harness.js';
import { routeCoverage } from './coverage.js';

let m: Market;
void describe('client flows: bids', () => {
  before(async () => {
    m = await openMarket();
  });
  after(async () => m?.close());

  const thief = makeWallet('p2wpkh', 'client-offers-thief');
  const now = () => Math.floor(m.clock.now() / 1000);

  const clientFor = (w: TestWallet, calls: { sign: number }, fetch?: FetchLike) => harnessClient(m, w, calls, fetch);

  /** Runs `attempt` through a server that applies `edit` to the reply of `route`; the wallet must never be asked. */
  async function refusedUnsigned(w: TestWallet, route: (method: string, path: string) => boolean, edit: (r: any) => void, attempt: (c: MarketClient) => Promise<unknown>, label: string) {
    const calls = { sign: 0 };
    const c = await clientFor(w, calls, tampering(m, route, edit));
    await assert.rejects(attempt(c), (e) => e instanceof MarketError && e.code === 'unsafe_psbt', label);
    assert.equal(calls.sign, 0, `${label}: the wallet was never asked`);
  }

  /** A seller's unit attached and three blocks deep (exact offers ask 3 confirmations), and a funded bidder. */
  async function unitAndBidder(label: string) {
    const seller = await newSeller(m, 'p2wpkh', `client-${label}-seller`, 1);
    const at = await m.attachDirect(seller.w, seller.asset, '1');
    const bidderW = makeWallet('p2wpkh', `client-${label}-bidder`);
    await m.fund(bidderW, 300_000);
    await m.mine(2);
    await m.sync();
    return { seller, at, bidderW };
  }

  const post = (suffix: string | RegExp) => (method: string, path: string) => method === 'POST' && (typeof suffix === 'string' ? path === suffix : suffix.test(path));

  void it('bids, exact authorization and accept with a CPFP child: tampering refused unsigned; the unit reaches the bidder', async () => {
    const { seller, at, bidderW } = await unitAndBidder('exact');
    const bid = { price_sats: 30_000, slots: 1, targets: [{ scope: 'asset' as const, asset: seller.asset }], expires_at: now() + 86_400, fee_rate: 2 };

    // Funding: a slot paying a thief; a fee far above the quote.
    await refusedUnsigned(bidderW, post('/v1/offer-funding'), (f) => (f.psbt_hex = editPsbtHex(f.psbt_hex, (tx) => tx.updateOutput(0, { script: thief.script }, true))), (c) => c.placeBids(bid), 'slot to a thief');
    await refusedUnsigned(bidderW, post('/v1/offer-funding'), (f) => (f.psbt_hex = editPsbtHex(f.psbt_hex, (tx) => tx.updateOutput(1, { amount: tx.getOutput(1).amount! - 50_000n }))), (c) => c.placeBids(bid), 'inflated fee');

    const bidCalls = { sign: 0 };
    const bidder = await clientFor(bidderW, bidCalls);
    const steps: string[] = [];
    const placed = await bidder.placeBids({ ...bid, progress: (s) => steps.push(s) });
    assert.deepEqual(steps, ['funding_quoted', 'verified', 'signed', 'placed']);
    assert.equal(bidCalls.sign, 1);
    await m.mine();
    await m.sync();

    const slot = placed.funding_slots[0]!;
    const auth = { offer_id: slot.offer_ids[0]!, slot: { txid: slot.txid, vout: slot.vout }, price_sats: 30_000, delivery_mode: 'detached' as const, delivery_address: bidderW.address, target_outpoint: at, fee_rate: 1 };
    const isAuth = post(/\/exact-authorizations$/);
    await refusedUnsigned(bidderW, isAuth, (r) => (r[0].psbt_hex = editPsbtHex(r[0].psbt_hex, (tx) => tx.updateOutput(0, { script: detachOutputScript({ input0Txid: hex.encode(tx.getInput(0).txid!), destination: thief.address }) }, true))), (c) => c.authorizeExact(auth), 'detach to a thief');
    await refusedUnsigned(bidderW, isAuth, (r) => (r[0].psbt_hex = editPsbtHex(r[0].psbt_hex, (tx) => tx.updateInput(1, { index: 7 }, true))), (c) => c.authorizeExact(auth), 'another unit');
    // The unit as inventory shows it (with its utxo_value_sats): the client sends only the outpoint.
    const active = await bidder.authorizeExact({ ...auth, target_outpoint: { ...at, utxo_value_sats: 330 } as typeof at });
    assert.equal(active.status, 'active');

    // The seller finds it in its inbox; the fee rate rose since, so the accept needs a child.
    const sellerCalls = { sign: 0 };
    const sellerClient = await clientFor(seller.w, sellerCalls);
    let row;
    for await (const r of sellerClient.exactOffers()) if (r.authorization_id === active.authorization_id) row = r;
    assert.ok(row, 'in the seller inbox');
    m.devnet.feeEstimates = { ...m.devnet.feeEstimates, half_hour: 6 };
    const accept = { authorization_id: row.authorization_id, target_outpoint: row.target_outpoint, price_sats: row.price_sats, seller_min_net_sats: 20_000 };
    const isAccept = post(/\/accept-preflight$/);
    await refusedUnsigned(seller.w, isAccept, (q) => (q.psbt_hex = editPsbtHex(q.psbt_hex, (tx) => tx.updateOutput(1, { script: thief.script }, true))), (c) => c.acceptExact(accept), 'proceeds to a thief');
    await refusedUnsigned(seller.w, isAccept, (q) => (q.cpfp.psbt_hex = editPsbtHex(q.cpfp.psbt_hex, (tx) => tx.updateOutput(0, { amount: tx.getOutput(0).amount! - 5_000n }))), (c) => c.acceptExact(accept), 'a greedier child');
    await refusedUnsigned(seller.w, isAccept, () => undefined, (c) => c.acceptExact({ ...accept, seller_min_net_sats: 40_000 }), 'below the seller\'s minimum');

    // Every accept answered 503 by an edge: retried with the same bytes, then an error carrying them; never signed again.
    const down: FetchLike = async (url, init) =>
      url.endsWith('/accept') ? { status: 503, headers: { get: () => null }, text: async () => JSON.stringify({ error: 'busy', code: 'service_unavailable' }) } : appFetch(m)(url, init);
    const unlucky = await clientFor(seller.w, sellerCalls, down);
    const lost = await unlucky.acceptExact(accept).then(() => null, (e: unknown) => e);
    assert.ok(lost instanceof MarketError && lost.status === 503 && lost.uncertain, String(lost));
    assert.equal(sellerCalls.sign, 2, 'parent and child, once');
    const resubmit = lost.extras.resubmit as { authorization_id: string; psbt_hex: string; cpfp_psbt_hex: string };
    assert.ok(resubmit.psbt_hex && resubmit.cpfp_psbt_hex, 'the exact signed bytes to resend');
    // The retry table: read the saved operation first. The edge refused every attempt, so nothing was accepted.
    assert.equal((await sellerClient.exactAcceptStatus(resubmit.authorization_id)).status, 'not_accepted');
    const done = (await sellerClient.http.call('POST /v1/exact-offer-authorizations/{id}/accept', { params: { id: resubmit.authorization_id }, body: { psbt_hex: resubmit.psbt_hex, cpfp_psbt_hex: resubmit.cpfp_psbt_hex } })).result;
    assert.equal(sellerCalls.sign, 2, 'resent, never re-signed');
    assert.ok(done.child_txid, 'a CPFP child');
    assert.equal(done.price_sats, 30_000);
    const saved = await sellerClient.exactAcceptStatus(resubmit.authorization_id);
    assert.deepEqual([saved.status, saved.txid, saved.child_txid], ['broadcast', done.txid, done.child_txid]);
    await m.mine();
    await m.sync();
    assert.equal(await heldAt(m, bidderW.address, seller.asset), 1n, 'the unit reached the bidder');
  });

  void it('counter: the seller counters, the bidder takes it (a bid naming the unit, then its authorization), the seller accepts', async () => {
    const { seller, at, bidderW } = await unitAndBidder('counter');
    const calls = { sign: 0 };
    const bidder = await clientFor(bidderW, calls);
    const placed = await bidder.placeBids({ price_sats: 20_500, slots: 1, targets: [{ scope: 'asset', asset: seller.asset }], expires_at: now() + 86_400, fee_rate: 2 });
    await m.mine();
    await m.sync();

    const sellerClient = await clientFor(seller.w, calls);
    const c = await sellerClient.counter({ offer_id: placed.funding_slots[0]!.offer_ids[0]!, asset_outpoint: { ...at, utxo_value_sats: 330 } as typeof at, price_sats: 23_000, expires_at: now() + 3600 });
    const seen = [];
    for await (const r of bidder.counters()) seen.push(r);
    assert.deepEqual(seen.map((r) => [r.id, r.price_sats, r.offer_price_sats]), [[c.id, 23_000, 20_500]]);

    // Taking it through a server that swaps the unit in the authorization: refused before the second signature.
    const swap = tampering(m, post(/\/exact-authorizations$/), (r) => (r[0].psbt_hex = editPsbtHex(r[0].psbt_hex, (tx) => tx.updateInput(1, { index: 9 }, true))));
    const before = calls.sign;
    const tamperedBidder = await clientFor(bidderW, calls, swap);
    await assert.rejects(tamperedBidder.takeCounter(seen[0]!, { expires_at: now() + 86_400, fee_rate: 2 }), (e) => e instanceof MarketError && e.code === 'unsafe_psbt');
    assert.equal(calls.sign - before, 1, 'the funding was signed, the tampered authorization was not');

    // The honest take: the placement above already consumed the original offer, so take the counter's new offer.
    const offers = (await m.call('GET', `/v1/address/${bidderW.address}/offers`, await m.signIn(bidderW))).body.result as any[];
    const mine = offers.find((o) => o.price_sats === 23_000 && o.status === 'active');
    assert.ok(mine, JSON.stringify(offers));
    await m.mine();
    await m.sync();
    const active = await bidder.authorizeExact({ offer_id: mine.id, slot: { txid: mine.bid_txid, vout: mine.bid_vout }, price_sats: 23_000, delivery_mode: 'detached', delivery_address: bidderW.address, target_outpoint: at, fee_rate: 2 });
    assert.equal(active.status, 'active');
    const done = await sellerClient.acceptExact({ authorization_id: active.authorization_id, target_outpoint: at, price_sats: 23_000 });
    assert.equal(done.price_sats, 23_000);
    await m.mine();
    await m.sync();
    assert.equal(await heldAt(m, bidderW.address, seller.asset), 1n, 'the unit reached the bidder');
  });
});

routeCoverage(import.meta.url);
