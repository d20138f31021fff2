/**
 * The registry of error codes the suite triggers: with CONFORMANCE_OBSERVED set to a directory
 * (scripts/test.mjs sets it for a whole-suite run), every test app records each distinct failure
 * it answers (code, status, body fields, route) in `<dir>/<pid>.jsonl`. coverage.check.ts then
 * fails when a code of the spec's table was never triggered, or an answer left its row.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

export interface Observed {
  code: string;
  status: number;
  fields: string[];
  route: string;
  method: string;
}

export const OBSERVED_DIR = 'CONFORMANCE_OBSERVED';

export function recordErrorAnswers(app: FastifyInstance): void {
  const dir = process.env[OBSERVED_DIR];
  if (!dir) return;
  const file = path.join(dir, `${process.pid}.jsonl`);
  const seen = new Set<string>();
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== 'string' || payload[0] !== '{') return payload;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(payload) as Record<string, unknown>;
    } catch {
      return payload;
    }
    if (typeof body.code !== 'string') return payload;
    const o: Observed = { code: body.code, status: reply.statusCode, fields: Object.keys(body).sort(), route: request.routeOptions.url ?? 'unmatched', method: request.method };
    const key = JSON.stringify(o);
    if (!seen.has(key)) {
      seen.add(key);
      fs.appendFileSync(file, `${key}\n`);
    }
    return payload;
  });
}

/** Every distinct answer recorded under `dir`. */
export function readObserved(dir: string): Observed[] {
  if (!fs.existsSync(dir)) return [];
  const out = new Map<string, Observed>();
  for (const f of fs.readdirSync(dir)) {
    if (!f.endsWith('.jsonl')) continue;
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) if (line) out.set(line, JSON.parse(line) as Observed);
  }
  return [...out.values()];
}
