/**
 * The market signer: its own key file and decision log, one linearized decision per parent
 * (co-sign or cancel, never both), signed cancel receipts, versioned keys, durability across a
 * restart and a kill -9, and its HTTP face with a shared secret, in process and as its own process.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { p2tr, Script, TAPROOT_UNSPENDABLE_KEY, Transaction } from '@scure/btc-signer';
import { networkParams } from '../../src/bitcoin/networks.js';
import { TAPSCRIPT_LEAF_VERSION } from '../../src/bitcoin/taproot.js';
import { openSigner } from '../../src/signer/open.js';
import { revokeReceiptMessage } from '../../src/signer/listing-cosign.js';
import { HttpSigner, InProcessSigner, SignerRefused, SignerUnavailable } from '../../src/signer/port.js';
import { makeWallet, signMessageBip322 } from '../helpers/wallets.js';
import { alternativeReceiptMessage, cancelMessage } from '../../src/signer/messages.js';
import { cosignedOutput } from '../../src/counterparty/cosigned-listing.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { testApp } from '../helpers/app.js';
import { entryArgs } from '../../sim/processes.js';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-signer-test-'));
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const bidder = makeWallet('p2tr', 'signer-bidder');
const seller = makeWallet('p2wpkh', 'signer-seller');

/** A child spending `parent`:0 (an escrow whose leaf names the market key) and a seller input. */
function child(parent: string, marketKey: string, sellerSats = 55_000n) {
  const leaf = Script.encode([bidder.xOnly, 'CHECKSIGVERIFY', hex.decode(marketKey), 'CHECKSIG']);
  const escrow = p2tr(TAPROOT_UNSPENDABLE_KEY, [{ script: leaf }], networkParams('regtest'), true);
  const tx = new Transaction({ version: 3, allowUnknownOutputs: true });
  tx.addInput({ txid: parent, index: 0, witnessUtxo: { script: escrow.script, amount: 61_000n } });
  tx.addInput({ txid: 'cd'.repeat(32), index: 0, witnessUtxo: { script: seller.script, amount: 330n } });
  tx.addOutput({ script: seller.script, amount: sellerSats });
  const prevouts = [{ script: escrow.script, amount: 61_000n }, { script: seller.script, amount: 330n }];
  const msg = tx.preimageWitnessV1(0, prevouts.map((p) => p.script), 0, prevouts.map((p) => p.amount), undefined, leaf, TAPSCRIPT_LEAF_VERSION);
  return { psbt: hex.encode(tx.toPSBT()), leaf: hex.encode(leaf), msg, txid: tx.id };
}

const txid = () => crypto.randomBytes(32).toString('hex');

/** Two alternatives of one funding set (po_ ids as the market makes them). */
const OA = `po_${'a'.repeat(24)}`;
const OB = `po_${'b'.repeat(24)}`;
/** The bidder's soft cancel of `offer` over `parent`: the specification's message, signed with the bidder's real key. */
const cancelReq = (parent: string, offer = OA, wallet = bidder) => ({ parent_txid: parent, offer_id: offer, address: wallet.address, signature: signMessageBip322(wallet, cancelMessage(parent)) });

/** A checkout-like transaction spending a co-signed listing output `outpoint` at input 1 (buyer coin at 0). */
function listingTx(outpoint: string, marketKey: string, buyerSats = 90_000n) {
  const co = cosignedOutput(bidder.xOnly, hex.decode(marketKey), 'regtest');
  const [t, v] = outpoint.split(':');
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput({ txid: 'ab'.repeat(32), index: 0, witnessUtxo: { script: seller.script, amount: 100_000n } });
  tx.addInput({ txid: t!, index: Number(v), witnessUtxo: { script: co.script, amount: 330n } });
  tx.addOutput({ script: seller.script, amount: buyerSats });
  tx.addOutput({ script: bidder.script, amount: 9_000n });
  return { psbt: hex.encode(tx.toPSBT()), leaf: hex.encode(co.leaf), txid: tx.id };
}

