/**
 * A real webhook receiver for the tests: node:http on 127.0.0.1, answering from a script of
 * behaviours (a status with headers, or `hang` to never answer), and checking every request's
 * signature with the reference Standard Webhooks verifier (npm `standardwebhooks`) against the
 * secrets it is told, before anything parses the body.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export type Behaviour = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

export interface Received {
  path: string;
  id: string;
  signatures: string[];
  body: { type: string; seq: number; address: string; data: Record<string, unknown> };
  raw: string;
  /** The secrets (by index in `secrets`) whose verification passed. */
  verifiedBy: number[];
  answered: number | 'hang';
}

export class Receiver {
  readonly received: Received[] = [];
  /** Secrets to verify with, per path. */
  readonly secrets = new Map<string, string[]>();
  private readonly scripts = new Map<string, Behaviour[]>();
  private readonly hanging: http.ServerResponse[] = [];
  private server!: http.Server;
  base = '';

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.answer(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** What `path` answers next, in order; after the script, 200. */
  script(path: string, behaviours: Behaviour[]): void {
    this.scripts.set(path, [...behaviours]);
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
    const path = req.url ?? '/';
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    const verifiedBy = (this.secrets.get(path) ?? []).flatMap((s, i) => {
      try {
        new Webhook(s).verify(raw, headers);
        return [i];
      } catch {
        return [];
      }
    });
    const next = this.scripts.get(path)?.shift() ?? { status: 200 };
    this.received.push({
      path,
      id: headers['webhook-id'] ?? '',
      signatures: (headers['webhook-signature'] ?? '').split(' '),
      body: (raw.startsWith('{') ? JSON.parse(raw) : {}) as Received['body'],
      raw,
      verifiedBy,
      answered: next === 'hang' ? 'hang' : next.status,
    });
    if (next === 'hang') {
      this.hanging.push(res);
      return;
    }
    res.writeHead(next.status, { 'content-type': 'text/plain', ...next.headers }).end(next.body ?? 'ok');
  }

  async close(): Promise<void> {
    for (const r of this.hanging) r.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
