/**
 * Offers reach co-signed units (issue 18 item 2: "exact-offer and policy accepts of a co-signed
 * unit work too"), with real keys on the devnet: the seller signs the unit's leaf, the market
 * signer co-signs the exact journaled transaction (its signature first in the witness), the unit
 * reaches the bidder and the listing on it is sold. A key-path signature is not taken. The
 * signer's one decision per outpoint is shared by checkouts and accepts: a checkout of the
 * co-signed listing racing an exact accept of the same unit has exactly one winner, and the
 * signer refuses the loser's transaction; a delisted listing is refused at the signer while the
 * seller's own accept goes through; a soft cancel recorded at the signer first refuses the
 * collection-offer accept before the unit is ever co-signed.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { openMarket, type Market } from '../helpers/market.js';
import { makeWallet, signInput, signMessageBip322, type TestWallet } from '../helpers/wallets.js';
import { cancelMessage } from '../../src/modules/policy-offers/rules.js';
import { complete, heldAt, heldOn, listingRow, newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';
import { listCosigned, psbtOf } from '../helpers/cosigned.js';
import { authorizeOne, newBidder, placeFunded } from '../offers/exact-helpers.js';
import { acceptQuote, fillPool, placePolicy } from '../policy-offers/policy-helpers.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { TAPSCRIPT_LEAF_VERSION, verifySchnorr } from '../../src/bitcoin/taproot.js';
import { cosignedOutput, type CosignedOutput } from '../../src/counterparty/cosigned-listing.js';
import { SignerRefused } from '../../src/signer/port.js';

let m: Market;
let seller: TestWallet;
let token: string;
let asset: string;
let market: { pubkey: string; version: number };
let co: CosignedOutput;

before(async () => {
  m = await openMarket({ ANCHOR_POOL_SIZE: '3' });
  seller = makeWallet('p2tr', 'cso-seller');
  await m.fund(seller, 200_000);
  asset = await m.issue(seller, '6');
  token = await m.signIn(seller);
  await importCatalog(m.ctx.store.db, { collections: [{ slug: 'cso', name: 'CSO' }], artists: [], assets: [{ asset, collection: 'cso', max_supply_units: 6 }] });
  market = (await m.ctx.signer.info()).current;
  co = cosignedOutput(seller.xOnly, hex.decode(market.pubkey), 'regtest');
  await fillPool(m);
});
after(async () => m?.close());

const rawOf = (h: string) => Transaction.fromRaw(hex.decode(h), { ...READ_TX_OPTS, disableScriptCheck: true } as never);

/** The seller's wallet signs input `i` of a template as offered: the leaf (the template names no internal key). */
function signLeaf(psbtHex: string, i: number, sighash: number = SigHash.DEFAULT): string {
  const tx = psbtOf(psbtHex);
  signInput(tx, i, seller, sighash);
  assert.ok(tx.getInput(i).tapScriptSig?.length && !tx.getInput(i).tapKeySig, 'a leaf signature, no key path');
  return hex.encode(tx.toPSBT());
}

/** The journaled transaction's input `i` witness: [market 64 bytes DEFAULT over this tx, seller, leaf, control]. */
async function assertCosignedWitness(txid: string, i: number, prevouts: { script: Uint8Array; amount: bigint }[]) {
  const tx = rawOf((await m.ctx.chain.bitcoin.getTransaction(txid))!.hex);
  const w = tx.getInput(i).finalScriptWitness!;
  assert.deepEqual([w.length, w[0]!.length, hex.encode(w[2]!), hex.encode(w[3]!)], [4, 64, hex.encode(co.leaf), hex.encode(co.control)]);
  const digest = tx.preimageWitnessV1(i, prevouts.map((p) => p.script), 0, prevouts.map((p) => p.amount), undefined, co.leaf, TAPSCRIPT_LEAF_VERSION);
  assert.ok(verifySchnorr(w[0]!, digest, hex.decode(market.pubkey)), "item 0 is the market key's SIGHASH_DEFAULT signature over this very transaction");
}

const prevoutsOf = (psbtHex: string) => {
  const tx = psbtOf(psbtHex);
  return Array.from({ length: tx.inputsLength }, (_, i) => tx.getInput(i).witnessUtxo!);
};

