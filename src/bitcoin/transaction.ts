/**
 * Parsing transactions with scure in the permissive mode a verifier needs: the market's
 * transactions carry OP_RETURN outputs (Counterparty messages), version 3 (TRUC) parents and
 * inputs scure cannot classify (escrow script paths), all of which scure refuses by default.
 */
import { Transaction, type TxOpts } from '@scure/btc-signer';

/** Options for reading (never for building) transactions and PSBTs. */
export const READ_TX_OPTS: Readonly<TxOpts> = Object.freeze({
  allowUnknownOutputs: true,
  allowUnknownInputs: true,
  allowUnknownVersion: true,
  disableScriptCheck: true,
  allowLegacyWitnessUtxo: true,
});

/** A scure Transaction as is, or raw bytes (with or without witness) parsed permissively. */
export function toTransaction(tx: Transaction | Uint8Array): Transaction {
  return tx instanceof Transaction ? tx : Transaction.fromRaw(tx, READ_TX_OPTS);
}

/** The previous output an input spends: its locking script and value in satoshis. */
export interface Prevout {
  script: Uint8Array;
  amount: bigint;
}

/**
 * Scure marks `preimageLegacy` private in its types although it is a plain method; this is the
 * one place that reaches it. It implements Bitcoin Core's `SignatureHash` for legacy inputs,
 * including the SIGHASH_SINGLE "no matching output" case, which returns uint256(1).
 */
export function legacySighash(tx: Transaction, idx: number, scriptCode: Uint8Array, hashType: number): Uint8Array {
  const t = tx as unknown as { preimageLegacy(i: number, s: Uint8Array, h: number): Uint8Array };
  return t.preimageLegacy(idx, scriptCode, hashType);
}
