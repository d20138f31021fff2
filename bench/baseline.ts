import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
 * type: what "as fast as bare HTTP" means for a cache hit, measured in the same run.
 */
export async function startBare(body: string, contentType: string): Promise<{ url: string; close(): Promise<void> }> {
  const bytes = Buffer.from(body);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': bytes.length });
    res.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
