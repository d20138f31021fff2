import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_CODES } from './errors.js';
import { REFUSAL_CODES } from '../signer/keys.js';
import { VERIFIER_REFUSAL_CODES } from '../counterparty/policy-offer.js';

/** `refusal_code` of policy_offer_refused: the market signer's codes and the protocol verifier's. */
export const POLICY_REFUSAL_CODES = [...REFUSAL_CODES, ...VERIFIER_REFUSAL_CODES] as const;
export type PolicyRefusalCode = (typeof POLICY_REFUSAL_CODES)[number];

/** `{result: T}`: every success. */
export const Ok = <T extends TSchema>(result: T, description?: string) =>
  Type.Object({ result }, { additionalProperties: false, ...(description ? { description } : {}) });

/** `{result: T[], result_count, next_cursor}`: every paged read. */
export const Page = <T extends TSchema>(item: T, description?: string) =>
  Type.Object(
    {
      result: Type.Array(item),
      result_count: Type.Integer({ minimum: 0, description: 'Rows in this page' }),
      next_cursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Opaque; pass back unchanged with the same filters for the next page. Null on the last page.',
      }),
    },
    { additionalProperties: false, ...(description ? { description } : {}) },
  );

export const ErrorEnvelope = Type.Object(
  {
    error: Type.String({ description: 'Human text; can change. Branch on `code`.' }),
    code: Type.Union(ERROR_CODES.map((c) => Type.Literal(c)), {
      description:
        "One of the specification's codes; resync_required (410: an event-log position older than the retained log) is this service's extension, answered only by the ordered event log and the streams (docs/deviations.md). Signature failures: 401 signature_invalid for a sign-in proof, 422 for a transaction or message signature.",
    }),
    retryable: Type.Optional(Type.Boolean()),
    mempool_policy: Type.Optional(
      Type.Union(['fee_floor', 'chain_too_long', 'truc', 'dust', 'nonstandard'].map((p) => Type.Literal(p))),
    ),
    mempool_reason: Type.Optional(Type.String()),
    wait_for_confirmation: Type.Optional(Type.Boolean()),
    claims_released: Type.Optional(Type.Boolean()),
    refused_listings: Type.Optional(
      Type.Array(
        Type.Object({
          index: Type.Integer(),
          listing_id: Type.String(),
          status: Type.Integer(),
          code: Type.String(),
          error: Type.String(),
        }),
      ),
    ),
    retry_after_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
    refusal_code: Type.Optional(
      Type.Union(POLICY_REFUSAL_CODES.map((c) => Type.Literal(c)), {
        description:
          "On policy_offer_refused. The market signer's: alternative_cancelled (the bidder's soft cancel of that alternative was recorded first), parent_cancelled (a whole-parent cancel recorded before cancels named one alternative), already_signed_other (the parent was co-signed for another child), key_retired, key_unknown, leaf_without_market_key, bad_request, listing_delisted and listing_signed_other (co-signed units, on checkout_changed, on an exact accept's offer_selection_unavailable and on a collection-offer accept: the seller delisted that listing first; the unit was co-signed into another live settlement). The protocol verifier's: presignature_missing, presignature_invalid, presignature_sighash (not SINGLE|ANYONECANPAY), unit_outside_policy, unit_not_one_unit, unit_unconfirmed, unit_unattached, unit_not_owned, funding_spent (the bidder moved its funding), seller_net_below_minimum, funding_set_closed.",
      }),
    ),
    field: Type.Optional(Type.String({ description: 'On invalid_request: the offending input, e.g. `body.price_sats`; an array item by its index, e.g. `body.funding[0].txid`' })),
  },
  {
    title: 'ErrorEnvelope',
    additionalProperties: true,
    description:
      'Every failure, unknown routes and methods included. Extras such as need_sats, have_sats, shortfall_sats, own_listings, asset, held_raw, committed_raw, needed_raw, purpose, minimum_price_sats, maximum_price_sats, minimum_counter_sats, refusal_code and reason travel here; unknown extras may appear and should be preserved.',
  },
);

/** Response map entries every route documents for failures. */
export const errorResponses = {
  '4xx': ErrorEnvelope,
  '5xx': ErrorEnvelope,
};