/** A funded bid on the asset, its slot confirmed, and an active authorization over `unit` (3 confirmations reached). */
async function authorized(unit: { txid: string; vout: number }, price = 45_000) {
  const b = await newBidder(m);
  const receive = (await newBidder(m, [])).w.address;
  const placed = await placeFunded(m, b, price, 1, [{ scope: 'asset', asset }], { receive });
  await m.mine(3);
  await m.sync();
  const { a, act } = await authorizeOne(m, b, placed.funding_slots[0]!.offer_ids[0]!, unit, 10);
  assert.equal(act.status, 200, JSON.stringify(act.body));
  return { b, receive, a };
}

const acceptPreflight = async (id: string) => {
  const pf = await m.call('POST', `/v1/exact-offer-authorizations/${id}/accept-preflight`, token, {});
  assert.equal(pf.status, 200, JSON.stringify(pf.body));
  return pf.body.result as Record<string, any>;
};
const acceptExact = (id: string, psbtHex: string) => m.call('POST', `/v1/exact-offer-authorizations/${id}/accept`, token, { psbt_hex: psbtHex });

void test('exact offer on a listed co-signed unit: the seller signs the leaf, the signer co-signs the parent, the unit reaches the bidder and the listing is sold', async () => {
  const { l } = await listCosigned(m, seller, token, asset, 60_000);
  const unit = { txid: l.utxo_txid, vout: l.utxo_vout };
  const { receive, a } = await authorized(unit);
  assert.equal(a.seller, seller.address, "the co-signed output's seller holds the unit");

  const inbox = await m.call('GET', `/v1/address/${seller.address}/exact-offers`, token);
  assert.ok(inbox.body.result.some((r: any) => r.authorization_id === a.authorization_id), JSON.stringify(inbox.body));
  const pf = await acceptPreflight(a.authorization_id);
  assert.equal(pf.unit_custody, 'cosigned');
  const tpl = psbtOf(pf.psbt_hex);
  assert.deepEqual([tpl.getInput(1).tapLeafScript?.length, tpl.getInput(1).tapInternalKey], [1, undefined], 'the leaf is offered, the key path is not');
  assert.equal(hex.encode(tpl.getOutput(1).script!), hex.encode(seller.script), "proceeds to the seller's own address");

  // A key-path signature over this very parent is not taken: the market signer's co-signature is what completes the unit's spend.
  const keyPath = psbtOf(pf.psbt_hex);
  keyPath.updateInput(1, { tapInternalKey: seller.xOnly, tapMerkleRoot: co.merkleRoot, tapLeafScript: [] }, true);
  signInput(keyPath, 1, seller, SigHash.DEFAULT);
  const onlyKeyPath = psbtOf(pf.psbt_hex);
  onlyKeyPath.updateInput(1, { tapKeySig: keyPath.getInput(1).tapKeySig! }, true);
  const refused = await acceptExact(a.authorization_id, hex.encode(onlyKeyPath.toPSBT()));
  assert.equal(refused.status, 422, JSON.stringify(refused.body));
  assert.equal(refused.body.code, 'signature_invalid');
  assert.equal((await listingRow(m, l.id)).state, 'active', 'nothing was claimed');

  const r = await acceptExact(a.authorization_id, signLeaf(pf.psbt_hex, 1));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.result.txid, pf.expected_txid);
  assert.equal((await listingRow(m, l.id)).state, 'reserved', 'the accept claimed the listing of the unit');
  await assertCosignedWitness(pf.expected_txid, 1, prevoutsOf(pf.psbt_hex));
  // The same bytes again: the settlement as it stands.
  const again = await acceptExact(a.authorization_id, signLeaf(pf.psbt_hex, 1));
  assert.deepEqual([again.status, again.body.result?.already_completed], [200, true], JSON.stringify(again.body));

  await m.mine();
  await m.sync();
  assert.equal(await heldAt(m, receive, asset), 1n, "the detach delivered the unit to the bidder's receive address");
  assert.equal(await heldOn(m, l.utxo_outpoint, asset), 0n);
  assert.equal((await listingRow(m, l.id)).state, 'sold');
  const fills = await m.ctx.store.db.selectFrom('fills').select(['state', 'kind']).where('txid', '=', pf.expected_txid).execute();
  assert.deepEqual(fills.map((f) => [f.kind, f.state]), [['offer', 'confirmed']]);
});

