/**
 * A TCP proxy in front of a server (the suite's Redis or PostgreSQL) that can stop passing bytes
 * either way: the server frozen as the simulator's `redis_hang` freezes it (connections open,
 * nothing answered), without stopping a server other tests share; or only the connections open
 * now, as a failover behind a moved address leaves them; or stop and come back on its port.
 */
import net from 'node:net';

export async function freezingProxy(
  targetUrl: string,
): Promise<{ url: string; freeze(): void; thaw(): void; blackhole(): void; down(): Promise<void>; up(): Promise<void>; close(): void }> {
  const target = new URL(targetUrl);
  let frozen = false;
  const sockets = new Set<net.Socket>();
  /** Connections that never pass a byte again (blackhole): a failover that left them dangling. */
  const dead = new Set<net.Socket>();
  const server = net.createServer((c) => {
    const up = net.connect(Number(target.port || 6379), target.hostname);
    for (const s of [c, up]) {
      sockets.add(s);
      s.on('error', () => undefined);
    }
    c.on('data', (d) => void (frozen || dead.has(c) || up.write(d)));
    up.on('data', (d) => void (frozen || dead.has(c) || c.write(d)));
    c.on('close', () => up.destroy());
    up.on('close', () => c.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `${target.protocol}//127.0.0.1:${port}`,
    freeze: () => void (frozen = true),
    thaw: () => void (frozen = false),
    /** Every connection open now stops passing bytes for good, with nothing closed; new ones pass. */
    blackhole: () => {
      for (const s of sockets) dead.add(s);
    },
    /** The server goes away: every connection closed, new ones refused (a Redis that stopped). */
    down: async () => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      await new Promise<void>((r) => server.close(() => r()));
    },
    /** Back on the same port (clients reconnect on their own). */
    up: () => new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r())),
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
