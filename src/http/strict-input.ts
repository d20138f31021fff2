import type { FastifyReply, FastifyRequest } from 'fastify';
import { AjvCompiler, type BuildCompilerFromPool } from '@fastify/ajv-compiler';
import { ApiError } from './errors.js';

/**
 * Input rules no schema keyword expresses, applied to every route at once so a
 * route added later cannot forget them:
 *
 * - Numbers are finite. Ajv's type coercion (coerceTypes) turns the strings
 *   "Infinity", "-Infinity" and "1e999" into non-finite numbers that pass
 *   `type: integer` (Infinity % 1 is NaN, and !NaN is true) and even a maximum,
 *   and JSON.parse reads 1e999 as Infinity. Such a value reached SQL as a 500,
 *   or as "no limit" on a paged read.
 * - A number in a path or query string is a canonical decimal: coercion would
 *   otherwise read "0x10", "1e2", " 5" or "" as numbers.
 * - Strings carry no control characters where no sane value has them: none at
 *   all in paths and query strings, only tab and newlines in bodies. PostgreSQL
 *   cannot store a NUL byte at all, so one would be a 500 on that backend.
 */

type AjvError = { instancePath: string; keyword: string; message: string; params: Record<string, unknown> };
type Validate = ((data: unknown, ctx?: unknown) => unknown) & { errors?: AjvError[] | null; schemaEnv?: unknown };
type RouteSchema = { schema: unknown; method: string; url: string; httpPart?: string };
type Build = (externalSchemas: unknown, options: unknown) => (route: RouteSchema) => Validate;

const CANONICAL_INTEGER = /^-?(0|[1-9][0-9]{0,15})$/;
const CANONICAL_NUMBER = /^-?(0|[1-9][0-9]{0,15})(\.[0-9]{1,16})?$/;

const fail = (instancePath: string, keyword: string, message: string): AjvError[] => [{ instancePath, keyword, message, params: {} }];

/** The numeric JSON type a property schema asks for (TypeBox Integer/Number, possibly inside a union), if any. */
function numericType(schema: unknown): 'integer' | 'number' | null {
  if (!schema || typeof schema !== 'object') return null;
  const s = schema as { type?: unknown; anyOf?: unknown[] };
  if (s.type === 'integer' || s.type === 'number') return s.type;
  for (const sub of s.anyOf ?? []) {
    const t = numericType(sub);
    if (t) return t;
  }
  return null;
}

/** Path and query values that will be coerced to numbers must be written as canonical decimals. */
function checkCanonical(schema: unknown, data: unknown): AjvError[] | null {
  const props = (schema as { properties?: Record<string, unknown> } | null)?.properties;
  if (!props || !data || typeof data !== 'object') return null;
  for (const [key, sub] of Object.entries(props)) {
    const kind = numericType(sub);
    if (!kind) continue;
    const raw = (data as Record<string, unknown>)[key];
    if (raw === undefined) continue;
    for (const v of Array.isArray(raw) ? raw : [raw]) {
      if (typeof v !== 'string') continue;
      const re = kind === 'integer' ? CANONICAL_INTEGER : CANONICAL_NUMBER;
      if (!re.test(v)) {
        return fail(`/${key}`, 'canonical', kind === 'integer' ? 'must be a decimal integer (digits only, no exponent)' : 'must be a finite decimal number (no exponent)');
      }
    }
  }
  return null;
}

/**
 * The path of the first non-finite number inside a validated value, or null.
 * An explicit stack, not recursion: a value's depth is the client's choice (the body
 * parser caps it at MAX_JSON_DEPTH, but no walk here may rely on that to stay alive).
 */
function firstNonFinite(value: unknown): string | null {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return path;
      continue;
    }
    if (!v || typeof v !== 'object') continue;
    const entries = Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], `${path}/${entries[i]![0]}`]);
  }
  return null;
}

/** Deepest nesting of objects and arrays a JSON body may have (the deepest schema here is a few levels). */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests objects or arrays deeper than `max`, read in one pass over the
 * text with a counter (brackets inside strings do not count), before any parse or walk.
 * A body 10,000 levels deep used to reach the recursive walks below and overflow the stack (a 500).
 */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

function wrap(validate: Validate, route: RouteSchema): Validate {
  const part = route.httpPart;
  const strictStrings = part === 'querystring' || part === 'params';
  const wrapped: Validate = (data, ctx) => {
    if (strictStrings) {
      const bad = checkCanonical(route.schema, data);
      if (bad) {
        wrapped.errors = bad;
        return false;
      }
    }
    const ok = validate(data, ctx);
    if (ok !== true) {
      wrapped.errors = validate.errors ?? null;
      return ok;
    }
    const where = firstNonFinite(data);
    if (where !== null) {
      wrapped.errors = fail(where, 'finite', 'must be a finite number');
      return false;
    }
    wrapped.errors = null;
    return true;
  };
  if (validate.schemaEnv) wrapped.schemaEnv = validate.schemaEnv;
  return wrapped;
}

/** Fastify's own Ajv compiler (shared schemas and options unchanged) with the rules above around each validator. */
export function strictValidatorFactory(): BuildCompilerFromPool {
  const base = AjvCompiler() as unknown as Build;
  const factory: Build = (externalSchemas, options) => {
    const build = base(externalSchemas, options);
    return (route) => wrap(build(route), route);
  };
  return factory as unknown as BuildCompilerFromPool;
}

// C0 controls and DEL. Bodies may carry tab, LF and CR (free text such as a profile);
// paths and query strings never have a reason to.
const CONTROL_ANY = /[\u0000-\u001f\u007f]/;
const CONTROL_BODY = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** The first path (from `root`) whose string or key holds a control character; an explicit stack, as above. */
function findControl(value: unknown, re: RegExp, root: string): string | null {
  const stack: Array<[unknown, string]> = [[value, root]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (re.test(v)) return path;
      continue;
    }
    if (!v || typeof v !== 'object') continue;
    const entries = Object.entries(v);
    for (const [k] of entries) if (re.test(k)) return path;
    for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], `${path}.${entries[i]![0]}`]);
  }
  return null;
}

/** `preValidation` hook: refuses control characters in the path, the query and the body. */
export async function refuseControlCharacters(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const field =
    findControl(request.params, CONTROL_ANY, 'params') ??
    findControl(request.query, CONTROL_ANY, 'query') ??
    findControl(request.body, CONTROL_BODY, 'body');
  if (field !== null) throw new ApiError('invalid_request', `${field} contains a control character`, { field });
}
