/**
 * The market signer's part of a checkout with co-signed lines: after the claims are taken and
 * before the bytes are journaled, the signer adds its SIGHASH_DEFAULT signature over each
 * co-signed leaf of this exact transaction (one decision per listing outpoint at the signer,
 * shared with offer accepts of the unit: listings/cosign-unit.ts), the market checks it, and the
 * leaf's witness is completed [market, seller, leaf, control].
 */
import { hex } from '@scure/base';
import type { Transaction } from '@scure/btc-signer';
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { SignerRefused, SignerUnavailable } from '../../signer/port.js';
import { listingCosigned } from '../listings/index.js';
import { cosignUnitInput } from '../listings/index.js';
import type { ListingRow } from '../listings/index.js';
import type { Tx } from '../../store/db.js';
import { finalCheckout } from '../../trade/signed.js';

/** `listings[k]` sits at input k + 1 of `merged`, which carries every other signature already. */
export async function cosignCheckout(ctx: Context, tx: Tx, merged: Transaction, listings: ListingRow[], expectedTxid: string): Promise<{ txid: string; hex: string }> {
  for (const [k, l] of listings.entries()) {
    if (l.protocol_subtype !== 'cosigned') continue;
    const unit = { outpoint: l.utxo_outpoint, seller: l.seller, output: listingCosigned(l, ctx.config.NETWORK)!, marketKey: hex.decode(l.cosign_market_key!), keyVersion: l.cosign_key_version! };
    await askSigner(l, () => cosignUnitInput(ctx, tx, { decisionId: l.id, unit, merged, index: k + 1, expectedTxid }));
  }
  return finalCheckout(merged, expectedTxid);
}

async function askSigner<T>(l: ListingRow, f: () => Promise<T>): Promise<T> {
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
