import type { Db } from '../../store/db.js';
import { isUniqueViolation } from '../../store/db.js';

export class AuthStore {
  constructor(private readonly db: Db) {}

  async findChallenge(id: string) {
    return this.db.selectFrom('auth_challenges').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * The challenges issued to an address in one second, newest first, at most `max`. A verify
   * that names no challenge id tries them in turn (the nonce makes only one message match).
   */
  async challengesAt(address: string, issuedAt: number, max: number) {
    return this.db
      .selectFrom('auth_challenges')
      .selectAll()
      .where('address', '=', address)
      .where('issued_at', '=', issuedAt)
      .orderBy('used_at', (ob) => ob.desc().nullsFirst())
      .orderBy('id')
      .limit(max)
      .execute();
  }

  async insertChallenge(row: { id: string; address: string; issued_at: number; message: string; expires_at: number }): Promise<void> {
    await this.db.insertInto('auth_challenges').values({ ...row, used_at: null }).execute();
  }

  /** Marks a challenge used; exactly one caller can win, and only before it expires. */
  async consumeChallenge(id: string, now: number): Promise<boolean> {
    const res = await this.db
      .updateTable('auth_challenges')
      .set({ used_at: now })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Records a connect-time proof; false when it was already used. */
  async useProof(proofHash: string, expiresAt: number): Promise<boolean> {
    try {
      await this.db.insertInto('auth_used_proofs').values({ proof_hash: proofHash, expires_at: expiresAt }).execute();
      return true;
    } catch (e) {
      if (isUniqueViolation(e)) return false;
      throw e;
    }
  }

  async insertSession(row: { token_hash: string; address: string; created_at: number; expires_at: number }): Promise<void> {
    await this.db.insertInto('sessions').values(row).execute();
  }

  async findSession(tokenHash: string) {
    return this.db.selectFrom('sessions').select(['address', 'expires_at']).where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** Housekeeping (the auth purge job): drops expired challenges, proofs and sessions. */
  async purgeExpired(now: number): Promise<void> {
    await this.db.deleteFrom('auth_challenges').where('expires_at', '<=', now).execute();
    await this.db.deleteFrom('auth_used_proofs').where('expires_at', '<', now).execute();
    await this.db.deleteFrom('sessions').where('expires_at', '<', now).execute();
  }
}
