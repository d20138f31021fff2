/**
 * Argument binding as Bitcoin Core's RPCHelpMan does it: positional or named
 * parameters, the same type-mismatch error (-3 "Wrong type passed"), unknown
 * named parameters (-8), missing or surplus arguments (-1 with the usage line,
 * where Core prints its help text), and the hash checks of ParseHashV.
 */
import { RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RPC_TYPE_ERROR, RpcFault } from './json-rpc.js';

/** `verbosity` accepts a number or, for backwards compatibility, a bool (Core's ParseVerbosity). */
export type ArgType = 'number' | 'string' | 'bool' | 'array' | 'amount' | 'verbosity';

export interface ArgSpec {
  name: string;
  type: ArgType;
  required?: boolean;
}

/** UniValue's type names, as Core's messages print them. */
function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

function matches(type: ArgType, v: unknown): boolean {
  switch (type) {
    case 'number':
      return typeof v === 'number';
    case 'string':
      return typeof v === 'string';
    case 'bool':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v);
    case 'amount':
      return typeof v === 'number' || typeof v === 'string';
    case 'verbosity':
      return typeof v === 'number' || typeof v === 'boolean';
  }
}

const expected: Record<ArgType, string> = {
  number: 'number',
  string: 'string',
  bool: 'bool',
  array: 'array',
  amount: 'number or string',
  verbosity: 'number or bool',
};

const usage = (method: string, specs: ArgSpec[]): string =>
  [method, ...specs.map((s) => (s.required ? `"${s.name}"` : `( ${s.name} )`))].join(' ');

/** Positional values for `specs` (undefined for absent optional ones), or an RpcFault like Core's. */
export function bindArgs(method: string, specs: ArgSpec[], params: unknown[] | Record<string, unknown>): unknown[] {
  let values: unknown[];
  if (Array.isArray(params)) {
    if (params.length > specs.length) throw new RpcFault(RPC_MISC_ERROR, usage(method, specs));
    values = specs.map((_, i) => params[i]);
  } else {
    for (const key of Object.keys(params)) {
      if (!specs.some((s) => s.name === key)) throw new RpcFault(RPC_INVALID_PARAMETER, `Unknown named parameter ${key}`);
    }
    values = specs.map((s) => params[s.name]);
  }
  const mismatch: Record<string, string> = {};
  specs.forEach((s, i) => {
    const v = values[i];
    if (v === undefined || v === null) {
      values[i] = undefined;
      return;
    }
    if (!matches(s.type, v)) mismatch[`Position ${i + 1} (${s.name})`] = `JSON value of type ${typeName(v)} is not of expected type ${expected[s.type]}`;
  });
  if (Object.keys(mismatch).length) throw new RpcFault(RPC_TYPE_ERROR, `Wrong type passed:\n${JSON.stringify(mismatch, null, 4)}`);
  if (specs.some((s, i) => s.required && values[i] === undefined)) throw new RpcFault(RPC_MISC_ERROR, usage(method, specs));
  return values;
}

/** ParseHashV: 64 hex characters, else -8 with Core's wording. */
export function parseHash(v: unknown, name: string): string {
  const s = String(v);
  if (s.length !== 64) throw new RpcFault(RPC_INVALID_PARAMETER, `${name} must be of length 64 (not ${s.length}, for '${s}')`);
  if (!/^[0-9a-fA-F]{64}$/.test(s)) throw new RpcFault(RPC_INVALID_PARAMETER, `${name} must be hexadecimal string (not '${s}')`);
  return s.toLowerCase();
}

/** A JSON integer within `int` range, as UniValue::getInt<int> requires. */
export function parseInt32(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || Math.abs(v) > 0x7fffffff) {
    throw new RpcFault(RPC_TYPE_ERROR, `${name}: JSON integer out of range`);
  }
  return v;
}

/** getblock/getrawtransaction verbosity: bools map to 0/1. */
export const verbosityOf = (v: unknown, dflt: number): number => (v === undefined ? dflt : typeof v === 'boolean' ? (v ? 1 : 0) : Number(v));
