/**
 * POST /v1/listing-preflights and POST /v1/attach-templates: a draft that either reuses an
 * attached unit (mode=reuse) or attaches an address-level balance (mode=attach, with an
 * unsigned attach PSBT). Composing reserves nothing on chain; the only promise a draft makes
 * is in `committed_raw` (balances other open drafts of the same source already count on).
 */
import crypto from 'node:crypto';
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { requireAddressRole } from '../../http/address-rules.js';
import { nowSeconds } from '../../clock.js';
import { isCanonicalAssetId } from '../../counterparty/asset-names.js';
import { draftView, type DraftView } from './draft-view.js';
import { newId, type DraftRow, type ListingStore } from './store.js';
import { checkPrice, DRAFT_TTL_S, tapInternalKeyFor } from './rules.js';
import { composeAttach } from './attach-compose.js';
import { composeUnitMove } from './unit-move.js';
import { ASSET_UTXO_SATS } from './templates.js';
import { addressToScript } from '../../bitcoin/address.js';
import { checkReuseUtxo, findReusableUtxo } from './reuse.js';
import { cosignedOf, cosignKeys } from './cosigned.js';
import type { ListingSubtype } from '../../counterparty/cosigned-listing.js';
import { outpointKey } from '../../trade/outpoints.js';
import { defaultFeeRate } from '../../trade/fee-rates.js';
import { offersEndedBy } from '../../trade/coins.js';

export interface PreflightInput {
  seller: string;
  asset_source?: string;
  asset: string;
  quantity_raw: string;
  mode?: 'reuse' | 'attach';
  asset_utxo?: { txid: string; vout: number };
  price_sats?: number;
  fee_rate?: number;
  funding?: { txid: string; vout: number }[];
  idempotency_key?: string;
  seller_tap_internal_key?: string;
  asset_source_tap_internal_key?: string;
  protocol_subtype?: ListingSubtype;
}

/** Canonical JSON (sorted keys) hashed: the same body is the same request whatever the key order. */
export function requestHash(purpose: string, body: unknown): string {
  const canon = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canon)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon((v as Record<string, unknown>)[k])]))
        : v;
  return crypto.createHash('sha256').update(`${purpose}\n${JSON.stringify(canon(body))}`).digest('hex');
}

export class PreflightService {
  constructor(
    private readonly ctx: Context,
    private readonly store: ListingStore,
  ) {}

  async view(d: DraftRow): Promise<DraftView> {
    const listing = d.listing_id ? await this.store.listing(d.listing_id) : undefined;
    // An unsigned attach that would spend a coin backing an open offer of the address (a coin the
    // seller named: the market never picks one, src/trade/coins.ts) says which offers it would end.
    const inputs = d.status === 'awaiting_attach_signature' && d.attach_inputs ? (JSON.parse(d.attach_inputs) as string[]) : [];
    return { ...draftView(d, listing, nowSeconds(this.ctx.clock), this.ctx.config), ends_offers: await offersEndedBy(this.ctx.store.db, inputs) };
  }

  async create(me: string, input: PreflightInput, purpose: DraftRow['purpose']): Promise<DraftView> {
    try {
      // One preflight of a source at a time: the balance and coins it commits are read, checked
      // and written as one step, so two concurrent requests cannot both promise the same unit.
      return await this.ctx.store.locks.run(`preflight-source:${input.asset_source ?? input.seller}`, () => this.compose(me, input, purpose));
    } catch (e) {
      // A concurrent request with the same key may have won and committed the balance this one
      // then found short: that is a repeat, not a refusal.
      const lostRace = e instanceof ApiError && (e.code === 'insufficient_asset_balance' || e.code === 'insufficient_funds');
      if (!lostRace || !input.idempotency_key || input.seller !== me) throw e;
      const prior = await this.store.byIdempotencyKey(input.seller, input.idempotency_key);
      if (!prior) throw e;
      return this.repeat(prior, requestHash(purpose, input), input.idempotency_key);
    }
  }

