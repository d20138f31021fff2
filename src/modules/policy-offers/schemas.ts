/** Collection offers' wire shapes, written once for validation, types and the OpenAPI document. */
import { Type } from '@sinclair/typebox';
import { EndsOffers } from '../../trade/coins.js';
import { Address, FeeRate, Hex, Id, Nullable, Outpoint, PsbtHex, Sats, Txid, UnixSeconds, Vout } from '../../http/validators.js';
import { traitFields } from '../market/index.js';
import { OfferTarget } from '../offers/index.js';
import { MAX_ALTERNATIVES, MAX_FUNDING_INPUTS } from './rules.js';
import { SettlementFields, SettlementHoldSchema } from '../../settlement/operation.js';

const { target_outpoint: _exact, ...policyTargetFields } = OfferTarget.properties;

export const PolicyTargetIn = Type.Object(
  { ...policyTargetFields, price_sats: Sats({ minimum: 1, description: 'what this alternative pays for one unit (at least 5,000 sats)' }) },
  { title: 'PolicyAlternativeIn', additionalProperties: false, description: 'One alternative: an eligibility policy (asset, collection or trait) and its price. Exact units go through exact offers instead.' },
);


export const PolicyPreflightBody = Type.Object(
  {
    targets: Type.Array(PolicyTargetIn, { minItems: 1, maxItems: MAX_ALTERNATIVES, description: `1 to ${MAX_ALTERNATIVES} alternatives; one escrow backs them all and the first fill retires the rest` }),
    bidder_pubkey: Hex('the key the bidder signs the escrow leaves with: x-only (64 hex) or compressed (66 hex)'),
    funding: Type.Optional(Type.Array(Outpoint, { minItems: 1, maxItems: MAX_FUNDING_INPUTS, description: `at most ${MAX_FUNDING_INPUTS} confirmed, asset-free coins of the session address (one may back an open bid of the address: \`ends_offers\` then lists the bids it would end); default: picked largest first, never a coin that backs an open offer of the address` })),
    delivery_address: Type.Optional(Address),
    expires_at: Type.Integer({ minimum: 0, maximum: 4_102_444_800, description: "the market's expiry of every alternative (unix s, at most 180 days ahead)" }),
    fee_rate: Type.Optional(FeeRate),
  },
  { additionalProperties: false },
);

const Signing = Type.Object({ signer_address: Type.String(), inputs_to_sign: Type.Array(Type.Integer({ minimum: 0 })), sighash: Type.Union([Type.Literal('DEFAULT'), Type.Literal('ALL')]) });
const Coin = Type.Object({ txid: Txid, vout: Vout, value_sats: Sats() });
const Target = Type.Object(traitFields);

export const PolicyPreflightResult = Type.Object({
  protocol_version: Type.Literal('funded_policy_offer_v1'),
  funding_set_id: Type.String(),
  status: Type.String(),
  bidder: Type.String(),
  delivery_address: Type.String(),
  parent: Type.Object({ psbt_hex: Type.String(), expected_txid: Txid, version: Type.Literal(3), vsize: Type.Integer(), fee_sats: Type.Integer({ minimum: 0 }), signing: Signing }),
  funding_inputs: Type.Array(Coin),
  anchor: Coin,
  escrow: Type.Object({
    address: Type.String(),
    script_hex: Type.String(),
    accept_leaf_hex: Type.String({ description: '<bidder> OP_CHECKSIGVERIFY <market> OP_CHECKSIG; witness [market_sig, bidder_sig, leaf, control]' }),
    accept_control_block_hex: Type.String(),
    refund_leaf_hex: Type.String({ description: '<refund_csv_blocks> OP_CHECKSEQUENCEVERIFY OP_DROP <bidder> OP_CHECKSIG' }),
    refund_control_block_hex: Type.String(),
    refund_csv_blocks: Type.Integer(),
    internal_key_hex: Type.String({ description: 'the BIP-341 NUMS point: no key path' }),
    value_sats: Sats(),
    market_key: Type.Object({ version: Type.Integer(), pubkey: Type.String() }),
    bidder_key: Type.String(),
  }),
  alternatives: Type.Array(
    Type.Object({
      index: Type.Integer({ minimum: 0 }),
      target: Target,
      price_sats: Sats(),
      estimated_seller_net_sats: Type.Integer({ description: 'price − platform fee − package fee at fee_rate: a quote, not a promise' }),
      child_template: Type.Object({
        psbt_hex: Type.String({ description: 'version 3; input 0 the escrow (witnessUtxo and tapLeafScript set), output 0 the delivery' }),
        input_index: Type.Literal(0),
        sighash: Type.Literal('SINGLE|ANYONECANPAY'),
        sighash_type: Type.Literal(0x83),
        digest_hex: Type.String({ description: 'the BIP-341 script-path digest to sign (for signers that sign digests)' }),
        delivery: Type.Object({ address: Type.String(), value_sats: Sats() }),
      }),
    }),
  ),
  fee_rate: Type.Number(),
  expires_at: UnixSeconds,
  preflight_expires_at: UnixSeconds,
  ends_offers: EndsOffers,
}, { title: 'PolicyPreflight' });

