/**
 * Replays Counterparty Core API v2 from the example replies in Core's own
 * OpenAPI description (test/fixtures/counterparty-core), read at test time so the
 * tests follow the fixture if it is refreshed.
 */
import fs from 'node:fs';
import { COUNTERPARTY_OPENAPI } from '../../helpers/fixtures.js';
import type { RecordedRequest, ReplayHandler, ReplayReply } from './replay-server.js';

const openapiPath = COUNTERPARTY_OPENAPI;

type OpenApi = { paths: Record<string, { get?: { responses?: Record<string, { content?: Record<string, { example?: unknown }> }> } }> };

let cached: OpenApi | null = null;
const openapi = (): OpenApi => (cached ??= JSON.parse(fs.readFileSync(openapiPath, 'utf8')) as OpenApi);

/** The example 200 reply of a route, e.g. `example('/v2/assets/{asset}')` (a fresh copy each call). */
export function example<T = Record<string, unknown>>(route: string): T {
  const ex = openapi().paths[route]?.get?.responses?.['200']?.content?.['application/json']?.example;
  if (ex === undefined) throw new Error(`no example reply for ${route} in ${openapiPath}`);
  return structuredClone(ex) as T;
}

/** Core's headers as its Flask app writes them (Python `str(bool)` for the flag). */
export function coreHeaders(counterparty: number | string, bitcoin: number | string, ready: boolean): Record<string, string> {
  return {
    'X-COUNTERPARTY-HEIGHT': String(counterparty),
    'X-BITCOIN-HEIGHT': String(bitcoin),
    'X-COUNTERPARTY-READY': ready ? 'True' : 'False',
    'X-COUNTERPARTY-VERSION': '11.2.0',
  };
}

export type CpRoute = (req: RecordedRequest, params: Record<string, string>) => ReplayReply;

/** Matches `/v2/assets/{asset}`-style templates against the request path. */
export function cpHandler(routes: Record<string, CpRoute>, headers = coreHeaders(850214, 850214, true)): ReplayHandler {
  const compiled = Object.entries(routes).map(([template, fn]) => {
    const names: string[] = [];
    const re = new RegExp(
      '^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
        names.push(name);
        return '([^/]+)';
      }) + '$',
    );
    return { re, names, fn };
  });
  return (req) => {
    for (const { re, names, fn } of compiled) {
      const m = re.exec(req.path);
      if (!m) continue;
      const params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
      const reply = fn(req, params);
      return { ...reply, headers: { ...headers, ...reply.headers } };
    }
    return { status: 404, body: { error: 'Not found' }, headers };
  };
}

/**
 * Emulates Core's cursor paging over `rows` (descending `cursorField`, inclusive
 * cursor, `limit + 1` look-ahead) so the adapter's paging runs as against Core.
 */
export function pageOf<T extends Record<string, unknown>>(rows: T[], cursorField: keyof T, req: RecordedRequest): ReplayReply {
  const limit = Number(req.query.get('limit') ?? 100);
  const cursor = req.query.get('cursor');
  const sorted = [...rows].sort((a, b) => Number(b[cursorField]) - Number(a[cursorField]));
  const from = cursor === null ? sorted : sorted.filter((r) => Number(r[cursorField]) <= Number(cursor));
  const page = from.slice(0, limit);
  const next = from.length > limit ? (from[limit]![cursorField] as number) : null;
  return { body: { result: page, next_cursor: next, result_count: rows.length } };
}