describe('market signer (in process)', () => {
  void it('makes its key on first start, co-signs one child per parent with a verifiable signature, and repeats it', async () => {
    const dir = tmp();
    const { signer, close } = openSigner(dir, 'regtest', () => 1_700_000_000);
    const port = new InProcessSigner(signer);
    const info = await port.info();
    assert.equal(info.current.version, 1);
    assert.equal(fs.statSync(path.join(dir, 'keys.json')).mode & 0o777, 0o600);
    const parent = txid();
    const c = child(parent, info.current.pubkey);
    const r = await port.cosign({ offer_id: OA, parent_txid: parent, child_psbt_hex: c.psbt, input_index: 0, leaf_script_hex: c.leaf, key_version: 1 });
    assert.equal(r.child_txid, c.txid);
    assert.ok(schnorr.verify(hex.decode(r.signature), c.msg, hex.decode(info.current.pubkey)), 'a BIP-340 signature of the tapscript sighash');
    const again = await port.cosign({ offer_id: OA, parent_txid: parent, child_psbt_hex: c.psbt, input_index: 0, leaf_script_hex: c.leaf, key_version: 1 });
    assert.equal(again.signature, r.signature);
    assert.equal(again.already_signed, true);
    const other = child(parent, info.current.pubkey, 54_000n);
    await assert.rejects(port.cosign({ offer_id: OA, parent_txid: parent, child_psbt_hex: other.psbt, input_index: 0, leaf_script_hex: other.leaf, key_version: 1 }), (e) => e instanceof SignerRefused && e.code === 'already_signed_other');
    // A cancel after the signature: already_signed, nothing recorded as cancelled.
    const cx = await port.cancel(cancelReq(parent));
    assert.deepEqual([cx.cancelled, cx.already_signed, cx.receipt], [false, true, null]);
    close();
  });

  void it('never co-signs after a recorded cancel; the receipt is signed by the market key; a leaf without the key is refused', async () => {
    const { signer, close } = openSigner(tmp(), 'regtest', () => 1_700_000_100);
    const port = new InProcessSigner(signer);
    const key = (await port.info()).current;
    const parent = txid();
    const cx = await port.cancel(cancelReq(parent));
    assert.deepEqual([cx.cancelled, cx.already_signed, cx.recorded_at], [true, false, 1_700_000_100]);
    assert.ok(schnorr.verify(hex.decode(cx.receipt!.signature), sha256(new TextEncoder().encode(cx.receipt!.message)), hex.decode(key.pubkey)));
    assert.ok(cx.receipt!.message.includes(parent));
    assert.equal((await port.cancel(cancelReq(parent))).recorded_at, 1_700_000_100, 'the first recorded time stands');
    const c = child(parent, key.pubkey);
    await assert.rejects(port.cosign({ offer_id: OA, parent_txid: parent, child_psbt_hex: c.psbt, input_index: 0, leaf_script_hex: c.leaf, key_version: 1 }), (e) => e instanceof SignerRefused && e.code === 'alternative_cancelled');
    const stranger = child(txid(), hex.encode(makeWallet('p2tr', 'not-market').xOnly));
    await assert.rejects(port.cosign({ offer_id: OA, parent_txid: txid(), child_psbt_hex: stranger.psbt, input_index: 0, leaf_script_hex: stranger.leaf, key_version: 1 }), (e) => e instanceof SignerRefused);
    close();
  });

  void it('interleaved cancels and co-signatures over one parent: exactly one kind of decision, durable across a restart', async () => {
    const dir = tmp();
    let opened = openSigner(dir, 'regtest');
    const port = new InProcessSigner(opened.signer);
    const key = (await port.info()).current;
    const parent = txid();
    const c = child(parent, key.pubkey);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? port.cancel(cancelReq(parent)) : port.cosign({ offer_id: OA, parent_txid: parent, child_psbt_hex: c.psbt, input_index: 0, leaf_script_hex: c.leaf, key_version: 1 }))),
    );
    const signed = results.filter((r) => r.status === 'fulfilled' && 'signature' in r.value).length;
    const cancelled = results.filter((r) => r.status === 'fulfilled' && 'cancelled' in r.value && r.value.cancelled).length;
    assert.ok((signed === 0) !== (cancelled === 0), `one kind wins: ${signed} signed, ${cancelled} cancelled`);
    opened.close();
    opened = openSigner(dir, 'regtest');
    const after = await new InProcessSigner(opened.signer).cancel(cancelReq(parent));
    assert.equal(after.already_signed, signed > 0);
    opened.close();
  });

  void it('a cancel names one alternative: the signer verifies the bidder signature, refuses that alternative and co-signs its sibling; the receipt names it', async () => {
    let clock = 1_700_000_200;
    const { signer, close } = openSigner(tmp(), 'regtest', () => clock);
    const port = new InProcessSigner(signer);
    const key = (await port.info()).current;
    const parent = txid();
    const c = child(parent, key.pubkey);
    // A signature over another parent, or by another key for this address, records nothing.
    await assert.rejects(port.cancel({ ...cancelReq(parent), signature: cancelReq(txid()).signature }), (e) => e instanceof SignerRefused && e.code === 'bad_request');
    await assert.rejects(port.cancel({ ...cancelReq(parent, OA, seller), address: bidder.address }), (e) => e instanceof SignerRefused && e.code === 'bad_request');
    const cx = await port.cancel(cancelReq(parent, OA));
    assert.deepEqual([cx.offer_id, cx.cancelled, cx.already_signed, cx.recorded_at], [OA, true, false, 1_700_000_200]);
    assert.equal(cx.receipt!.message, alternativeReceiptMessage(parent, OA, 1_700_000_200));
    assert.ok(schnorr.verify(hex.decode(cx.receipt!.signature), sha256(new TextEncoder().encode(cx.receipt!.message)), hex.decode(key.pubkey)));
    clock += 50;
    assert.equal((await port.cancel(cancelReq(parent, OA))).recorded_at, 1_700_000_200, 'a repeat answers the first recorded time');
    await assert.rejects(port.cosign({ offer_id: OA, parent_txid: parent, child_psbt_hex: c.psbt, input_index: 0, leaf_script_hex: c.leaf, key_version: 1 }), (e) => e instanceof SignerRefused && e.code === 'alternative_cancelled');
    const sib = await port.cosign({ offer_id: OB, parent_txid: parent, child_psbt_hex: c.psbt, input_index: 0, leaf_script_hex: c.leaf, key_version: 1 });
    assert.ok(schnorr.verify(hex.decode(sib.signature), c.msg, hex.decode(key.pubkey)), 'the sibling is co-signed');
    const late = await port.cancel(cancelReq(parent, OB));
    assert.deepEqual([late.cancelled, late.already_signed, late.receipt], [false, true, null], 'a cancel after the co-signature: already_signed');
    assert.equal((await port.cancel(cancelReq(parent, OA))).cancelled, true, 'the first cancel still stands after its sibling was signed');
    close();
  });

  void it('two signers over one directory (two processes on one decision file): a cancel recorded by one is refused by the other, interleaved with co-signatures exactly one decision per alternative wins', async () => {
    const dir = tmp();
    const a = openSigner(dir, 'regtest');
    const b = openSigner(dir, 'regtest');
    try {
      const [pa, pb] = [new InProcessSigner(a.signer), new InProcessSigner(b.signer)];
      const key = (await pa.info()).current;
      assert.equal((await pb.info()).current.pubkey, key.pubkey, 'one key');
      const parent = txid();
      const c = child(parent, key.pubkey);
      await pa.cancel(cancelReq(parent, OA));
      await assert.rejects(pb.cosign({ offer_id: OA, parent_txid: parent, child_psbt_hex: c.psbt, input_index: 0, leaf_script_hex: c.leaf, key_version: 1 }), (e) => e instanceof SignerRefused && e.code === 'alternative_cancelled');
      const raced = txid();
      const rc = child(raced, key.pubkey);
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => {
          const port = i % 4 < 2 ? pa : pb;
          return i % 2 ? port.cancel(cancelReq(raced, OB)) : port.cosign({ offer_id: OB, parent_txid: raced, child_psbt_hex: rc.psbt, input_index: 0, leaf_script_hex: rc.leaf, key_version: 1 });
        }),
      );
      const signed = results.filter((r) => r.status === 'fulfilled' && 'signature' in r.value).length;
      const cancelled = results.filter((r) => r.status === 'fulfilled' && 'cancelled' in r.value && r.value.cancelled).length;
      assert.ok((signed === 0) !== (cancelled === 0), `one kind wins: ${signed} signed, ${cancelled} cancelled`);
    } finally {
      a.close();
      b.close();
    }
  });

  void it('a retired key never signs again; the next version does', async () => {
    const { signer, close } = openSigner(tmp(), 'regtest');
    const port = new InProcessSigner(signer);
    const v1 = (await port.info()).current;
    const v2 = signer.rotate();
    assert.equal(v2.version, 2);
    const parent = txid();
    const old = child(parent, v1.pubkey);
    await assert.rejects(port.cosign({ offer_id: OA, parent_txid: parent, child_psbt_hex: old.psbt, input_index: 0, leaf_script_hex: old.leaf, key_version: 1 }), (e) => e instanceof SignerRefused && e.code === 'key_retired');
    const fresh = child(parent, v2.pubkey);
    const r = await port.cosign({ offer_id: OA, parent_txid: parent, child_psbt_hex: fresh.psbt, input_index: 0, leaf_script_hex: fresh.leaf, key_version: 2 });
    assert.ok(schnorr.verify(hex.decode(r.signature), fresh.msg, hex.decode(v2.pubkey)));
    assert.deepEqual((await port.info()).keys.map((k) => [k.version, k.retired_at !== null]), [[1, true], [2, false]]);
    close();
  });
});

