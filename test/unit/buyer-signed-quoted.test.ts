/**
 * buyerSigned's fast check (src/trade/signed.ts): a signed PSBT whose unsigned transaction has
 * the quoted txid and whose prevouts are the quoted ones is taken without reading the quote's
 * PSBT; anything else falls back to the comparison with the quote's PSBT, which names the
 * difference. Either way the checks are the same: template_mismatch, signature_invalid.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { ApiError } from '../../src/http/errors.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { buildCheckoutPsbt, planCheckout, type CheckoutPlan, type CheckoutShape } from '../../src/trade/compose.js';
import { buyerSigned, buyerHalf, withSellers, type QuotedTransaction } from '../../src/trade/signed.js';
import { makeWallet, signInput } from '../helpers/wallets.js';

const buyer = makeWallet('p2wpkh', 'quoted-buyer');
const seller = makeWallet('p2wpkh', 'quoted-seller');
const fee = makeWallet('p2wpkh', 'quoted-fee');
const stranger = makeWallet('p2wpkh', 'quoted-stranger');
const txid = (n: number) => n.toString(16).padStart(64, '0');

const shape: CheckoutShape = {
  version: 2,
  lockTime: 0,
  buyerScript: buyer.script,
  buyerSpend: 'p2wpkh',
  buyerDust: 294,
  pairs: [{ txid: txid(1), index: 0, sequence: 0xffffffff, prevout: { script: seller.script, amount: 330n }, output: { script: seller.script, amount: 20_000n }, spend: 'p2wpkh' }],
  delivery: { mode: 'attached', address: buyer.address, script: buyer.script },
  platformFee: { script: fee.script, sats: 546 },
  network: 'regtest',
};
const plan = planCheckout(shape, [{ txid: txid(2), vout: 1, value_sats: 100_000 }], 2) as CheckoutPlan;
const built = buildCheckoutPsbt(shape, plan);
const quoted: QuotedTransaction = {
  txid: built.expected_txid,
  fee: BigInt(plan.network_fee_sats),
  prevouts: [{ script: buyer.script }, { script: seller.script, amount: 330n }],
};

const parse = (h: string) => Transaction.fromPSBT(hex.decode(h), READ_TX_OPTS);
const edit = (h: string, f: (tx: Transaction) => void) => {
  const tx = parse(h);
  f(tx);
  return hex.encode(tx.toPSBT());
};
/** The buyer's signature on input 0 of `h` (with `sighash`), as a wallet would add it. */
const signed = (h: string, sighash: number = SigHash.ALL, wallet = buyer) => edit(h, (tx) => signInput(tx, 0, wallet, sighash));
const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return `${e.code}: ${e.message}`;
    throw e;
  }
  return 'ok';
};

void test('the quoted transaction is taken without the quote\'s PSBT, and merges as the quote\'s PSBT would', () => {
  const psbt = signed(built.psbt_hex);
  // The quote's PSBT is not read: an unreadable one makes no difference.
  const fast = buyerSigned(psbt, 'not a psbt', built.inputs_to_sign, buyer.address, 'regtest', { quoted });
  const slow = buyerSigned(psbt, built.psbt_hex, built.inputs_to_sign, buyer.address, 'regtest');
  assert.deepEqual(fast.toPSBT(), slow.toPSBT());
  assert.equal(fast.getInput(0).partialSig, undefined);
  assert.equal(fast.getInput(0).finalScriptWitness?.length, 2);
  // And the seller's half completes both into the same network transaction.
  const half = parse(edit(built.psbt_hex, (tx) => signInput(tx, 1, seller, SigHash.SINGLE_ANYONECANPAY)));
  const sellers = [{ index: 1, seller: seller.address, listing_id: 'lst_1', sig: { partialSig: half.getInput(1).partialSig } }];
  const sig = { finalScriptWitness: [half.getInput(1).partialSig![0]![1], half.getInput(1).partialSig![0]![0]] };
  const a = withSellers(fast, [{ ...sellers[0]!, sig }], built.expected_txid, 'regtest');
  const b = withSellers(slow, [{ ...sellers[0]!, sig }], built.expected_txid, 'regtest');
  assert.deepEqual(a, b);
  assert.equal(a.txid, built.expected_txid);
  // And through the buyer's half, its view read no more, its finals extracted as verified.
  const view = buyerHalf(psbt, 'not a psbt', built.inputs_to_sign, buyer.address, 'regtest', { quoted });
  assert.deepEqual(withSellers(view, [{ ...sellers[0]!, sig }], built.expected_txid, 'regtest'), a);
  // A seller half that does not verify on this transaction is still 409 checkout_changed.
  const other = { finalScriptWitness: [sig.finalScriptWitness[0]!.slice(0, -1).fill(1, 10, 12), sig.finalScriptWitness[1]!] };
  const again = buyerHalf(psbt, 'not a psbt', built.inputs_to_sign, buyer.address, 'regtest', { quoted });
  assert.match(code(() => withSellers(again, [{ ...sellers[0]!, sig: other }], built.expected_txid, 'regtest')), /^checkout_changed: listing lst_1/);
});

