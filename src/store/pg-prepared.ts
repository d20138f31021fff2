import crypto from 'node:crypto';
import pg from 'pg';
import { PREPARED_MARK } from './prepared-mark.js';

// The mark and why: prepared-mark.ts.
export { PREPARED_MARK };

/** pg's Client, with the marked queries named. */
export class PreparingClient extends pg.Client {
  /** Statement names by text, per connection (hashing the book's text on every read cost more than the lookup). */
  private readonly names = new Map<string, string>();

  private nameOf(text: string): string {
    let n = this.names.get(text);
    if (!n) {
      n = `k_${crypto.createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
      if (this.names.size >= 1_000) this.names.clear();
      this.names.set(text, n);
    }
    return n;
  }

  // pg's query() has many overloads; only (text, values) from Kysely's driver is marked.
  override query(config: unknown, values?: unknown, callback?: unknown): never {
    if (typeof config === 'string' && config.includes(PREPARED_MARK) && Array.isArray(values)) {
      return (super.query as (c: unknown, cb?: unknown) => never)({ name: this.nameOf(config), text: config, values }, callback);
    }
    return (super.query as (c: unknown, v?: unknown, cb?: unknown) => never)(config, values, callback);
  }
}
