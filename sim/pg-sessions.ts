/**
 * What a PostgreSQL failover does to the market's instances: every session they hold ended by
 * the server. The instances name their sessions `market… <host>:<pid>` (application_name), so
 * only theirs are ended, never another process's on the same server.
 */
import pg from 'pg';

/** Terminates every session of the market processes `pids`; how many were ended. */
export async function terminateSessionsOf(pgUrl: string, pids: number[]): Promise<number> {
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  try {
    const r = await admin.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where application_name like 'market%' and substring(application_name from ':(\\d+)') = any($1::text[])`,
      [pids.map(String)],
    );
    return r.rowCount ?? 0;
  } finally {
    await admin.end();
  }
}
