import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { etagMatches } from '../../http/cache-front-door.js';
import { readAsset, type PageAsset } from './assets.js';

/**
 * The page runs only its own script and stylesheet and talks only to this origin: a string from
 * the API that ever reached the DOM as markup still could not run, load or send anything.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const SCRIPT_PATH = '/live/market.js';
export const STYLE_PATH = '/live/market.css';
/** A versioned asset URL never changes its bytes: browsers keep it a year without asking. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

const VersionQuery = Type.Object({ v: Type.Optional(Type.String({ maxLength: 64, description: 'content version the page names' })) });

function send(request: FastifyRequest, reply: FastifyReply, asset: PageAsset, cacheControl: string) {
  reply
    .header('content-security-policy', PAGE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', cacheControl)
    .header('etag', asset.etag);
  if (etagMatches(request.headers['if-none-match'], asset.etag)) return reply.code(304).send();
  return reply.type(asset.contentType).send(asset.body);
}

/** GET / and its two assets, served from memory with ETags; no framework, no build, no CDN. */
export function livePageRoutes(app: App, _ctx: Context): void {
  const script = readAsset('market.js');
  const style = readAsset('market.css');
  // The page names its assets by content version, so it can be revalidated cheaply while they are cached for good.
  const page = readAsset('index.html', (html) =>
    html.replaceAll('{{SCRIPT}}', `${SCRIPT_PATH}?v=${script.version}`).replaceAll('{{STYLE}}', `${STYLE_PATH}?v=${style.version}`),
  );

  // The page itself is revalidated on every load (no-cache + ETag: a 304 costs nothing) so a deploy shows at once.
  app.get('/', { schema: { hide: true } }, async (req, reply) => send(req, reply, page, 'no-cache'));
  for (const [path, asset] of [[SCRIPT_PATH, script], [STYLE_PATH, style]] as const) {
    app.get(path, { schema: { hide: true, querystring: VersionQuery } }, async (req, reply) =>
      send(req, reply, asset, req.query.v === asset.version ? IMMUTABLE : 'no-cache'),
    );
  }
}
