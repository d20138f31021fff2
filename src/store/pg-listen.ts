import pg from 'pg';
import { PG_SESSION } from './pg-session.js';

export type Unlisten = () => Promise<void>;

/**
 * LISTEN on a connection of its own (a pooled one would be lost to the pool for good), kept
 * open: after an error it reconnects a second later and calls `onReconnect`, since anything
 * notified while it was away is lost and the caller must catch up by reading.
 */
export function pgListen(url: string, channel: string, onMessage: (payload: string) => void, onReconnect: () => void, applicationName?: string): Unlisten {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`bad channel name ${channel}`);
  let client: pg.Client | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const connect = async (again: boolean) => {
    // An idle LISTEN whose server vanished without a close (a black-holed failover) would never
    // hear another notice: keepalive ends it (pg-session.ts) and it reconnects.
    const c = new pg.Client({ connectionString: url, ...PG_SESSION, ...(applicationName ? { application_name: applicationName } : {}) });
    client = c;
    const retry = () => {
      if (client !== c || stopped) return;
      client = undefined;
      c.end().catch(() => {});
      timer = setTimeout(() => void connect(true), 1_000);
    };
    c.on('error', retry);
    c.on('end', retry);
    c.on('notification', (n) => {
      if (n.channel === channel) onMessage(n.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`listen ${channel}`);
      if (again) onReconnect();
    } catch {
      retry();
    }
  };
  void connect(false);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await client?.end().catch(() => {});
  };
}
