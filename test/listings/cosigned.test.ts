/**
 * Co-signed listings end to end on the devnet with real keys (issue 18 item 2): a P2TR seller
 * attaches straight to the co-signed output and lists over its leaf; a checkout completes with
 * the market signer's signature first in the leaf's witness; a sniper's higher-fee full-RBF
 * replacement lifting the pair fails the devnet's script check (the market's signature covers only
 * the journaled checkout) and the buyer's checkout confirms and delivers — while the same lift of
 * a plain listing's pair replaces the checkout and takes the unit. The signer's decisions: one per
 * outpoint (another transaction is refused, the same one answers the same signature), never after
 * a delist.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { p2tr, SigHash, Transaction } from '@scure/btc-signer';
import { openMarket, type Market } from '../helpers/market.js';
import { makeWallet, signInput, walletInput, type TestWallet } from '../helpers/wallets.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { complete, fillsOf, heldAt, heldOn, listingRow, newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { TAPSCRIPT_LEAF_VERSION, verifySchnorr } from '../../src/bitcoin/taproot.js';
import { networkParams } from '../../src/bitcoin/networks.js';
import { cosignedOutput } from '../../src/counterparty/cosigned-listing.js';
import { SignerRefused } from '../../src/signer/port.js';
import { buildTx } from '../helpers/devnet.js';
import { attachAndList, cosignedDraft, listCosigned, psbtOf, signLeafHalf } from '../helpers/cosigned.js';
import { newBidder, placeFunded } from '../offers/exact-helpers.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

const rawOf = (h: string) => Transaction.fromRaw(hex.decode(h), { ...READ_TX_OPTS, disableScriptCheck: true } as never);

/**
 * What a sniper builds from a relayed checkout `tx`: the seller's pair at `k` (input with its
 * whole witness, output paying the seller) moved to input/output 1 of its own transaction, whose
 * 330-sat output 0 takes the unit (no message: Counterparty moves it to the first output), input 0
 * its own coin, and `fee` to outbid the checkout.
 */
function liftPair(tx: Transaction, k: number, unitScript: Uint8Array, sniper: TestWallet, coin: { txid: string; vout: number; amount: bigint }, fee: bigint): Transaction {
  const pair = tx.getInput(k);
  const pay = tx.getOutput(k);
  const lifted = new Transaction({ allowUnknownOutputs: true, version: tx.version, lockTime: tx.lockTime });
  lifted.addInput(walletInput(sniper, { txid: coin.txid, index: coin.vout, amount: coin.amount }));
  lifted.addInput({ txid: pair.txid!, index: pair.index!, sequence: pair.sequence!, witnessUtxo: { script: unitScript, amount: 330n } });
  lifted.addOutput({ script: sniper.script, amount: 330n });
  lifted.addOutput({ script: pay.script!, amount: pay.amount! });
  lifted.addOutput({ script: sniper.script, amount: coin.amount - pay.amount! - fee });
  signInput(lifted, 0, sniper, SigHash.ALL);
  lifted.finalizeIdx(0);
  lifted.updateInput(1, { finalScriptWitness: pair.finalScriptWitness! }, true);
  return lifted;
}

