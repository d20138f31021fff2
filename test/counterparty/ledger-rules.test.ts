import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SigHash, Transaction } from '@scure/btc-signer';
import { decodeAddress } from '../../src/bitcoin/address.js';
import { attachOutputScript, detachOutputScript } from '../../src/counterparty/attach-detach.js';
import { applyCounterpartyTx, type LedgerReader, type TxContext, type TxEffects, type UtxoHolding } from '../../src/counterparty/ledger-rules.js';
import { readCounterpartyTx, txViewFromTransaction } from '../../src/counterparty/tx-info.js';
import { opReturnScript } from '../../src/counterparty/script-reader.js';
import { fundingTx, makeWallet, signInput, walletInput, type TestWallet } from '../helpers/wallets.js';

class MemoryLedger implements LedgerReader {
  addr = new Map<string, bigint>();
  utxo = new Map<string, UtxoHolding[]>();
  addressBalance(a: string, asset: string): bigint {
    return this.addr.get(`${a}/${asset}`) ?? 0n;
  }
  utxoBalances(u: string): readonly UtxoHolding[] {
    return this.utxo.get(u) ?? [];
  }
}

const seller = makeWallet('p2wpkh', 'rules-seller');
const buyer = makeWallet('p2tr', 'rules-buyer');
const legacy = makeWallet('p2pkh', 'rules-delivery');

interface In { wallet: TestWallet; sighash?: number; label: string; amount?: bigint }
/** Builds and signs a transaction; `outputs` may use the txid of input 0's prevout (for the OP_RETURN key). */
function build(inputs: In[], outputs: (key: string) => { script: Uint8Array; amount: bigint }[]) {
  const funded = inputs.map((i) => ({ ...fundingTx([{ script: i.wallet.script, amount: i.amount ?? 50_000n }], i.label), i }));
  const tx = new Transaction({ allowUnknownOutputs: true });
  for (const f of funded) tx.addInput(walletInput(f.i.wallet, { txid: f.txid, index: 0, amount: f.i.amount ?? 50_000n, prevTx: f.tx }));
  for (const o of outputs(funded[0]!.txid)) tx.addOutput(o);
  funded.forEach((f, k) => signInput(tx, k, f.i.wallet, f.i.sighash ?? SigHash.ALL));
  tx.finalize();
  const prevouts = funded.map((f) => ({ script: f.i.wallet.script, amount: f.i.amount ?? 50_000n }));
  return { tx, info: readCounterpartyTx(txViewFromTransaction(tx, prevouts), 'regtest'), utxo: (k: number) => `${funded[k]!.txid}:0` };
}

const ctx = (over: Partial<TxContext> = {}): TxContext => ({
  blockIndex: 500, blockHash: '00'.repeat(32), blockTime: 1_700_000_000, txIndex: 7, attachFeeRaw: 0n, attachesEarlierInBlock: 0,
  isValidAddress: (a) => decodeAddress(a, 'regtest').ok, ...over,
});
const names = (e: TxEffects) => e.events.map((x) => x.event);

