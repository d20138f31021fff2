import type { BitcoinBackend } from '../../chain/ports.js';
import { mapPool } from '../../util/pool.js';

export const MAX_STATUS_TXIDS = 25;
export const FINALITY_DEPTH = 3;
const UPSTREAM_CONCURRENCY = 4;

export type TxStatus =
  | { txid: string; state: 'known'; confirmed: boolean; confirmations?: number; final: boolean }
  | { txid: string; state: 'unknown'; confirmed: false; final: false };

export async function transactionStatuses(bitcoin: BitcoinBackend, txids: string[]): Promise<TxStatus[]> {
  return mapPool(txids, UPSTREAM_CONCURRENCY, async (txid): Promise<TxStatus> => {
    const tx = await bitcoin.getTransaction(txid);
    if (!tx) return { txid, state: 'unknown', confirmed: false, final: false };
    if (tx.confirmations <= 0) return { txid, state: 'known', confirmed: false, final: false };
    return { txid, state: 'known', confirmed: true, confirmations: tx.confirmations, final: tx.confirmations >= FINALITY_DEPTH };
  });
}
