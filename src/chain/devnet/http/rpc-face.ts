/**
 * `POST /devnet/rpc`: the devnet speaking Bitcoin Core's JSON-RPC over HTTP.
 * The body is read as text whatever its content type (bitcoin-cli and many
 * libraries send text/plain or nothing), so a malformed body gets Core's
 * -32700 reply rather than the API's 400 envelope.
 */
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Devnet } from '../devnet.js';
import { handleJsonRpc } from './json-rpc.js';
import { devnetRpcDispatch } from './rpc-methods.js';

/** Raw blocks and packages are large; Core itself has no small body limit. */
const RPC_BODY_LIMIT = 32 * 1024 * 1024;

export interface RpcFaceOptions {
  /** When set, requests need this Basic auth (Core answers 401 otherwise); by default anyone may call. */
  auth?: { user: string; password: string };
}

function authorized(header: string | undefined, auth: NonNullable<RpcFaceOptions['auth']>): boolean {
  if (!header?.startsWith('Basic ')) return false;
  const given = Buffer.from(Buffer.from(header.slice(6).trim(), 'base64').toString('utf8'));
  const want = Buffer.from(`${auth.user}:${auth.password}`);
  return given.length === want.length && crypto.timingSafeEqual(given, want);
}

/** Registers the RPC route on `app`, which must be an encapsulated child context (its body parsers change). */
export function registerRpcFace(app: FastifyInstance, d: Devnet, opts: RpcFaceOptions = {}): void {
  const dispatch = devnetRpcDispatch(d);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: RPC_BODY_LIMIT }, (_req, body, done) => done(null, body));

  // Bitcoin Core's own protocol, documented by Core: kept out of the market's OpenAPI document.
  app.post('/devnet/rpc', { bodyLimit: RPC_BODY_LIMIT, schema: { hide: true } }, async (req, reply) => {
    if (opts.auth && !authorized(req.headers.authorization, opts.auth)) {
      return reply.code(401).header('www-authenticate', 'Basic realm="jsonrpc"').send('');
    }
    const text = typeof req.body === 'string' ? req.body : '';
    const out = await handleJsonRpc(text, dispatch);
    if (out.status === 204) return reply.code(204).send();
    // Core ends every JSON reply with a newline.
    return reply.code(out.status).type('application/json').send(`${JSON.stringify(out.body)}\n`);
  });

  for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
    app.route({
      method,
      url: '/devnet/rpc',
      schema: { hide: true },
      handler: async (_req, reply) => reply.code(405).type('text/html; charset=ISO-8859-1').send('JSONRPC server handles only POST requests'),
    });
  }
}