void test('a checkout of the co-signed listing races an exact accept of the same unit: exactly one wins, and the signer refuses the other transaction', async () => {
  const { l } = await listCosigned(m, seller, token, asset, 40_000);
  const unit = { txid: l.utxo_txid, vout: l.utxo_vout };
  const { receive, a } = await authorized(unit);
  const pf = await acceptPreflight(a.authorization_id);
  const signed = signLeaf(pf.psbt_hex, 1);
  const buyer = await newBuyer(m, 'p2wpkh', 'cso-race', [200_000]);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], delivery_address: buyer.w.address, fee_rate: 2 });

  const [rc, ra] = await Promise.all([complete(m, buyer, q.id, signQuote(q, buyer.w)), acceptExact(a.authorization_id, signed)]);
  assert.deepEqual([rc.status, ra.status].sort(), [200, 409], JSON.stringify([rc.body, ra.body]));
  const checkoutWon = rc.status === 200;
  const winner = checkoutWon ? q.expected_txid : pf.expected_txid;
  const claims = await m.ctx.store.db.selectFrom('outpoint_claims').selectAll().where('outpoint', '=', l.utxo_outpoint).execute();
  assert.equal(claims.length, 1, 'one claim on the unit');

  // The signer's decision for the outpoint names the winner: the loser's transaction is refused.
  const ask = (id: string, psbtHex: string) =>
    m.ctx.signer.cosignListing({ listing_id: id, outpoint: l.utxo_outpoint, tx_psbt_hex: psbtHex, input_index: 1, leaf_script_hex: hex.encode(co.leaf), key_version: market.version });
  await assert.rejects(
    checkoutWon ? ask(a.authorization_id, pf.psbt_hex) : ask(l.id, q.psbt_hex),
    (e: unknown) => e instanceof SignerRefused && e.code === 'listing_signed_other' && e.extras.signed_txid === winner,
  );

  await m.mine();
  await m.sync();
  assert.equal(await heldAt(m, checkoutWon ? buyer.w.address : receive, asset), 1n, 'the unit moved once, to the winner');
  assert.equal(await heldAt(m, checkoutWon ? receive : buyer.w.address, asset), 0n);
  assert.equal((await listingRow(m, l.id)).state, 'sold');
  const auth = await m.ctx.store.db.selectFrom('exact_authorizations').select(['state', 'end_reason']).where('id', '=', a.authorization_id).executeTakeFirstOrThrow();
  assert.deepEqual([auth.state, auth.end_reason], checkoutWon ? ['retired', 'asset_moved'] : ['used', null]);
});

void test('a delisted co-signed listing is refused at the signer, while the seller\'s own exact accept of the unit goes through', async () => {
  const { l } = await listCosigned(m, seller, token, asset, 50_000);
  const { receive, a } = await authorized({ txid: l.utxo_txid, vout: l.utxo_vout });
  const buyer = await newBuyer(m, 'p2wpkh', 'cso-delist', [200_000]);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], delivery_address: buyer.w.address, fee_rate: 2 });
  assert.equal((await m.call('POST', `/v1/listings/${l.id}/delist`, token, {})).status, 200);

  await assert.rejects(
    m.ctx.signer.cosignListing({ listing_id: l.id, outpoint: l.utxo_outpoint, tx_psbt_hex: q.psbt_hex, input_index: 1, leaf_script_hex: hex.encode(co.leaf), key_version: market.version }),
    (e: unknown) => e instanceof SignerRefused && e.code === 'listing_delisted',
  );
  assert.equal((await complete(m, buyer, q.id, signQuote(q, buyer.w))).status, 409);

  // The delist ends the listing, not the seller's later consent: its signature over the offer's parent is a decision of its own.
  const pf = await acceptPreflight(a.authorization_id);
  const r = await acceptExact(a.authorization_id, signLeaf(pf.psbt_hex, 1, SigHash.ALL));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  // The accept's co-signature took the unit's decision at the signer; the delist recorded before it
  // still refuses the old listing, even were the accept's transaction shown dead (superseded).
  for (const supersedes of [undefined, pf.expected_txid as string]) {
    await assert.rejects(
      m.ctx.signer.cosignListing({ listing_id: l.id, outpoint: l.utxo_outpoint, tx_psbt_hex: q.psbt_hex, input_index: 1, leaf_script_hex: hex.encode(co.leaf), key_version: market.version, ...(supersedes ? { supersedes_txid: supersedes } : {}) }),
      (e: unknown) => e instanceof SignerRefused && e.code === 'listing_delisted',
      `after the accept (supersedes ${supersedes ?? 'none'})`,
    );
  }
  await m.mine();
  await m.sync();
  assert.equal(await heldAt(m, receive, asset), 1n);
  assert.equal((await listingRow(m, l.id)).state, 'ended', 'the delisted listing stays ended');
});

