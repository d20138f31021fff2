/**
 * Buyer-side helpers for the checkout tests: a funded, signed-in buyer, a quote, and the buyer's
 * signature over a quote PSBT with real keys.
 */
import assert from 'node:assert/strict';
import { SigHash } from '@scure/btc-signer';
import { signPsbt, type Market, type Reply } from './market.js';
import { makeWallet, type TestWallet } from './wallets.js';
import { buildTx } from './devnet.js';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';

export interface Buyer {
  w: TestWallet;
  token: string;
}

let n = 0;

/** A signed-in buyer of `family` holding one confirmed coin per amount in `coins`. */
export async function newBuyer(m: Market, family: 'p2wpkh' | 'p2tr' | 'p2pkh', label: string, coins: number[] = [200_000]): Promise<Buyer> {
  const w = makeWallet(family, `checkout-buyer:${label}:${++n}`);
  for (const sats of coins) await m.fund(w, sats);
  return { w, token: await m.signIn(w) };
}

/**
 * A big coin of the buyer (1,000,000 sats) carrying an attached unit of a fresh asset of the
 * buyer's, confirmed in the newest block; returns its txid (the unit sits on output 0).
 */
export async function assetCarryingCoin(m: Market, w: TestWallet): Promise<{ txid: string; asset: string }> {
  const asset = await m.issue(w, '1');
  const coin = await m.fund(w, 1_002_000);
  const attach = buildTx([{ wallet: w, coin }], (input0) => [
    { script: w.script, amount: 1_000_000n },
    { script: attachOutputScript({ input0Txid: input0, asset, quantity: 1n, destinationVout: 0 }), amount: 0n },
  ]);
  const txid = await m.devnet.bitcoin.broadcast(attach);
  await m.mine();
  return { txid, asset };
}

export const quote = (m: Market, b: Buyer, body: Record<string, unknown>): Promise<Reply> => m.call('POST', '/v1/checkout/quotes', b.token, body);

/** A quote that must succeed; returns its result. */
export async function quoteOk(m: Market, b: Buyer, body: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await quote(m, b, body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result as Record<string, any>;
}

/** The quote PSBT with every buyer input signed by `w` (default the buyer) with `sighash` (default ALL). */
export function signQuote(q: Record<string, any>, w: TestWallet, sighash: number = SigHash.ALL): string {
  return signPsbt(q.psbt_hex as string, w, q.inputs_to_sign as number[], sighash);
}

export const complete = (m: Market, b: Buyer, id: string, psbtHex: string): Promise<Reply> =>
  m.call('POST', `/v1/checkout/quotes/${id}/complete`, b.token, { psbt_hex: psbtHex });

export const readOp = (m: Market, b: Buyer, id: string): Promise<Reply> => m.call('GET', `/v1/checkout/quotes/${id}`, b.token);

export const listingRow = (m: Market, id: string) => m.ctx.store.db.selectFrom('listings').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

export const fillsOf = (m: Market, listingId: string) =>
  m.ctx.store.db.selectFrom('fills').selectAll().where('kind', '=', 'listing').where('ref_id', '=', listingId).orderBy('created_at').execute();

/** The address-level balance of `asset` (raw) at `address`, as the devnet's Counterparty port reports it. */
export async function heldAt(m: Market, address: string, asset: string): Promise<bigint> {
  const rows = await m.ctx.chain.counterparty.getAddressBalances(address);
  return rows.filter((r) => r.asset === asset && r.utxo === null).reduce((s, r) => s + BigInt(r.quantity_raw), 0n);
}

/** The balance of `asset` attached to `utxo` (raw). */
export async function heldOn(m: Market, utxo: string, asset: string): Promise<bigint> {
  const rows = await m.ctx.chain.counterparty.getUtxoBalances(utxo);
  return rows.filter((r) => r.asset === asset).reduce((s, r) => s + BigInt(r.quantity_raw), 0n);
}
