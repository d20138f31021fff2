/**
 * A TCP proxy in front of a server (the suite's Redis) that can stop passing bytes either way:
 * the server frozen as the simulator's `redis_hang` freezes it (connections open, nothing
 * answered), without stopping a server other tests share.
 */
import net from 'node:net';

export async function freezingProxy(targetUrl: string): Promise<{ url: string; freeze(): void; close(): void }> {
  const target = new URL(targetUrl);
  let frozen = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((c) => {
    const up = net.connect(Number(target.port || 6379), target.hostname);
    for (const s of [c, up]) {
      sockets.add(s);
      s.on('error', () => undefined);
    }
    c.on('data', (d) => void (frozen || up.write(d)));
    up.on('data', (d) => void (frozen || c.write(d)));
    c.on('close', () => up.destroy());
    up.on('close', () => c.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `${target.protocol}//127.0.0.1:${port}`,
    freeze: () => void (frozen = true),
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
