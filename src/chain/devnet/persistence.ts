/**
 * Reading and writing the devnet's tables. Each state change is one store transaction, so a
 * crash leaves either the old or the new chain, never half a block.
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import type { Store, Tx } from '../../store/db.js';
import type { BlockRecord } from './chain-state.js';
import { parseOps, type ControlOp } from './control-ops.js';
import type { MempoolEntry } from './mempool.js';

export interface StoredBlock {
  height: number;
  hash: string;
  header_hex: string;
  txs: string[];
  ops: ControlOp[];
}

export interface StoredMempoolTx {
  txid: string;
  hex: string;
  seq: number;
  time: number;
}

export interface LoadedState {
  blocks: StoredBlock[];
  mempool: StoredMempoolTx[];
  pendingOps: ControlOp[];
}

/** What one devnet step changes in the store. */
export interface ChainWrite {
  /** Delete blocks at or above this height first (a reorg). */
  truncateFrom?: number;
  addBlocks?: BlockRecord[];
  /** Replace the whole mempool table with these entries. */
  replaceMempool?: MempoolEntry[];
  addMempool?: MempoolEntry[];
  removeMempool?: string[];
  /** Replace the pending operations with these. */
  pendingOps?: ControlOp[];
}

export async function loadDevnet(store: Store): Promise<LoadedState> {
  const db = store.db;
  const blocks = await db.selectFrom('devnet_blocks').selectAll().orderBy('height').execute();
  const mempool = await db.selectFrom('devnet_mempool').selectAll().orderBy('seq').execute();
  const ops = await db.selectFrom('devnet_pending_ops').selectAll().orderBy('seq').execute();
  return {
    blocks: blocks.map((b) => ({
      height: Number(b.height), hash: b.hash, header_hex: b.header_hex, txs: JSON.parse(b.txs_json) as string[], ops: parseOps(b.ops_json),
    })),
    mempool: mempool.map((m) => ({ txid: m.txid, hex: m.hex, seq: Number(m.seq), time: Number(m.time) })),
    pendingOps: ops.map((o) => JSON.parse(o.op_json) as ControlOp),
  };
}

function blockRow(b: BlockRecord) {
  return { height: b.height, hash: b.hash, header_hex: bytesToHex(b.header), txs_json: JSON.stringify(b.txs.map((t) => t.hex)), ops_json: JSON.stringify(b.ops) };
}

const mempoolRow = (e: MempoolEntry) => ({ txid: e.tx.txid, hex: e.tx.hex, seq: e.seq, time: e.time });

async function inChunks<T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>): Promise<void> {
  // Bounded batches keep every statement under SQLite's and PostgreSQL's parameter limits.
  for (let i = 0; i < rows.length; i += 100) await insert(rows.slice(i, i + 100));
}

export async function writeDevnet(store: Store, w: ChainWrite): Promise<void> {
  await store.db.transaction().execute(async (trx: Tx) => {
    if (w.truncateFrom !== undefined) await trx.deleteFrom('devnet_blocks').where('height', '>=', w.truncateFrom).execute();
    if (w.addBlocks?.length) await inChunks(w.addBlocks.map(blockRow), (c) => trx.insertInto('devnet_blocks').values(c).execute());
    if (w.replaceMempool) {
      await trx.deleteFrom('devnet_mempool').execute();
      await inChunks(w.replaceMempool.map(mempoolRow), (c) => trx.insertInto('devnet_mempool').values(c).execute());
    }
    if (w.removeMempool?.length) await inChunks(w.removeMempool, (c) => trx.deleteFrom('devnet_mempool').where('txid', 'in', c).execute());
    if (w.addMempool?.length) await inChunks(w.addMempool.map(mempoolRow), (c) => trx.insertInto('devnet_mempool').values(c).execute());
    if (w.pendingOps) {
      await trx.deleteFrom('devnet_pending_ops').execute();
      const rows = w.pendingOps.map((op, seq) => ({ seq, op_json: JSON.stringify(op) }));
      await inChunks(rows, (c) => trx.insertInto('devnet_pending_ops').values(c).execute());
    }
  });
}
