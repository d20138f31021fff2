/**
 * Devnet control operations: god-mode issuances, transfers of issuance rights and credits. They are not Bitcoin
 * transactions; each is carried by a block (persisted with it), so the ledger, its events and
 * a reorg treat them like any other confirmed change. Their events name a synthetic tx_hash
 * (sha256d of the operation and its place) that no Bitcoin transaction has.
 */
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { hash256Display } from './tx-decode.js';

export type ControlOp =
  | {
      kind: 'issue';
      asset: string;
      longname: string | null;
      issuer: string;
      /** Raw quantity, decimal string. */
      quantity: string;
      divisible: boolean;
      description: string;
      locked: boolean;
    }
  | { kind: 'credit'; address: string; asset: string; quantity: string }
  /** Core's issuance with a transfer destination: the rights move from the current owner to `to`, no units. */
  | { kind: 'transfer'; asset: string; from: string; to: string };

export function opTxHash(height: number, index: number, op: ControlOp): string {
  return hash256Display(utf8ToBytes(`devnet-op:${height}:${index}:${JSON.stringify(op)}`));
}

export function parseOps(json: string): ControlOp[] {
  const v = JSON.parse(json) as unknown;
  if (!Array.isArray(v)) throw new Error('devnet: ops_json is not an array');
  return v as ControlOp[];
}
