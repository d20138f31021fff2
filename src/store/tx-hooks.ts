import type { Kysely, Transaction } from 'kysely';
import type { DatabaseSchema } from './schema.js';

// db.ts's Db and Tx, named here from the schema so this file and db.ts do not import each other.
type Db = Kysely<DatabaseSchema>;
type Tx = Transaction<DatabaseSchema>;

/**
 * Work a transaction defers to its end: `before` runs inside the transaction after its body (the
 * last statements before COMMIT), `after` once it has committed. The event log uses both: its
 * sequence numbers are taken as the last statement (so they follow commit order) and the
 * in-process notifier is told after the commit. A transaction that never registers anything
 * costs one WeakMap lookup.
 */
interface Pending {
  db: Db;
  before: Map<string, () => Promise<void>>;
  after: Array<() => void>;
}

const pending = new WeakMap<object, Pending>();
const hooked = new WeakSet<object>();

function of(tx: Tx): Pending {
  const p = pending.get(tx);
  if (!p) throw new Error('a deferred write needs a transaction opened by db.transaction() on a hooked store');
  return p;
}

/** Registers `fn` to run last inside `tx`, once per key (a second registration under the key is ignored). */
export function beforeCommit(tx: Tx, key: string, fn: () => Promise<void>): void {
  const p = of(tx);
  if (!p.before.has(key)) p.before.set(key, fn);
}

/** Registers `fn` to run after `tx` committed (never when it rolled back). */
export function afterCommit(tx: Tx, fn: () => void): void {
  of(tx).after.push(fn);
}

/** The store a transaction belongs to (an after-commit signal is per store). */
export function storeOf(tx: Tx): Db {
  return of(tx).db;
}

/** Makes every `db.transaction().execute(fn)` run its registered hooks. Idempotent. */
export function hookTransactions(db: Db): void {
  if (hooked.has(db)) return;
  hooked.add(db);
  const open = db.transaction.bind(db);
  db.transaction = (() => {
    const builder = open();
    const execute = builder.execute.bind(builder);
    builder.execute = async <T>(body: (tx: Tx) => Promise<T>): Promise<T> => {
      let after: Array<() => void> = [];
      const out = await execute(async (tx) => {
        const p: Pending = { db, before: new Map(), after: [] };
        pending.set(tx, p);
        const result = await body(tx);
        // A hook may register another (an append that notifies); run until none is left.
        while (p.before.size) {
          const [key, fn] = p.before.entries().next().value as [string, () => Promise<void>];
          p.before.delete(key);
          await fn();
        }
        after = p.after;
        return result;
      });
      for (const fn of after) fn();
      return out;
    };
    return builder;
  }) as Db['transaction'];
}
