/**
 * One error class for every failure, keyed on the contract's `code` (never on its text), with the
 * spec's extras typed per code and unknown extras preserved. `invalid_response` when a reply is
 * not the envelope the contract promises (HTML from an edge, a truncated body), `network_error`
 * when no reply came, `timeout` when the caller's deadline passed, `unsafe_psbt` raised
 * client-side when a PSBT does not do what was asked (the signer is then never called).
 */
export interface KnownExtras {
  retryable?: boolean;
  retry_after_seconds?: number;
  field?: string;
  need_sats?: number;
  have_sats?: number;
  shortfall_sats?: number;
  mempool_policy?: 'fee_floor' | 'chain_too_long' | 'truc' | 'dust' | 'nonstandard';
  mempool_reason?: string;
  wait_for_confirmation?: boolean;
  claims_released?: boolean;
  settlement_id?: string;
  refusal_code?: string;
  refused_listings?: Array<{ index: number; listing_id: string; status: number; code: string; error: string }>;
}

export type ClientSideCode = 'invalid_response' | 'network_mismatch' | 'network_error' | 'timeout' | 'aborted' | 'unsafe_psbt' | 'operation_failed' | 'webhook_signature_invalid';

export class MarketError extends Error {
  readonly code: string;
  readonly status: number | null;
  /** Every extra of the envelope, known or not. */
  readonly extras: KnownExtras & Record<string, unknown>;

  constructor(code: string, message: string, status: number | null, extras: Record<string, unknown> = {}) {
    super(message);
    this.name = 'MarketError';
    this.code = code;
    this.status = status;
    this.extras = extras;
  }

  /** Seconds the server asked to wait (body or Retry-After header), if any. */
  get retryAfterSeconds(): number | undefined {
    return typeof this.extras.retry_after_seconds === 'number' ? this.extras.retry_after_seconds : undefined;
  }

  /**
   * True when a signed broadcast lost to another spend of one of its inputs: 409 \`state_changed\`
   * with the node's \`mempool_reason\` (a conflicting or replacing spend the node holds in its
   * mempool) or 409 \`conflict_spend\` (an input already spent in the chain). The bytes can never
   * relay: re-read the order or outpoint; with \`claims_released\` the quote is dead, so quote
   * again rather than resubmit. A \`state_changed\` without \`mempool_reason\` is the ordinary
   * "re-read it" answer, not a lost broadcast.
   */
  get lostToSpend(): boolean {
    if (this.status !== 409) return false;
    return this.code === 'conflict_spend' || (this.code === 'state_changed' && typeof this.extras.mempool_reason === 'string');
  }

  /**
   * True for the outcomes the contract says do not prove failure (read the operation, never
   * re-sign), and for a success whose body could not be trusted: the write may have taken effect.
   */
  get uncertain(): boolean {
    if (this.code === 'invalid_response' && this.status !== null && this.status >= 200 && this.status < 300) return true;
    return this.code === 'broadcast_unknown' || this.code === 'network_error' || this.code === 'timeout' || (this.status !== null && this.status >= 502 && this.status <= 504);
  }
}

export const templateMismatch = (what: string) => new MarketError('unsafe_psbt', `refused before signing: ${what}`, null);
