import { TxRejected, UpstreamUnavailable, type BitcoinBackend } from '../chain/ports.js';
import { classifyRejection, type MempoolPolicy } from '../chain/errors.js';

/** A package member the node refused, with its reason and the reason's class. */
export interface RefusedMember {
  txid: string;
  reason: string;
  conflict: boolean;
}

export type RelayOutcome =
  | { status: 'relayed' }
  /**
   * `held`: a wait-class refusal of a settlement whose kind holds them (SettlementHandlers.holdOnWait):
   * it stays journaled with its claims and recovery relays it again; nothing was released.
   */
  | { status: 'rejected'; reason: string; policy?: MempoolPolicy | null; held?: true }
  | { status: 'conflicted'; reason: string }
  /**
   * Some members of a package are in the mempool and others were refused (Core validates each
   * member alone first: a parent that pays its own way stays when its child fails). What landed
   * is on the network and will confirm; it is never reported as failed.
   */
  | { status: 'partial'; landed: string[]; refused: RefusedMember[] }
  /** The outcome is not known (timeout, node down): keep the journal entry, never re-sign. */
  | { status: 'unknown'; error: string };

/** A refusal the journal holds rather than releases (SettlementHandlers.holdOnWait). */
export const isHeld = (o: RelayOutcome): boolean => o.status === 'rejected' && o.held === true;

/** The settlement ended on this outcome (released): a conflict, or a refusal not held. */
export const endedOn = (o: RelayOutcome): o is Extract<RelayOutcome, { status: 'conflicted' | 'rejected' }> => o.status === 'conflicted' || (o.status === 'rejected' && !o.held);

/**
 * One attempt to put signed bytes on the network: a single transaction or a child with its
 * parents. Already-known bytes count as relayed (the adapters map Bitcoin Core's "already in
 * mempool / in chain" answers to success).
 */
export async function relayOnce(bitcoin: BitcoinBackend, txs: Array<{ txid: string; hex: string }>): Promise<RelayOutcome> {
  try {
    if (txs.length === 1) {
      await bitcoin.broadcast(txs[0]!.hex);
      return { status: 'relayed' };
    }
    const r = await bitcoin.submitPackage(txs.map((t) => t.hex));
    const refused = r.members.filter((m) => !m.accepted);
    if (refused.length === 0) return { status: 'relayed' };
    return {
      status: 'partial',
      landed: r.members.filter((m) => m.accepted).map((m) => m.txid),
      refused: refused.map((m) => {
        const reason = m.error ?? r.message;
        return { txid: m.txid, reason, conflict: classifyRejection(reason).kind === 'conflict' };
      }),
    };
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
