import crypto from 'node:crypto';
import pg from 'pg';

/**
 * A query that opts in with `PREPARED_MARK` (a marker comment in its SQL) is sent to
 * PostgreSQL as a named prepared statement: parsed and planned once per connection, then only
 * bound and run. Kysely sends every query unnamed, so PostgreSQL parses and plans each one every
 * time; for the collection book (one statement of a dozen subqueries) planning alone was most of
 * a read. Opt-in, not for every query: after five runs PostgreSQL may keep a generic plan, which
 * suits the few hot reads marked, each with the same shape whatever its parameters.
 *
 * The name is a hash of the text, so two texts never share one (PostgreSQL refuses a name
 * prepared with other text on the same connection), and the same text has the same name on
 * every connection of the pool.
 */
export const PREPARED_MARK = '/*prepared*/';

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
