/**
 * The fields each flow takes, declared once per flow input type (`Fields<T>`: the compiler fails
 * when a type gains a field this list lacks, or the list names one the type does not have).
 * `progress` is accepted by every flow; see fields.ts for the rule.
 */
import type { Fields } from './fields.js';
import type { AttachAndListInput } from './flows/attach-list.js';
import type { ListInput, RepriceInput, RotateInput, WithdrawInput } from './flows/listing.js';
import type { AcceptInput, AuthorizeInput, CounterInput, PlaceBidsInput, TakeCounterInput } from './flows/offers.js';
import type { AcceptCollectionOfferInput, HardCancelInput, PlaceCollectionOfferInput } from './flows/policy.js';
import type { PrepareInput } from './flows/prepare.js';

export const FIELDS = {
  attachAndList: { asset: true, quantity_raw: true, price_sats: true, expires_at: true, idempotency_key: true, fee_rate: true, maxFeeSats: true, cosigned: true, wait: true } satisfies Fields<AttachAndListInput>,
  list: { asset_utxo: true, asset: true, price_sats: true, expires_at: true, idempotency_key: true, cosigned: true, wait: true } satisfies Fields<ListInput>,
  reprice: { listing_id: true, asset_utxo: true, price_sats: true } satisfies Fields<RepriceInput>,
  rotate: { listing_id: true, asset_utxo: true, fee_rate: true, maxFeeSats: true } satisfies Fields<RotateInput>,
  withdrawCosigned: { asset_utxo: true, seller_tap_internal_key: true, fee_rate: true, maxFeeSats: true } satisfies Fields<WithdrawInput>,
  placeBids: { price_sats: true, slots: true, targets: true, expires_at: true, delivery_mode: true, receive_address: true, fee_rate: true, maxFeeSats: true } satisfies Fields<PlaceBidsInput>,
  authorizeExact: { offer_id: true, slot: true, price_sats: true, delivery_mode: true, delivery_address: true, target_outpoint: true, fee_rate: true, maxFeeSats: true } satisfies Fields<AuthorizeInput>,
  acceptExact: { authorization_id: true, target_outpoint: true, price_sats: true, fee_rate: true, seller_min_net_sats: true } satisfies Fields<AcceptInput>,
  counter: { offer_id: true, asset_outpoint: true, price_sats: true, expires_at: true } satisfies Fields<CounterInput>,
  takeCounter: { expires_at: true, delivery_mode: true, receive_address: true, fee_rate: true, maxFeeSats: true, maxAuthorizationFeeSats: true } satisfies Fields<TakeCounterInput>,
  placeCollectionOffer: { targets: true, bidder_pubkey: true, expires_at: true, delivery_address: true, fee_rate: true, maxFeeSats: true, marketPubkey: true } satisfies Fields<PlaceCollectionOfferInput>,
  acceptCollectionOffer: { parent_txid: true, asset_utxo: true, fee_rate: true, seller_min_net_sats: true, seller_tap_internal_key: true } satisfies Fields<AcceptCollectionOfferInput>,
  hardCancelCollectionOffer: { id: true, fee_rate: true, maxFeeSats: true } satisfies Fields<HardCancelInput>,
  prepareUnit: { asset: true, quantity_raw: true, fee_rate: true, maxFeeSats: true, idempotency_key: true } satisfies Fields<PrepareInput>,
} as const;
