import crypto from 'node:crypto';
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { requireAddressRole } from '../../http/address-rules.js';
import { verifyMessage } from '../../bitcoin/message-signature.js';
import { nowSeconds } from '../../clock.js';
import { AuthStore } from './store.js';
import { originOf, parseSignInMessage, signInMessage } from './message.js';

export const CHALLENGE_TTL_S = 10 * 60;
export const SESSION_TTL_S = 24 * 60 * 60;
export const PROOF_MAX_AGE_S = 5 * 60;
/**
 * A verify without `challenge_id` tries at most this many challenges of its address and
 * second (one signature check each). Clients that send the id never search.
 */
const MAX_SAME_SECOND_CANDIDATES = 16;
/** Clock skew tolerated on a wallet's "Issued At" in the future. */
const PROOF_FUTURE_SKEW_S = 60;

export type Verification = { method: 'BIP-322' | 'BIP-137'; format?: string } | undefined;

export const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/** A sign-in proof that does not verify: 401 (transaction signatures elsewhere are 422). */
const refused = (why: string) => new ApiError('signature_invalid', why, {}, { status: 401 });

export class AuthService {
  private readonly store: AuthStore;
  constructor(private readonly ctx: Context) {
    this.store = new AuthStore(ctx.store.db);
  }

  /** Any valid address may sign in; roles are checked when it trades. */
  private checkAddress(address: string): void {
    requireAddressRole(address, 'delivery', this.ctx.config.NETWORK, 'body.address');
  }

  async challenge(address: string) {
    this.checkAddress(address);
    const issuedAt = nowSeconds(this.ctx.clock);
    const expiresAt = issuedAt + CHALLENGE_TTL_S;
    // A random id names the challenge: any number coexist for one address, so nobody can
    // use up another address's challenges (only their own IP's sign-in budget).
    const id = crypto.randomBytes(16).toString('base64url');
    const message = signInMessage({
      domain: this.ctx.config.AUTH_DOMAIN,
      address,
      uri: this.ctx.config.AUTH_ALLOWED_ORIGINS[0] ?? `https://${this.ctx.config.AUTH_DOMAIN}`,
      nonce: crypto.randomBytes(16).toString('hex'),
      issuedAt,
      expiresAt,
    });
    await this.store.insertChallenge({ id, address, issued_at: issuedAt, message, expires_at: expiresAt });
    return { challenge_id: id, address, message, issued_at: issuedAt, expires_at: expiresAt };
  }

  /**
   * With `challenge_id`, that challenge; without (the spec's `{address, issued_at, signature}`),
   * the challenges issued to the address in that second, whichever one the signature is over.
   */
  async verify(body: { address: string; issued_at: number; signature: string; verification?: Verification; challenge_id?: string }) {
    this.checkAddress(body.address);
    const now = nowSeconds(this.ctx.clock);
    const named = body.challenge_id === undefined ? undefined : await this.store.findChallenge(body.challenge_id);
    const candidates = body.challenge_id === undefined
      ? await this.store.challengesAt(body.address, body.issued_at, MAX_SAME_SECOND_CANDIDATES)
      : named && named.address === body.address && Number(named.issued_at) === body.issued_at ? [named] : [];
    if (!candidates.length) throw refused('no challenge was issued to this address at that time');
    const open = candidates.filter((c) => c.used_at === null);
    if (!open.length) throw refused('this challenge was already used');
    const live = open.filter((c) => Number(c.expires_at) > now);
    if (!live.length) throw refused('this challenge has expired; ask for a new one');
    const signed = live.find((c) => this.signatureOk(body.address, c.message, body.signature, body.verification));
    if (!signed) throw refused(`signature does not verify for ${body.address}`);
    if (!(await this.store.consumeChallenge(signed.id, now))) throw refused('this challenge was already used');
    return this.openSession(body.address, now);
  }

  /** Housekeeping: expired challenges, proofs and sessions go (run by the auth area's purge job). */
  async purgeExpired(): Promise<void> {
    await this.store.purgeExpired(nowSeconds(this.ctx.clock));
  }

  async connect(body: { address: string; message: string; signature: string; verification: Verification }) {
    this.checkAddress(body.address);
    const now = nowSeconds(this.ctx.clock);
    const proof = parseSignInMessage(body.message);
    if (!proof) throw refused('the proof message is not a sign-in message');
    if (proof.address !== body.address) throw refused('the proof message names another address');
    const origin = originOf(proof.uri);
    if (!origin || !this.ctx.config.AUTH_ALLOWED_ORIGINS.includes(origin)) throw refused('the proof is bound to an origin this market does not accept');
    if (proof.issuedAt > now + PROOF_FUTURE_SKEW_S) throw refused('the proof is dated in the future');
    if (now - proof.issuedAt > PROOF_MAX_AGE_S) throw refused('the proof is older than five minutes; sign a fresh one');
    this.checkSignature(body.address, body.message, body.signature, body.verification);
    const proofHash = crypto.createHash('sha256').update(`${body.address}\n${body.message}`).digest('hex');
    if (!(await this.store.useProof(proofHash, proof.issuedAt + PROOF_MAX_AGE_S + PROOF_FUTURE_SKEW_S))) {
      throw refused('this proof was already used');
    }
    return this.openSession(body.address, now);
  }

  private checkSignature(address: string, message: string, signature: string, verification: Verification): void {
    if (!this.signatureOk(address, message, signature, verification)) throw refused(`signature does not verify for ${address}`);
  }

  private signatureOk(address: string, message: string, signature: string, verification: Verification): boolean {
    return verifyMessage({
      address,
      message,
      signatureBase64: signature,
      network: this.ctx.config.NETWORK,
      method: verification?.method,
    }).ok;
  }

  private async openSession(address: string, now: number) {
    const token = crypto.randomBytes(32).toString('base64url');
    const expiresAt = now + SESSION_TTL_S;
    await this.store.insertSession({ token_hash: hashToken(token), address, created_at: now, expires_at: expiresAt });
    return { token, address, expires_at: expiresAt };
  }
}
