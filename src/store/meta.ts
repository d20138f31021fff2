import crypto from 'node:crypto';
import type { Db } from './db.js';

export async function getMeta(db: Db, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

export async function setMeta(db: Db, key: string, value: string, now = Date.now()): Promise<void> {
  await db
    .insertInto('meta')
    .values({ key, value, updated_at: now })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: now }))
    .execute();
}

/**
 * Stores `value` under `key` unless a value is there already, and returns what is stored: the
 * first writer wins, so every instance on one store agrees on it.
 */
export async function claimMeta(db: Db, key: string, value: string, now = Date.now()): Promise<string> {
  await db.insertInto('meta').values({ key, value, updated_at: now }).onConflict((oc) => oc.column('key').doNothing()).execute();
  return (await getMeta(db, key))!;
}

/**
 * The service secret (cursor and id MACs). Taken from config when set; otherwise
 * made once and kept in the store, so every instance on one store agrees and a
 * restart does not invalidate cursors clients hold.
 */
export async function loadSecret(db: Db, configured?: string): Promise<Buffer> {
  if (configured) return Buffer.from(configured, 'utf8');
  return Buffer.from(await claimMeta(db, 'secret', crypto.randomBytes(32).toString('hex')), 'hex');
}
