/**
 * The collection-offer preflight (an expensive write): checks the bidder's alternatives and
 * funding, reserves one anchor, and builds the version-3 parent into the escrow and, for each
 * alternative, the child template the bidder pre-signs over its delivery output
 * (src/counterparty/policy-offer.ts). The set waits `awaiting_signatures` until placement
 * (place.ts) or until it lapses and frees its anchor.
 *
 * Funding: the bidder's own confirmed, asset-free SegWit coins (at most 8), named or picked
 * largest first; a coin that backs another live funding set or that a settlement claims is never
 * used twice. The parent pays no fee (the seller's child pays for the package); change at or
 * below dust is left to the package.
 */
import { hex } from '@scure/base';
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { ApiError, insufficientFunds, invalid } from '../../http/errors.js';
import { requireAddressRole } from '../../http/address-rules.js';
import { decodeAddress, type AddressFamily } from '../../bitcoin/address.js';
import { DUST_LIMITS } from '../../bitcoin/dust.js';
import { estimateSize, type InputSpend } from '../../bitcoin/vsize.js';
import {
  buildPolicyParent,
  DELIVERY_SATS,
  escrowJson,
  policyEscrow,
  POLICY_PROTOCOL_VERSION,
  presignDigest,
  presignTemplate,
  PRESIGN_SIGHASH,
} from '../../counterparty/policy-offer.js';
import { namedCoins, offersEndedBy, spendableCoins } from '../../trade/coins.js';
import { policyTargetOf, type PolicyTarget } from '../market/index.js';
import { platformFee } from '../listings/index.js';
import { defaultFeeRate } from '../../trade/fee-rates.js';
import { checkOfferExpiry, checkOfferPrice } from '../offers/index.js';
import { resolveTargets, type TargetBody } from '../offers/index.js';
import { reserveAnchor } from './anchors.js';
import { makeRoomForHold, underHoldLocks } from './holds.js';
import { createFundingSet, type FundingSetRow } from './lifecycle.js';
import { LIVE_SET_STATES, MAX_ALTERNATIVES, MAX_FUNDING_INPUTS, MAX_OPEN_FUNDING_SETS, newPolicyId, PREFLIGHT_TTL_S } from './rules.js';
import type { MarketWallet } from './market-wallet.js';
import type { SignerGate } from './signer-gate.js';
import { estimateChildVsize } from './estimate.js';
import { outpointKey } from '../../trade/outpoints.js';

export interface PreflightBody {
  targets: Array<TargetBody & { price_sats: number }>;
  bidder_pubkey: string;
  funding?: Array<{ txid: string; vout: number }>;
  delivery_address?: string;
  expires_at: number;
  fee_rate?: number;
}

export interface StoredAlternative {
  target: PolicyTarget;
  price_sats: number;
}

const SEGWIT_DELIVERY: readonly AddressFamily[] = ['p2wpkh', 'p2wsh', 'p2tr'];


/** The bidder's key for the escrow's leaves: x-only (64 hex) or compressed (66 hex, parity dropped). */
export function bidderKey(keyHex: string): Uint8Array {
  const field = 'body.bidder_pubkey';
  let k: Uint8Array;
  try {
    k = hex.decode(keyHex.toLowerCase());
  } catch {
    throw invalid(`${field} is not hex`, { field });
  }
  if (k.length === 33 && (k[0] === 2 || k[0] === 3)) return k.subarray(1);
  if (k.length === 32) return k;
  throw invalid(`${field} must be an x-only (32-byte) or compressed (33-byte) public key`, { field });
}

