/**
 * Offer targets as a placement gives them: normalized with the one policy predicate
 * (market/policy-predicate.ts, the same rules as /offer-targets and, later, the
 * authorizations), then checked against the catalogue and the chain. A target the
 * market cannot reach is 422 target_unavailable with its index; bidding on one's own
 * unit or listing is 409 self_trade.
 */
import type { Context } from '../../context.js';
import { ApiError, invalid } from '../../http/errors.js';
import { unitHolder } from '../listings/index.js';
import { hex } from '@scure/base';
import { normalizeTarget, oneUnitRaw, type PolicyTarget, type TargetInput } from '../market/index.js';
import { outpointKey } from '../../trade/outpoints.js';
import { LIVE } from '../listings/index.js';

/** A target as the request gives it: the policy's fields, and an exact unit. */
export type TargetBody = TargetInput & { target_outpoint?: { txid: string; vout: number } | null };

export interface ResolvedTarget extends PolicyTarget {
  target_outpoint: { txid: string; vout: number } | null;
}

const unavailable = (index: number, error: string, extras: Record<string, unknown> = {}) =>
  new ApiError('target_unavailable', `targets[${index}]: ${error}`, { target_index: index, ...extras });

/** Normalizes and checks every target; throws the first refusal. */
export async function resolveTargets(ctx: Context, bidder: string, targets: readonly TargetBody[]): Promise<ResolvedTarget[]> {
  const out: ResolvedTarget[] = [];
  const seen = new Set<string>();
  for (const [i, t] of targets.entries()) {
    const n = normalizeTarget(t);
    if (!n.ok) throw invalid(`targets[${i}].${n.field}: ${n.error}`, { field: `body.targets[${i}].${n.field}` });
    const outpoint = t.target_outpoint ?? null;
    if (outpoint && n.target.scope !== 'asset') {
      throw invalid(`targets[${i}].target_outpoint needs asset scope (an exact unit is one asset's)`, { field: `body.targets[${i}].target_outpoint` });
    }
    const key = JSON.stringify([n.target, outpoint]);
    if (seen.has(key)) throw invalid(`targets[${i}] repeats an earlier target`, { field: `body.targets[${i}]` });
    seen.add(key);
    out.push({ ...n.target, target_outpoint: outpoint });
  }
  await checkReachable(ctx, bidder, out);
  return out;
}

async function checkReachable(ctx: Context, bidder: string, targets: ResolvedTarget[]): Promise<void> {
  const db = ctx.store.db;
  const slugs = [...new Set(targets.map((t) => t.collection).filter((c): c is string => c !== null))];
  const known = new Set(slugs.length ? (await db.selectFrom('collections').select('slug').where('slug', 'in', slugs).execute()).map((r) => r.slug) : []);
  const assetInfo = new Map<string, Awaited<ReturnType<Context['chain']['counterparty']['getAsset']>>>();
  for (const a of new Set(targets.map((t) => t.asset).filter((x): x is string => x !== null))) assetInfo.set(a, await ctx.chain.counterparty.getAsset(a));

  for (const [i, t] of targets.entries()) {
    if (t.collection !== null && !known.has(t.collection)) throw unavailable(i, `no collection ${t.collection}`, { collection: t.collection });
    if (t.asset === null) continue;
    const info = assetInfo.get(t.asset);
    if (!info) throw unavailable(i, `no Counterparty asset ${t.asset}`, { asset: t.asset });
    if (t.collection !== null) {
      const member = await db.selectFrom('catalog_assets').select('asset').where('collection_slug', '=', t.collection).where('asset', '=', t.asset).executeTakeFirst();
      if (!member) throw unavailable(i, `${t.asset} is not in collection ${t.collection}`, { asset: t.asset, collection: t.collection });
    }
    if (t.target_outpoint) await checkExactUnit(ctx, bidder, i, t.asset, info.divisible, t.target_outpoint);
  }
}

/** An exact target: an unspent asset UTXO holding exactly one whole unit of the asset, not the bidder's own. */
async function checkExactUnit(ctx: Context, bidder: string, i: number, asset: string, divisible: boolean, op: { txid: string; vout: number }): Promise<void> {
  const key = outpointKey(op.txid, op.vout);
  const [out, balances, listing] = await Promise.all([
    ctx.chain.bitcoin.getTxOut(op.txid, op.vout, true),
    ctx.chain.counterparty.getUtxoBalances(key),
    ctx.store.db.selectFrom('listings').select(['id', 'seller']).where('utxo_outpoint', '=', key).where('state', 'in', LIVE).executeTakeFirst(),
  ]);
  if (!out) throw unavailable(i, `target_outpoint ${key} is not an unspent output`, { outpoint: key });
  const held = balances.filter((b) => BigInt(b.quantity_raw) > 0n);
  if (held.length !== 1 || held[0]!.asset !== asset || held[0]!.quantity_raw !== oneUnitRaw(divisible)) {
    throw unavailable(i, `target_outpoint ${key} does not hold exactly one unit of ${asset}`, { outpoint: key });
  }
  const owner = await unitHolder(ctx.store.db, key, hex.decode(out.script_hex), ctx.config.NETWORK);
  if (owner === bidder || listing?.seller === bidder) {
    throw new ApiError('self_trade', `targets[${i}]: ${key} is your own unit${listing ? ` (listing ${listing.id})` : ''}; an address cannot offer on its own asset outpoint or listing`, {
      target_index: i,
      outpoint: key,
      ...(listing ? { listing_id: listing.id } : {}),
    });
  }
}
