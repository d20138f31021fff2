import type { Duplex } from 'node:stream';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, isApiError } from './errors.js';
import { UpstreamUnavailable } from '../chain/ports.js';
import { isStoreUnavailable } from '../store/db.js';

interface AjvErrorLike {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
  parentSchema?: { description?: string };
}

/** Turns an ajv validation failure into one message naming the field. */
export function describeValidation(context: string, errors: AjvErrorLike[]): { message: string; field: string } {
  const e = errors[0] ?? {};
  const ctx = context === 'querystring' ? 'query' : context;
  // Array items as `body.funding[0].txid`, as every hand-written field name in the API says them.
  const path = (e.instancePath ?? '').split('/').filter(Boolean).map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i ? `.${s}` : s)).join('');
  let field = path ? `${ctx}.${path}` : ctx;
  let message: string;
  if (e.keyword === 'required') {
    field = `${field === ctx ? ctx : field}.${String(e.params?.missingProperty)}`;
    message = `${field} is required`;
  } else if (e.keyword === 'additionalProperties') {
    field = `${field}.${String(e.params?.additionalProperty)}`;
    message = `${field} is not a known field`;
  } else if (e.parentSchema?.description && ['pattern', 'type', 'maxLength', 'minLength', 'minimum', 'maximum', 'anyOf', 'enum', 'const'].includes(e.keyword ?? '')) {
    message = `${field} must be ${e.parentSchema.description}`;
  } else {
    message = `${field} ${e.message ?? 'is invalid'}`;
  }
  return { message, field };
}

function send(reply: FastifyReply, err: ApiError): FastifyReply {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  // Errors are rendered as plain JSON so the documented extras are never dropped by a response schema.
  return reply
    .code(err.status)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .serializer(JSON.stringify)
    .send(err.toBody());
}