/** `ip`: the requester's IP bucket (limits/ip-key.ts), whose anchor holds are bounded (holds.ts). */
export async function preflight(ctx: Context, gate: SignerGate, wallet: MarketWallet, bidder: string, body: PreflightBody, ip: string) {
  const marketKey = await gate.require();
  const network = ctx.config.NETWORK;
  const signer = requireAddressRole(bidder, 'signing', network, 'session address');
  const bd = decodeAddress(signer, network);
  if (!bd.ok) throw new Error('checked above');
  const delivery = requireAddressRole(body.delivery_address ?? bidder, 'delivery', network, 'body.delivery_address');
  const dd = decodeAddress(delivery, network);
  if (!dd.ok || !SEGWIT_DELIVERY.includes(dd.family)) {
    throw new ApiError('unsupported_address_type', 'body.delivery_address: the unit arrives on a 330-sat output, below the dust limit of legacy scripts; use a SegWit (P2WPKH, P2WSH) or taproot address', { field: 'body.delivery_address' });
  }
  const key = bidderKey(body.bidder_pubkey);
  const now = nowSeconds(ctx.clock);
  if (!body.targets.length || body.targets.length > MAX_ALTERNATIVES) throw invalid(`body.targets must hold 1 to ${MAX_ALTERNATIVES} alternatives`, { field: 'body.targets' });
  body.targets.forEach((t, i) => checkOfferPrice(t.price_sats, `body.targets[${i}].price_sats`));
  checkOfferExpiry(body.expires_at, now);
  const resolved = await resolveTargets(ctx, bidder, body.targets.map(({ price_sats: _p, target_outpoint: _o, ...t }) => t));
  const alternatives: StoredAlternative[] = resolved.map((t, i) => ({ target: policyTargetOf(t), price_sats: body.targets[i]!.price_sats }));
  const maxPrice = Math.max(...alternatives.map((a) => a.price_sats));
  const escrowValue = maxPrice + DELIVERY_SATS;

  const db = ctx.store.db;
  const live = await db.selectFrom('policy_funding_sets').select((eb) => eb.fn.countAll<number>().as('n')).where('bidder', '=', bidder).where('state', 'in', [...LIVE_SET_STATES]).executeTakeFirst();
  if (Number(live?.n ?? 0) >= MAX_OPEN_FUNDING_SETS) {
    throw new ApiError('open_offer_limit', `an address may hold at most ${MAX_OPEN_FUNDING_SETS} open collection-offer funding sets; cancel one or let it expire`, { limit: MAX_OPEN_FUNDING_SETS });
  }

  // Funding: coins backing another live set are out (a coin funds one escrow at a time).
  const inUse = new Set(
    (await db.selectFrom('policy_funding_inputs as i').innerJoin('policy_funding_sets as s', 's.id', 'i.funding_set_id').select('i.outpoint').where('s.bidder', '=', bidder).where('s.state', 'in', [...LIVE_SET_STATES]).execute()).map((r) => r.outpoint),
  );
  const spend: InputSpend = bd.family === 'p2tr' ? 'p2tr-key' : 'p2wpkh';
  const anchorOut = wallet.script;
  let coins;
  if (body.funding) {
    if (!body.funding.length || body.funding.length > MAX_FUNDING_INPUTS) throw invalid(`body.funding must name 1 to ${MAX_FUNDING_INPUTS} coins`, { field: 'body.funding' });
    coins = await namedCoins(ctx, bidder, body.funding);
    coins.forEach((c, i) => {
      if (inUse.has(outpointKey(c.txid, c.vout))) throw new ApiError('state_changed', `body.funding[${i}] already backs another open collection offer of yours`, { field: `body.funding[${i}]` });
    });
  } else {
    coins = [];
    let total = 0;
    for (const c of (await spendableCoins(ctx, bidder)).filter((c) => !inUse.has(outpointKey(c.txid, c.vout)))) {
      if (total >= escrowValue || coins.length === MAX_FUNDING_INPUTS) break;
      coins.push(c);
      total += c.value_sats;
    }
  }
  const total = coins.reduce((s, c) => s + c.value_sats, 0);
  if (total < escrowValue) {
    throw insufficientFunds(`the escrow needs ${escrowValue} sats (the highest alternative's price + ${DELIVERY_SATS}); ${body.funding ? 'the named coins hold' : `at most ${MAX_FUNDING_INPUTS} confirmed asset-free coins hold`} ${total}`, escrowValue, total);
  }
  const change = total - escrowValue >= DUST_LIMITS[bd.family] ? total - escrowValue : 0;
  const escrow = policyEscrow(key, hex.decode(marketKey.pubkey), network);
  const setId = newPolicyId('pf');
  const preflightExpires = now + PREFLIGHT_TTL_S;
  const feeRate = await defaultFeeRate(ctx, body.fee_rate);

  const built = await underHoldLocks(ctx, bidder, ip, () => db.transaction().execute(async (tx) => {
    await makeRoomForHold(ctx, tx, bidder, ip, now);
    const anchor = await reserveAnchor(tx, setId, preflightExpires, now);
    if (!anchor) return null;
    const parent = buildPolicyParent({
      funding: coins.map((c) => ({ txid: c.txid, vout: c.vout, amount: BigInt(c.value_sats), script: bd.script })),
      anchor: { txid: anchor.txid, vout: anchor.vout, amount: BigInt(anchor.value_sats), script: anchorOut },
      escrowScript: escrow.script,
      escrowValue,
      anchorReturnScript: anchorOut,
      changeScript: bd.script,
      change,
    });
    const outs: Uint8Array[] = [escrow.script, anchorOut, ...(change ? [bd.script] : [])];
    const parentVsize = estimateSize([...coins.map(() => spend), 'p2tr-key'], outs).vsize;
    const row: FundingSetRow = {
      id: setId,
      bidder,
      bidder_key: hex.encode(key),
      delivery_address: delivery,
      parent_txid: parent.id,
      parent_psbt: hex.encode(parent.toPSBT()),
      parent_signed_psbt: null,
      parent_vsize: parentVsize,
      funding_json: JSON.stringify(coins.map((c) => ({ txid: c.txid, vout: c.vout, value_sats: c.value_sats }))),
      anchor_outpoint: anchor.outpoint,
      anchor_value_sats: anchor.value_sats,
      escrow_value_sats: escrowValue,
      max_price_sats: maxPrice,
      escrow_script: hex.encode(escrow.script),
      market_key: marketKey.pubkey,
      market_key_version: marketKey.version,
      refund_csv_blocks: escrow.csv,
      alternatives_json: JSON.stringify(alternatives),
      state: 'awaiting_signatures',
      request_sha256: null,
      cancel_json: null,
      end_reason: null,
      spent_txid: null,
      spent_height: null,
      settlement_id: null,
      accept_id: null,
      preflight_expires_at: preflightExpires,
      preflight_ip: ip,
      expires_at: body.expires_at,
      created_at: now,
      updated_at: now,
    };
    await createFundingSet(tx, row, coins.map((c) => outpointKey(c.txid, c.vout)));
    return { row, parent, anchor };
  }));
  if (!built) {
    throw new ApiError('offer_capacity_full', 'no collection-offer anchor is free right now; the pool refills itself, retry shortly', { retry_after_seconds: 60 }, { headers: { 'retry-after': '60' } });
  }
  const { row, parent, anchor } = built;
  const deliveryScript = dd.script;
  const childVsize = estimateChildVsize(bd.script);
  return {
    protocol_version: POLICY_PROTOCOL_VERSION,
    funding_set_id: row.id,
    status: row.state,
    bidder,
    delivery_address: delivery,
    parent: {
      psbt_hex: row.parent_psbt,
      expected_txid: row.parent_txid,
      version: 3 as const,
      vsize: row.parent_vsize,
      fee_sats: total - escrowValue - change,
      signing: { signer_address: bidder, inputs_to_sign: coins.map((_, i) => i), sighash: bd.family === 'p2tr' ? ('DEFAULT' as const) : ('ALL' as const) },
    },
    funding_inputs: coins.map((c) => ({ txid: c.txid, vout: c.vout, value_sats: c.value_sats })),
    anchor: { txid: anchor.txid, vout: anchor.vout, value_sats: anchor.value_sats },
    escrow: { ...escrowJson(escrow), value_sats: escrowValue, market_key: { version: marketKey.version, pubkey: marketKey.pubkey }, bidder_key: row.bidder_key },
    alternatives: alternatives.map((a, index) => {
      const t = presignTemplate(escrow, parent.id, escrowValue, deliveryScript, a.price_sats);
      return {
        index,
        target: a.target,
        price_sats: a.price_sats,
        estimated_seller_net_sats: estimatedSellerNet(ctx, a.price_sats, row.parent_vsize + childVsize, feeRate),
        child_template: {
          psbt_hex: hex.encode(t.toPSBT()),
          input_index: 0 as const,
          sighash: 'SINGLE|ANYONECANPAY' as const,
          sighash_type: PRESIGN_SIGHASH as 0x83,
          digest_hex: hex.encode(presignDigest(escrow, parent.id, escrowValue, deliveryScript, a.price_sats)),
          delivery: { address: delivery, value_sats: escrowValue - a.price_sats },
        },
      };
    }),
    fee_rate: feeRate,
    expires_at: row.expires_at,
    preflight_expires_at: row.preflight_expires_at,
    ends_offers: body.funding ? await offersEndedBy(ctx.store.db, coins.map((c) => outpointKey(c.txid, c.vout))) : [],
  };
}

/** What a seller would net at `rate` now: price − platform fee − the package's fee (a quote, not a promise). */
export function estimatedSellerNet(ctx: Context, price: number, packageVsize: number, rate: number): number {
  return price - platformFee(ctx.config, price) - Math.ceil(packageVsize * rate);
}

