/**
 * `policy_offer_refused` and its published `refusal_code` values: the market signer's own
 * (src/signer/keys.ts) and the protocol verifier's. Clients branch on the code, never on text.
 */
import { ApiError } from '../../http/errors.js';
import { REFUSAL_CODES } from '../../signer/keys.js';

export const VERIFIER_REFUSAL_CODES = [
  'presignature_missing',
  'presignature_invalid',
  'presignature_sighash',
  'unit_outside_policy',
  'unit_not_one_unit',
  'unit_unconfirmed',
  'unit_unattached',
  'unit_not_owned',
  'funding_spent',
  'seller_net_below_minimum',
  'funding_set_closed',
] as const;

export const POLICY_REFUSAL_CODES = [...REFUSAL_CODES, ...VERIFIER_REFUSAL_CODES] as const;
export type PolicyRefusalCode = (typeof POLICY_REFUSAL_CODES)[number];

/** 422 (or 409 for a state the caller cannot fix by changing the request) policy_offer_refused. */
export const refused = (code: PolicyRefusalCode, message: string, extras: Record<string, unknown> = {}, status: 409 | 422 = 422) =>
  new ApiError('policy_offer_refused', message, { refusal_code: code, ...extras }, { status });
