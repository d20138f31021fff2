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
import type { BalanceRow } from '../api-views.js';
import { electrsFaultMessage } from '../counterparty-backend.js';
import { coreJson } from './core-json.js';
import { plainEvent, verboseResult } from './verbose.js';

type Query = Record<string, string | string[] | undefined>;
type Req = FastifyRequest<{ Params: Record<string, string>; Querystring: Query }>;

/** A 400 with Core's message (`Invalid address: …`, `Invalid integer: limit`, …). */
class BadRequest extends Error {}

const PREFIX = '/devnet/counterparty/v2';

/** Core's API_LIMIT_ROWS: a larger `limit` is served as this many rows. */
const API_LIMIT_ROWS = 1000;

/** One argument of a route, as Core's route table declares it (lib/api/routes.py and the function's signature). */
type Arg = { name: string; type: 'int' | 'bool' | 'str'; members?: readonly string[]; required?: boolean; default?: string | number | boolean };

const PAGING: Arg[] = [{ name: 'cursor', type: 'int' }, { name: 'limit', type: 'int', default: 100 }, { name: 'offset', type: 'int' }];
const BALANCE_TYPE: Arg = { name: 'type', type: 'str', members: ['all', 'utxo', 'address'], default: 'all' };

/** Parsed arguments: Core's prepare_args over the query, the path already matched. */
type Args = Record<string, string | number | boolean | undefined> & { verbose: boolean };

/**
 * Core's prepare_args (apiserver.py, v11.2.0), in its order: a parameter the route does not
 * declare (other than `verbose`) → `Unrecognized parameter(s): a, b`; `none`/`null` → absent; a
 * repeated parameter → its first value; booleans → `Invalid boolean: x`; integers → `Invalid
 * integer: x`; enumerations → `Invalid value for x: …`; `address…` arguments → `Invalid address:
 * …`; `limit` ≤ 0 → `Limit must be greater than 0`, above 1000 → 1000.
 */
function prepareArgs(d: Devnet, spec: readonly Arg[], req: Req): Args {
  const q = req.query;
  const allowed = new Set([...spec.map((a) => a.name), 'verbose']);
  const unknown = Object.keys(q).filter((k) => !allowed.has(k)).sort();
  if (unknown.length) throw new BadRequest(`Unrecognized parameter(s): ${unknown.join(', ')}`);
  const first = (name: string): string | undefined => {
    const raw = q[name];
    const v = Array.isArray(raw) ? raw[0] : raw;
    return v === undefined || ['none', 'null'].includes(v.toLowerCase()) ? undefined : v;
  };
  // `verbose` is read apart and never validated on non-compose routes, as Core does.
  const args: Args = { verbose: ['true', '1'].includes((first('verbose') ?? '').toLowerCase()) };
  for (const a of spec) {
    if (a.name in req.params) continue;
    const v = first(a.name);
    if (v === undefined) {
      if (a.required) throw new BadRequest(`Missing required parameter: ${a.name}`);
      args[a.name] = a.default;
      continue;
    }
    if (a.type === 'bool') {
      const l = v.toLowerCase();
      if (l !== 'true' && l !== '1' && l !== 'false' && l !== '0') throw new BadRequest(`Invalid boolean: ${a.name}`);
      args[a.name] = l === 'true' || l === '1';
    } else if (a.type === 'int') {
      if (!/^\s*[-+]?\d+\s*$/.test(v)) throw new BadRequest(`Invalid integer: ${a.name}`);
      args[a.name] = Number(v);
    } else args[a.name] = v;
    if (a.members && !a.members.includes(String(args[a.name]))) {
      throw new BadRequest(`Invalid value for ${a.name}: ${String(args[a.name])} (expected one of: ${a.members.join(', ')})`);
    }
  }
  for (const [name, value] of [...Object.entries(req.params), ...Object.entries(args)]) {
    if (!name.startsWith('address') || typeof value !== 'string' || value === '') continue;
    for (const addr of value.split(',')) if (!decodeAddress(addr, d.network).ok) throw new BadRequest(`Invalid address: ${value}`);
  }
  if (typeof args.limit === 'number') {
    if (args.limit <= 0) throw new BadRequest('Limit must be greater than 0');
    args.limit = Math.min(args.limit, API_LIMIT_ROWS);
  }
  return args;
}

function requireAddress(d: Devnet, address: string): string {
  if (!decodeAddress(address, d.network).ok) throw new BadRequest(`Invalid address: ${address}`);
  return address;
}

/** `sort=field:dir,…` (Core: overrides the cursor). */
function sortRows(rows: BalanceRow[], sort: string): BalanceRow[] {
  const keys = sort.split(',').map((part) => {
    const [field, dir] = part.split(':');
    if (!field || !['quantity', 'asset', 'address', 'utxo'].includes(field)) throw new BadRequest(`Invalid sort field: ${field ?? ''}`);
    return { field: field as keyof BalanceRow, desc: (dir ?? 'asc').toLowerCase() === 'desc' };
  });
  const val = (r: BalanceRow, f: keyof BalanceRow) => (f === 'quantity' ? BigInt(r.quantity) : String(r[f] ?? ''));
  return [...rows].sort((a, b) => {
    for (const k of keys) {
      const x = val(a, k.field);
      const y = val(b, k.field);
      if (x !== y) return (x < y ? -1 : 1) * (k.desc ? -1 : 1);
    }
    return b.rowid - a.rowid;
  });
}

