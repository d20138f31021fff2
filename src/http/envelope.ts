import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_CODES } from './errors.js';

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
    code: Type.Union(ERROR_CODES.map((c) => Type.Literal(c))),
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
    field: Type.Optional(Type.String({ description: 'On invalid_request: the offending input, e.g. `body.price_sats`' })),
  },
  {
    title: 'ErrorEnvelope',
    additionalProperties: true,
    description:
      'Every failure, unknown routes and methods included. Extras such as need_sats, have_sats, shortfall_sats, own_listings, asset, held_raw, committed_raw, needed_raw, purpose, minimum_price_sats, maximum_price_sats, refusal_code and reason travel here; unknown extras may appear and should be preserved.',
  },
);

/** Response map entries every route documents for failures. */
export const errorResponses = {
  '4xx': ErrorEnvelope,
  '5xx': ErrorEnvelope,
};
