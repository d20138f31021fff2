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

/** The path of the first non-finite number inside a validated value, or null. */
function firstNonFinite(value: unknown, path = ''): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : path;
  if (!value || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value)) {
    const found = firstNonFinite(v, `${path}/${k}`);
    if (found !== null) return found;
  }
  return null;
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

function findControl(value: unknown, re: RegExp, path: string): string | null {
  if (typeof value === 'string') return re.test(value) ? path : null;
  if (!value || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value)) {
    if (re.test(k)) return path;
    const found = findControl(v, re, `${path}.${k}`);
    if (found !== null) return found;
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
