/**
 * Which alternative of a funding set a unit can fill: the unit must be an attached, confirmed
 * UTXO of the seller (at its address, or on its co-signed listing output) holding exactly one
 * whole unit of one asset, and the asset must match an
 * active alternative's policy (the one predicate of market/policy-predicate.ts, over every
 * catalogue membership of the asset). The best-priced match wins.
 */
import { hex } from '@scure/base';
import type { Context } from '../../context.js';
import { assetMatches, isOneUnit, policyTargetOf, type AssetTraits, type PolicyTarget } from '../market/index.js';
import { outpointKey } from '../../trade/outpoints.js';
import { refused } from './refusals.js';
import type { PolicyOfferRow } from './lifecycle.js';
import { cosignedUnitAt, unitHolder, type CosignedUnit } from '../listings/index.js';
import type { ChainUtxo } from '../../chain/ports.js';

export interface EligibleUnit {
  asset: string;
  quantity_raw: string;
  outpoint: string;
  value_sats: number;
  script: Uint8Array;
  /** The unit sits on the seller's co-signed listing output (spent by its leaf, co-signed by the market signer). */
  cosigned: CosignedUnit | null;
}

export async function assetTraits(ctx: Pick<Context, 'store'>, asset: string): Promise<AssetTraits[]> {
  return ctx.store.db.selectFrom('catalog_assets').select(['asset', 'collection_slug', 'max_supply_units', 'issued_year', 'series', 'artist']).where('asset', '=', asset).execute();
}

export const asTarget = (o: PolicyOfferRow): PolicyTarget => policyTargetOf(o);

/**
 * A unit must be confirmed, when the accept is quoted and again when it is signed (a reorg in
 * between puts its transaction back in the mempool): Counterparty credits an attach only once it
 * is mined, and the node refuses a version-3 child of an unconfirmed parent outside its package.
 */
export function requireConfirmedUnit(out: ChainUtxo, key: string): void {
  if (out.confirmations < 1) throw refused('unit_unconfirmed', `${key} is not confirmed (yet, or any more after a reorg); wait for its confirmation`, { outpoint: key }, 409);
}

/** The unit at `txid:vout`, checked as the seller's attached, confirmed, one-unit asset UTXO. */
export async function sellerUnit(ctx: Context, seller: string, txid: string, vout: number): Promise<EligibleUnit> {
  const key = outpointKey(txid, vout);
  const [out, balances] = await Promise.all([ctx.chain.bitcoin.getTxOut(txid, vout, true), ctx.chain.counterparty.getUtxoBalances(key)]);
  if (!out) throw refused('unit_unattached', `${key} is not an unspent output`, { outpoint: key }, 409);
  requireConfirmedUnit(out, key);
  const held = balances.filter((b) => BigInt(b.quantity_raw) > 0n);
  if (!held.length) throw refused('unit_unattached', `${key} carries no Counterparty balance`, { outpoint: key });
  const script = hex.decode(out.script_hex);
  // A co-signed listing output is its seller's: the internal key is the seller's own key.
  if ((await unitHolder(ctx.store.db, key, script, ctx.config.NETWORK)) !== seller) throw refused('unit_not_owned', `${key} is not an output of your session address`, { outpoint: key });
  const info = held.length === 1 ? await ctx.chain.counterparty.getAsset(held[0]!.asset) : null;
  if (held.length !== 1 || !info || !isOneUnit(held[0]!.quantity_raw, info.divisible)) {
    throw refused('unit_not_one_unit', `${key} must hold exactly one whole unit of one asset`, { outpoint: key });
  }
  const cosigned = await cosignedUnitAt(ctx.store.db, key, ctx.config.NETWORK);
  return { asset: held[0]!.asset, quantity_raw: held[0]!.quantity_raw, outpoint: key, value_sats: out.value_sats, script, cosigned };
}

/** The best active alternative of the set the asset matches, or a refusal. */
export async function bestAlternative(ctx: Context, setId: string, asset: string, now: number): Promise<PolicyOfferRow> {
  const [alts, traits] = await Promise.all([
    ctx.store.db.selectFrom('policy_offers').selectAll().where('funding_set_id', '=', setId).where('state', '=', 'active').where('expires_at', '>', now).orderBy('price_sats', 'desc').orderBy('alt_index').execute(),
    assetTraits(ctx, asset),
  ]);
  const match = alts.find((o) => (o.scope === 'asset' && o.asset === asset && (o.collection === null || traits.some((t) => t.collection_slug === o.collection))) || assetMatches(asTarget(o), traits));
  if (!match) throw refused('unit_outside_policy', `${asset} matches no live alternative of this collection offer`, { asset });
  return match;
}