void test('co-signed: attach to the co-signed output, checkout with the market signature first, a lifted pair fails the script check, the journaled checkout delivers', async () => {
  const seller = makeWallet('p2tr', 'cosigned-seller');
  await m.fund(seller, 60_000);
  const asset = await m.issue(seller, '2');
  const token = await m.signIn(seller);
  const market = (await m.ctx.signer.info()).current;

  // The draft: attach mode onto the output of the seller key (key path) and the leaf with the market key.
  const d = await cosignedDraft(m, seller, token, asset, 30_000);
  const co = cosignedOutput(seller.xOnly, hex.decode(market.pubkey), 'regtest');
  assert.deepEqual([d.protocol_subtype, d.mode, d.cosigned_output.address, d.cosigned_output.market_key_version], ['cosigned', 'attach', co.address, market.version]);
  assert.equal(p2tr(seller.xOnly, { script: co.leaf }, networkParams('regtest'), true).address, co.address, 'a wallet rebuilds the output from tap_internal_key and the leaf');
  const attach = psbtOf(d.attach.psbt_hex);
  assert.equal(hex.encode(attach.getOutput(0).script!), hex.encode(co.script), 'the unit is attached straight to the co-signed output');
  const half = psbtOf(d.listing.psbt_hex).getInput(0);
  assert.equal(half.tapInternalKey, undefined, 'the listing template offers no key path to sign');
  assert.equal(hex.encode(half.witnessUtxo!.script), hex.encode(co.script));

  // A key-path SINGLE|ANYONECANPAY half would be a naked listing again: refused.
  const keyPath = psbtOf(d.listing.psbt_hex);
  keyPath.updateInput(0, { tapInternalKey: seller.xOnly, tapMerkleRoot: co.merkleRoot, tapLeafScript: [] }, true);
  signInput(keyPath, 0, seller, SigHash.SINGLE_ANYONECANPAY);
  assert.ok(keyPath.getInput(0).tapKeySig, 'the wallet signed the key path');
  const refusedHalf = await attachAndList(m, d, seller, token, hex.encode(keyPath.toPSBT()));
  assert.equal(refusedHalf.status, 422, JSON.stringify(refusedHalf.body));
  assert.equal(refusedHalf.body.code, 'signature_invalid', JSON.stringify(refusedHalf.body));

  const ok = await attachAndList(m, d, seller, token, signLeafHalf(d.listing.psbt_hex, seller));
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  await m.mine();
  await m.sync();
  const l = await listingRow(m, ok.body.result.listing_id as string);
  assert.deepEqual([l.state, l.protocol_subtype, l.utxo_outpoint], ['active', 'cosigned', `${d.expected_txid}:0`]);
  assert.equal(await heldOn(m, l.utxo_outpoint, asset), 1n, 'Counterparty credits the unit to the co-signed output');

  // The checkout: quote, the buyer signs, the market co-signs at completion.
  const buyer = await newBuyer(m, 'p2wpkh', 'cosigned', [200_000]);
  const sniper = makeWallet('p2wpkh', 'cosigned-sniper');
  const sniperCoin = await m.fund(sniper, 100_000);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], delivery_address: buyer.w.address, fee_rate: 2 });
  assert.equal(psbtOf(q.psbt_hex).getInput(1).tapScriptSig, undefined, 'the quote does not publish the seller signature');
  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.result.txid, q.expected_txid);
  const entry = await m.ctx.chain.bitcoin.getMempoolEntry(q.expected_txid);
  assert.ok(entry && entry.fee_sats / entry.vsize >= 2, `the quoted rate holds with the leaf witness: ${JSON.stringify(entry)}`);

  // The witness: [market (64 bytes, DEFAULT), seller (65, 0x83), leaf, control].
  const journaled = (await m.ctx.chain.bitcoin.getTransaction(q.expected_txid))!.hex;
  const tx = rawOf(journaled);
  const w = tx.getInput(1).finalScriptWitness!;
  assert.equal(w.length, 4);
  assert.deepEqual([w[0]!.length, w[1]!.length, w[1]![64], hex.encode(w[2]!), hex.encode(w[3]!)], [64, 65, 0x83, hex.encode(co.leaf), hex.encode(co.control)]);
  const prevouts = [{ script: buyer.w.script, amount: BigInt(psbtOf(q.psbt_hex).getInput(0).witnessUtxo!.amount) }, { script: co.script, amount: 330n }];
  const allDigest = tx.preimageWitnessV1(1, prevouts.map((p) => p.script), 0, prevouts.map((p) => p.amount), undefined, co.leaf, TAPSCRIPT_LEAF_VERSION);
  assert.ok(verifySchnorr(w[0]!, allDigest, hex.decode(market.pubkey)), "item 0 is the market key's SIGHASH_DEFAULT signature over this transaction");

  // The sniper lifts the pair out of the relayed checkout into a full-RBF replacement paying
  // 5,000 sats (the checkout pays a few hundred): the fee rules would let it in, the script check
  // does not (the market's signature covers only the checkout), with or without that signature.
  const lifted = liftPair(tx, 1, co.script, sniper, sniperCoin, 5_000n);
  // Core's words (the real-Core lane sends the same lift to bitcoind): the market key's check fails.
  await assert.rejects(m.ctx.chain.bitcoin.broadcast(lifted.hex), /mandatory-script-verify-flag-failed \(Invalid Schnorr signature\), input 1 of/);
  // Without it the seller's signature still holds and the market's key finds nothing to check.
  lifted.updateInput(1, { finalScriptWitness: w.slice(1) }, true);
  await assert.rejects(m.ctx.chain.bitcoin.broadcast(lifted.hex), /mandatory-script-verify-flag-failed \(Operation not valid with the current stack size\), input 1 of/);
  assert.ok(await m.ctx.chain.bitcoin.getMempoolEntry(q.expected_txid), "the buyer's checkout stays in the mempool");

  // The signer co-signs that outpoint for this transaction only: the sniper's is refused, the same one answers the same signature.
  const ask = (psbt: Transaction) =>
    m.ctx.signer.cosignListing({ listing_id: l.id, outpoint: l.utxo_outpoint, tx_psbt_hex: hex.encode(psbt.toPSBT()), input_index: 1, leaf_script_hex: hex.encode(co.leaf), key_version: market.version });
  await assert.rejects(ask(lifted), (e: unknown) => e instanceof SignerRefused && e.code === 'listing_signed_other');
  const again = psbtOf(q.psbt_hex);
  assert.equal((await ask(again)).signature, hex.encode(w[0]!), 'the decision answers the recorded signature');

  // Mined, the unit is the buyer's and the seller is paid.
  await m.mine();
  await m.sync();
  assert.equal(await heldAt(m, buyer.w.address, asset), 1n);
  assert.equal((await m.ctx.chain.bitcoin.getTxOut(q.expected_txid, 1, true))?.address, seller.address);
  assert.equal((await listingRow(m, l.id)).state, 'sold');
  assert.deepEqual((await fillsOf(m, l.id)).map((f) => f.state), ['confirmed']);
});

