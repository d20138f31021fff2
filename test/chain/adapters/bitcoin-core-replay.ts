/**
 * Replays Bitcoin Core JSON-RPC from the recorded replies in
 * test/fixtures/bitcoin-core/: legacy (1.0) single calls and batches, with
 * Core's HTTP statuses (500 for an error object, 404 for an unknown method).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RecordedRequest, ReplayHandler, ReplayReply } from './replay-server.js';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/bitcoin-core');

/** A recorded `{result, error}` body. */
export interface RpcFixture {
  result: unknown;
  error: { code: number; message: string } | null;
}

export function fixture(name: string): RpcFixture {
  return JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8')) as RpcFixture;
}

export const rpcErrors = JSON.parse(fs.readFileSync(path.join(dir, 'errors.json'), 'utf8')) as Record<
  string,
  { code: number; message: string }
>;

export const txs = JSON.parse(fs.readFileSync(path.join(dir, 'transactions.json'), 'utf8')) as {
  tx_a: { txid: string; wtxid: string; hex: string };
  tx_b: { txid: string; wtxid: string; hex: string };
  genesis_coinbase: { txid: string; hex: string };
};

export const errorReply = (name: string): RpcFixture => ({ result: null, error: rpcErrors[name]! });

/** Answers one call from its method and params; a missing method answers -32601. */
export type RpcTable = Record<string, (params: unknown[]) => RpcFixture | ReplayReply>;

const isRaw = (v: RpcFixture | ReplayReply): v is ReplayReply => !('result' in v) || 'status' in v;

function answer(table: RpcTable, call: { method: string; params?: unknown[]; id?: unknown }): { reply: unknown; status: number; raw?: ReplayReply } {
  const fn = table[call.method];
  if (!fn) return { reply: { result: null, error: rpcErrors.method_not_found, id: call.id }, status: 404 };
  const out = fn(call.params ?? []);
  if (isRaw(out)) return { reply: null, status: out.status ?? 200, raw: out };
  return { reply: { ...out, id: call.id }, status: out.error ? 500 : 200 };
}

/** Every call is also pushed to `calls` (batches flattened) for assertions. */
export function rpcHandler(table: RpcTable, calls: Array<{ method: string; params: unknown[] }> = []): ReplayHandler {
  return (req: RecordedRequest) => {
    const payload = JSON.parse(req.body) as unknown;
    if (Array.isArray(payload)) {
      const replies = (payload as Array<{ method: string; params?: unknown[]; id?: unknown }>).map((c) => {
        calls.push({ method: c.method, params: c.params ?? [] });
        return answer(table, c).reply;
      });
      return { status: 200, body: replies };
    }
    const call = payload as { method: string; params?: unknown[]; id?: unknown };
    calls.push({ method: call.method, params: call.params ?? [] });
    const { reply, status, raw } = answer(table, call);
    return raw ?? { status, body: reply };
  };
}