describe('co-signed listings: a recorded delist is permanent at the signer', () => {
  /** The in-process signer over `dir` at clock `at`, and a co-signature request for `listing` spending `op`. */
  const open = async (dir: string, at: number) => {
    const opened = openSigner(dir, 'regtest', () => at);
    const port = new InProcessSigner(opened.signer);
    const key = (await port.info()).current;
    const ask = (listing: string, op: string, l: ReturnType<typeof listingTx>, supersedes?: string) =>
      port.cosignListing({ listing_id: listing, outpoint: op, tx_psbt_hex: l.psbt, input_index: 1, leaf_script_hex: l.leaf, key_version: key.version, ...(supersedes ? { supersedes_txid: supersedes } : {}) });
    return { port, key, ask, close: opened.close };
  };
  const delisted = (e: unknown) => e instanceof SignerRefused && e.code === 'listing_delisted';

  void it('a delist recorded before an accept of the unit still refuses the listing after the accept took the outpoint, even were the accept shown dead; durable, with a receipt', async () => {
    const dir = tmp();
    let s = await open(dir, 1_700_000_200);
    const op = `${txid()}:0`;
    const rv = await s.port.revokeListing('lst_gone', op);
    assert.deepEqual([rv.revoked, rv.already_signed, rv.txid, rv.recorded_at], [true, false, null, 1_700_000_200]);
    assert.equal(rv.receipt.message, revokeReceiptMessage('lst_gone', op, 1_700_000_200));
    assert.equal(rv.receipt.pubkey, s.key.pubkey);
    assert.ok(schnorr.verify(hex.decode(rv.receipt.signature), sha256(new TextEncoder().encode(rv.receipt.message)), hex.decode(s.key.pubkey)), 'the receipt is signed by the market key');

    // The seller's own accept of an offer on the unit: a decision of its own, it is co-signed.
    const accept = listingTx(op, s.key.pubkey, 80_000n);
    assert.equal((await s.ask('acc_1', op, accept)).txid, accept.txid);
    const checkout = listingTx(op, s.key.pubkey, 90_000n);
    await assert.rejects(s.ask('lst_gone', op, checkout), delisted, 'the delist, not the accept, answers for the old listing');
    await assert.rejects(s.ask('lst_gone', op, checkout, accept.txid), delisted, 'superseding the accept never revives the delisted listing');
    s.close();

    s = await open(dir, 1_700_000_900);
    await assert.rejects(s.ask('lst_gone', op, checkout, accept.txid), delisted, 'after a restart too');
    assert.equal((await s.port.revokeListing('lst_gone', op)).recorded_at, 1_700_000_200, 'a repeat keeps the first recorded time');
    s.close();
  });

  void it('a delist arriving while another transaction\'s signature stands is recorded and refuses the listing later; its own released signature is reported, never reissued', async () => {
    const s = await open(tmp(), 1_700_000_300);
    // An accept's signature stands on the unit when the listing is delisted.
    const op = `${txid()}:1`;
    const accept = listingTx(op, s.key.pubkey, 80_000n);
    await s.ask('acc_2', op, accept);
    const rv = await s.port.revokeListing('lst_under_accept', op);
    assert.deepEqual([rv.revoked, rv.already_signed, rv.txid, rv.recorded_at], [true, false, null, 1_700_000_300]);
    await assert.rejects(s.ask('lst_under_accept', op, listingTx(op, s.key.pubkey, 90_000n), accept.txid), delisted, 'the accept died; the delisted listing still is not co-signed');

    // The listing's own checkout was co-signed (then died) before the delist.
    const op2 = `${txid()}:0`;
    const first = listingTx(op2, s.key.pubkey, 90_000n);
    const sig = await s.ask('lst_sold_then', op2, first);
    const rv2 = await s.port.revokeListing('lst_sold_then', op2);
    assert.deepEqual([rv2.revoked, rv2.already_signed, rv2.txid], [true, true, first.txid], 'the released signature is reported');
    await assert.rejects(s.ask('lst_sold_then', op2, listingTx(op2, s.key.pubkey, 85_000n), first.txid), delisted);
    await assert.rejects(s.ask('lst_sold_then', op2, first), delisted, 'not even the same transaction again');
    // Relisting the unit is a new listing id: it may supersede the dead transaction.
    const relist = listingTx(op2, s.key.pubkey, 70_000n);
    const r = await s.ask('lst_relisted', op2, relist, first.txid);
    assert.deepEqual([r.txid, r.signature === sig.signature], [relist.txid, false]);
    s.close();
  });

  void it('a decision file of version 0 (revokes kept as outpoint rows) is migrated: its delists still refuse, with their recorded time', async () => {
    const dir = tmp();
    const old = new Database(path.join(dir, 'listing-decisions.sqlite'));
    old.exec('CREATE TABLE listing_decisions (outpoint TEXT PRIMARY KEY, listing_id TEXT NOT NULL, state TEXT NOT NULL, txid TEXT, signature TEXT, key_version INTEGER, recorded_at INTEGER NOT NULL)');
    const op = `${txid()}:0`;
    old.prepare("INSERT INTO listing_decisions VALUES (?, 'lst_old', 'revoked', NULL, NULL, NULL, 1600000000)").run(op);
    old.close();
    const s = await open(dir, 1_700_000_400);
    await assert.rejects(s.ask('lst_old', op, listingTx(op, s.key.pubkey)), delisted);
    assert.equal((await s.port.revokeListing('lst_old', op)).recorded_at, 1_600_000_000);
    // The outpoint itself is free: another listing of the unit is co-signed.
    const other = listingTx(op, s.key.pubkey, 70_000n);
    assert.equal((await s.ask('lst_new', op, other)).txid, other.txid);
    s.close();
    const db = new Database(path.join(dir, 'listing-decisions.sqlite'), { readonly: true });
    try {
      assert.equal(db.pragma('user_version', { simple: true }), 1);
      assert.deepEqual(db.prepare('SELECT listing_id, state FROM listing_decisions').all(), [{ listing_id: 'lst_new', state: 'signed' }]);
    } finally {
      db.close();
    }
  });
});