void test('plain, the contrast: the same lift of a plain listing\'s pair replaces the relayed checkout and the sniper gets the unit', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'cosigned-contrast');
  const l = await listUnit(m, seller, 30_000);
  const buyer = await newBuyer(m, 'p2wpkh', 'cosigned-contrast', [200_000]);
  const sniper = makeWallet('p2wpkh', 'cosigned-contrast-sniper');
  const sniperCoin = await m.fund(sniper, 100_000);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], delivery_address: buyer.w.address, fee_rate: 2 });
  assert.equal((await complete(m, buyer, q.id, signQuote(q, buyer.w))).status, 200);
  const tx = rawOf((await m.ctx.chain.bitcoin.getTransaction(q.expected_txid))!.hex);

  const lifted = liftPair(tx, 1, seller.w.script, sniper, sniperCoin, 5_000n);
  assert.equal(await m.ctx.chain.bitcoin.broadcast(lifted.hex), lifted.id);
  assert.equal(await m.ctx.chain.bitcoin.getMempoolEntry(q.expected_txid), null, "the buyer's checkout was replaced");
  await m.mine();
  await m.sync();
  assert.equal(await heldOn(m, `${lifted.id}:0`, seller.asset), 1n, 'the sniper holds the unit');
  assert.equal(await heldAt(m, buyer.w.address, seller.asset), 0n);
});

