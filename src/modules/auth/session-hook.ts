import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { AuthStore } from './store.js';
import { hashToken } from './service.js';
import { requireSession } from './guard.js';
import { routeNeedsSession } from '../../http/security.js';

export interface Session {
  address: string;
  expiresAt: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's session when a valid x-session-token came with the request. */
    session?: Session | null;
    /** A token came but was unknown or expired. */
    sessionRejected?: boolean;
  }
}

const TOKEN = /^[A-Za-z0-9_-]{20,100}$/;

/**
 * Resolves x-session-token on every request (routes decide whether they need
 * it). Tokens cannot be revoked one by one, so a short in-process memo of
 * hash → session is safe; expiry is still checked on every use.
 */
export function sessionHook(ctx: Context) {
  const store = new AuthStore(ctx.store.db);
  const memo = new Map<string, Session | null>();
  const MEMO_MAX = 10_000;

  return async function resolveSession(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const raw = request.headers['x-session-token'];
    const token = Array.isArray(raw) ? raw[0] : raw;
    request.session = null;
    if (!token) return;
    if (!TOKEN.test(token)) {
      request.sessionRejected = true;
      return;
    }
    const hash = hashToken(token);
    let session = memo.get(hash);
    if (session === undefined) {
      const row = await store.findSession(hash);
      session = row ? { address: row.address, expiresAt: row.expires_at } : null;
      if (memo.size >= MEMO_MAX) memo.clear();
      if (session) memo.set(hash, session);
    }
    if (!session || session.expiresAt <= nowSeconds(ctx.clock)) {
      request.sessionRejected = true;
      return;
    }
    request.session = session;
  };
}

/**
 * `onRequest`, after the limiter: a route whose schema declares `security: sessionSecurity`
 * answers 401 to a request without a valid session before its body is even parsed.
 */
export async function enforceDeclaredSession(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  if (routeNeedsSession(request)) requireSession(request);
}