/**
 * Core's select_rows paging over balance rows: newest rowid first; `cursor` is the rowid of the
 * page's first row (inclusive); `offset` or `sort` overrides it; `next_cursor` is the rowid of
 * the next page's first row; `result_count` counts every row. The rowid never leaves.
 */
function pageBalances(rows: BalanceRow[], args: Args) {
  const limit = args.limit as number;
  let from = rows;
  if (typeof args.sort === 'string') from = sortRows(rows, args.sort);
  let start = 0;
  if (typeof args.offset === 'number') start = Math.max(0, args.offset);
  else if (typeof args.cursor === 'number' && typeof args.sort !== 'string') {
    start = from.findIndex((r) => r.rowid <= (args.cursor as number));
    if (start < 0) start = from.length;
  }
  const page = from.slice(start, start + limit);
  const next = typeof args.offset !== 'number' && typeof args.sort !== 'string' ? (from[start + limit]?.rowid ?? null) : null;
  return { result: page.map(({ rowid: _r, ...row }) => row), next_cursor: next, result_count: rows.length };
}

export function counterpartyHeaders(d: Devnet): Record<string, string> {
  const s = d.api.status();
  return {
    'x-counterparty-height': String(s.counterparty_height),
    'x-bitcoin-height': String(s.bitcoin_height),
    // Python's str(bool), as Core's Flask app writes it.
    'x-counterparty-ready': s.ready ? 'True' : 'False',
    'x-counterparty-version': '11.2.0',
    'x-ledger-state': s.ready ? 'Following' : 'Catching Up',
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

type Out = { status?: number; body: unknown } | null;
interface Route {
  args: readonly Arg[];
  run(d: Devnet, req: Req, args: Args): Out;
}

/** Route table: path under /v2 → its arguments (Core's) and handler; null answers Core's 404 `Not found`. */
const ROUTES: Record<string, Route> = {
  '/': {
    args: [],
    run: (d, req) => ({
      body: {
        result: {
          ...d.api.info(),
          documentation: 'https://apidocs.counterparty.io/',
          routes: `${req.protocol}://${req.host}${PREFIX}/routes`,
          openapi: `${req.protocol}://${req.host}${PREFIX}/openapi.json`,
        },
      },
    }),
  },
  '/addresses/:address/balances': {
    args: [{ name: 'address', type: 'str' }, BALANCE_TYPE, ...PAGING, { name: 'sort', type: 'str' }],
    run: (d, req, a) => ({ body: pageBalances(d.api.addressBalances(req.params.address!, a.type as 'all'), a) }),
  },
  '/utxos/:utxo/balances': {
    args: [{ name: 'utxo', type: 'str' }, ...PAGING],
    // Core selects `asset, asset_longname, quantity, utxo, utxo_address` here: no `address`.
    run: (d, req, a) => {
      const page = pageBalances(d.api.utxoBalances(req.params.utxo!), a);
      return { body: { ...page, result: page.result.map(({ address: _a, ...row }) => row) } };
    },
  },
  '/utxos/withbalances': {
    args: [{ name: 'utxos', type: 'str', required: true }],
    run: (d, _req, a) => ({ body: { result: d.api.utxosWithBalances(String(a.utxos).split(',')) } }),
  },
  '/assets/:asset': {
    args: [{ name: 'asset', type: 'str' }],
    run: (d, req) => {
      const a = d.api.asset(req.params.asset!);
      return a ? { body: { result: a } } : null;
    },
  },
  '/assets/:asset/balances': {
    args: [{ name: 'asset', type: 'str' }, BALANCE_TYPE, ...PAGING, { name: 'sort', type: 'str' }],
    run: (d, req, a) => ({ body: pageBalances(d.api.assetBalances(req.params.asset!, a.type as 'all'), a) }),
  },
  '/blocks/last': {
    args: [],
    run: (d) => {
      const b = d.api.lastBlock();
      return b ? { body: { result: b } } : null;
    },
  },
  '/blocks/:block_index': {
    args: [{ name: 'block_index', type: 'int' }],
    run: (d, req) => {
      const b = /^\d+$/.test(req.params.block_index!) ? d.api.block(Number(req.params.block_index)) : null;
      return b ? { body: { result: b } } : null;
    },
  },
  '/blocks/:block_index/events': {
    args: [{ name: 'block_index', type: 'int' }, { name: 'event_name', type: 'str' }, ...PAGING],
    run: (d, req, a) => blockEvents(d, req, a, typeof a.event_name === 'string' ? a.event_name.split(',') : undefined),
  },
  '/blocks/:block_index/events/:event': {
    args: [{ name: 'block_index', type: 'int' }, { name: 'event', type: 'str' }, ...PAGING],
    run: (d, req, a) => blockEvents(d, req, a, [req.params.event!]),
  },
  '/events': {
    args: [{ name: 'event_name', type: 'str' }, ...PAGING],
    run: (d, _req, a) => ({ body: d.api.events(eventQuery(a, typeof a.event_name === 'string' ? a.event_name.split(',') : undefined)) }),
  },
  '/mempool/events': {
    args: [{ name: 'event_name', type: 'str' }, { name: 'addresses', type: 'str' }, ...PAGING],
    run: (d, _req, a) => {
      const rows = d.api.mempoolEvents(typeof a.event_name === 'string' ? a.event_name.split(',') : undefined);
      const limit = a.limit as number;
      const start = typeof a.offset === 'number' ? a.offset : 0;
      return { body: { result: rows.slice(start, start + limit), next_cursor: null, result_count: rows.length } };
    },
  },
  '/transactions/:tx_hash': {
    args: [{ name: 'tx_hash', type: 'str' }],
    run: (d, req) => {
      if (!/^[0-9a-fA-F]{64}$/.test(req.params.tx_hash!)) throw new BadRequest(`Invalid transaction hash: ${req.params.tx_hash}`);
      const t = d.api.transaction(req.params.tx_hash!);
      return t ? { body: { result: t } } : null;
    },
  },
  '/compose/attach/estimatexcpfees': {
    args: [{ name: 'address', type: 'str' }],
    run: (d) => ({ body: { result: d.api.attachEstimateXcpFee() } }),
  },
  '/bitcoin/addresses/:address/utxos': {
    args: [{ name: 'address', type: 'str' }, { name: 'unconfirmed', type: 'bool', default: false }],
    run: (d, req, a) => {
      const electrs = electrsFaultMessage(d);
      if (electrs) throw new BadRequest(electrs);
      const rows = bitcoinUtxos(d, requireAddress(d, req.params.address!), a.unconfirmed === true);
      // A list result always carries the paging keys in Core's envelope, null for proxied lists.
      return { body: { result: rows, next_cursor: null, result_count: null } };
    },
  },
};

function eventQuery(a: Args, names: string[] | undefined) {
  return { names, cursor: a.cursor as number | undefined, limit: a.limit as number | undefined, offset: a.offset as number | undefined };
}

/** Per-block rows carry no block_index in Core (`event_index, event, params, tx_hash`). */
function blockEvents(d: Devnet, req: Req, a: Args, names: string[] | undefined): Out {
  if (!/^\d+$/.test(req.params.block_index!)) return null; // Flask's <int:…> converter: no route
  const page = d.api.blockEvents(Number(req.params.block_index), eventQuery(a, names));
  const result = page.result.map((e) => ({ event_index: e.event_index, event: e.event, params: e.params, tx_hash: e.tx_hash }));
  return { body: { ...page, result } };
}

function send(reply: FastifyReply, d: Devnet, status: number, body: unknown): FastifyReply {
  return reply.code(status).headers(counterpartyHeaders(d)).type('application/json').send(coreJson(body));
}

/** The API v2 routes the devnet serves (under /devnet/counterparty/v2), as its `/routes` lists them. */
export const DEVNET_COUNTERPARTY_ROUTES: readonly string[] = Object.keys(ROUTES);

// The root advertises a `routes` link, as Core does: it answers with the routes this face serves.
ROUTES['/routes'] = {
  args: [],
  run: () => ({
    body: { result: Object.fromEntries(DEVNET_COUNTERPARTY_ROUTES.map((r) => [`/v2${r === '/' ? '/' : r.replace(/:([a-z_]+)/g, '<$1>')}`, { method: 'GET' }])) },
  }),
};

/** Routes whose rows are events (block times only with verbose). */
const EVENT_ROUTES = new Set(['/events', '/blocks/:block_index/events', '/blocks/:block_index/events/:event']);

/** Core answers 503 `Counterparty not ready` on every route but `/v2/` while it catches up (apiserver.py). */
const SERVED_WHILE_NOT_READY = new Set(['/']);

/** Registers the API v2 routes on `app` (an encapsulated child context). */
export function registerCounterpartyFace(app: FastifyInstance, d: Devnet): void {
  for (const [path, route] of Object.entries(ROUTES)) {
    // Counterparty Core's API v2, documented by Counterparty: kept out of the market's OpenAPI document.
    app.get(`${PREFIX}${path}`, { schema: { hide: true } }, async (req, reply) => {
      try {
        if (d.counterpartyFault === 'not_ready' && !SERVED_WHILE_NOT_READY.has(path)) return send(reply, d, 503, { error: 'Counterparty not ready' });
        const r = req as Req;
        const args = prepareArgs(d, route.args, r);
        const out = route.run(d, r, args);
        if (!out) return send(reply, d, 404, { error: 'Not found' });
        const body = out.body as { result?: unknown };
        if (body && 'result' in body) {
          if (args.verbose) return send(reply, d, out.status ?? 200, { ...body, result: verboseResult(d, body.result) });
          if (EVENT_ROUTES.has(path) && Array.isArray(body.result)) return send(reply, d, out.status ?? 200, { ...body, result: body.result.map(plainEvent) });
        }
        return send(reply, d, out.status ?? 200, body);
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
