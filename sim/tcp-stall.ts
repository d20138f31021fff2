/**
 * A TCP relay in front of the market's PostgreSQL that can stall: while stalled, every
 * connection (open or new) passes nothing either way, and what was sent waits in the socket
 * buffers, as with a database whose storage hangs or a network that stops forwarding. Nothing is
 * closed and nothing is lost: on `resume` the bytes flow on. The `pg_hang` fault (faults.ts).
 */
import net from 'node:net';

export interface TcpStall {
  /** The relay's URL: the target's, with this host and port. */
  url: string;
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function tcpStall(targetUrl: string): Promise<TcpStall> {
  const target = new URL(targetUrl);
  let stalled = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((c) => {
    const up = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [c, up]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
      if (stalled) s.pause();
    }
    // Not pipe(): a pipe resumes its source when the other side drains, which would end a stall.
    c.on('data', (d) => void up.write(d));
    up.on('data', (d) => void c.write(d));
    c.on('close', () => up.destroy());
    up.on('close', () => c.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    stall: () => {
      stalled = true;
      for (const s of sockets) s.pause();
    },
    resume: () => {
      stalled = false;
      for (const s of sockets) s.resume();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
