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
