import type { FastifyRequest } from 'fastify';

/** The OpenAPI security scheme of a session: the x-session-token header (http/openapi.ts declares it). */
export const SESSION_SCHEME = 'session';

/**
 * A route that needs a session says so once, in its schema: `security: sessionSecurity`.
 * That one declaration documents it (/docs' Authorize button, code generators), makes the
 * app answer 401 before anything else runs (modules/auth/session-hook.ts), and is what the
 * route table test checks every route against.
 */
export const sessionSecurity: Array<Record<string, string[]>> = [{ [SESSION_SCHEME]: [] }];

/** Whether the matched route declares that it needs a session. */
export function routeNeedsSession(request: FastifyRequest): boolean {
  const security = (request.routeOptions.schema as { security?: Array<Record<string, unknown>> } | undefined)?.security;
  return Array.isArray(security) && security.length > 0 && security.every((s) => SESSION_SCHEME in s);
}