describe('market signer (its own process)', () => {
  void it('serves over HTTP with the shared secret; killed with SIGKILL and restarted, it keeps its key and every decision (collection offers and co-signed listings)', { timeout: 90_000 }, async () => {
    const dir = tmp();
    const secret = crypto.randomBytes(24).toString('hex');
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const start = () => {
      const p = spawn(process.execPath, [...entryArgs('src/cli/main.ts'), 'signer'], { cwd: REPO_ROOT, env: { ...process.env, NETWORK: 'regtest', SIGNER_DIR: dir, SIGNER_SECRET: secret, SIGNER_PORT: String(port), LOG_LEVEL: 'silent' }, stdio: 'ignore' });
      return p;
    };
    const url = `http://127.0.0.1:${port}`;
    const client = new HttpSigner(url, secret, 2_000);
    const ready = async () => {
      for (let i = 0; i < 200; i++) {
        try {
          return await client.info();
        } catch {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      throw new Error('signer did not start');
    };
    let proc = start();
    try {
      const info = await ready();
      assert.ok((await fetch(`${url}/signer/keys`, { headers: { authorization: 'Bearer wrong' } })).status === 401);
      const parent = txid();
      const c = child(parent, info.current.pubkey);
      const signed = await client.cosign({ offer_id: OA, parent_txid: parent, child_psbt_hex: c.psbt, input_index: 0, leaf_script_hex: c.leaf, key_version: 1 });
      const cancelledParent = txid();
      assert.equal((await client.cancel(cancelReq(cancelledParent))).cancelled, true);
      // Co-signed listings over HTTP: one decision per outpoint, a delist recorded first stands.
      const [sold, delisted] = [`${txid()}:1`, `${txid()}:0`];
      const lt = listingTx(sold, info.current.pubkey);
      const ask = (op: string, l: ReturnType<typeof listingTx>, id = 'lst_a', supersedes?: string) =>
        client.cosignListing({ listing_id: id, outpoint: op, tx_psbt_hex: l.psbt, input_index: 1, leaf_script_hex: l.leaf, key_version: 1, ...(supersedes ? { supersedes_txid: supersedes } : {}) });
      const listingSig = await ask(sold, lt);
      assert.equal((await client.revokeListing('lst_b', delisted)).revoked, true);
      proc.kill('SIGKILL');
      await new Promise((r) => proc.once('exit', r));
      await assert.rejects(client.info(), (e) => e instanceof SignerUnavailable);
      proc = start();
      const again = await ready();
      assert.equal(again.current.pubkey, info.current.pubkey, 'the same key after a restart');
      assert.equal((await client.cosign({ offer_id: OA, parent_txid: parent, child_psbt_hex: c.psbt, input_index: 0, leaf_script_hex: c.leaf, key_version: 1 })).signature, signed.signature);
      const cc = child(cancelledParent, info.current.pubkey);
      await assert.rejects(client.cosign({ offer_id: OA, parent_txid: cancelledParent, child_psbt_hex: cc.psbt, input_index: 0, leaf_script_hex: cc.leaf, key_version: 1 }), (e) => e instanceof SignerRefused && e.code === 'alternative_cancelled');
      assert.equal((await client.cosign({ offer_id: OB, parent_txid: cancelledParent, child_psbt_hex: cc.psbt, input_index: 0, leaf_script_hex: cc.leaf, key_version: 1 })).child_txid, cc.txid, 'its sibling is still co-signed');
      await assert.rejects(client.cancel({ ...cancelReq(txid()), signature: 'AA==' }), (e) => e instanceof SignerRefused && e.code === 'bad_request', 'the signer checks the bidder signature itself');
      await assert.rejects(client.cancel({ ...cancelReq(txid()), offer_id: 'anything' }), (e) => e instanceof SignerRefused && e.code === 'bad_request');
      assert.equal((await ask(sold, lt)).signature, listingSig.signature, 'the journaled transaction gets the recorded signature again');
      const other = listingTx(sold, info.current.pubkey, 80_000n);
      await assert.rejects(ask(sold, other), (e) => e instanceof SignerRefused && e.code === 'listing_signed_other' && e.extras.signed_txid === lt.txid);
      await assert.rejects(ask(sold, other, 'lst_a', txid()), (e) => e instanceof SignerRefused && e.code === 'listing_signed_other', 'only the recorded txid can be superseded');
      assert.equal((await ask(sold, other, 'lst_a', lt.txid)).txid, other.txid, 'superseding the recorded (dead) transaction');
      await assert.rejects(ask(delisted, listingTx(delisted, info.current.pubkey), 'lst_b'), (e) => e instanceof SignerRefused && e.code === 'listing_delisted');
    } finally {
      proc.kill('SIGKILL');
    }
  });

  void it('the API publishes the signer key; with the signer unreachable it answers 503 service_unavailable and nothing else breaks', async () => {
    const t = await testApp();
    try {
      const r = await t.app.inject({ method: 'GET', url: '/v1/market-signer' });
      assert.equal(r.statusCode, 200, r.body);
      const body = JSON.parse(r.body).result;
      assert.equal(body.current.version, 1);
      assert.ok(body.refusal_codes.includes('parent_cancelled'));
    } finally {
      await t.close();
    }
    const down = await testApp({ env: { SIGNER_URL: 'http://127.0.0.1:9', SIGNER_SECRET: 'x'.repeat(32) } });
    try {
      const r = await down.app.inject({ method: 'GET', url: '/v1/market-signer' });
      assert.equal(r.statusCode, 503, r.body);
      assert.equal(JSON.parse(r.body).code, 'service_unavailable');
      assert.equal((await down.app.inject({ method: 'GET', url: '/v1/collections' })).statusCode, 200);
    } finally {
      await down.close();
    }
  });
});


describe('market signer on a fresh data directory', () => {
  void it('opens over a directory that does not exist yet (DATA_DIR/signer on a first start), creating it 0700', () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-signer-fresh-')), 'data', 'signer');
    const { signer, close } = openSigner(dir, 'regtest');
    try {
      assert.equal(signer.info().current.version, 1);
      assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    } finally {
      close();
    }
  });
});
