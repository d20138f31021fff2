/**
 * Transactions and blocks as Bitcoin Core's RPC prints them (`decoderawtransaction`,
 * `getrawtransaction … true`, `getblock … 2`): script asm, script types, addresses, amounts in
 * BTC as JSON numbers.
 */
import { bytesToHex, concatBytes } from '@noble/hashes/utils.js';
import { readScript } from '../../counterparty/script-reader.js';
import { outputAddress } from '../../counterparty/tx-info.js';
import type { Network } from '../../bitcoin/networks.js';
import { scriptType } from './policy.js';
import { inferredDescriptor } from './descriptor.js';
import type { DecodedTx } from './tx-decode.js';

export const toBtc = (sats: bigint | number): number => Number(sats) / 1e8;

const OP_NAMES: Record<number, string> = {
  0x4f: '-1', 0x50: 'OP_RESERVED', 0x61: 'OP_NOP', 0x62: 'OP_VER', 0x63: 'OP_IF', 0x64: 'OP_NOTIF', 0x65: 'OP_VERIF', 0x66: 'OP_VERNOTIF',
  0x67: 'OP_ELSE', 0x68: 'OP_ENDIF', 0x69: 'OP_VERIFY', 0x6a: 'OP_RETURN', 0x6b: 'OP_TOALTSTACK', 0x6c: 'OP_FROMALTSTACK',
  0x6d: 'OP_2DROP', 0x6e: 'OP_2DUP', 0x6f: 'OP_3DUP', 0x70: 'OP_2OVER', 0x71: 'OP_2ROT', 0x72: 'OP_2SWAP', 0x73: 'OP_IFDUP',
  0x74: 'OP_DEPTH', 0x75: 'OP_DROP', 0x76: 'OP_DUP', 0x77: 'OP_NIP', 0x78: 'OP_OVER', 0x79: 'OP_PICK', 0x7a: 'OP_ROLL',
  0x7b: 'OP_ROT', 0x7c: 'OP_SWAP', 0x7d: 'OP_TUCK', 0x82: 'OP_SIZE', 0x87: 'OP_EQUAL', 0x88: 'OP_EQUALVERIFY',
  0x8b: 'OP_1ADD', 0x8c: 'OP_1SUB', 0x8f: 'OP_NEGATE', 0x90: 'OP_ABS', 0x91: 'OP_NOT', 0x92: 'OP_0NOTEQUAL', 0x93: 'OP_ADD',
  0x94: 'OP_SUB', 0x9a: 'OP_BOOLAND', 0x9b: 'OP_BOOLOR', 0x9c: 'OP_NUMEQUAL', 0x9d: 'OP_NUMEQUALVERIFY', 0x9e: 'OP_NUMNOTEQUAL',
  0x9f: 'OP_LESSTHAN', 0xa0: 'OP_GREATERTHAN', 0xa1: 'OP_LESSTHANOREQUAL', 0xa2: 'OP_GREATERTHANOREQUAL', 0xa3: 'OP_MIN',
  0xa4: 'OP_MAX', 0xa5: 'OP_WITHIN', 0xa6: 'OP_RIPEMD160', 0xa7: 'OP_SHA1', 0xa8: 'OP_SHA256', 0xa9: 'OP_HASH160',
  0xaa: 'OP_HASH256', 0xab: 'OP_CODESEPARATOR', 0xac: 'OP_CHECKSIG', 0xad: 'OP_CHECKSIGVERIFY', 0xae: 'OP_CHECKMULTISIG',
  0xaf: 'OP_CHECKMULTISIGVERIFY', 0xb1: 'OP_CHECKLOCKTIMEVERIFY', 0xb2: 'OP_CHECKSEQUENCEVERIFY', 0xba: 'OP_CHECKSIGADD',
};

/** CScriptNum of a ≤4-byte push (little-endian, sign bit in the last byte). */
function scriptNum(b: Uint8Array): bigint {
  if (b.length === 0) return 0n;
  let n = 0n;
  for (let i = b.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(b[i]!);
  const last = b[b.length - 1]!;
  if (last & 0x80) return -(n & ~(0x80n << BigInt(8 * (b.length - 1))));
  return n;
}

/** Core's `ScriptToAsmStr` (without sighash decoding). */
export function scriptAsm(script: Uint8Array): string {
  const items = readScript(script);
  if (!items) return '[error]';
  return items
    .map((it) => {
      if ('push' in it) return it.push.length <= 4 ? scriptNum(it.push).toString() : bytesToHex(it.push);
      if (it.op >= 0x51 && it.op <= 0x60) return String(it.op - 0x50);
      return OP_NAMES[it.op] ?? (it.op >= 0xb0 && it.op <= 0xb9 ? `OP_NOP${it.op - 0xaf}` : 'OP_UNKNOWN');
    })
    .join(' ');
}

export function scriptPubKeyJson(script: Uint8Array, network: Network) {
  const address = outputAddress(script, network);
  return { asm: scriptAsm(script), desc: inferredDescriptor(script, address), hex: bytesToHex(script), ...(address ? { address } : {}), type: scriptType(script) };
}

/** `decoderawtransaction` fields. */
export function txJson(tx: DecodedTx, network: Network) {
  return {
    txid: tx.txid,
    hash: tx.wtxid,
    version: tx.version,
    size: tx.size,
    vsize: tx.vsize,
    weight: tx.weight,
    locktime: tx.lockTime,
    vin: tx.inputs.map((i) => {
      const witness = i.witness.length ? { txinwitness: i.witness.map(bytesToHex) } : {};
      if (tx.isCoinbase) return { coinbase: bytesToHex(i.scriptSig), ...witness, sequence: i.sequence };
      return { txid: i.txid, vout: i.vout, scriptSig: { asm: scriptAsm(i.scriptSig), hex: bytesToHex(i.scriptSig) }, ...witness, sequence: i.sequence };
    }),
    vout: tx.outputs.map((o, n) => ({ value: toBtc(o.value), n, scriptPubKey: scriptPubKeyJson(o.script, network) })),
  };
}

function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return new Uint8Array([n]);
  if (n <= 0xffff) return new Uint8Array([0xfd, n & 0xff, n >> 8]);
  return new Uint8Array([0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24]);
}

/** The block as the network serialises it (`getblock … 0`). */
export function blockBytes(header: Uint8Array, txs: readonly DecodedTx[]): Uint8Array {
  return concatBytes(header, compactSize(txs.length), ...txs.map((t) => t.bytes));
}