void test('collection offer accepted with a co-signed unit: a cancel recorded at the signer first refuses before the unit is co-signed; another offer fills, the unit moves to the bidder', async () => {
  const { l } = await listCosigned(m, seller, token, asset, 90_000);
  const unit = { txid: l.utxo_txid, vout: l.utxo_vout };
  const [b1, b2] = [await newBidder(m, [200_000], 'p2tr'), await newBidder(m, [200_000], 'p2tr')];
  const cancelled = await placePolicy(m, b1.w, b1.token, [{ scope: 'collection', collection: 'cso', price_sats: 31_000 }]);
  const live = await placePolicy(m, b2.w, b2.token, [{ scope: 'collection', collection: 'cso', price_sats: 30_000 }]);

  // The bidder's soft cancel reaches the signer before the market records it (the race's other order).
  const { q: q1, signed: s1 } = await acceptQuote(m, seller, token, cancelled.pf.parent.expected_txid, unit);
  assert.equal(q1.status, 200, JSON.stringify(q1.body));
  const tpl = psbtOf(q1.body.result.psbt_hex);
  assert.deepEqual([tpl.getInput(1).tapLeafScript?.length, tpl.getInput(1).tapInternalKey], [1, undefined]);
  assert.equal(hex.encode(tpl.getOutput(1).script!), hex.encode(seller.script), "proceeds to the seller's own address");
  assert.equal(psbtOf(s1!).getInput(1).tapScriptSig?.length, 1, "the seller's wallet signed the leaf");
  const cp = cancelled.pf.parent.expected_txid as string;
  await m.ctx.signer.cancel({ parent_txid: cp, offer_id: q1.body.result.offer_id, address: b1.w.address, signature: signMessageBip322(b1.w, cancelMessage(cp)) });
  const r1 = await m.call('POST', '/v1/policy-accepts', token, { accept_id: q1.body.result.accept_id, psbt_hex: s1 });
  assert.equal(r1.status, 409, JSON.stringify(r1.body));
  assert.deepEqual([r1.body.code, r1.body.refusal_code], ['policy_offer_refused', 'alternative_cancelled']);
  assert.equal((await listingRow(m, l.id)).state, 'active', 'the claim transaction rolled back');

  const { q, signed } = await acceptQuote(m, seller, token, live.pf.parent.expected_txid, unit);
  assert.equal(q.status, 200, JSON.stringify(q.body));
  const r = await m.call('POST', '/v1/policy-accepts', token, { accept_id: q.body.result.accept_id, psbt_hex: signed });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const child = q.body.result.expected_txid as string;
  await assertCosignedWitness(child, 1, prevoutsOf(q.body.result.psbt_hex));
  // The unit's decision names this child: the cancelled offer's transaction is refused (it never held a co-signature).
  await assert.rejects(
    m.ctx.signer.cosignListing({ listing_id: q1.body.result.accept_id, outpoint: l.utxo_outpoint, tx_psbt_hex: q1.body.result.psbt_hex, input_index: 1, leaf_script_hex: hex.encode(co.leaf), key_version: market.version }),
    (e: unknown) => e instanceof SignerRefused && e.code === 'listing_signed_other' && e.extras.signed_txid === child,
  );

  await m.mine();
  await m.sync();
  // No message in the child: Counterparty moves the unit to its first output, the bidder's delivery.
  assert.equal(await heldOn(m, `${child}:0`, asset), 1n);
  assert.equal((await m.ctx.chain.bitcoin.getTxOut(child, 0, true))?.address, q.body.result.delivery.address);
  assert.equal((await listingRow(m, l.id)).state, 'sold');
});
