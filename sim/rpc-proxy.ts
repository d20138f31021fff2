/**
 * A JSON-RPC proxy in front of the node (the devnet's RPC): the faults a node's relay can show,
 * for the crash tests and the simulator. Nothing here changes what the node decides; it only
 * delays, drops or refuses the market's broadcasts on their way.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, any>;

const BROADCASTS = new Set(['sendrawtransaction', 'submitpackage']);

/**
 * A JSON-RPC proxy that forwards to the devnet. While `hold` is set it leaves broadcasts
 * unanswered (`release` forwards them then); while `refuse` is set it answers them with that
 * policy refusal (-26), as a node does; while `down` is set it drops their connections unanswered, as
 * an unreachable node does (the market keeps the bytes journaled); `broadcasts` counts every broadcast call it saw. While
 * `feeRate` is set (sat/vB), `estimatesmartfee` answers that rate, as a node whose mempool
 * filled up does.
 */
export async function rpcProxy(target: string) {
  const held: Array<{ res: http.ServerResponse; forward: () => Promise<void> }> = [];
  const state: { hold: boolean; heldCalls: number; refuse: string | null; down: boolean; broadcasts: number; feeRate: number | null } = {
    hold: false, heldCalls: 0, refuse: null, down: false, broadcasts: 0, feeRate: null,
  };
  /** The node's replies, with every estimatesmartfee among `calls` answering `rate`. */
  const withFeeRate = (text: string, calls: Json[], rate: number): string => {
    const ids = new Set(calls.filter((c) => c.method === 'estimatesmartfee').map((c) => JSON.stringify(c.id)));
    if (!ids.size) return text;
    const replies = JSON.parse(text) as Json | Json[];
    for (const r of ([] as Json[]).concat(replies)) if (ids.has(JSON.stringify(r.id))) r.result = { feerate: (rate * 1000) / 1e8, blocks: 2 };
    return JSON.stringify(replies);
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const calls = ([] as Json[]).concat(JSON.parse(body || '{}') as Json);
      const broadcast = calls.find((c) => BROADCASTS.has(c.method as string));
      if (broadcast) state.broadcasts++;
      const forward = () =>
        fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' }, body })
          .then(async (r) => {
            res.writeHead(r.status, { 'content-type': 'application/json' });
            const text = await r.text();
            res.end(state.feeRate === null ? text : withFeeRate(text, calls, state.feeRate));
          })
          .catch(() => void res.destroy());
      if (broadcast && state.down) {
        res.destroy();
        return;
      }
      if (broadcast && state.hold) {
        state.heldCalls++;
        held.push({ res, forward });
        return;
      }
      if (broadcast && state.refuse && !Array.isArray(JSON.parse(body))) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ result: null, error: { code: -26, message: state.refuse }, id: broadcast.id }));
        return;
      }
      void forward();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    state,
    /** Stops holding and forwards every held broadcast to the node. */
    release: () => {
      state.hold = false;
      for (const h of held.splice(0)) void h.forward();
    },
    close: async () => {
      for (const h of held) h.res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

