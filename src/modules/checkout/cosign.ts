/**
 * The market signer's part of a checkout with co-signed lines: after the claims are taken and
 * before the bytes are journaled, the signer adds its SIGHASH_DEFAULT signature over each
 * co-signed leaf of this exact transaction (one decision per listing outpoint at the signer), the
 * market checks it, and the leaf's witness is completed [market, seller, leaf, control].
 */
import { hex } from '@scure/base';
import type { Transaction } from '@scure/btc-signer';
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { psbtPrevouts } from '../../bitcoin/psbt.js';
import { TAPSCRIPT_LEAF_VERSION, verifySchnorr } from '../../bitcoin/taproot.js';
import { cosignedOutput, cosignedWitness } from '../../counterparty/cosigned-listing.js';
import { SignerRefused, SignerUnavailable } from '../../signer/port.js';
import type { ListingRow } from '../listings/store.js';
import type { Tx } from '../../store/db.js';
import { finalCheckout } from './signed.js';

/** `listings[k]` sits at input k + 1 of `merged`, which carries every other signature already. */
export async function cosignCheckout(ctx: Context, tx: Tx, merged: Transaction, listings: ListingRow[], expectedTxid: string): Promise<{ txid: string; hex: string }> {
  const { prevouts } = psbtPrevouts(merged);
  for (const [k, l] of listings.entries()) {
    if (l.protocol_subtype !== 'cosigned') continue;
    const index = k + 1;
    const market = hex.decode(l.cosign_market_key!);
    const o = cosignedOutput(hex.decode(l.cosign_seller_key!), market, ctx.config.NETWORK);
    const ask = (supersedes?: string) =>
      ctx.signer.cosignListing({
        listing_id: l.id,
        outpoint: l.utxo_outpoint,
        tx_psbt_hex: hex.encode(merged.toPSBT()),
        input_index: index,
        leaf_script_hex: hex.encode(o.leaf),
        key_version: l.cosign_key_version!,
        ...(supersedes ? { supersedes_txid: supersedes } : {}),
      });
    const r = await askSigner(ctx, l, async () => {
      try {
        return await ask();
      } catch (e) {
        // Co-signed before into a transaction that can no longer settle: a checkout refused or
        // conflicted (an input spent elsewhere), or one never journaled (the market stopped between
        // the co-signature and its commit; nobody else ever held that signature). This transaction
        // holds the outpoint's claim, so no other checkout of it is in flight uncommitted.
        const prior = e instanceof SignerRefused && e.code === 'listing_signed_other' ? e.extras.signed_txid : undefined;
        if (!prior) throw e;
        const s = await ctx.journal.byTxid(tx, prior);
        if (s && s.state !== 'rejected' && s.state !== 'conflicted') throw e;
        return ask(prior);
      }
    });
    // The signer is trusted to refuse, not to be right: its signature is checked before it is journaled.
    const digest = merged.preimageWitnessV1(index, prevouts.map((p) => p!.script), 0, prevouts.map((p) => p!.amount), undefined, o.leaf, TAPSCRIPT_LEAF_VERSION);
    const sig = hex.decode(r.signature);
    if (r.txid !== expectedTxid || !verifySchnorr(sig, digest, market)) throw new Error(`market signer answered a bad co-signature for ${l.id} (${r.txid})`);
    const sellerSig = merged.getInput(index).tapScriptSig?.[0]?.[1];
    if (!sellerSig) throw new Error(`listing ${l.id}: no seller leaf signature`);
    merged.updateInput(index, { finalScriptWitness: cosignedWitness(o, sig, sellerSig) }, true);
  }
  return finalCheckout(merged, expectedTxid);
}

async function askSigner<T>(ctx: Context, l: ListingRow, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof SignerRefused) {
      throw new ApiError('checkout_changed', `listing ${l.id} cannot be co-signed: ${e.message}; request a new quote`, { listing_id: l.id, refusal_code: e.code });
    }
    if (e instanceof SignerUnavailable) {
      throw new ApiError('service_unavailable', `co-signed listings cannot complete now: ${e.message}`, { dependency: 'market_signer', retry_after_seconds: 5 });
    }
    throw e;
  }
}
