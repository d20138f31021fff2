/**
 * How the node's answers to relaying calls become port values: which RPC errors
 * are refusals (TxRejected), which are "already there" successes, and the
 * shapes of testmempoolaccept and submitpackage replies.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { RawTx } from '@scure/btc-signer';
import { TxRejected, type AcceptResult, type PackageResult } from '../ports.js';
import { RPC, RpcError } from './rpc-client.js';
import { btcToSats, type SubmitPackageReply, type TestMempoolAcceptEntry } from './rpc-types.js';

/**
 * The txid of a raw transaction (double SHA-256 of the witness-stripped
 * serialization, shown byte-reversed), or null when the bytes do not parse.
 * Needed because an "already confirmed" answer carries no txid.
 */
export function txidOfHex(rawHex: string): string | null {
  try {
    const decoded = RawTx.decode(hex.decode(rawHex));
    const stripped = RawTx.encode({ ...decoded, segwitFlag: false, witnesses: undefined });
    return hex.encode(sha256(sha256(stripped)).reverse());
  } catch {
    return null;
  }
}

/**
 * Reject codes that mean the very same transaction is already in the mempool.
 * Current Core returns the txid for these; older releases raised -26/-27.
 */
const ALREADY_KNOWN = new Set(['txn-already-in-mempool', 'txn-already-known', 'txn-same-nonwitness-data-in-mempool']);

const leadingCode = (msg: string): string => msg.split(',')[0]!.trim();

/**
 * Interprets a sendrawtransaction RpcError: returns true when the error means
 * "already relayed or confirmed" (success), throws TxRejected for refusals, and
 * rethrows anything else unchanged.
 */
export function interpretBroadcastError(e: RpcError, txid: string | null): true {
  // -27: "Transaction already in block chain" (≤ Core 25) / "Transaction outputs already in utxo set".
  if (e.code === RPC.VERIFY_ALREADY_IN_CHAIN) return true;
  if ((e.code === RPC.VERIFY_REJECTED || e.code === RPC.VERIFY_ERROR) && ALREADY_KNOWN.has(leadingCode(e.rpcMessage))) return true;
  if (e.code === RPC.VERIFY_REJECTED || e.code === RPC.VERIFY_ERROR || e.code === RPC.DESERIALIZATION_ERROR) {
    throw new TxRejected(e.rpcMessage, e.code, txid ?? undefined);
  }
  throw e;
}

/** One testmempoolaccept entry as an AcceptResult (reject_reason keeps Core's code). */
export function acceptResultOf(entry: TestMempoolAcceptEntry): AcceptResult {
  if (entry.allowed === true) {
    return {
      txid: entry.txid,
      allowed: true,
      ...(entry.vsize !== undefined ? { vsize: entry.vsize } : {}),
      ...(entry.fees ? { fee_sats: btcToSats(entry.fees.base) } : {}),
    };
  }
  // No `allowed` key: validation stopped at another member; report the package error.
  const reason = entry['reject-reason'] ?? entry['package-error'] ?? 'unevaluated';
  return { txid: entry.txid, allowed: false, reject_reason: reason };
}

/**
 * A submitpackage reply as a PackageResult. Core validates each member alone first, so a parent
 * that pays its own way can be in the mempool while its child was refused: such a reply is a
 * result (with each member's fate), not a refusal. Only when no member is in the mempool is it
 * TxRejected, naming the first member the node refused (its own error, e.g.
 * `min relay fee not met, 0 < 110`), else the package message. A member Core did not evaluate
 * is missing from `tx-results` (Core 29 skips it) and counts as refused, `unevaluated`.
 */
export function packageResultOf(reply: SubmitPackageReply, hexes: string[]): PackageResult {
  const byTxid = new Map(Object.values(reply['tx-results'] ?? {}).map((r) => [r.txid, r]));
  const ordered = Object.values(reply['tx-results'] ?? {});
  const txids = hexes.map((h, i) => txidOfHex(h) ?? ordered[i]?.txid ?? '');
  const members = txids.map((txid) => {
    const r = byTxid.get(txid);
    if (!r) return { txid, accepted: false, error: 'unevaluated' };
    // A member the node already has in its chain is refused alone as `txn-already-known` (Core 29.2,
    // recorded in the differential suite): it landed, as sendrawtransaction's "already" answers say.
    if (typeof r.error === 'string' && ALREADY_KNOWN.has(leadingCode(r.error))) return { txid, accepted: true };
    if (typeof r.error === 'string') return { txid, accepted: false, error: r.error };
    return { txid, accepted: true };
  });
  const replaced = reply['replaced-transactions'] ?? [];
  if (reply.package_msg === 'success' || members.every((m) => m.accepted)) return { txids, message: reply.package_msg, members: members.map((m) => ({ txid: m.txid, accepted: true })), replaced };
  if (members.some((m) => m.accepted)) return { txids, message: reply.package_msg, members, replaced };
  // A package-wide verdict (`package RBF failed: …`, `TRUC-violation, …`) is what decided: the
  // members then carry only what they got alone (a zero-fee parent's `min relay fee not met`),
  // which would misname a lost replacement race as a fee floor.
  if (reply.package_msg !== 'transaction failed') throw new TxRejected(reply.package_msg, RPC.VERIFY_REJECTED);
  const failed = members.find((m) => m.error !== undefined && m.error !== 'unevaluated');
  throw new TxRejected(failed?.error ?? reply.package_msg, RPC.VERIFY_REJECTED, failed?.txid);
}

/** submitpackage raises -25 for a bad topology or a failed relay, -22 for bytes that do not decode. */
export function interpretPackageError(e: RpcError): never {
  if (e.code === RPC.VERIFY_ERROR || e.code === RPC.VERIFY_REJECTED || e.code === RPC.DESERIALIZATION_ERROR) {
    throw new TxRejected(e.rpcMessage, e.code);
  }
  throw e;
}
