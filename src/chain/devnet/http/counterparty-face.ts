/**
 * `GET /devnet/counterparty/v2/...`: the devnet ledger speaking Counterparty
 * Core's API v2 (apiserver.py): `{result, next_cursor, result_count}` for
 * lists, `{result}` otherwise, `{error}` with 400/404, Core's cursor paging,
 * and the X-COUNTERPARTY-HEIGHT / X-BITCOIN-HEIGHT / X-COUNTERPARTY-READY
 * headers on every reply. Quantities are bare JSON integers, as Core writes them.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodeAddress } from '../../../bitcoin/address.js';
import type { Devnet } from '../devnet.js';
import { coreJson } from './core-json.js';

type Query = Record<string, string | string[] | undefined>;
type Req = FastifyRequest<{ Params: Record<string, string>; Querystring: Query }>;

/** A 400 with Core's message (`Invalid address: …`, `Invalid integer: limit`, …). */
class BadRequest extends Error {}

const PREFIX = '/devnet/counterparty/v2';

/** Core takes the first value of a repeated non-list parameter; `none` means absent. */
function param(q: Query, name: string): string | undefined {
  const raw = q[name];
  const v = Array.isArray(raw) ? raw[0] : raw;
  return v === undefined || v.toLowerCase() === 'none' ? undefined : v;
}

