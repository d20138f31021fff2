/**
 * `POST /v1/exact-offer-authorizations/{id}/bidder-psbt`: the bidder's signature on input 0 of
 * the stored parent, DEFAULT or ALL (it commits to every input and output, so the seller can
 * change nothing), verified against the template byte for byte. Input 0 must also pass
 * Counterparty's input-0 rule as Core reads it (the flag from witness item 0), or the detach
 * would be dropped. The signed parent stays private to the market.
 */
import { hex } from '@scure/base';
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { ApiError, notFound } from '../../http/errors.js';
import { buyerSigned } from '../../trade/signed.js';
import { signatureValidity } from '../offers/index.js';
import { activateAuthorization } from '../offers/index.js';
import { authorizationStatus } from './view.js';

export async function activate(ctx: Context, bidder: string, id: string, psbtHex: string) {
  const db = ctx.store.db;
  const a = await db.selectFrom('exact_authorizations').selectAll().where('id', '=', id).executeTakeFirst();
  if (!a || a.bidder !== bidder) throw notFound('exact offer authorization');
  const now = nowSeconds(ctx.clock);
  const status = authorizationStatus(a, now);
  if (status === 'expired') throw new ApiError('expired', 'the authorization expired; ask for a new one');
  if (status === 'active' && a.bidder_signed_psbt) {
    // The same signature again answers as the first time did.
    const merged = buyerSigned(psbtHex, a.psbt, [0], bidder, ctx.config.NETWORK);
    if (hex.encode(merged.toPSBT()) !== a.bidder_signed_psbt) throw new ApiError('state_changed', 'the authorization is already active with another signature');
  } else if (status !== 'awaiting_bidder') {
    throw new ApiError('state_changed', `the authorization is ${status}`, { state: status });
  } else {
    const merged = buyerSigned(psbtHex, a.psbt, [0], bidder, ctx.config.NETWORK);
    const ok = await db.transaction().execute((tx) => activateAuthorization(tx, a.id, hex.encode(merged.toPSBT()), now));
    if (!ok) throw new ApiError('state_changed', 'the authorization changed meanwhile; read it again');
  }
  const slot = a.slot_outpoint.split(':');
  return {
    authorization_id: a.id,
    status: 'active' as const,
    expires_at: Number(a.expires_at),
    signature_validity: signatureValidity({ expires_at: Number(a.expires_at), bid_txid: slot[0]!, bid_vout: Number(slot[1]) }),
  };
}
