/**
 * Bitcoin Core's standardness policy (policy/policy.cpp, Core 28 defaults): output script
 * types, dust thresholds at the 3 sat/vB dust relay fee, and `IsStandardTx`. Reject reasons are
 * Core's strings, which `src/chain/errors.ts` maps to the spec's `mempool_policy` values.
 */
import { readScript } from '../../counterparty/script-reader.js';
import type { DecodedTx, TxOut } from './tx-decode.js';

/** Core's `TxoutType` names as `getrawtransaction` prints them. */
export type ScriptType =
  | 'pubkey' | 'pubkeyhash' | 'scripthash' | 'multisig' | 'nulldata' | 'witness_v0_keyhash'
  | 'witness_v0_scripthash' | 'witness_v1_taproot' | 'anchor' | 'witness_unknown' | 'nonstandard';

export const TX_MAX_STANDARD_VERSION = 3;
export const MAX_STANDARD_TX_WEIGHT = 400_000;
export const MIN_STANDARD_TX_NONWITNESS_SIZE = 65;
export const MAX_STANDARD_SCRIPTSIG_SIZE = 1650;
/** `-datacarriersize`: the whole OP_RETURN scriptPubKey, opcode and pushes included. */
export const MAX_OP_RETURN_RELAY = 83;
export const DUST_RELAY_FEE_SAT_PER_KVB = 3000n;
export const MAX_MONEY = 21_000_000n * 100_000_000n;

/** Witness version and program when the script is a witness program (BIP-141), else null. */
export function witnessProgram(script: Uint8Array): { version: number; program: Uint8Array } | null {
  if (script.length < 4 || script.length > 42) return null;
  const v = script[0]!;
  if (v !== 0 && (v < 0x51 || v > 0x60)) return null;
  if (script[1]! + 2 !== script.length) return null;
  return { version: v === 0 ? 0 : v - 0x50, program: script.subarray(2) };
}

function isPubkey(b: Uint8Array): boolean {
  return (b.length === 33 && (b[0] === 2 || b[0] === 3)) || (b.length === 65 && b[0] === 4);
}

/** Core's `Solver`, reduced to the type. */
export function scriptType(s: Uint8Array): ScriptType {
  if (s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac) return 'pubkeyhash';
  if (s.length === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87) return 'scripthash';
  const wp = witnessProgram(s);
  if (wp) {
    if (wp.version === 0 && wp.program.length === 20) return 'witness_v0_keyhash';
    if (wp.version === 0 && wp.program.length === 32) return 'witness_v0_scripthash';
    if (wp.version === 1 && wp.program.length === 32) return 'witness_v1_taproot';
    if (wp.version === 1 && wp.program.length === 2 && wp.program[0] === 0x4e && wp.program[1] === 0x73) return 'anchor';
    if (wp.version !== 0) return 'witness_unknown';
    return 'nonstandard';
  }
  if (s.length >= 1 && s[0] === 0x6a) {
    const items = readScript(s.subarray(1));
    // NULL_DATA is OP_RETURN followed by push-only data (Core's IsPushOnly: every opcode up to OP_16, OP_RESERVED included).
    if (items && items.every((it) => 'push' in it || (it.op >= 0x4f && it.op <= 0x60))) return 'nulldata';
    return 'nonstandard';
  }
  const items = readScript(s);
  if (!items) return 'nonstandard';
  if (items.length === 2 && 'push' in items[0]! && isPubkey(items[0].push) && 'op' in items[1]! && items[1].op === 0xac) return 'pubkey';
  const last = items.at(-1);
  if (items.length >= 4 && last && 'op' in last && last.op === 0xae) {
    const m = items[0]!;
    const n = items[items.length - 2]!;
    const keys = items.slice(1, -2);
    const small = (it: typeof m) => ('op' in it && it.op >= 0x51 && it.op <= 0x60 ? it.op - 0x50 : null);
    const mv = small(m);
    const nv = small(n);
    if (mv && nv && nv === keys.length && mv <= nv && keys.every((k) => 'push' in k && isPubkey(k.push))) return 'multisig';
  }
  return 'nonstandard';
}

/** `IsStandard` for one output script (multisig up to 3 keys, OP_RETURN up to 83 bytes). */
export function isStandardOutputScript(s: Uint8Array): boolean {
  const t = scriptType(s);
  if (t === 'nonstandard') return false;
  if (t === 'nulldata') return s.length <= MAX_OP_RETURN_RELAY;
  if (t === 'multisig') {
    const n = s[s.length - 2]! - 0x50;
    return n >= 1 && n <= 3;
  }
  return true;
}

function compactSizeLen(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : 5;
}

