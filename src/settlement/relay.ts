import { TxRejected, UpstreamUnavailable, type BitcoinBackend } from '../chain/ports.js';
import { classifyRejection, type MempoolPolicy } from '../chain/errors.js';

export type RelayOutcome =
  | { status: 'relayed' }
  | { status: 'rejected'; reason: string; policy?: MempoolPolicy | null }
  | { status: 'conflicted'; reason: string }
  /** The outcome is not known (timeout, node down): keep the journal entry, never re-sign. */
  | { status: 'unknown'; error: string };

/**
 * One attempt to put signed bytes on the network: a single transaction or a
 * 1-parent-1-child package. Already-known bytes count as relayed (the adapters
 * map Bitcoin Core's "already in mempool / in chain" answers to success).
 */
export async function relayOnce(bitcoin: BitcoinBackend, txs: Array<{ txid: string; hex: string }>): Promise<RelayOutcome> {
  try {
    if (txs.length === 1) await bitcoin.broadcast(txs[0]!.hex);
    else await bitcoin.submitPackage(txs.map((t) => t.hex));
    return { status: 'relayed' };
  } catch (e) {
    if (e instanceof TxRejected) {
      const verdict = classifyRejection(e.reason);
      if (verdict.kind === 'conflict') return { status: 'conflicted', reason: e.reason };
      return { status: 'rejected', reason: e.reason, policy: verdict.kind === 'policy' ? verdict.policy : null };
    }
    if (e instanceof UpstreamUnavailable) return { status: 'unknown', error: e.message };
    return { status: 'unknown', error: e instanceof Error ? e.message : String(e) };
  }
}