void test('a valid attach pays the fee, debits the source and credits the destination output', () => {
  const ledger = new MemoryLedger();
  ledger.addr.set(`${seller.address}/PEPECASH`, 10n);
  ledger.addr.set(`${seller.address}/XCP`, 100_000_000n);
  const { tx, info } = build([{ wallet: seller, label: 'a1' }], (key) => [
    { script: seller.script, amount: 330n },
    { script: attachOutputScript({ input0Txid: key, asset: 'PEPECASH', quantity: 4n, destinationVout: 0 }), amount: 0n },
  ]);
  assert.equal(info.message?.source, seller.address);
  const e = applyCounterpartyTx(info, ledger, ctx({ attachFeeRaw: 50_000_000n, attachesEarlierInBlock: 2 }));
  assert.equal(e.listed, true);
  assert.equal(e.transactionType, 'attach');
  assert.equal(e.attachCount, 1);
  assert.deepEqual(names(e), ['NEW_TRANSACTION', 'DEBIT', 'ASSET_DESTRUCTION', 'INCREMENT_TRANSACTION_COUNT', 'DEBIT', 'CREDIT', 'ATTACH_TO_UTXO', 'TRANSACTION_PARSED']);
  const attach = e.events.find((x) => x.event === 'ATTACH_TO_UTXO')!.params;
  assert.deepEqual(attach, {
    tx_index: 7, tx_hash: tx.id, msg_index: 0, block_index: 500, status: 'valid', source: seller.address,
    destination: `${tx.id}:0`, destination_address: seller.address, asset: 'PEPECASH', quantity: 4, fee_paid: 50_000_000,
    send_type: 'attach', block_time: 1_700_000_000,
  });
  assert.deepEqual(e.events[3]!.params, { block_index: 500, transaction_id: 101, count: 3 });
  assert.deepEqual(e.destroyed, [{ asset: 'XCP', quantity: 50_000_000n }]);
  assert.deepEqual(e.changes.map((c) => [c.holder.kind, c.asset, c.delta]), [['address', 'XCP', -50_000_000n], ['address', 'PEPECASH', -4n], ['utxo', 'PEPECASH', 4n]]);
  const credit = e.events[5]!.params;
  assert.equal(credit.utxo, `${tx.id}:0`);
  assert.equal(credit.utxo_address, seller.address);
  assert.equal(credit.address, null);
  assert.equal(credit.calling_function, 'attach to utxo');
});

void test('an attach without enough balance or fee is invalid and changes nothing', () => {
  const ledger = new MemoryLedger();
  ledger.addr.set(`${seller.address}/PEPECASH`, 3n);
  const { info } = build([{ wallet: seller, label: 'a2' }], (key) => [
    { script: seller.script, amount: 330n },
    { script: attachOutputScript({ input0Txid: key, asset: 'PEPECASH', quantity: 4n, destinationVout: 0 }), amount: 0n },
  ]);
  const e = applyCounterpartyTx(info, ledger, ctx({ attachFeeRaw: 1n }));
  assert.deepEqual(e.changes, []);
  assert.equal(e.attachCount, 0);
  const a = e.events.find((x) => x.event === 'ATTACH_TO_UTXO')!;
  assert.equal(a.params.status, 'invalid: insufficient funds for transfer; insufficient funds for fee');
  assert.equal(a.params.source, undefined);
});

void test('attach to the OP_RETURN output or past the last output is invalid', () => {
  const ledger = new MemoryLedger();
  ledger.addr.set(`${seller.address}/XCP`, 10n);
  for (const [vout, why] of [[1, 'destination vout is an OP_RETURN output'], [5, 'destination vout is greater than the number of outputs']] as const) {
    const { info } = build([{ wallet: seller, label: `a3-${vout}` }], (key) => [
      { script: seller.script, amount: 330n },
      { script: attachOutputScript({ input0Txid: key, asset: 'XCP', quantity: 1n, destinationVout: vout }), amount: 0n },
    ]);
    const e = applyCounterpartyTx(info, ledger, ctx());
    assert.equal(e.events.find((x) => x.event === 'ATTACH_TO_UTXO')!.params.status, `invalid: ${why}`);
  }
});

void test('an attach whose input 0 is not signed ALL is ignored entirely', () => {
  const ledger = new MemoryLedger();
  ledger.addr.set(`${seller.address}/PEPECASH`, 10n);
  const { info } = build([{ wallet: seller, label: 'a4', sighash: SigHash.SINGLE_ANYONECANPAY }], (key) => [
    { script: seller.script, amount: 330n },
    { script: attachOutputScript({ input0Txid: key, asset: 'PEPECASH', quantity: 4n, destinationVout: 0 }), amount: 0n },
  ]);
  assert.equal(info.message, null);
  assert.match(info.noMessageReason!, /invalid SIGHASH flag 0x83/);
  const e = applyCounterpartyTx(info, ledger, ctx());
  assert.equal(e.listed, false);
  assert.deepEqual(e.events, []);
});

