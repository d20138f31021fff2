/**
 * Every 2xx reply checked against the schema the served OpenAPI document gives its route and
 * status (client/src/generated/schemas.ts), with Ajv: a reply that does not match is not trusted
 * (`invalid_response`), so a broken or hostile server cannot hand the caller a shape it did not
 * promise. Validators are compiled on first use of a route and kept.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { componentsDocument, replySchemas } from './generated/schemas.js';
import type { RouteKey } from './generated/api.js';

interface Template {
  key: RouteKey;
  method: string;
  segments: string[];
  literals: number;
}

const templates: Template[] = Object.keys(replySchemas).map((key) => {
  const [method, path] = key.split(' ') as [string, string];
  const segments = path.split('/');
  return { key: key as RouteKey, method, segments, literals: segments.filter((s) => !s.startsWith('{')).length };
});

/** The route template a concrete path answers to (`/v1/listings/batch` before `/v1/listings/{id}`). */
export function routeOf(method: string, path: string): RouteKey | undefined {
  const parts = path.split('?')[0]!.split('/');
  let best: Template | undefined;
  for (const t of templates) {
    if (t.method !== method || t.segments.length !== parts.length) continue;
    if (!t.segments.every((s, i) => s.startsWith('{') || s === parts[i])) continue;
    if (!best || t.literals > best.literals) best = t;
  }
  return best?.key;
}

export class ReplyValidator {
  private readonly ajv = new Ajv({ strict: false, allErrors: false });
  private readonly compiled = new Map<string, ValidateFunction | null>();

  constructor() {
    this.ajv.addSchema(componentsDocument);
  }

  /** Null when the reply matches its schema (or the document has none for it), else what is wrong. */
  check(route: RouteKey, status: number, body: unknown): string | null {
    const id = `${route} ${status}`;
    let v = this.compiled.get(id);
    if (v === undefined) {
      const schema = replySchemas[route]?.[String(status)];
      v = schema ? this.ajv.compile(schema) : null;
      this.compiled.set(id, v);
    }
    if (!v || v(body)) return null;
    return this.ajv.errorsText(v.errors, { dataVar: 'reply' });
  }
}
