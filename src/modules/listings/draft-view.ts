/**
 * A stored draft (and its listing) as the wire "Listing draft". Everything derived at read
 * time lives here: `expired` (an unsigned attach past its review deadline), `withdrawn` (a
 * completed draft whose attach a reorg reopened), the listing's expiry, `next_action`, and the
 * listing template (rebuilt from stored fields, so it is never stale).
 */
import { hex } from '@scure/base';
import type { Static } from '@sinclair/typebox';
import type { Config } from '../../config.js';
import type { Draft } from './schemas.js';
import { addressToScript } from '../../bitcoin/address.js';
import type { DraftRow, ListingRow } from './store.js';
import { buildListingPsbt } from './templates.js';
import { platformFee, PROTOCOL_VERSION } from './rules.js';
import { cosignedOf } from './cosigned.js';
import { cosignedJson } from '../../counterparty/cosigned-listing.js';

export type WireDraftStatus = DraftRow['status'] | 'expired' | 'withdrawn';
export type NextAction = 'sign_attach' | 'wait_for_indexer' | 'set_price' | 'sign_listing' | 'list_again' | null;

export function draftStatus(d: DraftRow, now: number): WireDraftStatus {
  if (d.status === 'awaiting_attach_signature' && d.expires_at <= now) return 'expired';
  if (d.status === 'completed' && d.reopened) return 'withdrawn';
  return d.status;
}

/** A listing's state with expiry applied at read time. */
export function listingState(l: ListingRow, now: number): { state: ListingRow['state']; end_reason: ListingRow['end_reason'] } {
  if ((l.state === 'active' || l.state === 'pending') && l.expires_at <= now) return { state: 'ended', end_reason: 'expired' };
  return { state: l.state, end_reason: l.end_reason };
}

/** True when a listing could be signed now: a known asset UTXO, a price, and no listing yet. */
export function canSignListing(d: DraftRow, status: WireDraftStatus): boolean {
  if (d.purpose !== 'listing' || d.listing_id || d.asset_txid === null) return false;
  return status === 'broadcasting' || status === 'awaiting_indexer' || status === 'ready';
}

function nextAction(d: DraftRow, status: WireDraftStatus): NextAction {
  switch (status) {
    case 'awaiting_attach_signature':
      return 'sign_attach';
    case 'broadcasting':
    case 'awaiting_indexer':
      if (!canSignListing(d, status)) return 'wait_for_indexer';
      return d.price_sats === null ? 'set_price' : 'sign_listing';
    case 'ready':
      return d.price_sats === null ? 'set_price' : 'sign_listing';
    case 'withdrawn':
      return 'list_again';
    default:
      return null;
  }
}

/** A draft's co-signed output (null for a plain draft). */
export const draftCosigned = (d: DraftRow, network: Config['NETWORK']) => cosignedOf({ ...d, seller_key: d.seller_tap_key }, network);

export function listingTemplate(d: DraftRow, network: Config['NETWORK']) {
  if (d.asset_txid === null || d.asset_vout === null || d.utxo_value_sats === null || d.price_sats === null) return undefined;
  const script = addressToScript(d.seller, network);
  if (!script) return undefined;
  return {
    psbt_hex: buildListingPsbt({
      txid: d.asset_txid,
      vout: d.asset_vout,
      utxoValueSats: d.utxo_value_sats,
      sellerScript: script,
      priceSats: d.price_sats,
      tapInternalKey: d.seller_tap_key ? hex.decode(d.seller_tap_key) : null,
      cosigned: draftCosigned(d, network),
    }),
    signer_address: d.seller,
    inputs_to_sign: [0],
    sighash: 'SINGLE|ANYONECANPAY' as const,
    price_sats: d.price_sats,
  };
}

export type DraftWire = Static<typeof Draft>;

export function draftView(
  d: DraftRow,
  listing: ListingRow | undefined,
  now: number,
  config: Pick<Config, 'NETWORK' | 'MARKET_FEE_BPS' | 'MARKET_FEE_MIN_SATS'>,
): DraftWire {
  const status = draftStatus(d, now);
  const ls = listing ? listingState(listing, now) : undefined;
  const attach =
    status === 'awaiting_attach_signature' && d.attach_psbt && d.attach_signers
      ? { psbt_hex: d.attach_psbt, signers: JSON.parse(d.attach_signers) as NonNullable<DraftWire['attach']>['signers'] }
      : undefined;
  // Shown as soon as the attach txid is known (SegWit source), so attach-and-list can sign both.
  const showTemplate = canSignListing(d, status) || (status === 'awaiting_attach_signature' && d.purpose === 'listing' && d.asset_txid !== null);
  const template = showTemplate ? listingTemplate(d, config.NETWORK) : undefined;
  const co = draftCosigned(d, config.NETWORK);
  return {
    id: d.id,
    operation_id: d.operation_id,
    protocol_version: PROTOCOL_VERSION,
    protocol_subtype: d.protocol_subtype,
    ...(co ? { cosigned_output: cosignedJson(co, d.cosign_key_version!) } : {}),
    purpose: d.purpose,
    seller: d.seller,
    asset_source: d.asset_source,
    asset: d.asset,
    quantity_raw: d.quantity_raw,
    mode: d.mode,
    status,
    asset_utxo:
      d.asset_txid !== null && d.asset_vout !== null && d.utxo_value_sats !== null
        ? { txid: d.asset_txid, vout: d.asset_vout, utxo_value_sats: d.utxo_value_sats }
        : null,
    fees: {
      network: { asset: 'BTC' as const, amount_sats: d.network_fee_sats },
      protocol: {
        asset: 'XCP' as const,
        amount_raw: d.protocol_fee_raw,
        actual_amount_raw: d.protocol_fee_actual_raw,
        observed_block: d.protocol_fee_block,
        variable_until_confirmed: d.mode === 'attach' && d.protocol_fee_actual_raw === null,
        charged_at: d.protocol_fee_charged_at === null ? null : new Date(d.protocol_fee_charged_at * 1000).toISOString(),
      },
      platform: { asset: 'BTC' as const, amount_sats: platformFee(config, d.price_sats) },
    },
    ...(attach ? { attach } : {}),
    ...(template ? { listing: template } : {}),
    expected_txid: d.expected_txid,
    attach_txid: d.attach_txid,
    fee_rate: d.fee_rate,
    price_sats: d.price_sats,
    next_action: nextAction(d, status),
    expires_at: d.expires_at,
    last_error: d.last_error,
    bitcoin_confirmed_at: d.bitcoin_confirmed_at,
    created_at: d.created_at,
    updated_at: d.updated_at,
    listing_id: d.listing_id,
    listed_price_sats: listing ? listing.price_sats : null,
    listing_status: ls ? ls.state : null,
    listing_end_reason: ls ? ls.end_reason : null,
    listing_exposure: listing?.exposed_at != null ? { reason: listing.exposure_reason!, at: listing.exposed_at } : null,
  };
}

export type DraftView = DraftWire;
