import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors.js';
import { routeNeedsSession } from '../../http/security.js';

/**
 * The one owner guard every private route uses:
 * - no session, or an expired/unknown token: 401 unauthenticated;
 * - another address's owner feed: 403 forbidden;
 * - a private resource owned by someone else: 404, same as missing.
 */
export function requireSession(request: FastifyRequest): string {
  // A route that reads the session must say so in its schema (http/security.ts), or the
  // OpenAPI document and the route table test would call it public: a programming error.
  if (!routeNeedsSession(request)) throw new Error(`${request.method} ${request.routeOptions.url ?? ''} uses a session but its schema does not declare security: sessionSecurity`);
  if (!request.session) {
    throw new ApiError(
      'unauthenticated',
      request.sessionRejected ? 'session token is unknown or expired; sign in again' : 'this route needs a session (x-session-token)',
    );
  }
  return request.session.address;
}

/** For `/v1/address/{address}/…` owner feeds. */
export function requireOwner(request: FastifyRequest, address: string): string {
  const me = requireSession(request);
  if (me !== address) throw new ApiError('forbidden', 'this feed belongs to another address');
  return me;
}

/** For a private resource by id: foreign and missing look the same. */
export function ownedOr404<T>(request: FastifyRequest, resource: T | undefined | null, ownerOf: (r: T) => string | string[], what: string): T {
  const me = requireSession(request);
  if (!resource) throw new ApiError('not_found', `No such ${what}`);
  const owners = ownerOf(resource);
  if (Array.isArray(owners) ? !owners.includes(me) : owners !== me) throw new ApiError('not_found', `No such ${what}`);
  return resource;
}