void test('a multi-input detach sends every attached balance to one P2PKH destination', () => {
  const ledger = new MemoryLedger();
  const s2 = makeWallet('p2wpkh', 'rules-seller-2');
  const { info, utxo } = build(
    [{ wallet: buyer, label: 'd-buyer' }, { wallet: seller, label: 'd-s1', sighash: SigHash.SINGLE_ANYONECANPAY }, { wallet: s2, label: 'd-s2', sighash: SigHash.SINGLE_ANYONECANPAY }],
    (key) => [
      // The OP_RETURN comes first: Core ignores a message preceded by two or more address outputs.
      { script: detachOutputScript({ input0Txid: key, destination: legacy.address, network: 'regtest' }), amount: 0n },
      { script: seller.script, amount: 20_000n },
      { script: s2.script, amount: 20_000n },
      { script: buyer.script, amount: 1_000n },
    ],
  );
  ledger.utxo.set(utxo(1), [{ asset: 'PEPECASH', quantity: 1n, utxoAddress: seller.address }, { asset: 'XCP', quantity: 5n, utxoAddress: seller.address }]);
  ledger.utxo.set(utxo(2), [{ asset: 'RAREPEPE', quantity: 2n, utxoAddress: s2.address }]);
  const e = applyCounterpartyTx(info, ledger, ctx());
  assert.equal(e.transactionType, 'detach');
  assert.equal(e.utxosInfo, `${utxo(1)},${utxo(2)} ${info.txHash}:1 4 0`);
  const detaches = e.events.filter((x) => x.event === 'DETACH_FROM_UTXO').map((x) => x.params);
  assert.deepEqual(detaches.map((d) => [d.source, d.source_address, d.destination, d.asset, d.quantity, d.msg_index]), [
    [utxo(1), seller.address, legacy.address, 'PEPECASH', 1, 0],
    [utxo(1), seller.address, legacy.address, 'XCP', 5, 1],
    [utxo(2), s2.address, legacy.address, 'RAREPEPE', 2, 2],
  ]);
  assert.ok(!names(e).includes('UTXO_MOVE'), 'a detach never moves');
  const credited = e.changes.filter((c) => c.delta > 0n);
  assert.ok(credited.every((c) => c.holder.kind === 'address' && c.holder.address === legacy.address));
});

void test('a detach naming no valid address returns balances to the UTXO owner', () => {
  const ledger = new MemoryLedger();
  const { info, utxo } = build([{ wallet: seller, label: 'd3' }], (key) => [
    { script: buyer.script, amount: 1_000n },
    { script: detachOutputScript({ input0Txid: key, destination: 'not-an-address' }), amount: 0n },
  ]);
  ledger.utxo.set(utxo(0), [{ asset: 'PEPECASH', quantity: 1n, utxoAddress: seller.address }]);
  const e = applyCounterpartyTx(info, ledger, ctx());
  assert.equal(e.events.find((x) => x.event === 'DETACH_FROM_UTXO')!.params.destination, seller.address);
});

void test('spending an attached UTXO without a message moves it to the first non-OP_RETURN output', () => {
  const ledger = new MemoryLedger();
  const { info, utxo } = build([{ wallet: seller, label: 'm1' }], () => [
    { script: opReturnScript(new Uint8Array([1, 2, 3])), amount: 0n },
    { script: buyer.script, amount: 330n },
    { script: seller.script, amount: 40_000n },
  ]);
  ledger.utxo.set(utxo(0), [{ asset: 'PEPECASH', quantity: 1n, utxoAddress: seller.address }]);
  assert.equal(info.message, null, 'a foreign OP_RETURN carries no message');
  const e = applyCounterpartyTx(info, ledger, ctx());
  assert.equal(e.transactionType, 'utxomove');
  const move = e.events.find((x) => x.event === 'UTXO_MOVE')!.params;
  assert.equal(move.destination, `${info.txHash}:1`);
  assert.equal(move.destination_address, buyer.address);
  assert.equal(move.source_address, seller.address);
  assert.equal(e.events.at(-1)!.params.supported, true);
});

