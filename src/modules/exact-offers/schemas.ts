import { Type } from '@sinclair/typebox';
import { FeeRate, Nullable, Outpoint, PsbtHex, Sats, Txid, UnixSeconds } from '../../http/validators.js';
import { MAX_AUTHORIZATION_OUTPOINTS } from './authorize.js';
import { SettlementFields, SettlementHoldSchema } from '../../settlement/operation.js';

export const AuthorizeBody = Type.Object(
  {
    outpoints: Type.Array(Outpoint, { minItems: 1, maxItems: MAX_AUTHORIZATION_OUTPOINTS, description: `1 to ${MAX_AUTHORIZATION_OUTPOINTS} asset outpoints the offer's target reaches` }),
    fee_rate: Type.Optional(FeeRate),
    expires_at: Type.Optional(Type.Integer({ minimum: 0, maximum: 4_102_444_800, description: "the authorizations' market expiry (default and at most: the offer's, and 30 days)" })),
  },
  { additionalProperties: false },
);

const Delivery = Type.Object({ mode: Type.String(), address: Type.String() });

export const BidderAuthorization = Type.Object({
  authorization_id: Type.String(),
  offer_id: Type.String(),
  funding_slot_id: Type.String(),
  status: Type.String({ description: 'awaiting_bidder, active, used, retired, expired (read time)' }),
  end_reason: Nullable(Type.String()),
  asset: Type.String(),
  seller: Type.String(),
  target_outpoint: Outpoint,
  price_sats: Sats(),
  platform_fee_sats: Sats(),
  prefunded_fee_sats: Sats(),
  fee_rate: Type.Number(),
  seller_proceeds_sats: Sats(),
  delivery: Delivery,
  parent_txid: Txid,
  psbt_hex: Nullable(Type.String({ description: 'the unsigned parent while the authorization awaits the bidder signature (input 0, ALL or DEFAULT)' })),
  inputs_to_sign: Type.Array(Type.Integer()),
  sighash: Type.Literal('ALL'),
  expires_at: UnixSeconds,
  created_at: UnixSeconds,
});

export const PsbtBody = Type.Object({ psbt_hex: PsbtHex }, { additionalProperties: false });

export const Activated = Type.Object({
  authorization_id: Type.String(),
  status: Type.Literal('active'),
  expires_at: UnixSeconds,
  signature_validity: Type.Object({
    marketplace_expires_at: UnixSeconds,
    bitcoin_expires_at: Type.Null(),
    bitcoin_invalidation: Type.Object({ type: Type.Literal('spend_funding_outpoint'), outpoint: Outpoint }),
  }),
});

export const InboxRow = Type.Object({
  authorization_id: Type.String(),
  offer_id: Type.String(),
  funding_slot_id: Type.String(),
  asset: Type.String(),
  bidder: Type.String(),
  seller: Type.String(),
  price_sats: Sats(),
  seller_proceeds_sats: Sats({ description: 'price + the asset output sats − platform fee − the parent fee; a CPFP child, when the fee rate needs one, comes out of it' }),
  network_fee_sats: Sats(),
  platform_fee_sats: Sats(),
  prefunded_fee_sats: Sats(),
  fee_rate: Type.Number(),
  expires_at: UnixSeconds,
  requires_buyer_action: Type.Boolean({ description: "true while the bidder's funding output is unconfirmed: a version-3 settlement cannot spend it until it confirms" }),
  target_outpoint: Outpoint,
  offer_scope: Type.String({ description: 'asset: an individual bid; collection: a collection or trait policy' }),
  created_at: UnixSeconds,
});

export const AcceptPreflightBody = Type.Object({ fee_rate: Type.Optional(FeeRate) }, { additionalProperties: false });