  private async compose(me: string, input: PreflightInput, purpose: DraftRow['purpose']): Promise<DraftView> {
    const network = this.ctx.config.NETWORK;
    const sellerField = purpose === 'prepare' ? 'body.utxo_owner' : 'body.seller';
    requireAddressRole(input.seller, 'signing', network, sellerField);
    if (input.seller !== me) throw new ApiError('forbidden', `${sellerField} must be the session address`);
    const source = input.asset_source ?? input.seller;
    requireAddressRole(source, 'source', network, 'body.asset_source');
    if (!isCanonicalAssetId(input.asset)) throw new ApiError('invalid_request', 'body.asset is not a canonical asset id', { field: 'body.asset' });
    if (input.price_sats !== undefined) checkPrice(input.price_sats);
    const sellerKey = tapInternalKeyFor(input.seller, input.seller_tap_internal_key, network, 'body.seller_tap_internal_key');
    const sourceKey = tapInternalKeyFor(source, input.asset_source_tap_internal_key, network, 'body.asset_source_tap_internal_key');

    const hash = requestHash(purpose, input);
    if (input.idempotency_key) {
      const prior = await this.store.byIdempotencyKey(input.seller, input.idempotency_key);
      if (prior) return this.repeat(prior, hash, input.idempotency_key);
    }

    const subtype = input.protocol_subtype ?? 'plain';
    // Co-signed: the unit goes straight onto the co-signed output, so the draft attaches.
    const cosign = subtype === 'cosigned' ? await this.cosignMode(input, purpose, sellerKey) : null;

    const now = nowSeconds(this.ctx.clock);
    let mode = input.mode ?? (input.asset_utxo ? 'reuse' : undefined);
    if (purpose === 'prepare') mode = 'attach';
    let reuse = input.asset_utxo;
    if (mode === undefined) {
      reuse = await findReusableUtxo(this.ctx, this.store, input.seller, input.asset, input.quantity_raw);
      mode = reuse ? 'reuse' : 'attach';
    }
    const base: DraftRow = {
      id: newId('pf'),
      operation_id: newId('op'),
      purpose,
      seller: input.seller,
      asset_source: mode === 'reuse' ? input.seller : source,
      asset: input.asset,
      quantity_raw: input.quantity_raw,
      mode,
      status: 'awaiting_attach_signature',
      idempotency_key: input.idempotency_key ?? null,
      request_hash: hash,
      asset_txid: null,
      asset_vout: null,
      asset_outpoint: null,
      utxo_value_sats: null,
      attach_psbt: null,
      attach_signers: null,
      attach_inputs: null,
      expected_txid: null,
      attach_txid: null,
      fee_rate: null,
      network_fee_sats: 0,
      protocol_fee_raw: '0',
      protocol_fee_actual_raw: null,
      protocol_fee_block: null,
      protocol_fee_charged_at: null,
      price_sats: input.price_sats ?? null,
      seller_tap_key: sellerKey ? Buffer.from(sellerKey).toString('hex') : null,
      listing_id: null,
      protocol_subtype: subtype,
      cosign_market_key: cosign?.key.pubkey ?? null,
      cosign_key_version: cosign?.key.version ?? null,
      reopened: 0,
      last_error: null,
      confirmed_height: null,
      confirmed_hash: null,
      spent_height: null,
      bitcoin_confirmed_at: null,
      expires_at: now + DRAFT_TTL_S,
      created_at: now,
      updated_at: now,
    };

    let row: DraftRow;
    if (mode === 'reuse') {
      if (!reuse) throw new ApiError('invalid_request', 'body.asset_utxo is required with mode=reuse', { field: 'body.asset_utxo' });
      if (input.funding?.length) throw new ApiError('invalid_request', 'body.funding is only for mode=attach', { field: 'body.funding' });
      const utxo = await checkReuseUtxo(this.ctx, this.store, input.seller, reuse, input.asset, input.quantity_raw);
      if (cosign) return this.insertNew(await this.moveIntoCosigned(base, reuse, utxo.value_sats, input.fee_rate), input, hash);
      row = {
        ...base,
        status: 'ready',
        asset_txid: reuse.txid,
        asset_vout: reuse.vout,
        asset_outpoint: outpointKey(reuse.txid, reuse.vout),
        utxo_value_sats: utxo.value_sats,
      };
    } else {
      if (input.asset_utxo) throw new ApiError('invalid_request', 'body.asset_utxo is only for mode=reuse', { field: 'body.asset_utxo' });
      const c = await composeAttach(this.ctx, this.store, {
        seller: input.seller,
        source,
        asset: input.asset,
        quantityRaw: input.quantity_raw,
        feeRate: input.fee_rate,
        funding: input.funding,
        sourceTapKey: sourceKey,
        now,
        noFundingRetryable: true,
        ...(cosign ? { unitScript: cosignedOf({ ...base, seller_key: base.seller_tap_key }, network)!.script } : {}),
      });
      row = {
        ...base,
        attach_psbt: c.psbt_hex,
        attach_signers: JSON.stringify(c.signers),
        attach_inputs: JSON.stringify(c.inputs),
        expected_txid: c.expected_txid,
        asset_txid: c.expected_txid,
        asset_vout: c.expected_txid ? 0 : null,
        asset_outpoint: c.expected_txid ? outpointKey(c.expected_txid, 0) : null,
        utxo_value_sats: c.expected_txid ? c.utxo_value_sats : null,
        fee_rate: c.fee_rate,
        network_fee_sats: c.network_fee_sats,
        protocol_fee_raw: c.protocol_fee_raw,
      };
    }

    return this.insertNew(row, input, hash);
  }

