/**
 * Verify before sign, the moves of a wallet's own coins back to itself. Each is signed ALL (or
 * DEFAULT) over every input, so whatever the server put in it is final once signed:
 * - a listing rotation: input 0 the exposed listing's unit (its own output), the other inputs the
 *   seller's own asset-free coins (none of the units the caller knows to carry a balance), output
 *   0 a fresh 330-sat output of the seller's (Counterparty moves the unit to the first output), an
 *   optional output 1 change to the seller, nothing else; the fee within the quote and the bound;
 * - a co-signed withdrawal: the same, input 0 the co-signed output (rebuilt from the seller's key
 *   and the market key) offered for the key path (tap_internal_key the seller's, tap_merkle_root
 *   the leaf's), so the wallet signs as the seller alone;
 * - a collection offer's hard cancel: every input one of the offer's funding inputs, the bidder's
 *   own, one output back to the bidder, the fee within the quote and the bound.
 */
import { hex } from '@scure/base';
import type { Transaction } from '@scure/btc-signer';
import { allInputs, expect, outAmount, outpointOf, outScriptHex, prevAmount, prevScriptHex, readPsbt, sameOutpoint, scriptHex, sumInputs, sumOutputs, unsignedTxid, type Network } from './psbt.js';
import { UNIT_SATS } from './verify-attach.js';
import type { RebuiltCosigned } from './verify-cosigned.js';
import type { Outpoint, Routes } from './generated/api.js';

type Rotation = Routes['POST /v1/listings/{id}/rotation']['response']['result'];
type Withdrawal = Routes['POST /v1/inventory/cosigned-withdrawals']['response']['result'];
type CancelTx = Routes['POST /v1/policy-offers/{id}/cancel-transaction']['response']['result'];

export interface MoveIntent {
  owner: string;
  /** The most the move may cost in network fee (the quoted fee is the other bound). */
  maxFeeSats?: number;
  network?: Network;
}

/** The fee (inputs − outputs) within the quoted fee and the caller's bound. */
function feeWithin(tx: Transaction, quoted: number, max: number | undefined): void {
  const fee = sumInputs(tx) - sumOutputs(tx);
  const bound = BigInt(Math.min(quoted, max ?? Number.MAX_SAFE_INTEGER));
  expect(fee >= 0n && fee <= bound, `the move would cost ${fee} sats in fee, more than ${bound}`);
}

/**
 * Input 0 the unit, every other input the owner's own coin and none of `carrying` (outpoints known
 * to hold a Counterparty balance: spending one would move it too); output 0 the unit's new 330-sat
 * home at the owner's address, output 1 (optional) change to the owner.
 */
function unitMove(tx: Transaction, inputsToSign: number[], own: string, unit: Outpoint, carrying: Outpoint[]): void {
  expect(allInputs(tx, inputsToSign), 'every input of the move is yours to sign, once');
  expect(tx.inputsLength >= 2, 'the move must be paid for by a coin of yours');
  expect(sameOutpoint(outpointOf(tx, 0), unit), 'input 0 is not the unit you asked to move');
  for (let i = 1; i < tx.inputsLength; i++) {
    expect(prevScriptHex(tx, i) === own, `input ${i} is not your own coin`);
    expect(!carrying.some((c) => sameOutpoint(c, outpointOf(tx, i))), `input ${i} carries a Counterparty balance: it would move too`);
  }
  expect(tx.outputsLength === 1 || tx.outputsLength === 2, `the move has 1 or 2 outputs, this one ${tx.outputsLength}`);
  expect(outScriptHex(tx, 0) === own && outAmount(tx, 0) === UNIT_SATS, 'output 0 must be a fresh 330-sat output of yours (where the unit goes)');
  if (tx.outputsLength === 2) expect(outScriptHex(tx, 1) === own, 'output 1 (change) must pay you');
}

export function verifyRotation(t: Rotation, intent: MoveIntent & { unit: Outpoint; carrying?: Outpoint[] }): Transaction {
  const tx = readPsbt(t.psbt_hex);
  const own = scriptHex(intent.owner, intent.network);
  expect(t.signer_address === intent.owner, 'the rotation is for another signer');
  unitMove(tx, t.inputs_to_sign, own, intent.unit, intent.carrying ?? []);
  expect(prevScriptHex(tx, 0) === own, 'input 0 is not your own output');
  feeWithin(tx, t.network_fee_sats, intent.maxFeeSats);
  const txid = unsignedTxid(tx);
  expect(txid === t.expected_txid && t.new_asset_utxo.txid === txid && t.new_asset_utxo.vout === 0, 'the rotation does not land the unit at its output 0');
  return tx;
}

export function verifyWithdrawal(w: Withdrawal, intent: MoveIntent & { unit: Outpoint; cosigned: RebuiltCosigned; sellerKey: string; carrying?: Outpoint[] }): Transaction {
  const tx = readPsbt(w.psbt_hex);
  const own = scriptHex(intent.owner, intent.network);
  expect(w.signer_address === intent.owner && w.delivery.address === intent.owner, 'the withdrawal is for another address');
  unitMove(tx, w.inputs_to_sign, own, intent.unit, intent.carrying ?? []);
  const in0 = tx.getInput(0);
  expect(prevScriptHex(tx, 0) === intent.cosigned.scriptHex, 'input 0 is not your co-signed output');
  expect(!!in0.tapInternalKey && hex.encode(in0.tapInternalKey) === intent.sellerKey && !!in0.tapMerkleRoot && hex.encode(in0.tapMerkleRoot) === intent.cosigned.merkleRootHex, 'input 0 does not offer the key path of your co-signed output');
  expect(w.tap_internal_key === intent.sellerKey && w.tap_merkle_root === intent.cosigned.merkleRootHex, 'the withdrawal names another key path');
  feeWithin(tx, w.network_fee_sats, intent.maxFeeSats);
  expect(unsignedTxid(tx) === w.expected_txid, 'the withdrawal txid is not its expected_txid');
  return tx;
}

export function verifyCancelTransaction(c: CancelTx, intent: MoveIntent): Transaction {
  const tx = readPsbt(c.psbt_hex);
  const own = scriptHex(intent.owner, intent.network);
  expect(c.signing.signer_address === intent.owner, 'the cancel is for another signer');
  expect(allInputs(tx, c.signing.inputs_to_sign), 'every input of the cancel is yours to sign, once');
  for (let i = 0; i < tx.inputsLength; i++) {
    const listed = c.funding_inputs.find((f) => sameOutpoint(f, outpointOf(tx, i)));
    expect(!!listed && BigInt(listed.value_sats) === prevAmount(tx, i), `input ${i} is not one of the offer's funding inputs`);
    expect(prevScriptHex(tx, i) === own, `input ${i} is not your own coin`);
  }
  expect(tx.outputsLength === 1 && outScriptHex(tx, 0) === own && outAmount(tx, 0) === BigInt(c.output_sats), 'the cancel must send everything back to you in one output');
  feeWithin(tx, c.fee_sats, intent.maxFeeSats);
  expect(unsignedTxid(tx) === c.expected_txid, 'the cancel txid is not its expected_txid');
  return tx;
}
