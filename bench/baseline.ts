import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { JOIN_BODY_MAX } from '../src/http/cache-front-door.js';

/** The yardstick: a bare node:http server answering a small JSON body, measured in the same run. */
export async function startBaseline(): Promise<{ url: string; close(): Promise<void> }> {
  const body = JSON.stringify({ result: { status: 'ok' } });
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * A bare node:http server sending exactly `body` (bytes of a cached API answer) with its content
 * type and the extra `headers` given ([name, value, …], fixed): what "as fast as bare HTTP" means
 * for a cache hit, measured in the same run. It sends the body the way the cache front door does
 * (a small body as a string, which node:http joins to the head in one write; a large one as a
 * Buffer), so the ratio compares the door's work, not a choice of write call.
 */
export async function startBare(body: string, contentType: string, headers: string[] = []): Promise<{ url: string; close(): Promise<void> }> {
  const bytes = Buffer.from(body);
  const payload = bytes.length <= JOIN_BODY_MAX ? body : bytes;
  const head = [...headers, 'content-type', contentType, 'content-length', String(bytes.length)];
  const server = http.createServer((_req, res) => {
    res.writeHead(200, head);
    res.end(payload);
  });
  server.keepAliveTimeout = 72_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