  /**
   * A co-signed listing of a unit already attached at the seller's address: the draft's "attach"
   * is the move of the unit into the co-signed output (unit-move.ts), signed ALL by the seller
   * and journaled like an attach; its listing half spends the move's output 0.
   */
  private async moveIntoCosigned(base: DraftRow, at: { txid: string; vout: number }, valueSats: number, feeRate: number | undefined): Promise<DraftRow> {
    const network = this.ctx.config.NETWORK;
    const co = cosignedOf({ ...base, seller_key: base.seller_tap_key }, network)!;
    const sellerScript = addressToScript(base.seller, network)!;
    const rate = feeRate ?? (await defaultFeeRate(this.ctx));
    const move = await composeUnitMove(this.ctx, {
      seller: base.seller,
      sellerScript,
      sellerKey: co.internalKey,
      unit: { ...at, value_sats: valueSats, script: sellerScript, spend: 'p2tr-key-explicit' },
      destScript: co.script,
      feeRate: rate,
    });
    return {
      ...base,
      attach_psbt: move.psbt_hex,
      attach_signers: JSON.stringify([{ address: base.seller, inputs_to_sign: move.inputs_to_sign, sighash: 'ALL' }]),
      attach_inputs: JSON.stringify(move.inputs),
      expected_txid: move.expected_txid,
      asset_txid: move.expected_txid,
      asset_vout: 0,
      asset_outpoint: outpointKey(move.expected_txid, 0),
      utxo_value_sats: ASSET_UTXO_SATS,
      fee_rate: rate,
      network_fee_sats: move.network_fee_sats,
    };
  }

  private async insertNew(row: DraftRow, input: PreflightInput, hash: string): Promise<DraftView> {
    if (!(await this.store.insertDraft(row))) {
      // Lost a race on the same idempotency key: answer as a repeat.
      const prior = input.idempotency_key ? await this.store.byIdempotencyKey(input.seller, input.idempotency_key) : undefined;
      if (prior) return this.repeat(prior, hash, input.idempotency_key!);
      throw new Error('listing draft insert failed');
    }
    return this.view(row);
  }

  private async cosignMode(input: PreflightInput, purpose: DraftRow['purpose'], sellerKey: Uint8Array | null) {
    if (purpose !== 'listing') throw new ApiError('invalid_request', 'protocol_subtype is for listing preflights', { field: 'body.protocol_subtype' });
    return cosignKeys(this.ctx, input.seller, sellerKey);
  }

  private async repeat(prior: DraftRow, hash: string, key: string): Promise<DraftView> {
    if (prior.request_hash !== hash) {
      throw new ApiError('state_changed', 'this idempotency_key was used with another request body', { idempotency_key: key, preflight_id: prior.id });
    }
    return this.view(prior);
  }
}
