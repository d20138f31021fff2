/**
 * Reading a listing's stored seller half (the private SINGLE|ANYONECANPAY PSBT): the pair a
 * checkout copies, and the signature merged in at completion. The half never leaves the
 * market: a quote carries the seller inputs' prevouts (which a BIP-341 buyer signature commits
 * to) but not the sellers' signatures.
 */
import { hex } from '@scure/base';
import type { Transaction } from '@scure/btc-signer';
import { parsePsbt } from '../../bitcoin/psbt.js';
import { finalFields } from '../../bitcoin/psbt-verify.js';
import { ApiError } from '../../http/errors.js';
import type { ListingRow } from '../listings/index.js';
import { outpointKey } from '../../trade/outpoints.js';
import type { SellerPair } from '../../trade/compose.js';
import { COSIGNED_LEAF_SPEND } from '../../counterparty/cosigned-listing.js';

const isTaproot = (s: Uint8Array) => s.length === 34 && s[0] === 0x51 && s[1] === 0x20;

function half(l: ListingRow): Transaction {
  const p = l.signed_psbt ? parsePsbt(l.signed_psbt) : undefined;
  if (!p?.ok || p.tx.inputsLength !== 1 || p.tx.outputsLength !== 1) {
    throw new ApiError('state_changed', `listing ${l.id} has no usable seller half`, { listing_id: l.id });
  }
  return p.tx;
}

/**
 * The listings' halves, each parsed once while it is kept: a quote and then its completion read
 * the same stored bytes, and parsing a PSBT re-validates every key in it (a curve point each,
 * in JavaScript), the larger part of a completion's own work. Keyed by the stored bytes, so a
 * changed half is parsed anew; bounded (the oldest parse is dropped). The parsed transactions
 * are only read, never changed.
 */
export class SellerHalves {
  private readonly parsed = new Map<string, Kept>();

  constructor(private readonly max = 1_000) {}

  private kept(l: ListingRow): Kept {
    const kept = l.signed_psbt ? this.parsed.get(l.signed_psbt) : undefined;
    if (kept) return kept;
    const k = { tx: half(l) };
    if (this.parsed.size >= this.max) this.parsed.delete(this.parsed.keys().next().value!);
    this.parsed.set(l.signed_psbt!, k);
    return k;
  }

  private half(l: ListingRow): Transaction {
    return this.kept(l).tx;
  }

  /** The listing's pair with the version and locktime its signature commits to. */
  pair(l: ListingRow): { pair: SellerPair; version: number; lockTime: number } {
    return pairOf(l, this.half(l));
  }

  /**
   * The output the half spends (its `witnessUtxo`), as the quote copied it onto the checkout;
   * undefined for a half that cannot be read (its completion then fails as it would without).
   */
  prevout(l: ListingRow): { script: Uint8Array; amount: bigint } | undefined {
    try {
      const k = this.kept(l);
      return (k.prevout ??= k.tx.getInput(0).witnessUtxo);
    } catch {
      return undefined;
    }
  }

  /**
   * The seller's signature fields, to copy onto the checkout's input k. A co-signed half gives only
   * its leaf signature and the leaf (the input is finalized once the market signer has signed).
   */
  signature(l: ListingRow) {
    const k = this.kept(l);
    if (l.protocol_subtype === 'cosigned') {
      const input = k.tx.getInput(0);
      return { tapScriptSig: input.tapScriptSig, tapLeafScript: input.tapLeafScript };
    }
    // The seller's final witness ([sig, key] or [sig]) is the same in every checkout of the half:
    // built once (the input read, a deep copy, only then), and merged final, it is what the
    // checkout verifies and extracts. A half without a signature gives nothing, and the check
    // of that input fails.
    if (k.final) return k.final;
    const input = k.tx.getInput(0);
    return (k.final = finalFields(input, input.witnessUtxo?.script ?? new Uint8Array()) ?? {});
  }
}

interface Kept {
  tx: Transaction;
  /** The seller's final fields, once asked for. */
  final?: Record<string, unknown>;
  /** The output it spends, once asked for. */
  prevout?: { script: Uint8Array; amount: bigint };
}

function pairOf(l: ListingRow, tx: Transaction): { pair: SellerPair; version: number; lockTime: number } {
  const input = tx.getInput(0);
  const output = tx.getOutput(0);
  const txid = input.txid ? hex.encode(input.txid) : '';
  const prevout = input.witnessUtxo;
  if (outpointKey(txid, input.index ?? -1) !== l.utxo_outpoint || !prevout || !output.script || output.amount !== BigInt(l.price_sats)) {
    // The stored half always matches its row (both are written in one statement); refuse rather than guess.
    throw new ApiError('state_changed', `listing ${l.id} changed; quote again`, { listing_id: l.id });
  }
  return {
    version: tx.version,
    lockTime: tx.lockTime,
    pair: {
      txid,
      index: input.index!,
      sequence: input.sequence ?? 0xffffffff,
      prevout: { script: prevout.script, amount: prevout.amount },
      output: { script: output.script, amount: output.amount },
      spend: l.protocol_subtype === 'cosigned' ? COSIGNED_LEAF_SPEND : isTaproot(prevout.script) ? 'p2tr-key-explicit' : 'p2wpkh',
    },
  };
}
