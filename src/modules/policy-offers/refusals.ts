/**
 * `policy_offer_refused` and its published `refusal_code` values: the market signer's own
 * (src/signer/keys.ts) and the protocol verifier's. Clients branch on the code, never on text.
 */
import { ApiError } from '../../http/errors.js';
import type { PolicyRefusalCode } from '../../http/envelope.js';



/** 422 (or 409 for a state the caller cannot fix by changing the request) policy_offer_refused. */
export const refused = (code: PolicyRefusalCode, message: string, extras: Record<string, unknown> = {}, status: 409 | 422 = 422) =>
  new ApiError('policy_offer_refused', message, { refusal_code: code, ...extras }, { status });
