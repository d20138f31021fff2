import http from 'node:http';
import Fastify from 'fastify';
import cors from '@fastify/cors';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Context } from './context.js';
import { BODY_LIMIT, type App } from './http/app-type.js';
import { clientErrorHandler, envelopeNodeRefusals, frameworkErrors, installErrorHandling } from './http/error-handler.js';
import { registerOpenApi } from './http/openapi.js';
import { freshnessHooks } from './http/freshness.js';
import { CacheFrontDoor } from './http/cache-front-door.js';
import { RequestIds } from './http/request-ids.js';
import { rateLimitHook } from './http/rate-limit.js';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH, refuseControlCharacters, strictValidatorFactory } from './http/strict-input.js';
import { LazySchemas } from './http/lazy-schemas.js';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { enforceDeclaredSession, sessionHook } from './modules/auth/session-hook.js';
import { Metrics } from './http/metrics.js';
import { ApiError } from './http/errors.js';

export type { App } from './http/app-type.js';
export { BODY_LIMIT } from './http/app-type.js';

/** Builds the HTTP app from a Context. Listening is the caller's business. */
export async function buildApp(ctx: Context): Promise<App> {
  // Cache hits of public reads are answered in front of Fastify (http/cache-front-door.ts).
  const ids = new RequestIds();
  const door = new CacheFrontDoor(ctx.cache, () => ctx.clock.now(), ctx.logger, ids, ctx.generation, ctx.config.CACHE_HIT_LOG_EVERY);
  const metrics = new Metrics(ctx, () => door.hits);
  const schemas = new LazySchemas();
  const app = Fastify({
    loggerInstance: ctx.logger,
    // The same node:http server Fastify would make (its timeouts: without them Node's 5 s keep-alive
    // closes idle sockets a client is about to reuse, and it sees ECONNRESET), in front of Fastify.
    serverFactory: (handler, options) => {
      const o = options as { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number; maxRequestsPerSocket?: number };
      const server = http.createServer({ requireHostHeader: false });
      envelopeNodeRefusals(server, door.handler(handler));
      server.keepAliveTimeout = o.keepAliveTimeout ?? 72_000;
      server.requestTimeout = o.requestTimeout ?? 0;
      server.setTimeout(o.connectionTimeout ?? 0);
      if (o.maxRequestsPerSocket) server.maxRequestsPerSocket = o.maxRequestsPerSocket;
      return server;
    },
    bodyLimit: BODY_LIMIT,
    // Trust exactly the configured number of proxy hops for X-Forwarded-For (per-IP limits depend on it).
    trustProxy: (_addr: string, hop: number) => hop < ctx.config.TRUST_PROXY_HOPS,
    genReqId: (req) => ids.of(req.headers['x-request-id']),
    // Fastify's Ajv compiler, plus the rules no schema keyword states (finite numbers, canonical query integers).
    // Compiled on a route's first request (http/lazy-schemas.ts); `serve` compiles the rest before listening.
    schemaController: {
      compilersFactory: {
        buildValidator: schemas.validators(strictValidatorFactory() as never) as never,
        buildSerializer: schemas.serializers(SerializerSelector() as never) as never,
      },
    },
    ajv: {
      customOptions: {
        removeAdditional: false,
        coerceTypes: 'array',
        useDefaults: true,
        allErrors: false,
        verbose: true,
      },
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 300 },
    // Errors raised before routing, and Node's own refusals, speak the envelope too.
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('metrics', metrics);
  app.decorate('compileSchemas', () => schemas.compileAll());
  installErrorHandling(app);
  // Only JSON is a request body here; anything else is a client mistake (400), not a 415.
  app.removeContentTypeParser('text/plain');
  // Fastify's JSON parser, except that a route whose body is optional (`config: { optionalBody: true }`)
  // takes an empty body sent with a JSON content type, as clients and curl often send one.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0 && request.routeOptions.config?.optionalBody) return done(null, undefined);
    if (jsonNestsDeeperThan(body as string, MAX_JSON_DEPTH)) {
      return done(new ApiError('invalid_request', `request body nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels`, { field: 'body' }), undefined);
    }
    return parseJson(request, body as string, done);
  });

  await app.register(cors, {
    // CORS headers answer CORS requests, which always carry an Origin: a request without one gets
    // none (a browser would ignore them) but still `Vary: Origin`, so a shared cache keeps the two
    // apart. The front door (http/cache-front-door.ts) does the same for its hits.
    origin: (origin, cb) => {
      cb(null, origin !== undefined && origin !== '');
    },
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['content-type', 'x-session-token', 'x-request-id'],
    exposedHeaders: ['x-request-id', 'retry-after'],
    maxAge: 600,
  });

  const fresh = freshnessHooks(ctx.cache, ctx.clock, ctx.generation, door);
  // Order matters: a cache hit first (a public answer needs no session and spends no read
  // budget), then who is asking, then the limiter.
  app.addHook('onRequest', fresh.serveFromCache);
  app.addHook('onRequest', sessionHook(ctx));
  app.addHook('onRequest', rateLimitHook({ limiter: ctx.limiter, fallback: ctx.limiterFallback, clock: ctx.clock, log: ctx.logger }));
  // A route that declares a session (schema.security) refuses anonymous requests before parsing them.
  app.addHook('onRequest', enforceDeclaredSession);
  // A route whose body is optional reads a missing one as `{}` (its schema's fields are then all optional).
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.routeOptions.config?.optionalBody && request.routeOptions.schema?.body) request.body = {};
  });
  app.addHook('preValidation', refuseControlCharacters);
  app.addHook('onSend', fresh.storeAndLabel);
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-request-id', request.id);
    return payload;
  });

  // Requests and latencies by route template (never by raw URL: bounded label values).
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    if (reply.statusCode === 429) metrics.refusals.inc({ class: String(request.routeOptions.config?.limit ?? 'none') });
  });
  app.get('/metrics', { schema: { hide: true }, config: { cache: 'no-store' } }, async (request, reply) => {
    const token = ctx.config.METRICS_TOKEN;
    if (token && request.headers.authorization !== `Bearer ${token}`) throw new ApiError('unauthenticated', 'GET /metrics needs the bearer token METRICS_TOKEN');
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  await registerOpenApi(app);
  // Every area's routes, from its manifest (modules/areas.ts).
  for (const area of ctx.areas) await area.routes?.(app, ctx);
  return app;
}
