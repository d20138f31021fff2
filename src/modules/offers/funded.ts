/**
 * `POST /v1/funded-offers`: the bidder's signed, finalized funding transaction is the only
 * authority for the bid values. Order: parse and check the bytes, rehearse the whole placement
 * (a bad target fails before the network sees anything), relay (a transaction the network
 * already knows counts as relayed), then place. A relay failure places nothing; the same bytes
 * may be submitted again, and an identical repeat answers the placement already made.
 */
import { hex } from '@scure/base';
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { conflictError } from '../../settlement/outcome-error.js';
import { toTransaction } from '../../bitcoin/transaction.js';
import { relayOnce } from '../../settlement/relay.js';
import { earlierPlacement, place, planPlacement, refuseOpenSlots, type PlacementBody } from './placement.js';
import { bidField, requireOwnOutput } from './slots.js';
import type { PlacementResult } from './view.js';

export interface FundedBody extends PlacementBody {
  funding_tx_hex: string;
}

function parseFunding(txHex: string) {
  let tx;
  try {
    tx = toTransaction(hex.decode(txHex.toLowerCase()));
  } catch (e) {
    throw new ApiError('invalid_transaction', `funding_tx_hex is not a transaction: ${e instanceof Error ? e.message : String(e)}`, { field: 'body.funding_tx_hex' });
  }
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    if (!input.finalScriptWitness?.length && !input.finalScriptSig?.length) {
      throw new ApiError('invalid_transaction', `funding_tx_hex input ${i} is not signed: send the finalized transaction`, { field: 'body.funding_tx_hex' });
    }
  }
  return tx;
}

export async function placeFunded(ctx: Context, bidder: string, body: FundedBody): Promise<PlacementResult> {
  const tx = parseFunding(body.funding_tx_hex);
  const txid = tx.id;
  const slots = body.bids.map((b, i) => {
    if (b.txid !== undefined && b.txid !== txid) {
      throw new ApiError('invalid_request', `bids[${i}].txid is not the funding transaction's own txid (${txid})`, { field: `${bidField(i)}.txid` });
    }
    const out = b.vout < tx.outputsLength ? tx.getOutput(b.vout) : undefined;
    if (!out?.script || out.amount === undefined) throw new ApiError('invalid_request', `bids[${i}]: the funding transaction has no output ${b.vout}`, { field: `${bidField(i)}.vout` });
    requireOwnOutput(ctx, bidder, hex.encode(out.script), i, `${txid}:${b.vout}`);
    return { txid, vout: b.vout, value_sats: Number(out.amount) };
  });
  const plan = await planPlacement(ctx, bidder, body, slots, txid);
  const earlier = await earlierPlacement(ctx, plan);
  if (earlier) return earlier;

  // A funding input that carries a Counterparty balance would move it into output 0 (a bid slot, or change).
  const inputs = Array.from({ length: tx.inputsLength }, (_, i) => tx.getInput(i)).map((inp) => `${hex.encode(inp.txid!)}:${inp.index!}`);
  const withBalances = await ctx.chain.counterparty.getUtxosWithBalances(inputs);
  const moving = inputs.find((k) => withBalances.has(k));
  if (moving) throw new ApiError('invalid_request', `funding input ${moving} carries a Counterparty balance; the funding transaction would move it`, { field: 'body.funding_tx_hex', outpoint: moving });
  await refuseOpenSlots(ctx, slots);
  plan.fundingInputs = inputs.map((outpoint) => ({ funding_txid: txid, outpoint }));
  const outcome = await relayOnce(ctx.chain.bitcoin, [{ txid, hex: body.funding_tx_hex.toLowerCase() }]);
  if (outcome.status === 'conflicted') {
    throw conflictError(outcome.reason, { lost: 'the funding transaction lost to a conflicting or replacing spend; nothing was placed', spent: 'an input of the funding transaction was already spent by another transaction; nothing was placed' }, {});
  }
  if (outcome.status === 'rejected') {
    throw outcome.policy
      ? new ApiError('mempool_rejected', `the node refused the funding transaction: ${outcome.reason}; nothing was placed`, { mempool_policy: outcome.policy, mempool_reason: outcome.reason })
      : new ApiError('invalid_transaction', `the node refused the funding transaction: ${outcome.reason}; nothing was placed`, { mempool_reason: outcome.reason });
  }
  if (outcome.status === 'unknown') {
    throw new ApiError('broadcast_unknown', 'the funding transaction may not have reached the network; nothing was placed: submit the same bytes again', { retryable: true });
  }
  return place(ctx, plan);
}
