/**
 * Outpoints as the market names them (`txid:vout`), the key of every claim. The claims themselves
 * are the journal's (`outpoint_claims`, src/settlement/journal.ts: one settlement per outpoint,
 * first valid signature wins); the kernel reads them through `ctx.journal.claimed` (coins.ts).
 */
export const outpointKey = (txid: string, vout: number) => `${txid}:${vout}`;

export function splitOutpoint(op: string): { txid: string; vout: number } {
  const [txid, vout] = op.split(':');
  return { txid: txid!, vout: Number(vout) };
}
