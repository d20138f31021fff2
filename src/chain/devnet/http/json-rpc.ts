/**
 * Bitcoin Core's JSON-RPC envelope rules (src/httprpc.cpp, src/rpc/request.cpp,
 * Core 28+), independent of the methods behind them:
 * - `"jsonrpc": "2.0"` requests get `{jsonrpc, result | error, id}` with HTTP
 *   200, and a notification (no `id`) gets 204 and no body;
 * - legacy requests (no `jsonrpc`, or `"1.0"`) get `{result, error, id}` with
 *   both keys, and an error answers HTTP 500 (400 for -32600 invalid request,
 *   404 for -32601 method not found);
 * - a batch always answers 200 with one reply per non-notification member.
 */

export const RPC_MISC_ERROR = -1;
export const RPC_TYPE_ERROR = -3;
export const RPC_INVALID_ADDRESS_OR_KEY = -5;
export const RPC_INVALID_PARAMETER = -8;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_PARSE_ERROR = -32700;

/** An error object the node answers, as Core's `JSONRPCError(code, message)`. */
export class RpcFault extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcFault';
  }
}

/** Runs one method; throws RpcFault (or anything, which becomes -1 like Core's std::exception). */
export type RpcDispatch = (method: string, params: unknown[] | Record<string, unknown>) => Promise<unknown>;

export interface RpcHttpReply {
  status: number;
  /** Undefined for 204. */
  body?: unknown;
}

type Version = 'v1' | 'v2';
type ErrorObject = { code: number; message: string };

interface ParsedRequest {
  version: Version;
  /** undefined when the member is absent (a notification under 2.0). */
  id: unknown;
  hasId: boolean;
  method: string;
  params: unknown[] | Record<string, unknown>;
}

/** `JSONRPCReplyObj`: 2.0 names its version and omits the null member; 1.0 carries both. */
function replyObject(version: Version, hasId: boolean, id: unknown, result: unknown, error: ErrorObject | null): Record<string, unknown> {
  const reply: Record<string, unknown> = {};
  if (version === 'v2') reply.jsonrpc = '2.0';
  if (error === null) {
    reply.result = result === undefined ? null : result;
    if (version === 'v1') reply.error = null;
  } else {
    if (version === 'v1') reply.result = null;
    reply.error = error;
  }
  if (hasId) reply.id = id;
  return reply;
}

/** `JSONRPCRequest::parse`; the partial state lets an error reply carry the id and version. */
function parseRequest(value: unknown, partial: { version: Version; id: unknown; hasId: boolean }): ParsedRequest {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RpcFault(RPC_INVALID_REQUEST, 'Invalid Request object');
  const req = value as Record<string, unknown>;
  partial.hasId = 'id' in req;
  partial.id = req.id;
  partial.version = 'v1';
  const v = req.jsonrpc;
  if (v !== undefined && v !== null) {
    if (typeof v !== 'string') throw new RpcFault(RPC_INVALID_REQUEST, 'jsonrpc field must be a string');
    // Some old documentation sent {"jsonrpc": "1.0"}; Core keeps treating it as legacy.
    if (v === '2.0') partial.version = 'v2';
    else if (v !== '1.0') throw new RpcFault(RPC_INVALID_REQUEST, 'JSON-RPC version not supported');
  }
  if (req.method === undefined || req.method === null) throw new RpcFault(RPC_INVALID_REQUEST, 'Missing method');
  if (typeof req.method !== 'string') throw new RpcFault(RPC_INVALID_REQUEST, 'Method must be a string');
  const p = req.params;
  let params: unknown[] | Record<string, unknown>;
  if (p === undefined || p === null) params = [];
  else if (typeof p === 'object') params = p as unknown[] | Record<string, unknown>;
  else throw new RpcFault(RPC_INVALID_REQUEST, 'Params must be an array or object');
  return { version: partial.version, id: partial.id, hasId: partial.hasId, method: req.method, params };
}

const asErrorObject = (e: unknown): ErrorObject =>
  e instanceof RpcFault ? { code: e.code, message: e.message } : { code: RPC_MISC_ERROR, message: e instanceof Error ? e.message : String(e) };

/** Legacy error statuses (`JSONErrorReply`). */
const legacyStatus = (code: number): number => (code === RPC_INVALID_REQUEST ? 400 : code === RPC_METHOD_NOT_FOUND ? 404 : 500);

/** One member of a batch: errors never escape, notifications answer nothing. */
async function execBatchMember(dispatch: RpcDispatch, value: unknown): Promise<Record<string, unknown> | null> {
  const partial = { version: 'v1' as Version, id: null as unknown, hasId: false };
  try {
    const req = parseRequest(value, partial);
    try {
      const result = await dispatch(req.method, req.params);
      return req.version === 'v2' && !req.hasId ? null : replyObject(req.version, req.hasId, req.id, result, null);
    } catch (e) {
      return req.version === 'v2' && !req.hasId ? null : replyObject(req.version, req.hasId, req.id, null, asErrorObject(e));
    }
  } catch (e) {
    return replyObject(partial.version, partial.hasId, partial.id, null, asErrorObject(e));
  }
}

/** Answers one HTTP body (already read as text) the way Core's HTTP RPC handler does. */
export async function handleJsonRpc(bodyText: string, dispatch: RpcDispatch): Promise<RpcHttpReply> {
  let value: unknown;
  try {
    value = JSON.parse(bodyText);
  } catch {
    return { status: 500, body: replyObject('v1', false, null, null, { code: RPC_PARSE_ERROR, message: 'Parse error' }) };
  }
  if (Array.isArray(value)) {
    // Members run one after another, as Core runs them, so a batch sees its own earlier effects.
    const replies: Array<Record<string, unknown>> = [];
    for (const member of value) {
      const r = await execBatchMember(dispatch, member);
      if (r) replies.push(r);
    }
    if (replies.length === 0 && value.length > 0) return { status: 204 };
    return { status: 200, body: replies };
  }
  if (typeof value !== 'object' || value === null) {
    return { status: 500, body: replyObject('v1', false, null, null, { code: RPC_PARSE_ERROR, message: 'Top-level object parse error' }) };
  }
  const partial = { version: 'v1' as Version, id: null as unknown, hasId: false };
  let req: ParsedRequest;
  try {
    req = parseRequest(value, partial);
  } catch (e) {
    const err = asErrorObject(e);
    return { status: legacyStatus(err.code), body: replyObject(partial.version, partial.hasId, partial.id, null, err) };
  }
  try {
    const result = await dispatch(req.method, req.params);
    if (req.version === 'v2' && !req.hasId) return { status: 204 };
    return { status: 200, body: replyObject(req.version, req.hasId, req.id, result, null) };
  } catch (e) {
    const err = asErrorObject(e);
    if (req.version === 'v2') return req.hasId ? { status: 200, body: replyObject('v2', true, req.id, null, err) } : { status: 204 };
    return { status: legacyStatus(err.code), body: replyObject('v1', req.hasId, req.id, null, err) };
  }
}
