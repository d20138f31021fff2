/** Collection offers on the devnet with real keys: the anchor pool, placement (parent + pre-signatures) and a seller's accept. */
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { policyOfferUpkeep } from '../../src/modules/policy-offers/manifest.js';
import { signPsbt, type Market } from '../helpers/market.js';
import { signTapLeaf, type TestWallet } from '../helpers/wallets.js';

/** Refills the anchor pool and confirms the refill (upkeep, mine, sync). */
export async function fillPool(m: Market): Promise<void> {
  await policyOfferUpkeep(m.ctx);
  await m.mine();
  await m.sync();
}

export interface PolicyTarget {
  scope: 'asset' | 'collection';
  asset?: string;
  collection?: string;
  max_supply_units?: number;
  min_supply_units?: number;
  issued_year?: number;
  series?: number;
  artist?: string;
  price_sats: number;
}

/** The bidder's SINGLE|ANYONECANPAY pre-signature over a child template's input 0 (the accept leaf). */
export function presign(templateHex: string, w: TestWallet, leafHex: string, sighash = 0x83): string {
  const tx = Transaction.fromPSBT(hex.decode(templateHex), READ_TX_OPTS);
  const u = tx.getInput(0).witnessUtxo!;
  return hex.encode(signTapLeaf(tx, 0, w.privateKey, hex.decode(leafHex), [{ script: u.script, amount: u.amount }], sighash));
}

export async function policyPreflight(m: Market, w: TestWallet, token: string, targets: PolicyTarget[], extra: Record<string, unknown> = {}) {
  return m.call('POST', '/v1/policy-offers/preflight', token, {
    targets,
    bidder_pubkey: hex.encode(w.xOnly),
    expires_at: Math.floor(m.clock.now() / 1000) + 86_400,
    fee_rate: 2,
    ...extra,
  });
}

/** The placement body for a preflight result: parent signed by `w`, every template pre-signed. */
export function placementBody(pf: any, w: TestWallet, opts: { sighash?: number } = {}) {
  const parent = signPsbt(pf.parent.psbt_hex, w, pf.parent.signing.inputs_to_sign, w.family === 'p2tr' ? SigHash.DEFAULT : SigHash.ALL);
  return {
    funding_set_id: pf.funding_set_id,
    parent_psbt_hex: parent,
    presignatures: pf.alternatives.map((a: any) => ({ index: a.index, signature_hex: presign(a.child_template.psbt_hex, w, pf.escrow.accept_leaf_hex, opts.sighash) })),
  };
}

/** Preflight + place; returns the placed funding set record. */
export async function placePolicy(m: Market, w: TestWallet, token: string, targets: PolicyTarget[], extra: Record<string, unknown> = {}) {
  const pf = await policyPreflight(m, w, token, targets, extra);
  assert.equal(pf.status, 200, JSON.stringify(pf.body));
  const r = await m.call('POST', '/v1/policy-offers', token, placementBody(pf.body.result, w));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { pf: pf.body.result, set: r.body.result };
}

/** A seller's accept quote and its signed child. */
export async function acceptQuote(m: Market, w: TestWallet, token: string, parentTxid: string, unit: { txid: string; vout: number }, extra: Record<string, unknown> = {}) {
  const q = await m.call('POST', '/v1/policy-accepts/preflight', token, { parent_txid: parentTxid, asset_txid: unit.txid, asset_vout: unit.vout, fee_rate: 2, ...extra });
  if (q.status !== 200) return { q, signed: null };
  return { q, signed: signPsbt(q.body.result.psbt_hex, w, [1], w.family === 'p2tr' ? SigHash.DEFAULT : SigHash.ALL) };
}