/**
 * Core's `GetDustThreshold` at 3 sat/vB: the cost of spending the output (148 bytes of input
 * for legacy, 67 vbytes for a witness program) plus the output itself. P2PKH 546, P2SH 540,
 * P2WPKH 294, P2WSH and P2TR 330, P2A 240; unspendable outputs 0.
 */
export function dustThreshold(out: TxOut): bigint {
  if ((out.script.length > 0 && out.script[0] === 0x6a) || out.script.length > 10_000) return 0n;
  let size = 8 + compactSizeLen(out.script.length) + out.script.length;
  size += witnessProgram(out.script) ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return (DUST_RELAY_FEE_SAT_PER_KVB * BigInt(size)) / 1000n;
}

export const isDust = (out: TxOut): boolean => out.value < dustThreshold(out);

function isPushOnly(script: Uint8Array): boolean {
  const items = readScript(script);
  // Core's `IsPushOnly`: any opcode up to OP_16 (OP_RESERVED, 0x50, included).
  return items !== null && items.every((it) => 'push' in it || (it.op >= 0x4f && it.op <= 0x60));
}

/** `IsStandardTx` (plus `tx-size-small` from PreChecks): the first failing reason, or null. */
export function standardTxReason(tx: DecodedTx): string | null {
  if (tx.version > TX_MAX_STANDARD_VERSION || tx.version < 1) return 'version';
  if (tx.weight > MAX_STANDARD_TX_WEIGHT) return 'tx-size';
  for (const i of tx.inputs) {
    if (i.scriptSig.length > MAX_STANDARD_SCRIPTSIG_SIZE) return 'scriptsig-size';
    if (!isPushOnly(i.scriptSig)) return 'scriptsig-not-pushonly';
  }
  let dataOuts = 0;
  for (const o of tx.outputs) {
    if (!isStandardOutputScript(o.script)) return 'scriptpubkey';
    if (scriptType(o.script) === 'nulldata') dataOuts++;
  }
  // Core ≤ 28: one OP_RETURN output at most.
  if (dataOuts > 1) return 'multi-op-return';
  if (tx.outputs.some(isDust)) return 'dust';
  if (tx.baseSize < MIN_STANDARD_TX_NONWITNESS_SIZE) return 'tx-size-small';
  return null;
}

/** `CheckTransaction` (consensus, context-free): the first failing reason, or null. */
export function checkTransactionReason(tx: DecodedTx): string | null {
  if (tx.inputs.length === 0) return 'bad-txns-vin-empty';
  if (tx.outputs.length === 0) return 'bad-txns-vout-empty';
  if (tx.baseSize * 4 > 4_000_000) return 'bad-txns-oversize';
  let total = 0n;
  for (const o of tx.outputs) {
    if (o.value < 0n) return 'bad-txns-vout-negative';
    if (o.value > MAX_MONEY) return 'bad-txns-vout-toolarge';
    total += o.value;
    if (total > MAX_MONEY) return 'bad-txns-txouttotal-toolarge';
  }
  const seen = new Set<string>();
  for (const i of tx.inputs) {
    const k = `${i.txid}:${i.vout}`;
    if (seen.has(k)) return 'bad-txns-inputs-duplicate';
    seen.add(k);
  }
  if (tx.isCoinbase) {
    const len = tx.inputs[0]!.scriptSig.length;
    if (len < 2 || len > 100) return 'bad-cb-length';
  } else if (tx.inputs.some((i) => i.txid === '00'.repeat(32) && i.vout === 0xffffffff)) return 'bad-txns-prevout-null';
  return null;
}

/** `AreInputsStandard`, reduced: spending a non-standard or unknown-witness output is refused. */
export function nonstandardInputsReason(prevoutScripts: readonly Uint8Array[]): string | null {
  for (const s of prevoutScripts) {
    const t = scriptType(s);
    if (t === 'nonstandard' || t === 'witness_unknown') return 'bad-txns-nonstandard-inputs';
  }
  return null;
}

/** `IsWitnessStandard`, reduced to the taproot annex rule (an annex is non-standard). */
export function nonstandardWitnessReason(tx: DecodedTx, prevoutScripts: readonly Uint8Array[]): string | null {
  for (let i = 0; i < tx.inputs.length; i++) {
    const w = tx.inputs[i]!.witness;
    const t = scriptType(prevoutScripts[i]!);
    if (t === 'witness_v1_taproot' && w.length >= 2 && w.at(-1)!.length > 0 && w.at(-1)![0] === 0x50) return 'bad-witness-nonstandard';
    // Witness data on a non-witness input is refused by Core as well.
    if (w.length > 0 && t !== 'scripthash' && !witnessProgram(prevoutScripts[i]!)) return 'bad-witness-nonstandard';
  }
  return null;
}
