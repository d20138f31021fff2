/** How exact authorizations read: the seller inbox row, the bidder's view, the status at read time. */
import type { ExactOfferTables } from '../offers/index.js';

type AuthRow = ExactOfferTables['exact_authorizations'];

/** `expired` is derived at read time for an unsettled authorization past its market expiry. */
export function authorizationStatus(a: Pick<AuthRow, 'state' | 'expires_at'>, now: number): AuthRow['state'] | 'expired' {
  return (a.state === 'active' || a.state === 'awaiting_bidder') && a.expires_at <= now ? 'expired' : a.state;
}

/** The spec's seller inbox row. */
export function inboxRow(a: AuthRow, requiresBuyerAction: boolean) {
  return {
    authorization_id: a.id,
    offer_id: a.offer_id,
    funding_slot_id: a.slot_id,
    asset: a.asset,
    bidder: a.bidder,
    seller: a.seller,
    price_sats: Number(a.price_sats),
    seller_proceeds_sats: Number(a.seller_proceeds_sats),
    network_fee_sats: Number(a.prefunded_fee_sats),
    platform_fee_sats: Number(a.platform_fee_sats),
    prefunded_fee_sats: Number(a.prefunded_fee_sats),
    fee_rate: Number(a.fee_rate),
    expires_at: Number(a.expires_at),
    requires_buyer_action: requiresBuyerAction,
    target_outpoint: { txid: a.asset_txid, vout: a.asset_vout },
    offer_scope: a.offer_scope,
    created_at: Number(a.created_at),
  };
}

/** The bidder's view of an authorization it asked for (the unsigned parent while it awaits the signature). */
export function bidderView(a: AuthRow, now: number) {
  const status = authorizationStatus(a, now);
  return {
    authorization_id: a.id,
    offer_id: a.offer_id,
    funding_slot_id: a.slot_id,
    status,
    end_reason: a.end_reason,
    asset: a.asset,
    seller: a.seller,
    target_outpoint: { txid: a.asset_txid, vout: a.asset_vout },
    price_sats: Number(a.price_sats),
    platform_fee_sats: Number(a.platform_fee_sats),
    prefunded_fee_sats: Number(a.prefunded_fee_sats),
    fee_rate: Number(a.fee_rate),
    seller_proceeds_sats: Number(a.seller_proceeds_sats),
    delivery: { mode: a.delivery_mode, address: a.receive_address },
    parent_txid: a.parent_txid,
    psbt_hex: status === 'awaiting_bidder' ? a.psbt : null,
    inputs_to_sign: status === 'awaiting_bidder' ? [0] : [],
    sighash: 'ALL' as const,
    expires_at: Number(a.expires_at),
    created_at: Number(a.created_at),
  };
}
