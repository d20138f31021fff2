/**
 * What every session the market opens on PostgreSQL gets (the pool, the advisory-lock and LISTEN
 * sessions): opening it is bounded, and TCP keepalive ends an idle connection whose peer vanished
 * without a close (a black-holed failover) within about 20 s. The pool bounds its connection wait
 * by PG_CONNECT_TIMEOUT_MS instead (pg-store.ts).
 */
export const PG_SESSION = { connectionTimeoutMillis: 5_000, keepAlive: true, keepAliveInitialDelayMillis: 10_000 } as const;