void test('a transaction whose only output is OP_RETURN detaches to the owner', () => {
  const ledger = new MemoryLedger();
  const { info, utxo } = build([{ wallet: seller, label: 'm2' }], () => [{ script: opReturnScript(new Uint8Array([9])), amount: 0n }]);
  ledger.utxo.set(utxo(0), [{ asset: 'PEPECASH', quantity: 2n, utxoAddress: seller.address }]);
  const e = applyCounterpartyTx(info, ledger, ctx());
  const d = e.events.find((x) => x.event === 'DETACH_FROM_UTXO')!.params;
  assert.equal(d.destination, seller.address);
  assert.equal(d.quantity, 2);
});

void test('a detach whose input 0 is not signed ALL turns into a move', () => {
  const ledger = new MemoryLedger();
  const { info, utxo } = build([{ wallet: seller, label: 'm3', sighash: SigHash.SINGLE_ANYONECANPAY }], (key) => [
    { script: buyer.script, amount: 330n },
    { script: detachOutputScript({ input0Txid: key, destination: legacy.address }), amount: 0n },
  ]);
  ledger.utxo.set(utxo(0), [{ asset: 'PEPECASH', quantity: 1n, utxoAddress: seller.address }]);
  const e = applyCounterpartyTx(info, ledger, ctx());
  assert.deepEqual(names(e), ['NEW_TRANSACTION', 'DEBIT', 'CREDIT', 'UTXO_MOVE', 'TRANSACTION_PARSED']);
});

void test('a plain payment touching no attached UTXO is not a Counterparty transaction', () => {
  const e = applyCounterpartyTx(build([{ wallet: seller, label: 'p1' }], () => [{ script: buyer.script, amount: 40_000n }]).info, new MemoryLedger(), ctx());
  assert.equal(e.listed, false);
  assert.deepEqual(e.events, []);
});

void test('a message after two or more address outputs is not parsed: the detach does nothing, not even a move', () => {
  const ledger = new MemoryLedger();
  const { info, utxo } = build(
    [{ wallet: buyer, label: 'x-buyer' }, { wallet: seller, label: 'x-s1', sighash: SigHash.SINGLE_ANYONECANPAY }],
    (key) => [
      { script: buyer.script, amount: 1_000n },
      { script: seller.script, amount: 20_000n },
      { script: detachOutputScript({ input0Txid: key, destination: legacy.address, network: 'regtest' }), amount: 0n },
    ],
  );
  ledger.utxo.set(utxo(1), [{ asset: 'PEPECASH', quantity: 1n, utxoAddress: seller.address }]);
  assert.equal(info.message?.destination, `${buyer.address}-${seller.address}`);
  const e = applyCounterpartyTx(info, ledger, ctx());
  assert.equal(e.listed, true);
  assert.deepEqual(names(e), ['NEW_TRANSACTION', 'TRANSACTION_PARSED']);
  assert.deepEqual(e.changes, [], 'the balance stays on the now spent listing output');
});

void test('one address output before the message is fine (the attach layout)', () => {
  const ledger = new MemoryLedger();
  ledger.addr.set(`${seller.address}/PEPECASH`, 1n);
  const { info } = build([{ wallet: seller, label: 'x-a' }], (key) => [
    { script: seller.script, amount: 330n },
    { script: attachOutputScript({ input0Txid: key, asset: 'PEPECASH', quantity: 1n, destinationVout: 0 }), amount: 0n },
    { script: seller.script, amount: 40_000n },
    { script: buyer.script, amount: 1_000n },
  ]);
  assert.equal(info.message?.destination, seller.address);
  assert.ok(names(applyCounterpartyTx(info, ledger, ctx())).includes('ATTACH_TO_UTXO'));
});