/** Maps every failure to the spec's envelope; a client's mistake is never a 500. */
export function toApiError(error: FastifyError | Error, request: FastifyRequest): ApiError {
  if (isApiError(error)) return error;
  const fe = error as FastifyError & { validation?: AjvErrorLike[]; validationContext?: string };
  if (fe.validation) {
    const { message, field } = describeValidation(fe.validationContext ?? 'body', fe.validation);
    return new ApiError('invalid_request', message, { field });
  }
  if (error instanceof UpstreamUnavailable) {
    // The spec's code for a Bitcoin or Counterparty backend that is down or not serving (an
    // Electrs failure behind Counterparty Core included): retryable, with when to retry.
    const secs = error.detail.retryAfterSeconds ?? (error.status === 503 ? 10 : 2);
    const what = error.detail.cause === 'electrs' ? 'counterparty backend unavailable (its address index, Electrs, failed)' : `${error.backend} backend unavailable`;
    return new ApiError('upstream_unavailable', what, { retryable: true, retry_after_seconds: secs }, { status: error.status, headers: { 'retry-after': String(secs) } });
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('invalid_request', 'request body is larger than 64 KiB', {}, { status: 413 });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('invalid_request', `content type ${request.headers['content-type'] ?? '(none)'} is not supported; send application/json`, { field: 'headers.content-type' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', 'request body is empty; send a JSON object', { field: 'body' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_request', 'request body is not valid JSON', { field: 'body' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', 'content-length does not match the body', { field: 'headers.content-length' });
  }
  if (fe instanceof SyntaxError || (fe.statusCode === 400 && /JSON/i.test(fe.message))) {
    return new ApiError('invalid_request', 'request body is not valid JSON', { field: 'body' });
  }
  switch (fe.code) {
    case 'FST_ERR_BAD_URL':
      return new ApiError('invalid_request', 'the URL path is not valid percent-encoding', { field: 'path' });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('invalid_request', 'a path parameter is longer than any valid value', { field: 'path' }, { status: 414 });
  }
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    // The framework's own 4xx (408, 413, 414, 431…) keeps its status and speaks the envelope.
    return fe.statusCode === 404
      ? new ApiError('not_found', 'not found')
      : new ApiError('invalid_request', 'malformed request', {}, { status: fe.statusCode });
  }
  if (isStoreUnavailable(error)) {
    // The database went away under the request (a failover or restart): nothing was committed by
    // a transaction that failed, so the same request can be sent again in a moment.
    return new ApiError('service_unavailable', 'the database is unavailable; retry shortly', { retry_after_seconds: 2 }, { headers: { 'retry-after': '2' } });
  }
  return new ApiError('internal_error', 'internal error');
}

/**
 * Fastify's `frameworkErrors`: failures raised before routing (a malformed
 * percent-encoding, an over-long path parameter) rendered in the envelope.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void send(reply, toApiError(error, request));
}

const CLIENT_ERRORS: Record<string, { status: number; text: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, text: 'Request Header Fields Too Large', message: 'request headers are too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, text: 'Request Timeout', message: 'the request was not received in time' },
};

/**
 * Fastify's `clientErrorHandler`: Node refuses a request it cannot parse (bad
 * framing, oversized headers) before any route or hook runs, and by default
 * answers a bare `400 Client Error`. Here the refusal is the envelope too.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // An answer already begun on this connection (a handler replied before the parser failed on
  // what followed its headers): a second status line would be a second response. Close only,
  // as Node's own default handler does.
  if ((socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
    socket.destroy(err);
    return;
  }
  const known = CLIENT_ERRORS[err.code ?? ''];
  const status = known?.status ?? 400;
  const body = JSON.stringify({ error: known?.message ?? 'malformed HTTP request', code: 'invalid_request' });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${known?.text ?? 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/** Writes the envelope on a raw node:http response (refusals made before Fastify sees the request). */
function writeRawEnvelope(res: ServerResponse, status: number, message: string, field: string): void {
  const body = JSON.stringify({ error: message, code: 'invalid_request', field });
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', connection: 'close' });
  res.end(body);
}

/**
 * node:http answers two malformed requests itself, outside any handler and outside the
 * envelope: an `Expect` it does not know (a bare 417) and an HTTP/1.1 request with no `Host`
 * (a bare 400, from `requireHostHeader`). The server is made with `requireHostHeader: false`
 * and this wraps its handler, and `checkExpectation` is answered here, so both get the envelope.
 */
export function envelopeNodeRefusals(server: Server, handler: (req: IncomingMessage, res: ServerResponse) => void): void {
  server.on('checkExpectation', (_req, res: ServerResponse) => {
    writeRawEnvelope(res, 417, 'the Expect header names an expectation this server does not support (only 100-continue)', 'headers.expect');
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) {
      return writeRawEnvelope(res, 400, 'an HTTP/1.1 request needs a Host header', 'headers.host');
    }
    handler(req, res);
  });
}

export interface RouteEntry {
  method: string;
  url: string;
  re: RegExp;
  hidden: boolean;
  /** The route's rate-limit class (config.limit), if any. */
  limit?: string;
  /** Whether its schema declares `security` (a session route). */
  secured: boolean;
  /** Its declared freshness (config.cache): public seconds or 'no-store'; absent when undeclared. */
  cache?: { public: number } | 'no-store';
}

function patternOf(url: string): RegExp {
  const body = url
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}

/**
 * Installs the error renderer and the unknown-route handler. Routes are
 * collected as they register so a known path with a wrong method can answer
 * 405 with an Allow header instead of 404.
 */
const routeTables = new WeakMap<FastifyInstance, RouteEntry[]>();

/** Every method and path the app serves (as registered), for documentation checks. */
export function servedRoutes(app: FastifyInstance): Array<Omit<RouteEntry, 're'>> {
  return (routeTables.get(app) ?? []).map(({ re: _re, ...r }) => r);
}

export function installErrorHandling(app: FastifyInstance): void {
  const routes: RouteEntry[] = [];
  routeTables.set(app, routes);
  app.addHook('onRoute', (opts) => {
    const methods = Array.isArray(opts.method) ? opts.method : [opts.method];
    for (const m of methods) {
      if (m === 'OPTIONS' || opts.url === '*' || opts.url === '/*') continue;
      const schema = opts.schema as { hide?: boolean; security?: unknown[] } | undefined;
      const { limit, cache } = (opts.config ?? {}) as { limit?: string; cache?: RouteEntry['cache'] };
      routes.push({ method: m, url: opts.url, re: patternOf(opts.url), hidden: Boolean(schema?.hide), secured: Boolean(schema?.security?.length), ...(limit ? { limit } : {}), ...(cache ? { cache } : {}) });
    }
  });

  app.setErrorHandler((err, request, reply) => {
    const error = err instanceof Error ? err : new Error(String(err));
    const apiError = toApiError(error, request);
    if (apiError.status >= 500 && apiError.code === 'internal_error') {
      request.log.error({ err: error }, 'unexpected error');
    } else if (apiError.status >= 500) {
      request.log.warn({ code: apiError.code, msg: error.message }, 'dependency failure');
    }
    return send(reply, apiError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = [...new Set(routes.filter((r) => r.re.test(path)).map((r) => r.method))];
    // A route that exists for this method but found nothing (a missing /docs/static file) is a 404.
    if (allowed.length && !allowed.includes(request.method)) {
      const allow = allowed.sort().join(', ');
      return send(reply, new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}; allowed: ${allow}`, {}, { headers: { Allow: allow } }));
    }
    return send(reply, new ApiError('not_found', `No route ${request.method} ${path}`));
  });
}