export const PolicyPlaceBody = Type.Object(
  {
    funding_set_id: Id,
    parent_psbt_hex: PsbtHex,
    presignatures: Type.Array(
      Type.Object(
        {
          index: Type.Integer({ minimum: 0, maximum: MAX_ALTERNATIVES - 1 }),
          signature_hex: Type.Optional(Hex('the 65-byte Schnorr signature (64 + 0x83)')),
          psbt_hex: Type.Optional(Type.String({ maxLength: 20_000, pattern: '^[0-9a-fA-F]+$', description: 'or the child template signed by the wallet (its input 0 tapScriptSig)' })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_ALTERNATIVES },
    ),
  },
  { additionalProperties: false },
);

export const PolicyOfferOut = Type.Object(
  {
    id: Type.String(),
    protocol_version: Type.Literal('funded_policy_offer_v1'),
    funding_set_id: Type.String(),
    kind: Type.String({ description: 'asset, collection or trait' }),
    scope: Type.String({ description: 'asset or collection' }),
    target: Target,
    status: Type.String({ description: 'active, filled, cancelled (soft), expired, retired (a sibling filled), invalid (its funding was spent: hard cancel; or its package failed)' }),
    end_reason: Nullable(Type.String()),
    bidder: Type.String(),
    delivery_address: Type.String(),
    price_sats: Sats(),
    estimated_seller_net_sats: Nullable(Type.Integer({ description: 'at the current fee rate, for a P2WPKH unit: a quote, not a promise' })),
    parent_txid: Txid,
    escrow_value_sats: Sats(),
    filled_txid: Nullable(Txid),
    created_at: UnixSeconds,
    expires_at: UnixSeconds,
    ended_at: Nullable(UnixSeconds),
    marketplace_expires_at: UnixSeconds,
    bitcoin_invalidation: Type.Object({ type: Type.Literal('spend_funding_input'), outpoints: Type.Array(Outpoint) }),
    bidder_history: Type.Object({ offers_placed: Type.Integer(), offers_filled: Type.Integer(), offers_cancelled: Type.Integer(), funding_sets_invalidated: Type.Integer() }),
  },
  { title: 'PolicyOffer' },
);

export const FundingSetOut = Type.Object(
  {
    funding_set_id: Type.String(),
    protocol_version: Type.Literal('funded_policy_offer_v1'),
    status: Type.String({ description: 'awaiting_signatures, open, filled, cancelled, invalid, expired, lapsed' }),
    end_reason: Nullable(Type.String()),
    bidder: Type.String(),
    delivery_address: Type.String(),
    parent_txid: Txid,
    escrow_value_sats: Sats(),
    max_price_sats: Sats(),
    funding_inputs: Type.Array(Coin),
    anchor: Type.Object({ outpoint: Type.String(), value_sats: Sats() }),
    market_key: Type.Object({ version: Type.Integer(), pubkey: Type.String() }),
    refund_csv_blocks: Type.Integer(),
    cancel: Nullable(Type.Object({ recorded_at: Type.Integer(), receipt: Nullable(Type.Object({ key_version: Type.Integer(), pubkey: Type.String(), message: Type.String(), signature: Type.String() })) }, { description: 'once every alternative is soft-cancelled: the signer time of the first recorded cancellation (each alternative\'s receipt: GET /v1/policy-offers/cancelled); null otherwise' })),
    spent_txid: Nullable(Txid),
    created_at: UnixSeconds,
    expires_at: UnixSeconds,
    offers: Type.Array(PolicyOfferOut),
  },
  { title: 'PolicyFundingSet' },
);

export const SoftCancelBody = Type.Object({ address: Address, signature: Type.String({ minLength: 1, maxLength: 2000, description: 'BIP-322 simple signature (base64) over "counterparty-marketplace policy-offer cancel\\n<parent_txid>"' }) }, { additionalProperties: false });

const Receipt = Type.Object(
  { key_version: Type.Integer(), pubkey: Type.String(), message: Type.String(), signature: Type.String({ description: 'BIP-340 signature by the market key over sha256(message)' }) },
  { title: 'CancelReceipt' },
);

export const SoftCancelResult = Type.Object({
  parent_txid: Txid,
  funding_set_id: Type.String(),
  offer_id: Type.String({ description: 'the cancelled alternative, the one the path names' }),
  cancelled: Type.Boolean(),
  recorded_at: { ...UnixSeconds, description: "the signer's clock, unix seconds like every time in this API, at the first recorded cancellation of this alternative (or at the co-signature when already_signed)" },
  funding_cancelled: Type.Boolean({ description: 'true once every alternative of the funding set is cancelled (then the set ends and its anchor goes to the next sweep); false while any sibling is live, filled or expired' }),
  already_signed: Type.Boolean({ description: 'an acceptance co-signature was already released for this parent: only the hard cancel can still stop it' }),
  receipt: Nullable(Receipt),
  bitcoin_invalidation: Type.Object({ type: Type.Literal('spend_funding_input'), outpoints: Type.Array(Outpoint) }),
});

export const CancelTxBody = Type.Object({ fee_rate: Type.Optional(FeeRate) }, { additionalProperties: false });

export const CancelTxResult = Type.Object({
  parent_txid: Txid,
  funding_id: Type.String(),
  funding_inputs: Type.Array(Coin),
  psbt_hex: Type.String(),
  expected_txid: Txid,
  fee_sats: Sats(),
  output_sats: Sats(),
  fee_rate: Type.Number(),
  signing: Signing,
});

export const AcceptPreflightBody = Type.Object(
  {
    parent_txid: Txid,
    asset_txid: Txid,
    asset_vout: Vout,
    fee_rate: Type.Optional(FeeRate),
    seller_min_net_sats: Type.Optional(Sats({ minimum: 0 })),
    seller_tap_internal_key: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$' })),
  },
  { additionalProperties: false },
);

const AcceptDelivery = Type.Object({ mode: Type.Literal('attached'), address: Type.String(), value_sats: Sats() });

export const AcceptQuote = Type.Object(
  {
    protocol_version: Type.Literal('funded_policy_offer_v1'),
    accept_id: Type.String(),
    status: Type.String({ description: 'quoted' }),
    offer_id: Type.String(),
    parent_txid: Txid,
    funding_slot_id: Type.Optional(Type.String()),
    seller: Type.String(),
    asset: Type.String(),
    quantity_raw: Type.Optional(Type.String()),
    asset_outpoint: Outpoint,
    utxo_value_sats: Type.Optional(Sats()),
    psbt_hex: Type.String(),
    expected_txid: Txid,
    price_sats: Sats({ minimum: 1 }),
    offer_value_sats: Type.Optional(Sats({ minimum: 1 })),
    platform_fee_sats: Type.Integer({ minimum: 0 }),
    network_fee_sats: Sats({ minimum: 1 }),
    seller_proceeds_sats: Sats({ minimum: 1 }),
    parent_vsize: Type.Integer(),
    child_vsize: Type.Integer(),
    package_vsize: Type.Optional(Type.Integer()),
    fee_rate: Type.Number({ minimum: 0.1, maximum: 500 }),
    delivery: AcceptDelivery,
    signing: Type.Object({ signer_address: Type.String(), inputs_to_sign: Type.Array(Type.Integer()), sighash: Type.Union([Type.Literal('DEFAULT'), Type.Literal('ALL')]) }),
    intent: Type.Object({
      type: Type.Literal('accept_policy_offer'),
      protocol_version: Type.Literal('funded_policy_offer_v1'),
      parent_txid: Txid,
      asset: Type.String(),
      asset_outpoint: Outpoint,
      seller_proceeds_sats: Sats(),
      seller_address: Type.String(),
    }),
    wallet_request: Type.Object({
      method: Type.Literal('signPsbt'),
      psbt_hex: Type.String(),
      inputs_to_sign: Type.Array(Type.Object({ address: Type.String(), signing_indexes: Type.Array(Type.Integer()), sighash: Type.String() })),
    }),
    expires_at: UnixSeconds,
    reserves_inventory: Type.Literal(false),
  },
  { title: 'PolicyAcceptQuote' },
);

export const AcceptBody = Type.Object({ accept_id: Id, psbt_hex: PsbtHex }, { additionalProperties: false });

export const AcceptRecord = Type.Object(
  {
    protocol_version: Type.Literal('funded_policy_offer_v1'),
    accept_id: Type.String(),
    status: Type.String({ description: 'accepted' }),
    offer_id: Type.String(),
    funding_set_id: Type.String(),
    parent_txid: Txid,
    txid: Txid,
    settlement_id: Nullable(Type.String()),
    settlement_state: Nullable(Type.String({ description: 'journaled (202: recovery still relays), relayed, confirmed, rejected, conflicted' })),
    hold: SettlementHoldSchema,
    listing_id: Nullable(Type.String()),
    asset: Type.String(),
    asset_outpoint: Outpoint,
    delivery: AcceptDelivery,
    price_sats: Sats(),
    platform_fee_sats: Type.Integer({ minimum: 0 }),
    network_fee_sats: Sats(),
    seller_proceeds_sats: Sats(),
    already_completed: Type.Boolean(),
  },
  { title: 'PolicyAcceptRecord' },
);

export const AcceptStatus = Type.Object(
  {
    accept_id: Type.String(),
    offer_id: Type.String(),
    funding_set_id: Type.String(),
    status: Type.Union(['quoted', 'expired', 'broadcasting', 'broadcast', 'confirmed', 'failed'].map((s) => Type.Literal(s)), {
      description:
        'quoted: not completed, the quote can still be signed and completed; expired: never completed, past its deadline; broadcasting: journaled, recovery keeps relaying it; broadcast; confirmed; failed: the node refused the package or an input was spent elsewhere, claims released (see failure_code)',
    }),
    expires_at: UnixSeconds,
    settlement_id: Nullable(Type.String()),
    settlement_state: Nullable(Type.String({ description: 'journaled, relayed, confirmed, rejected or conflicted' })),
    parent_txid: Nullable(Txid),
    txid: Nullable({ ...Txid, description: 'the child (the trade), once completed' }),
    ...SettlementFields,
  },
  { title: 'PolicyAcceptStatus', additionalProperties: false },
);

export const CancelledParent = Type.Object({
  parent_txid: Txid,
  offer_id: Type.String({ description: 'the cancelled alternative (po_…)' }),
  funding_set_id: Type.String(),
  bidder: Type.String(),
  recorded_at: Type.Integer(),
  receipt: Nullable(Receipt),
  status: Type.String({ description: "the alternative's: cancelled, or invalid once a funding input was spent (hard cancel)" }),
});

export const Capacity = Type.Object({
  free: Type.Integer(),
  pending: Type.Integer(),
  reserved: Type.Integer(),
  retired: Type.Integer(),
  pool_size: Type.Integer(),
  anchor_value_sats: Sats(),
  market_wallet_address: Type.String({ description: 'the market wallet that funds the anchors (the operator tops it up off the devnet)' }),
});
