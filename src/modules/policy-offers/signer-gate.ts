/**
 * Every policy-offer route needs the market signer: when it cannot be reached they answer 503
 * service_unavailable and nothing else is touched. A probe result is kept for two seconds so a
 * burst of reads does not become a burst of signer calls; a refusal or unavailability met while
 * signing is mapped here too.
 */
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { SignerRefused, SignerUnavailable } from '../../signer/port.js';
import type { SignerKey } from '../../signer/keys.js';
import { refused } from './refusals.js';

const PROBE_TTL_MS = 2_000;

export const signerDown = (why: string) => new ApiError('service_unavailable', `collection-offer signing is unavailable: ${why}`, { dependency: 'market_signer', retry_after_seconds: 5 });

export class SignerGate {
  private probed: { at: number; key: SignerKey } | null = null;

  constructor(private readonly ctx: Context) {}

  /** The signer's current key, or 503. */
  async require(): Promise<SignerKey> {
    const now = Date.now();
    if (this.probed && now - this.probed.at < PROBE_TTL_MS) return this.probed.key;
    try {
      const info = await this.ctx.signer.info();
      this.probed = { at: now, key: info.current };
      return info.current;
    } catch (e) {
      this.probed = null;
      throw signerDown(e instanceof Error ? e.message : String(e));
    }
  }

  /** Runs a signer call, mapping its failures to the contract's errors. */
  async call<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      if (e instanceof SignerRefused) throw refused(e.code, `the market signer refused: ${e.message}`, {}, e.code === 'alternative_cancelled' || e.code === 'parent_cancelled' || e.code === 'already_signed_other' || e.code === 'listing_signed_other' ? 409 : 422);
      if (e instanceof SignerUnavailable) {
        this.probed = null;
        throw signerDown(e.message);
      }
      throw e;
    }
  }
}
