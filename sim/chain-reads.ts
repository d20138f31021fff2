/**
 * A bot asking the market what the node did with its transactions (`POST /v1/transactions/status`)
 * and holding the answer to the node itself: the market's read must be the node's. The node is
 * read before and after the market's answer; a txid whose two node reads agree must be answered
 * as they read (a block or a reorg between them leaves that txid unjudged).
 */
import type { Action, SimState } from './action-kit.js';
import { skip } from './action-kit.js';

type NodeRead = { state: 'known' | 'unknown'; confirmations: number };

/**
 * The node's own view of a txid, as Core defines it: in the mempool (0 confirmations) or in the
 * active chain (1 or more); anything else (never seen, dropped, or only in a block a reorg took
 * away, which txindex still answers with its hash and 0 confirmations) is unknown.
 */
async function nodeRead(s: SimState, txid: string): Promise<NodeRead> {
  const tx = (await s.world.rpc('getrawtransaction', [txid, true]).catch(() => null)) as { blockhash?: string; confirmations?: number } | null;
  if (!tx) return { state: 'unknown', confirmations: 0 };
  if (tx.blockhash === undefined) return { state: 'known', confirmations: 0 };
  return (tx.confirmations ?? 0) >= 1 ? { state: 'known', confirmations: tx.confirmations! } : { state: 'unknown', confirmations: 0 };
}

const same = (a: NodeRead, b: NodeRead) => a.state === b.state && a.confirmations === b.confirmations;

export const CHAIN_READ_ACTIONS: Record<string, { weight: number; run: Action }> = {
  tx_status: {
    weight: 2,
    run: async (s, t, rng) => {
      // The market's settlements in every state (relayed, confirmed, released, conflicted by a
      // sniper), and one txid nobody ever made.
      const rows = await s.world.withDb((q) => q(`select txid from settlements order by random() limit 8`));
      const txids = [...new Set(rows.map((r) => r.txid as string).filter(Boolean))];
      if (!txids.length) return skip('no_settlement');
      txids.push(Array.from({ length: 64 }, () => '0123456789abcdef'[rng.int(0, 15)]).join(''));
      const before = await Promise.all(txids.map((txid) => nodeRead(s, txid)));
      const answer = (await t.client.http.call('POST /v1/transactions/status', { body: { txids } })).result;
      const after = await Promise.all(txids.map((txid) => nodeRead(s, txid)));
      if (answer.length !== txids.length) throw new Error(`transactions/status answered ${answer.length} items for ${txids.length} txids`);
      for (const [k, txid] of txids.entries()) {
        const a = answer[k]!;
        if (a.txid !== txid) throw new Error(`transactions/status item ${k} is ${a.txid}, asked ${txid}`);
        const n = before[k]!;
        if (!same(n, after[k]!)) continue;
        const got = { state: a.state, confirmations: a.state === 'known' && a.confirmed ? (a.confirmations ?? -1) : 0 };
        if (got.state !== n.state || got.confirmations !== n.confirmations || a.final !== n.confirmations >= 3) {
          throw new Error(`transactions/status said ${txid} is ${JSON.stringify(a)}; the node says ${n.state} with ${n.confirmations} confirmations`);
        }
      }
      return `status_read:${txids.length}`;
    },
  },
};