void test('co-signed: a delisted listing is recorded at the signer, which never co-signs it; the seller takes the unit back by the key path', async () => {
  const seller = makeWallet('p2tr', 'cosigned-delist');
  await m.fund(seller, 60_000);
  const asset = await m.issue(seller, '1');
  const token = await m.signIn(seller);
  const { l } = await listCosigned(m, seller, token, asset, 25_000);
  const market = (await m.ctx.signer.info()).current;
  const co = cosignedOutput(seller.xOnly, hex.decode(market.pubkey), 'regtest');

  // A reprice: the batch template spends the co-signed output by its leaf; signed over the leaf it is taken.
  const pre = await m.call('POST', '/v1/listings/batch', token, { action: 'reprice_preflight', listings: [{ listing_id: l.id, price_sats: 27_000 }] });
  assert.equal(pre.status, 200, JSON.stringify(pre.body));
  const tpl = pre.body.result.listings[0].listing.psbt_hex as string;
  assert.equal(hex.encode(psbtOf(tpl).getInput(0).witnessUtxo!.script), hex.encode(co.script));
  const repriced = await m.call('POST', `/v1/listings/${l.id}/reprice`, token, { psbt_hex: signLeafHalf(tpl, seller) });
  assert.deepEqual([repriced.status, repriced.body.result?.price_sats], [200, 27_000], JSON.stringify(repriced.body));

  const buyer = await newBuyer(m, 'p2wpkh', 'cosigned-delist', [200_000]);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], delivery_address: buyer.w.address, fee_rate: 2 });
  assert.equal(q.totals.price_sats, 27_000);
  const del = await m.call('POST', `/v1/listings/${l.id}/delist`, token, {});
  assert.equal(del.status, 200, JSON.stringify(del.body));

  // The market refuses the ended listing; the signer, asked directly for that quote's transaction, refuses too.
  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.equal(r.status, 409, JSON.stringify(r.body));
  await assert.rejects(
    m.ctx.signer.cosignListing({ listing_id: l.id, outpoint: l.utxo_outpoint, tx_psbt_hex: q.psbt_hex, input_index: 1, leaf_script_hex: hex.encode(co.leaf), key_version: market.version }),
    (e: unknown) => e instanceof SignerRefused && e.code === 'listing_delisted',
  );
  // The seller's half is worthless alone: the unit stays on the co-signed output, the seller's to move by the key path.
  assert.equal(await heldOn(m, l.utxo_outpoint, asset), 1n);
  const before = await m.call('GET', '/v1/inventory/prepared', token);
  const unit = before.body.result.find((u: Record<string, any>) => u.asset === asset);
  assert.deepEqual([unit?.custody, `${unit?.asset_utxo.txid}:${unit?.asset_utxo.vout}`, unit?.listing_id], ['cosigned', l.utxo_outpoint, null]);

  const at = { txid: l.utxo_txid, vout: l.utxo_vout };
  const stranger = await m.call('POST', '/v1/inventory/cosigned-withdrawals', buyer.token, { asset_utxo: at, fee_rate: 2 });
  assert.equal(stranger.status, 404, JSON.stringify(stranger.body));
  const wd = await m.call('POST', '/v1/inventory/cosigned-withdrawals', token, { asset_utxo: at, fee_rate: 2 });
  assert.equal(wd.status, 200, JSON.stringify(wd.body));
  assert.deepEqual([wd.body.result.tap_internal_key, wd.body.result.tap_merkle_root], [hex.encode(seller.xOnly), hex.encode(co.merkleRoot)]);
  // The seller's wallet signs the key path from those fields alone (no leaf, no market).
  const signed = psbtOf(wd.body.result.psbt_hex as string);
  for (const i of wd.body.result.inputs_to_sign as number[]) signInput(signed, i, seller, SigHash.DEFAULT);
  signed.finalize();
  assert.equal(signed.getInput(0).finalScriptWitness?.length, 1, 'a key-path spend: one signature');
  assert.equal(await m.ctx.chain.bitcoin.broadcast(signed.hex), wd.body.result.expected_txid);
  await m.mine();
  await m.sync();
  assert.equal(await heldOn(m, `${wd.body.result.expected_txid}:0`, asset), 1n, 'the unit moved to output 0, at the seller address');
  const after = (await m.call('GET', '/v1/inventory/prepared', token)).body.result.find((u: Record<string, any>) => u.asset === asset);
  assert.deepEqual([after?.custody, after?.asset_utxo.txid], ['address', wd.body.result.expected_txid]);
});

/**
 * A buyer completes a checkout of listing `id` (the signer co-signs it), then replaces it with a
 * self-send of the same coin (full-RBF), mined: the checkout is conflicted, its co-signature
 * stands at the signer, and the listing is released. Returns that dead checkout's quote.
 */
async function griefedCheckout(id: string, label: string) {
  const griefer = await newBuyer(m, 'p2wpkh', label, [200_000]);
  const q1 = await quoteOk(m, griefer, { lines: [{ listing_id: id }], delivery_address: griefer.w.address, fee_rate: 2 });
  assert.equal((await complete(m, griefer, q1.id, signQuote(q1, griefer.w))).status, 200);
  const in0 = psbtOf(q1.psbt_hex).getInput(0);
  const coin = { txid: hex.encode(in0.txid!), vout: in0.index!, amount: in0.witnessUtxo!.amount, prevTx: new Uint8Array() };
  await m.ctx.chain.bitcoin.broadcast(buildTx([{ wallet: griefer.w, coin }], [{ script: griefer.w.script, amount: coin.amount - 5_000n }]));
  await m.mine();
  await m.sync();
  assert.equal((await m.ctx.journal.byTxid(m.ctx.store.db, q1.expected_txid))?.state, 'conflicted');
  assert.equal((await listingRow(m, id)).state, 'active', 'the listing is released');
  return q1;
}