void test('any change of the unsigned transaction or of a prevout is template_mismatch, named as before', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['an output amount one sat less', signed(edit(built.psbt_hex, (tx) => tx.updateOutput(1, { amount: 19_999n }))), /^template_mismatch: .*output 1 amount 19999, template 20000/],
    ['a sequence', signed(edit(built.psbt_hex, (tx) => tx.updateInput(0, { sequence: 5 }))), /^template_mismatch: .*input 0 sequence 5/],
    ['the locktime', signed(edit(built.psbt_hex, (tx) => ((tx as unknown as { global: { fallbackLocktime?: number } }).global.fallbackLocktime = 1))), /^template_mismatch: .*locktime 1, template 0/],
    ['an output script', signed(edit(built.psbt_hex, (tx) => tx.updateOutput(1, { script: stranger.script }))), /^template_mismatch: .*output 1 script/],
    ['the seller\'s prevout amount', signed(edit(built.psbt_hex, (tx) => tx.updateInput(1, { witnessUtxo: { script: seller.script, amount: 331n } }, true))), /^template_mismatch: .*input 1 prevout differs/],
    ['the buyer\'s prevout amount, signed over', signed(edit(built.psbt_hex, (tx) => tx.updateInput(0, { witnessUtxo: { script: buyer.script, amount: 100_001n } }, true))), /^template_mismatch: .*input 0 prevout differs/],
    ['the buyer\'s prevout script', signed(edit(built.psbt_hex, (tx) => tx.updateInput(0, { witnessUtxo: { script: stranger.script, amount: 100_000n } }, true)), SigHash.ALL, stranger), /^template_mismatch: .*input 0 prevout differs/],
  ];
  for (const [what, psbt, want] of cases) {
    assert.match(code(() => buyerSigned(psbt, built.psbt_hex, built.inputs_to_sign, buyer.address, 'regtest', { quoted })), want, what);
  }
});

void test('a quote whose figures do not match its PSBT is never trusted over the PSBT: the fallback compares', () => {
  const psbt = signed(built.psbt_hex);
  // A fee one sat off makes the buyer coin's amount differ: not the quoted transaction, so the
  // quote's PSBT is read (an unreadable one is then refused) and decides.
  const off = { ...quoted, fee: quoted.fee + 1n };
  assert.match(code(() => buyerSigned(psbt, 'not a psbt', built.inputs_to_sign, buyer.address, 'regtest', { quoted: off })), /^invalid_transaction/);
  assert.equal(code(() => buyerSigned(psbt, built.psbt_hex, built.inputs_to_sign, buyer.address, 'regtest', { quoted: off })), 'ok');
  // Something of the buyer's on a seller input: not taken from the buyer's PSBT.
  const junk = edit(psbt, (tx) => tx.updateInput(1, { sighashType: SigHash.ALL, finalScriptWitness: [new Uint8Array(64)] }, true));
  assert.match(code(() => buyerSigned(junk, 'not a psbt', built.inputs_to_sign, buyer.address, 'regtest', { quoted })), /^invalid_transaction/);
  const merged = buyerSigned(junk, built.psbt_hex, built.inputs_to_sign, buyer.address, 'regtest', { quoted });
  assert.equal(merged.getInput(1).finalScriptWitness, undefined);
  assert.equal(merged.getInput(1).sighashType, SigHash.SINGLE_ANYONECANPAY);
});

void test('on the fast path a wrong key or sighash is still signature_invalid', () => {
  assert.match(code(() => buyerSigned(signed(built.psbt_hex, SigHash.SINGLE), 'not a psbt', built.inputs_to_sign, buyer.address, 'regtest', { quoted })), /^signature_invalid: .*sighash 0x03/);
  assert.match(code(() => buyerSigned(built.psbt_hex, 'not a psbt', built.inputs_to_sign, buyer.address, 'regtest', { quoted })), /^signature_invalid: .*not signed/);
  // The buyer's signature over another transaction (another sequence), put on this one.
  const other = parse(signed(edit(built.psbt_hex, (tx) => tx.updateInput(0, { sequence: 7 }))));
  const moved = edit(built.psbt_hex, (tx) => tx.updateInput(0, { partialSig: other.getInput(0).partialSig }, true));
  assert.match(code(() => buyerSigned(moved, 'not a psbt', built.inputs_to_sign, buyer.address, 'regtest', { quoted })), /^signature_invalid: .*(verify|NULLFAIL)/i);
  // Another key's: its key does not hash to the buyer's program.
  const stray = edit(built.psbt_hex, (tx) => tx.updateInput(0, { partialSig: [[stranger.publicKey, other.getInput(0).partialSig![0]![1]]] }, true));
  assert.match(code(() => buyerSigned(stray, 'not a psbt', built.inputs_to_sign, buyer.address, 'regtest', { quoted })), /^signature_invalid: .*(pubkey|not paid)/);
});
