import type { CompiledQuery, Compilable, QueryResult } from 'kysely';
import type { Db, Tx } from './db.js';

/**
 * A hot statement compiled by Kysely once per store instead of on every run: building and
 * compiling a query costs 20-50 µs of JavaScript, which a 10-line checkout paid for each line's
 * claim. `build` is called once, with a marker in place of each argument; the compiled SQL and
 * which of its parameters each argument fills are kept (per dialect adapter, so SQLite's and
 * PostgreSQL's texts never mix), and later runs only put the arguments in place. `build` must
 * have one shape whatever the arguments (no branching on them, no list whose length varies):
 * every argument must come out as the very parameters its marker did (one or more).
 */
export function compiledOnce<A extends unknown[]>(build: (db: Db | Tx, ...args: A) => Compilable): (db: Db | Tx, ...args: A) => Promise<QueryResult<unknown>> {
  const byAdapter = new WeakMap<object, { compiled: CompiledQuery; slots: Array<number | null> }>();
  return (db, ...args) => {
    const adapter = db.getExecutor().adapter;
    let kept = byAdapter.get(adapter);
    if (!kept) {
      const markers = args.map((_, i) => ({ compiledOnceArgument: i }));
      const compiled = build(db, ...(markers as unknown as A)).compile();
      const slots = compiled.parameters.map((p) => (markers as unknown[]).indexOf(p));
      for (let i = 0; i < markers.length; i++) {
        if (!slots.includes(i)) throw new Error(`compiledOnce: argument ${i} is no parameter of ${compiled.sql}`);
      }
      kept = { compiled, slots: slots.map((s) => (s < 0 ? null : s)) };
      byAdapter.set(adapter, kept);
    }
    const { compiled, slots } = kept;
    const parameters = slots.map((s, i) => (s === null ? compiled.parameters[i] : args[s]));
    return db.executeQuery({ ...compiled, parameters });
  };
}
