/**
 * A tiny local HTTP server (127.0.0.1, ephemeral port) that answers with
 * recorded replies and remembers every request, so adapter tests run the real
 * fetch/timeout/retry code paths against real sockets.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface ReplayReply {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as is (for hand-written JSON with big integers); anything else is JSON-encoded. */
  body?: unknown;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
}

export type ReplayHandler = (req: RecordedRequest) => ReplayReply | Promise<ReplayReply>;

export interface ReplayServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  requests: RecordedRequest[];
  setHandler(handler: ReplayHandler): void;
  close(): Promise<void>;
}

export async function startReplayServer(initial: ReplayHandler): Promise<ReplayServer> {
  let handler = initial;
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      Promise.resolve()
        .then(() => handler(recorded))
        .then(async (reply) => {
          if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
          if (res.destroyed) return;
          const body = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
          res.end(body);
        })
        .catch((e: unknown) => {
          res.writeHead(599, { 'content-type': 'text/plain' });
          res.end(`replay handler failed: ${String(e)}`);
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setHandler(h) {
      handler = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port that was just free: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