void test('co-signed: a delist while a dead checkout\'s co-signature stands at the signer is recorded there; the listing is never co-signed again', async () => {
  const seller = makeWallet('p2tr', 'cosigned-dead-delist');
  await m.fund(seller, 60_000);
  const asset = await m.issue(seller, '1');
  const token = await m.signIn(seller);
  const { l } = await listCosigned(m, seller, token, asset, 23_000);
  const q1 = await griefedCheckout(l.id, 'cosigned-dead-delist');
  const buyer = await newBuyer(m, 'p2wpkh', 'cosigned-dead-delist-2', [200_000]);
  const q2 = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], delivery_address: buyer.w.address, fee_rate: 2 });

  assert.equal((await m.call('POST', `/v1/listings/${l.id}/delist`, token, {})).status, 200);
  assert.equal((await complete(m, buyer, q2.id, signQuote(q2, buyer.w))).status, 409, 'the market refuses the ended listing');
  // The signer, asked directly with the dead checkout named as superseded (what the market would send), refuses too.
  const market = (await m.ctx.signer.info()).current;
  const co = cosignedOutput(seller.xOnly, hex.decode(market.pubkey), 'regtest');
  await assert.rejects(
    m.ctx.signer.cosignListing({ listing_id: l.id, outpoint: l.utxo_outpoint, tx_psbt_hex: q2.psbt_hex, input_index: 1, leaf_script_hex: hex.encode(co.leaf), key_version: market.version, supersedes_txid: q1.expected_txid }),
    (e: unknown) => e instanceof SignerRefused && e.code === 'listing_delisted',
  );
  assert.equal(await heldOn(m, l.utxo_outpoint, asset), 1n, 'the unit never moved');
});

void test('co-signed: a buyer who double-spends its checkout does not make the listing unsellable; the signer supersedes only the dead transaction', async () => {
  const seller = makeWallet('p2tr', 'cosigned-grief');
  await m.fund(seller, 60_000);
  const asset = await m.issue(seller, '1');
  const { l } = await listCosigned(m, seller, await m.signIn(seller), asset, 22_000);

  const q1 = await griefedCheckout(l.id, 'cosigned-grief');

  // Another buyer: the signer's decision for the outpoint names the dead checkout, which the market proves dead from its journal.
  const buyer = await newBuyer(m, 'p2wpkh', 'cosigned-after-grief', [200_000]);
  const q2 = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], delivery_address: buyer.w.address, fee_rate: 2 });
  const r = await complete(m, buyer, q2.id, signQuote(q2, buyer.w));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await m.mine();
  await m.sync();
  assert.equal(await heldAt(m, buyer.w.address, asset), 1n);

  // Superseding needs the dead transaction's txid: a live decision is never replaced by naming another.
  const market = (await m.ctx.signer.info()).current;
  const co = cosignedOutput(seller.xOnly, hex.decode(market.pubkey), 'regtest');
  await assert.rejects(
    m.ctx.signer.cosignListing({ listing_id: l.id, outpoint: l.utxo_outpoint, tx_psbt_hex: q1.psbt_hex, input_index: 1, leaf_script_hex: hex.encode(co.leaf), key_version: market.version, supersedes_txid: q1.expected_txid }),
    (e: unknown) => e instanceof SignerRefused && e.code === 'listing_signed_other' && e.extras.signed_txid === q2.expected_txid,
  );
});

