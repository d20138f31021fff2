/**
 * Kill -9 in an exact-offer accept between journal and submitpackage (real processes:
 * test/helpers/crash.ts). A bidder funds and places an offer on an asset, authorizes it over the
 * seller's unit (3 confirmations) and signs; the node's fee estimate rises so the seller's accept
 * needs a CPFP child. The accept journals the parent+child package, its submitpackage hangs at
 * the proxy, the market dies there; the node never saw either. The restarted market relays the
 * package and, once mined, the unit is at the bidder's delivery address: one fill, nothing twice.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { SigHash } from '@scure/btc-signer';
import { makeWallet } from '../helpers/wallets.js';
import { signPsbt } from '../helpers/market.js';
import { call, crashRig, until, type CrashRig, type Json } from '../helpers/crash.js';
import { finalize } from './exact-helpers.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { txidOf } from '../helpers/devnet.js';

let rig: CrashRig | undefined;
after(async () => rig?.close());

void test('killed between the accept journal and submitpackage: the restarted market relays the parent+child package and the unit reaches the bidder', { timeout: 180_000 }, async () => {
  rig = await crashRig('exact');
  const { proxy } = rig;
  let market = await rig.market();

  const seller = makeWallet('p2wpkh', 'exact-crash-seller');
  const unit = await rig.attachedUnit(seller);
  await rig.withMarketDb((db) => importCatalog(db, { collections: [{ slug: 'crash', name: 'Crash' }], artists: [], assets: [{ asset: unit.asset, collection: 'crash', max_supply_units: 1 }] }));

  // The bidder funds one slot and places it on the asset; delivery detached to its own address.
  const bidder = makeWallet('p2wpkh', 'exact-crash-bidder');
  const delivery = makeWallet('p2wpkh', 'exact-crash-delivery');
  await rig.coin(bidder, 1_000_000);
  const bidderToken = await rig.signIn(market, bidder);
  const f = await until('offer funding', async () => {
    const r = await call(market.url, 'POST', '/v1/offer-funding', { price_sats: 30_000, slots: 1, delivery_mode: 'detached', fee_rate: 2 }, bidderToken);
    return r.status === 200 ? (r.body.result as Json) : undefined;
  });
  const placed = await call(market.url, 'POST', '/v1/funded-offers', {
    funding_tx_hex: finalize(signPsbt(f.psbt_hex as string, bidder, f.inputs_to_sign as number[], SigHash.ALL)),
    bids: f.bids,
    targets: [{ scope: 'asset', asset: unit.asset }],
    expires_at: Math.floor(Date.now() / 1000) + 86_400,
    receive_address: delivery.address,
  }, bidderToken);
  assert.equal(placed.status, 200, JSON.stringify(placed.body));
  const offerId = placed.body.result.funding_slots[0].offer_ids[0] as string;
  await rig.mine(2); // the slot confirmed; the unit at 3 confirmations

  const auth = await until('the authorization', async () => {
    const r = await call(market.url, 'POST', `/v1/offers/${offerId}/exact-authorizations`, { outpoints: [unit.outpoint], fee_rate: 1 }, bidderToken);
    return r.status === 200 ? (r.body.result[0] as Json) : undefined;
  });
  const act = await call(market.url, 'POST', `/v1/exact-offer-authorizations/${auth.authorization_id}/bidder-psbt`, { psbt_hex: signPsbt(auth.psbt_hex as string, bidder, [0], SigHash.ALL) }, bidderToken);
  assert.equal(act.status, 200, JSON.stringify(act.body));

  // Fees rose: the seller's accept needs a child; its submitpackage hangs and the market dies there.
  proxy.state.feeRate = 8;
  const sellerToken = await rig.signIn(market, seller);
  const pf = await call(market.url, 'POST', `/v1/exact-offer-authorizations/${auth.authorization_id}/accept-preflight`, {}, sellerToken);
  assert.equal(pf.status, 200, JSON.stringify(pf.body));
  assert.equal(pf.body.result.requires_cpfp, true, JSON.stringify(pf.body.result));
  const parent = signPsbt(pf.body.result.psbt_hex as string, seller, [1], SigHash.ALL);
  const child = signPsbt(pf.body.result.cpfp.psbt_hex as string, seller, [0], SigHash.ALL);
  const childTxid = txidOf(finalize(child));
  const parentTxid = auth.parent_txid as string;
  proxy.state.hold = true;
  const pending = call(market.url, 'POST', `/v1/exact-offer-authorizations/${auth.authorization_id}/accept`, { psbt_hex: parent, cpfp_psbt_hex: child }, sellerToken).catch(() => undefined);
  await until('the package to reach the node', async () => (proxy.state.heldCalls > 0 ? true : undefined));
  await market.kill('SIGKILL');
  await pending;
  const before = await rig.mempool();
  assert.ok(!before.includes(parentTxid) && !before.includes(childTxid), 'the node never saw the package before the crash');
  proxy.state.hold = false;

  // Restarted on the same store: recovery submits the journaled package; a block confirms it.
  market = await rig.market();
  await until('recovery to relay the package', async () => {
    const pool = await rig!.mempool();
    return pool.includes(parentTxid) && pool.includes(childTxid) ? true : undefined;
  });
  await rig.mine();
  await until('the unit at the delivery address', async () => {
    const b = await call(rig!.devnet.url, 'GET', `/devnet/counterparty/v2/addresses/${delivery.address}/balances`);
    const held = (b.body.result as Json[]).filter((x) => x.asset === unit.asset).map((x) => [x.quantity, x.utxo ?? null]);
    return held.length ? held : undefined;
  }).then((held) => assert.deepEqual(held, [[1, null]], 'the unit was detached to the bidder\'s delivery address'));
  // Public fills are cached up to 30 s: each read asks another page size, so another cache key.
  let pageSize = 100;
  const fills = await until('the confirmed fill', async () => {
    const r = await call(market.url, 'GET', `/v1/fills?address=${delivery.address}&role=buyer&limit=${pageSize--}`);
    const rows = r.body.result as Json[];
    return rows.length && rows.every((x) => x.confirmed_at !== null) ? rows : undefined;
  }, 40_000);
  assert.deepEqual(fills.map((x) => [x.txid, x.ref_id, x.price_sats]), [[parentTxid, offerId, 30_000]], 'one fill, not two');
  // The same signed bytes again answer the settlement as it stands, never a second one.
  const repeat = await call(market.url, 'POST', `/v1/exact-offer-authorizations/${auth.authorization_id}/accept`, { psbt_hex: parent, cpfp_psbt_hex: child }, sellerToken);
  assert.equal(repeat.status, 200, JSON.stringify(repeat.body));
});
