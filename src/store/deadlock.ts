/**
 * PostgreSQL breaks a deadlock by aborting one of its transactions (SQLSTATE 40P01); the other
 * goes on. The aborted one did nothing (its transaction rolled back whole), so running it again
 * is the remedy: it then waits behind the survivor and reads what it committed. A checkout's claim
 * locks its listings in id order, but a transaction of another kind (a block's invalidations, a
 * release, an expiry sweep) may end several listings in the order it meets them: the two can
 * close a cycle, and the buyer must get the claim's real answer (claimed, or 409 because the
 * listings left), never a 500. SQLite has one writer at a time and never deadlocks.
 */
const isDeadlock = (e: unknown): boolean => typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '40P01';

/** `run` (a whole transaction) again when PostgreSQL chose it as a deadlock's victim, at most `attempts` times in all. */
export async function retryDeadlocks<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt >= attempts || !isDeadlock(e)) throw e;
    }
  }
}
