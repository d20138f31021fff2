/**
 * `POST /v1/policy-offers`: the bidder's signed parent inputs and one pre-signature per
 * alternative, each verified against the preflight's templates before anything is written. The
 * set opens and its alternatives go live in one transaction. An identical repeat answers the
 * same record; other bytes for a placed set are 409 state_changed.
 */
import crypto from 'node:crypto';
import { hex } from '@scure/base';
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { ApiError, invalid, notFound } from '../../http/errors.js';
import { decodeAddress } from '../../bitcoin/address.js';
import { parsePsbt } from '../../bitcoin/psbt.js';
import { checkPresignature, policyEscrow, presignDigest, PRESIGN_SIGHASH } from '../../counterparty/policy-offer.js';
import { buyerSigned } from '../../trade/signed.js';
import { levelKey } from '../offers/index.js';
import { lapseFundingSet, placeFundingSet, type FundingSetRow, type PolicyOfferRow } from './lifecycle.js';
import { newPolicyId } from './rules.js';
import { refused } from './refusals.js';
import type { SignerGate } from './signer-gate.js';
import type { StoredAlternative } from './preflight.js';
import { fundingOutpoints } from './view.js';

export interface PlaceBody {
  funding_set_id: string;
  parent_psbt_hex: string;
  presignatures: Array<{ index: number; signature_hex?: string; psbt_hex?: string }>;
}

const sha = (b: PlaceBody) =>
  crypto
    .createHash('sha256')
    .update(JSON.stringify([b.funding_set_id, b.parent_psbt_hex, [...b.presignatures].sort((x, y) => x.index - y.index).map((p) => [p.index, p.signature_hex ?? null, p.psbt_hex ?? null])]))
    .digest('hex');

export async function ownSet(ctx: Context, bidder: string, id: string): Promise<FundingSetRow> {
  const set = await ctx.store.db.selectFrom('policy_funding_sets').selectAll().where('id', '=', id).executeTakeFirst();
  if (!set || set.bidder !== bidder) throw notFound('collection-offer funding set');
  return set;
}

/** The pre-signature of one alternative: given as hex, or read from the signed template's input 0 (tapScriptSig). */
function presignatureOf(p: PlaceBody['presignatures'][number], i: number): Uint8Array {
  const field = `body.presignatures[${i}]`;
  if (p.signature_hex) {
    try {
      return hex.decode(p.signature_hex.toLowerCase());
    } catch {
      throw invalid(`${field}.signature_hex is not hex`, { field });
    }
  }
  if (!p.psbt_hex) throw invalid(`${field} needs signature_hex or psbt_hex`, { field });
  const parsed = parsePsbt(p.psbt_hex);
  if (!parsed.ok) throw new ApiError('invalid_transaction', `${field}.psbt_hex: ${parsed.error}`, { field: `${field}.psbt_hex` });
  const sigs = parsed.tx.getInput(0).tapScriptSig ?? [];
  if (sigs.length !== 1) throw refused('presignature_missing', `${field}.psbt_hex: input 0 must carry exactly one tapscript signature (the bidder's), found ${sigs.length}`, { alternative_index: p.index });
  return sigs[0]![1];
}

export async function place(ctx: Context, gate: SignerGate, bidder: string, body: PlaceBody) {
  const db = ctx.store.db;
  const key = await gate.require();
  const set = await ownSet(ctx, bidder, body.funding_set_id);
  const requestSha = sha(body);
  if (set.state !== 'awaiting_signatures') {
    if (set.request_sha256 === requestSha) return { set, repeated: true };
    if (set.state === 'lapsed') throw new ApiError('expired', 'the collection-offer preflight expired; its anchor went back to the pool: preflight again', { funding_set_id: set.id });
    throw new ApiError('state_changed', `the funding set is ${set.state}; it was placed with other signatures or has ended`, { funding_set_id: set.id, state: set.state });
  }
  const now = nowSeconds(ctx.clock);
  if (Number(set.preflight_expires_at) <= now) {
    await db.transaction().execute((tx) => lapseFundingSet(tx, set, now));
    throw new ApiError('expired', 'the collection-offer preflight expired; its anchor went back to the pool: preflight again', { funding_set_id: set.id });
  }
  if (key.version !== Number(set.market_key_version)) {
    throw refused('key_retired', `the market key of version ${set.market_key_version} named by this escrow was retired; preflight again for version ${key.version}`, { funding_set_id: set.id }, 409);
  }
  const network = ctx.config.NETWORK;
  const funding = fundingOutpoints(set);
  const merged = buyerSigned(body.parent_psbt_hex, set.parent_psbt, funding.map((_, i) => i), bidder, network);

  const alternatives = JSON.parse(set.alternatives_json) as StoredAlternative[];
  const byIndex = new Map<number, PlaceBody['presignatures'][number]>();
  body.presignatures.forEach((p, i) => {
    if (!Number.isInteger(p.index) || p.index < 0 || p.index >= alternatives.length) throw invalid(`body.presignatures[${i}].index must name an alternative (0 to ${alternatives.length - 1})`, { field: `body.presignatures[${i}].index` });
    if (byIndex.has(p.index)) throw invalid(`body.presignatures[${i}] repeats alternative ${p.index}`, { field: `body.presignatures[${i}]` });
    byIndex.set(p.index, p);
  });
  const bidderKey = hex.decode(set.bidder_key);
  const escrow = policyEscrow(bidderKey, hex.decode(set.market_key), network, Number(set.refund_csv_blocks));
  const dd = decodeAddress(set.delivery_address, network);
  if (!dd.ok) throw new Error('stored delivery address does not decode');
  const offers: PolicyOfferRow[] = alternatives.map((a, index) => {
    const p = byIndex.get(index);
    if (!p) throw refused('presignature_missing', `no pre-signature for alternative ${index}: every alternative of the preflight must be pre-signed`, { alternative_index: index });
    const sig = presignatureOf(p, body.presignatures.indexOf(p));
    const why = checkPresignature(sig, presignDigest(escrow, set.parent_txid, Number(set.escrow_value_sats), dd.script, a.price_sats), bidderKey);
    if (why) throw refused(sig.length === 65 && sig[64] !== PRESIGN_SIGHASH ? 'presignature_sighash' : 'presignature_invalid', `alternative ${index}: ${why}`, { alternative_index: index });
    return {
      id: newPolicyId('po'),
      funding_set_id: set.id,
      alt_index: index,
      bidder,
      ...a.target,
      level_key: levelKey(a.target),
      price_sats: a.price_sats,
      presignature: hex.encode(sig),
      cancel_json: null,
      state: 'active',
      end_reason: null,
      filled_txid: null,
      ended_at: null,
      created_at: now,
      expires_at: Number(set.expires_at),
      updated_at: now,
    };
  });
  const placed = await db.transaction().execute((tx) => placeFundingSet(tx, set, hex.encode(merged.toPSBT()), requestSha, offers, now));
  if (!placed) throw new ApiError('state_changed', 'the funding set changed meanwhile (placed by another request, or lapsed)', { funding_set_id: set.id });
  return { set: (await ownSet(ctx, bidder, set.id))!, repeated: false };
}