void test('co-signed, reuse mode: a unit already attached at the seller address is moved into its co-signed output by one signed transaction, then listed', async () => {
  const seller = makeWallet('p2tr', 'cosigned-move');
  await m.fund(seller, 60_000);
  const asset = await m.issue(seller, '1');
  const at = await m.attachDirect(seller, asset);
  const token = await m.signIn(seller);
  const market = (await m.ctx.signer.info()).current;
  const co = cosignedOutput(seller.xOnly, hex.decode(market.pubkey), 'regtest');

  const r = await m.call('POST', '/v1/listing-preflights', token, {
    seller: seller.address, asset, quantity_raw: '1', mode: 'reuse', asset_utxo: at, price_sats: 40_000, protocol_subtype: 'cosigned',
    seller_tap_internal_key: hex.encode(seller.xOnly), fee_rate: 2, idempotency_key: 'cosigned-move',
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const d = r.body.result as Record<string, any>;
  assert.deepEqual([d.mode, d.status, d.fees.protocol.amount_raw], ['reuse', 'awaiting_attach_signature', '0']);
  // The move: the unit's output at input 0, no message, output 0 the co-signed output (where Counterparty moves the unit).
  const move = psbtOf(d.attach.psbt_hex);
  assert.equal(`${hex.encode(move.getInput(0).txid!)}:${move.getInput(0).index}`, `${at.txid}:${at.vout}`);
  assert.equal(hex.encode(move.getOutput(0).script!), hex.encode(co.script));
  assert.ok(Array.from({ length: move.outputsLength }, (_, i) => move.getOutput(i).script![0]).every((b) => b !== 0x6a), 'no OP_RETURN');

  const listed = await attachAndList(m, d, seller, token, signLeafHalf(d.listing.psbt_hex, seller));
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  await m.mine();
  await m.sync();
  const l = await listingRow(m, listed.body.result.listing_id as string);
  assert.deepEqual([l.state, l.protocol_subtype, l.utxo_outpoint], ['active', 'cosigned', `${d.expected_txid}:0`]);
  assert.equal(await heldOn(m, l.utxo_outpoint, asset), 1n);
  assert.equal(await heldOn(m, `${at.txid}:${at.vout}`, asset), 0n);

  // Exact offers reach the co-signed unit: the template spends it by its leaf (no key path offered) and pays the seller's address.
  const bidder = await newBidder(m);
  const placed = await placeFunded(m, bidder, 45_000, 1, [{ scope: 'asset', asset }]);
  await m.mine(3);
  await m.sync();
  const auth = await m.call('POST', `/v1/offers/${placed.funding_slots[0]!.offer_ids[0]}/exact-authorizations`, bidder.token, { outpoints: [{ txid: l.utxo_txid, vout: l.utxo_vout }], fee_rate: 2 });
  assert.equal(auth.status, 200, JSON.stringify(auth.body));
  const tpl = psbtOf(auth.body.result[0].psbt_hex as string);
  assert.deepEqual([auth.body.result[0].seller, tpl.getInput(1).tapLeafScript?.length, tpl.getInput(1).tapInternalKey], [seller.address, 1, undefined]);
  assert.equal(hex.encode(tpl.getOutput(1).script!), hex.encode(seller.script), "the proceeds go to the seller's own address");
});

void test('co-signed: a co-signature whose checkout was never journaled (the market stopped before its commit) does not block the next buyer', async () => {
  const seller = makeWallet('p2tr', 'cosigned-crash');
  await m.fund(seller, 60_000);
  const asset = await m.issue(seller, '1');
  const { l } = await listCosigned(m, seller, await m.signIn(seller), asset, 26_000);
  const market = (await m.ctx.signer.info()).current;
  const co = cosignedOutput(seller.xOnly, hex.decode(market.pubkey), 'regtest');

  // As the completion does with the claims held, then the process dies before the commit: the signer has a decision, the journal nothing.
  const first = await newBuyer(m, 'p2wpkh', 'cosigned-crash-a', [200_000]);
  const qa = await quoteOk(m, first, { lines: [{ listing_id: l.id }], delivery_address: first.w.address, fee_rate: 2 });
  await m.ctx.signer.cosignListing({ listing_id: l.id, outpoint: l.utxo_outpoint, tx_psbt_hex: qa.psbt_hex, input_index: 1, leaf_script_hex: hex.encode(co.leaf), key_version: market.version });
  assert.equal(await m.ctx.journal.byTxid(m.ctx.store.db, qa.expected_txid), undefined);

  const next = await newBuyer(m, 'p2wpkh', 'cosigned-crash-b', [200_000]);
  const qb = await quoteOk(m, next, { lines: [{ listing_id: l.id }], delivery_address: next.w.address, fee_rate: 2 });
  const r = await complete(m, next, qb.id, signQuote(qb, next.w));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  // Now the live checkout's decision stands: the first quote's transaction is refused.
  await assert.rejects(
    m.ctx.signer.cosignListing({ listing_id: l.id, outpoint: l.utxo_outpoint, tx_psbt_hex: qa.psbt_hex, input_index: 1, leaf_script_hex: hex.encode(co.leaf), key_version: market.version }),
    (e: unknown) => e instanceof SignerRefused && e.code === 'listing_signed_other' && e.extras.signed_txid === qb.expected_txid,
  );
  assert.equal((await complete(m, first, qa.id, signQuote(qa, first.w))).status, 409);
});
