import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { arc4 } from '../../src/counterparty/arc4.js';
import {
  ATTACH_ID, DETACH_ID, PREFIX, decodeMessageOutput, messageOutputScript, packMessageType, readMessageOutput, unpackMessageType,
} from '../../src/counterparty/message.js';
import {
  attachOutputScript, decodeAttachPayload, decodeDetachPayload, detachOutputScript, encodeAttachPayload, encodeDetachPayload, parsePythonInt,
} from '../../src/counterparty/attach-detach.js';

const txt = (s: string) => new TextEncoder().encode(s);
const TXID = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';

void test('ARC4 matches the classic test vectors', () => {
  assert.equal(hex.encode(arc4(txt('Key'), txt('Plaintext'))), 'bbf316e8d940af0ad3');
  assert.equal(hex.encode(arc4(txt('Wiki'), txt('pedia'))), '1021bf0420');
  assert.equal(hex.encode(arc4(txt('Secret'), txt('Attack at dawn'))), '45a01f645fc35b383552544b9bf5');
});

void test('type ids: one byte when 0 < id < 256, else four bytes', () => {
  assert.deepEqual([...packMessageType(101)], [101]);
  assert.deepEqual([...packMessageType(0)], [0, 0, 0, 0]);
  assert.deepEqual([...packMessageType(300)], [0, 0, 1, 44]);
  assert.deepEqual(unpackMessageType(new Uint8Array([102, 0x30])), { typeId: 102, payload: new Uint8Array([0x30]) });
  assert.deepEqual(unpackMessageType(new Uint8Array([0, 0, 0, 20, 9])), { typeId: 20, payload: new Uint8Array([9]) });
  assert.equal(unpackMessageType(new Uint8Array([7])), null);
  assert.equal(unpackMessageType(new Uint8Array([0, 1, 2])), null);
});

void test('the OP_RETURN is ARC4(txid of input 0) over CNTRPRTY ‖ type ‖ payload', () => {
  const script = messageOutputScript(TXID, ATTACH_ID, txt('XCP|5|0'));
  assert.equal(script[0], 0x6a);
  const body = script.subarray(2);
  const plain = arc4(hex.decode(TXID), body);
  assert.deepEqual(plain.subarray(0, 8), PREFIX);
  assert.equal(plain[8], 101);
  assert.equal(new TextDecoder().decode(plain.subarray(9)), 'XCP|5|0');
  assert.deepEqual(decodeMessageOutput(script, TXID), { typeId: 101, payload: txt('XCP|5|0') });
  // Keyed by input 0's txid: another key reads garbage, so Core sees no message.
  assert.equal(readMessageOutput(script, 'ff'.repeat(32)).kind, 'invalid');
});

void test('an OP_RETURN that is not exactly OP_RETURN <push> is not a message', () => {
  const script = messageOutputScript(TXID, DETACH_ID, txt('0'));
  assert.equal(readMessageOutput(new Uint8Array([...script, 0x51]), TXID).kind, 'invalid');
  assert.equal(readMessageOutput(new Uint8Array([0x6a]), TXID).kind, 'invalid');
  assert.equal(readMessageOutput(new Uint8Array([0x6a, 0x05, 1, 2]), TXID).kind, 'invalid');
  // A non-minimal PUSHDATA1 still reads (rust-bitcoin's instructions() are not minimal).
  const pushdata = new Uint8Array([0x6a, 0x4c, script.length - 2, ...script.subarray(2)]);
  assert.equal(readMessageOutput(pushdata, TXID).kind, 'data');
});

void test('messages longer than the 83-byte standard OP_RETURN are refused by the builder', () => {
  assert.throws(() => messageOutputScript(TXID, DETACH_ID, new Uint8Array(72)), /83-byte/);
  assert.doesNotThrow(() => messageOutputScript(TXID, DETACH_ID, new Uint8Array(71)));
});

void test('attach payload: ASSET|QUANTITY|DESTINATION_VOUT', () => {
  assert.equal(new TextDecoder().decode(encodeAttachPayload({ asset: 'PEPECASH', quantity: 1n, destinationVout: 0 })), 'PEPECASH|1|0');
  assert.deepEqual(decodeAttachPayload(txt('PEPECASH|100|2')), { asset: 'PEPECASH', quantity: 100n, destinationVout: 2n });
  assert.deepEqual(decodeAttachPayload(txt('XCP|5|')), { asset: 'XCP', quantity: 5n, destinationVout: null });
  assert.deepEqual(decodeAttachPayload(txt('XCP| 1_000 |+1')), { asset: 'XCP', quantity: 1000n, destinationVout: 1n });
  const fallback = { asset: '', quantity: 0n, destinationVout: null };
  for (const bad of ['XCP|5', 'XCP|5|0|1', 'XCP|five|0', 'XCP|5|x', 'XCP|1__0|0']) assert.deepEqual(decodeAttachPayload(txt(bad)), fallback, bad);
  assert.deepEqual(decodeAttachPayload(new Uint8Array([0xff, 0x7c, 0x31, 0x7c])), fallback);
  assert.throws(() => encodeAttachPayload({ asset: 'PARENT.child', quantity: 1n, destinationVout: 0 }), /A… id/);
  assert.throws(() => encodeAttachPayload({ asset: 'BTC', quantity: 1n, destinationVout: 0 }));
  assert.throws(() => encodeAttachPayload({ asset: 'XCP', quantity: 0n, destinationVout: 0 }));
  assert.equal(parsePythonInt('-7'), -7n);
  assert.equal(parsePythonInt(''), null);
});

void test('detach payload: the destination string, or "0" for none', () => {
  assert.equal(new TextDecoder().decode(encodeDetachPayload(null)), '0');
  assert.equal(decodeDetachPayload(txt('0')), null);
  assert.equal(decodeDetachPayload(txt('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn')), 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn');
  assert.equal(decodeDetachPayload(new Uint8Array([0xc3, 0x28])), null);
});

void test('builders produce decodable outputs; a bad detach address is refused when the network is given', () => {
  const a = attachOutputScript({ input0Txid: TXID, asset: 'PEPECASH', quantity: 3n, destinationVout: 0 });
  assert.deepEqual(decodeMessageOutput(a, TXID)?.typeId, ATTACH_ID);
  const p2pkh = 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn';
  const d = detachOutputScript({ input0Txid: TXID, destination: p2pkh, network: 'regtest' });
  assert.equal(new TextDecoder().decode(decodeMessageOutput(d, TXID)!.payload), p2pkh);
  assert.throws(() => detachOutputScript({ input0Txid: TXID, destination: 'bc1qnotanaddress', network: 'regtest' }), /not a regtest address/);
});
