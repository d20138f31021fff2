import { Type, type TSchema } from '@sinclair/typebox';

/**
 * Schemas for the spec's core rules, written once: they validate requests,
 * type handlers and document the OpenAPI. `description` doubles as the
 * human text of a validation error naming the field.
 */

export const MAX_SATS = 9007199254740991;

/**
 * Canonical compact Counterparty asset id: a named asset (B–Z then 3–11 more
 * capitals; 4–12 letters, not starting with A), a numeric id A + 17–20 digits
 * (26^12+1 … 2^64−1, range-checked by the service), or XCP. A subasset is named
 * by its numeric id; a longname (with a dot) is refused.
 */
export const AssetId = Type.String({
  pattern: '^(XCP|[B-Z][A-Z]{3,11}|A[1-9][0-9]{16,19})$',
  title: 'AssetId',
  description: 'canonical compact Counterparty asset id (named, or numeric A…; never a longname)',
});

export const QuantityRaw = Type.String({
  pattern: '^(0|[1-9][0-9]*)$',
  maxLength: 20,
  title: 'QuantityRaw',
  description: 'raw quantity: decimal string of atomic units',
});

export const PositiveQuantityRaw = Type.String({
  pattern: '^[1-9][0-9]*$',
  maxLength: 20,
  description: 'raw quantity: decimal string of at least 1 atomic unit',
});

export const Sats = (opts: { minimum?: number; description?: string } = {}) =>
  Type.Integer({
    // Named OpenAPI components (http/openapi-components.ts): any amount, and an amount of at least 1 sat.
    ...((opts.minimum ?? 0) === 0 ? { title: 'Sats' } : opts.minimum === 1 ? { title: 'PositiveSats' } : {}),
    minimum: opts.minimum ?? 0,
    maximum: MAX_SATS,
    description: opts.description ?? `satoshi amount, integer ${opts.minimum ?? 0}..${MAX_SATS}`,
  });

export const Txid = Type.String({ title: 'Txid', pattern: '^[0-9a-f]{64}$', description: 'transaction id: 64 lowercase hex characters' });

export const Vout = Type.Integer({ title: 'Vout', minimum: 0, maximum: 4294967295, description: 'output index 0..4294967295' });

export const Outpoint = Type.Object({ txid: Txid, vout: Vout }, { title: 'Outpoint', additionalProperties: false, description: 'a transaction output: txid and output index' });

export const FeeRate = Type.Number({ minimum: 0.1, maximum: 500, description: 'fee rate in sat/vB, 0.1 to 500' });

export const Address = Type.String({ title: 'Address', minLength: 14, maxLength: 100, pattern: '^[A-Za-z0-9]+$', description: 'Bitcoin address' });

export const Hex = (description = 'hex string') =>
  Type.String({ pattern: '^([0-9a-fA-F]{2})+$', maxLength: 131072, description });

export const PsbtHex = Type.String({
  pattern: '^70736274ff([0-9a-fA-F]{2})*$',
  maxLength: 131072,
  title: 'PsbtHex',
  description: 'PSBT, hex (starts 70736274ff)',
});

/** The last second of year 9999: every date a client can mean, and far inside BIGINT and Date. */
export const MAX_UNIX_SECONDS = 253_402_300_799;

export const UnixSeconds = Type.Integer({ title: 'UnixSeconds', minimum: 0, maximum: MAX_UNIX_SECONDS, description: 'unix time, seconds' });

export const Cursor = Type.String({ maxLength: 400, description: 'opaque cursor from next_cursor' });

/** `limit` 1..100 with the route's own default. */
export const Limit = (defaultValue: number) =>
  Type.Integer({ minimum: 1, maximum: 100, default: defaultValue, description: `page size 1..100, default ${defaultValue}` });

export const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);

export const Id = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$', description: 'resource id' });