export const AcceptPreflight = Type.Object({
  authorization_id: Type.String(),
  psbt_hex: Type.String({ description: 'the parent: sign input 1 (ALL, or DEFAULT on P2TR)' }),
  expected_txid: Txid,
  inputs_to_sign: Type.Array(Type.Integer()),
  sighash: Type.Literal('ALL'),
  signer_address: Type.String(),
  fee_rate: Type.Number(),
  prefunded_fee_sats: Sats(),
  requires_cpfp: Type.Boolean(),
  cpfp: Nullable(Type.Object({ psbt_hex: Type.String(), expected_txid: Txid, inputs_to_sign: Type.Array(Type.Integer()), sighash: Type.Literal('ALL'), child_fee_sats: Sats() })),
  price_sats: Sats(),
  platform_fee_sats: Sats(),
  network_fee_sats: Sats(),
  seller_proceeds_sats: Sats(),
  requires_buyer_action: Type.Boolean(),
  delivery: Delivery,
  unit_custody: Type.Union([Type.Literal('address'), Type.Literal('cosigned')], {
    description:
      "`address`: the unit is an output of the seller's address; sign input 1 by its key. `cosigned`: the unit sits on your co-signed listing output (the inventory's custody `cosigned`); input 1 carries `tap_leaf_script` (the leaf `<your key> OP_CHECKSIGVERIFY <market key> OP_CHECKSIG`) and no internal key: sign that leaf with your key, DEFAULT or ALL. The market signer adds its signature over this exact parent at accept and the witness is [market, yours, leaf, control]; a key-path signature is not taken.",
  }),
  reserves_inventory: Type.Literal(false),
});

export const AcceptBody = Type.Object({ psbt_hex: PsbtHex, cpfp_psbt_hex: Type.Optional(PsbtHex) }, { additionalProperties: false });

export const AcceptResult = Type.Object({
  authorization_id: Type.String(),
  offer_id: Type.String(),
  status: Type.String(),
  settlement_id: Nullable(Type.String()),
  settlement_state: Nullable(Type.String({ description: 'journaled (202: recovery still relays it), relayed, confirmed, rejected or conflicted' })),
  hold: SettlementHoldSchema,
  txid: Txid,
  child_txid: Nullable(Txid),
  /** `relayed`, `pending` or `refused`: the node can take the parent and refuse the child (the trade still settles at the parent's own fee). */
  child_state: Nullable(Type.String()),
  child_reason: Nullable(Type.String()),
  delivery: Delivery,
  requires_buyer_action: Type.Boolean(),
  already_completed: Type.Boolean(),
  price_sats: Sats(),
  platform_fee_sats: Sats(),
  prefunded_fee_sats: Sats(),
  child_fee_sats: Nullable(Sats()),
  seller_proceeds_sats: Sats(),
});

export const AcceptStatus = Type.Object(
  {
    authorization_id: Type.String(),
    offer_id: Type.String(),
    status: Type.Union(['not_accepted', 'expired', 'broadcasting', 'broadcast', 'confirmed', 'failed'].map((s) => Type.Literal(s)), {
      description:
        'not_accepted: no accept journaled, the authorization can still be accepted; expired: none, and it can no longer be (expired, cancelled or retired); broadcasting: journaled, recovery keeps relaying it; broadcast; confirmed; failed: the node refused it or an input was spent elsewhere, claims released (see failure_code)',
    }),
    authorization_status: Type.String({ description: "the authorization's own state now (active, used, expired, cancelled, retired, …)" }),
    settlement_id: Nullable(Type.String()),
    settlement_state: Nullable(Type.String({ description: 'journaled, relayed, confirmed, rejected or conflicted' })),
    txid: Nullable(Txid),
    child_txid: Nullable(Txid),
    ...SettlementFields,
  },
  { title: 'ExactAcceptStatus', additionalProperties: false },
);

export const SelectionBody = Type.Object(
  { authorization_ids: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100, uniqueItems: true }) },
  { additionalProperties: false },
);

export const SelectionResult = Type.Array(
  Type.Object({ authorization_id: Type.String(), ok: Type.Boolean(), code: Nullable(Type.String()), error: Nullable(Type.String()), funding_slot_id: Nullable(Type.String()) }),
);
