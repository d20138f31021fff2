/** vsize estimates against real signed transactions; Bitcoin Core dust thresholds. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { hex } from '@scure/base';
import { p2tr, Script, SigHash, TaprootControlBlock, Transaction, TAPROOT_UNSPENDABLE_KEY } from '@scure/btc-signer';
import { estimateSize, inputWeight, outputWeight, transactionSize, ESCROW_LEAF_LENGTH, type InputSpend } from '../../src/bitcoin/vsize.js';
import { DUST_LIMITS, dustThreshold, isDust, isWitnessProgram } from '../../src/bitcoin/dust.js';
import { scriptToAddress, decodeAddress, type AddressFamily } from '../../src/bitcoin/address.js';
import { networkParams } from '../../src/bitcoin/networks.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { fundingTx, makeWallet, signInput, signTapLeaf, walletInput, type TestWallet } from '../helpers/wallets.js';
import { VECTORS_DIR } from '../helpers/fixtures.js';

void test('transactionSize matches BIP-141 on vector transactions (and scure)', () => {
  const bip143 = JSON.parse(readFileSync(`${VECTORS_DIR}/bip143-p2wpkh.json`, 'utf8')) as { signed_tx: string; unsigned_tx: string };
  const signed = hex.decode(bip143.signed_tx);
  const s = transactionSize(signed);
  // Base size is the unsigned serialization with the P2PK scriptSig; the witness adds marker,
  // flag, an empty stack for input 0 and [sig, key] for input 1.
  const t = Transaction.fromRaw(signed, READ_TX_OPTS);
  assert.equal(s.weight, t.weight);
  assert.equal(s.vsize, t.vsize);
  const base = t.toBytes(true, false).length;
  assert.equal(s.weight, base * 4 + (signed.length - base));
  // A transaction without witness: weight = 4 × size.
  const legacy = hex.decode(bip143.unsigned_tx);
  assert.deepEqual(transactionSize(legacy), { weight: legacy.length * 4, vsize: legacy.length });
});

function signedTx(wallets: TestWallet[], outputs: Uint8Array[], label: string) {
  const f = fundingTx(wallets.map((w) => ({ script: w.script, amount: 100_000n })), label);
  const tx = new Transaction({ allowUnknownOutputs: true });
  wallets.forEach((w, i) => tx.addInput(walletInput(w, { txid: f.txid, index: i, amount: 100_000n, prevTx: f.tx })));
  for (const o of outputs) tx.addOutput({ script: o, amount: o[0] === 0x6a ? 0n : 1_000n });
  return tx;
}

void test('estimates are upper bounds within a few vbytes of the signed transaction', () => {
  const opReturn = new Uint8Array([0x6a, 0x10, ...new Uint8Array(16)]);
  const layouts: ('p2pkh' | 'p2wpkh' | 'p2tr')[][] = [['p2wpkh'], ['p2tr'], ['p2pkh'], ['p2tr', 'p2wpkh'], ['p2pkh', 'p2wpkh', 'p2tr'], ['p2wpkh', 'p2wpkh', 'p2wpkh']];
  for (const [n, layout] of layouts.entries()) {
    for (const explicit of [false, true]) {
      const wallets = layout.map((f, i) => makeWallet(f, `est-${n}-${i}`));
      const outs = [wallets[0]!.script, opReturn, makeWallet('p2pkh', 'o').script, makeWallet('p2tr', 'o').script];
      const tx = signedTx(wallets, outs, `est-${n}-${explicit}`);
      wallets.forEach((w, i) => signInput(tx, i, w, w.family === 'p2tr' ? (explicit ? SigHash.SINGLE_ANYONECANPAY : 0) : 1));
      tx.finalize();
      const actual = transactionSize(tx.extract());
      const spends: InputSpend[] = layout.map((f) => (f === 'p2tr' ? (explicit ? 'p2tr-key-explicit' : 'p2tr-key') : f));
      const est = estimateSize(spends, outs);
      const slack = layout.filter((f) => f === 'p2pkh').length * 3 + layout.filter((f) => f === 'p2wpkh').length + 1;
      assert.ok(est.vsize >= actual.vsize && est.vsize <= actual.vsize + slack, `${layout} est ${est.vsize} actual ${actual.vsize}`);
      assert.ok(est.weight >= actual.weight, `${layout} weight`);
      // Taproot-only transactions are exact (Schnorr signatures have a fixed size).
      if (layout.every((f) => f === 'p2tr')) assert.equal(est.weight, actual.weight);
    }
  }
});

void test('escrow 2-of-2 leaf spend: the estimate is exact', () => {
  const bidder = makeWallet('p2tr', 'bidder');
  const market = makeWallet('p2tr', 'market');
  const leafA = Script.encode([bidder.xOnly, 'CHECKSIGVERIFY', market.xOnly, 'CHECKSIG']);
  const leafB = Script.encode([144, 'CHECKSEQUENCEVERIFY', 'DROP', bidder.xOnly, 'CHECKSIG']);
  assert.equal(leafA.length, ESCROW_LEAF_LENGTH);
  const pay = p2tr(TAPROOT_UNSPENDABLE_KEY, [{ script: leafA }, { script: leafB }], networkParams('regtest'), true);
  const f = fundingTx([{ script: pay.script, amount: 50_000n }], 'escrow-size');
  const tx = new Transaction({ version: 3, allowUnknownInputs: true, allowUnknownOutputs: true });
  tx.addInput({ txid: f.txid, index: 0, witnessUtxo: { script: pay.script, amount: 50_000n } });
  tx.addOutput({ script: bidder.script, amount: 330n });
  tx.addOutput({ script: market.script, amount: 40_000n });
  const prevouts = [{ script: pay.script, amount: 50_000n }];
  const leaf = pay.tapLeafScript!.find(([, s]) => hex.encode(s.subarray(0, -1)) === hex.encode(leafA))!;
  tx.updateInput(0, {
    finalScriptWitness: [
      signTapLeaf(tx, 0, market.privateKey, leafA, prevouts, 0x01), signTapLeaf(tx, 0, bidder.privateKey, leafA, prevouts, 0x83),
      leafA, TaprootControlBlock.encode(leaf[0]),
    ],
  }, true);
  const actual = transactionSize(tx.toBytes(true, true));
  assert.deepEqual(estimateSize(['p2tr-2of2-leaf'], [bidder.script, market.script]), actual);
  // The generic form gives the same for the same shape; DEFAULT signatures are 2 WU smaller.
  const generic = inputWeight({ tapscript: { leafScriptLength: leafA.length, signatures: 2, controlBlockDepth: 1 } });
  assert.equal(generic.weight, inputWeight('p2tr-2of2-leaf').weight);
  assert.equal(inputWeight({ tapscript: { leafScriptLength: leafA.length, signatures: 2, controlBlockDepth: 1, explicitSighash: false } }).weight, generic.weight - 2);
});

void test('input and output weights of each family (reference sizes)', () => {
  assert.equal(inputWeight('p2wpkh').weight, 41 * 4 + 109); // 68.25 vB
  assert.equal(inputWeight('p2tr-key').weight, 41 * 4 + 66); // 57.5 vB
  assert.equal(inputWeight('p2pkh').weight, 149 * 4);
  const sizes: [AddressFamily, number][] = [['p2pkh', 34], ['p2sh', 32], ['p2wpkh', 31], ['p2wsh', 43], ['p2tr', 43]];
  for (const [f, bytes] of sizes) assert.equal(outputWeight(f), bytes * 4, f);
  assert.equal(outputWeight(new Uint8Array([0x6a, 0x02, 1, 2])), (8 + 1 + 4) * 4);
  // Empty-ish tx overhead: 10 bytes, plus marker/flag when segwit.
  assert.deepEqual(estimateSize([], []), { weight: 40, vsize: 10 });
});

void test('dust thresholds match Bitcoin Core at 3 sat/vB for every family and network', () => {
  const scripts: Record<AddressFamily, Uint8Array> = {
    p2pkh: makeWallet('p2pkh', 'd').script,
    p2sh: hex.decode('a914' + '11'.repeat(20) + '87'),
    p2wpkh: makeWallet('p2wpkh', 'd').script,
    p2wsh: hex.decode('0020' + '22'.repeat(32)),
    p2tr: makeWallet('p2tr', 'd').script,
  };
  const expected = { p2pkh: 546, p2sh: 540, p2wpkh: 294, p2wsh: 330, p2tr: 330 };
  for (const [f, script] of Object.entries(scripts) as [AddressFamily, Uint8Array][]) {
    assert.equal(dustThreshold(script), expected[f], f);
    assert.equal(DUST_LIMITS[f], expected[f]);
    assert.equal(isDust(expected[f] - 1, script), true);
    assert.equal(isDust(BigInt(expected[f]), script), false);
    const addr = scriptToAddress(script, 'mainnet')!;
    assert.equal(decodeAddress(addr, 'mainnet').ok, true);
  }
  assert.equal(dustThreshold(hex.decode('6a0401020304')), 0);
  assert.equal(isDust(0n, hex.decode('6a')), false);
  assert.equal(dustThreshold(hex.decode('51024e73')), 240); // P2A (BIP-433 anchor)
  assert.equal(isWitnessProgram(hex.decode('51024e73')), true);
  // Other dust relay fees scale (and round up like CFeeRate::GetFee).
  assert.equal(dustThreshold(scripts.p2pkh, 1000), 182);
  assert.equal(dustThreshold(scripts.p2wpkh, 1000), 98);
  assert.equal(dustThreshold(scripts.p2tr, 1500), 165);
  assert.equal(dustThreshold(scripts.p2wpkh, 1001), 99);
  // The market's 330-sat asset outputs are not dust for either segwit family, but are for P2PKH.
  assert.equal(isDust(330n, scripts.p2wpkh), false);
  assert.equal(isDust(330n, scripts.p2tr), false);
  assert.equal(isDust(330n, scripts.p2pkh), true);
});