function intParam(q: Query, name: string): number | undefined {
  const v = param(q, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new BadRequest(`Invalid integer: ${name}`);
  return Number(v);
}

const boolParam = (q: Query, name: string): boolean => ['true', '1'].includes((param(q, name) ?? '').toLowerCase());

function requireAddress(d: Devnet, address: string): string {
  if (!decodeAddress(address, d.network).ok) throw new BadRequest(`Invalid address: ${address}`);
  return address;
}

/**
 * Core's paging over rows in the view's order: `cursor` names the first row of
 * the page (inclusive), `offset` overrides it, `next_cursor` is the first row of
 * the next page. The devnet's balance rows have no rowid, so the position is the cursor.
 */
function pageRows<T>(rows: T[], q: Query) {
  const limit = Math.max(1, intParam(q, 'limit') ?? 100);
  const offset = intParam(q, 'offset');
  const start = Math.max(0, offset ?? intParam(q, 'cursor') ?? 0);
  const result = rows.slice(start, start + limit);
  return { result, next_cursor: start + limit < rows.length ? start + limit : null, result_count: rows.length };
}

export function counterpartyHeaders(d: Devnet): Record<string, string> {
  const s = d.api.status();
  return {
    'x-counterparty-height': String(s.counterparty_height),
    'x-bitcoin-height': String(s.bitcoin_height),
    // Python's str(bool), as Core's Flask app writes it.
    'x-counterparty-ready': s.ready ? 'True' : 'False',
    'x-counterparty-version': '11.2.0',
    'x-ledger-state': 'Following',
  };
}

/** Electrs-shaped rows, as Core ≥ 10.x proxies `/address/{a}/utxo` from its indexer. */
function bitcoinUtxos(d: Devnet, address: string, unconfirmed: boolean) {
  return d.api
    .addressUtxoRows(address)
    .filter((r) => unconfirmed || r.confirmations > 0)
    .map((r) => {
      const block = r.height === null ? undefined : d.state.chain.block(r.height);
      const status = block ? { confirmed: true, block_height: block.height, block_hash: block.hash, block_time: block.time } : { confirmed: false };
      return { txid: r.txid, vout: r.vout, status, value: r.value_sats, amount: r.value_sats / 1e8 };
    });
}

type Handler = (d: Devnet, req: Req) => { status?: number; body: unknown } | null;

/** Route table: path under /v2 → handler; null answers Core's 404 `Not found`. */
const ROUTES: Record<string, Handler> = {
  '/': (d, req) => ({
    body: {
      result: {
        ...d.api.info(),
        documentation: 'https://counterpartycore.docs.apiary.io/',
        routes: `${req.protocol}://${req.host}${PREFIX}/routes`,
      },
    },
  }),
  '/addresses/:address/balances': (d, req) => {
    const type = param(req.query, 'type') ?? 'all';
    if (!['all', 'utxo', 'address'].includes(type)) throw new BadRequest(`Invalid type: ${type}`);
    return { body: pageRows(d.api.addressBalances(requireAddress(d, req.params.address!), type as 'all'), req.query) };
  },
  '/utxos/:utxo/balances': (d, req) => ({ body: pageRows(d.api.utxoBalances(req.params.utxo!), req.query) }),
  '/utxos/withbalances': (d, req) => {
    const utxos = param(req.query, 'utxos');
    if (utxos === undefined) throw new BadRequest('Missing required parameter: utxos');
    return { body: { result: d.api.utxosWithBalances(utxos.split(',')) } };
  },
  '/assets/:asset': (d, req) => {
    const a = d.api.asset(req.params.asset!);
    return a ? { body: { result: a } } : null;
  },
  '/assets/:asset/balances': (d, req) => {
    const type = param(req.query, 'type') ?? 'all';
    if (!['all', 'utxo', 'address'].includes(type)) throw new BadRequest(`Invalid type: ${type}`);
    return { body: pageRows(d.api.assetBalances(req.params.asset!, type as 'all'), req.query) };
  },
  '/blocks/last': (d) => {
    const b = d.api.lastBlock();
    return b ? { body: { result: b } } : null;
  },
  '/blocks/:block_index': (d, req) => {
    const b = /^\d+$/.test(req.params.block_index!) ? d.api.block(Number(req.params.block_index)) : null;
    return b ? { body: { result: b } } : null;
  },
  '/blocks/:block_index/events': (d, req) => blockEvents(d, req, param(req.query, 'event_name')?.split(',')),
  '/blocks/:block_index/events/:event': (d, req) => blockEvents(d, req, [req.params.event!]),
  '/events': (d, req) => ({ body: d.api.events(eventQuery(req.query, param(req.query, 'event_name')?.split(','))) }),
  '/mempool/events': (d, req) => ({ body: pageRows(d.api.mempoolEvents(param(req.query, 'event_name')?.split(',')), req.query) }),
  '/transactions/:tx_hash': (d, req) => {
    const t = d.api.transaction(req.params.tx_hash!);
    return t ? { body: { result: t } } : null;
  },
  '/compose/attach/estimatexcpfees': (d) => ({ body: { result: d.api.attachEstimateXcpFee() } }),
  '/bitcoin/addresses/:address/utxos': (d, req) => {
    const rows = bitcoinUtxos(d, requireAddress(d, req.params.address!), boolParam(req.query, 'unconfirmed'));
    // A list result always carries the paging keys in Core's envelope, null for proxied lists.
    return { body: { result: rows, next_cursor: null, result_count: null } };
  },
};

function eventQuery(q: Query, names: string[] | undefined) {
  return { names, cursor: intParam(q, 'cursor'), limit: intParam(q, 'limit'), offset: intParam(q, 'offset') };
}

/** Per-block rows carry no block_index in Core (`event_index, event, params, tx_hash`). */
function blockEvents(d: Devnet, req: Req, names: string[] | undefined) {
  if (!/^\d+$/.test(req.params.block_index!)) return null; // Flask's <int:…> converter: no route
  const page = d.api.blockEvents(Number(req.params.block_index), eventQuery(req.query, names));
  const result = page.result.map((e) => ({ event_index: e.event_index, event: e.event, params: e.params, tx_hash: e.tx_hash }));
  return { body: { ...page, result } };
}

function send(reply: FastifyReply, d: Devnet, status: number, body: unknown): FastifyReply {
  return reply.code(status).headers(counterpartyHeaders(d)).type('application/json').send(coreJson(body));
}

/** The API v2 routes the devnet serves (under /devnet/counterparty/v2), as its `/routes` lists them. */
export const DEVNET_COUNTERPARTY_ROUTES: readonly string[] = Object.keys(ROUTES);

// The root advertises a `routes` link, as Core does: it answers with the routes this face serves.
ROUTES['/routes'] = () => ({
  body: { result: Object.fromEntries(DEVNET_COUNTERPARTY_ROUTES.map((r) => [`/v2${r === '/' ? '/' : r.replace(/:([a-z_]+)/g, '<$1>')}`, { method: 'GET' }])) },
});

/** Registers the API v2 routes on `app` (an encapsulated child context). */
export function registerCounterpartyFace(app: FastifyInstance, d: Devnet): void {
  for (const [path, handler] of Object.entries(ROUTES)) {
    // Counterparty Core's API v2, documented by Counterparty: kept out of the market's OpenAPI document.
    app.get(`${PREFIX}${path}`, { schema: { hide: true } }, async (req, reply) => {
      try {
        const out = handler(d, req as Req);
        return out ? send(reply, d, out.status ?? 200, out.body) : send(reply, d, 404, { error: 'Not found' });
      } catch (e) {
        if (e instanceof BadRequest) return send(reply, d, 400, { error: e.message });
        req.log.error({ err: e }, 'devnet counterparty face failed');
        // Core reports unexpected route failures as 503 "Unknown error".
        return send(reply, d, 503, { error: 'Unknown error' });
      }
    });
  }
  app.get(`${PREFIX}/*`, { schema: { hide: true } }, async (_req, reply) => send(reply, d, 404, { error: 'Not found' }));
}
