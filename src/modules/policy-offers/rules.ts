/** The collection-offer limits and constants (the spec's Limits row: 100 alternatives, 8 funding inputs, 25 open funding sets per address). */
import crypto from 'node:crypto';

export const MAX_ALTERNATIVES = 100;
export const MAX_FUNDING_INPUTS = 8;
export const MAX_OPEN_FUNDING_SETS = 25;
/** How long a preflight holds its anchor for the bidder to sign and place. */
export const PREFLIGHT_TTL_S = 15 * 60;
/** How long an accept quote stands. */
export const ACCEPT_QUOTE_TTL_S = 5 * 60;
/** The soft-cancel message (BIP-322 simple: the fixed prefix, a newline and the parent txid): the market signer verifies it too. */
export { CANCEL_MESSAGE_PREFIX, cancelMessage } from '../../signer/messages.js';

export const newPolicyId = (prefix: 'pf' | 'po' | 'pa') => `${prefix}_${crypto.randomBytes(12).toString('hex')}`;

/** Funding-set states that still hold their anchor and funding (nothing on chain yet). */
export const LIVE_SET_STATES = ['awaiting_signatures', 'open'] as const;
