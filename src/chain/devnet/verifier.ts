/**
 * The signature check the devnet runs on every input: `src/bitcoin/input-signature.ts`
 * (P2PKH, P2WPKH, P2TR key path and simple tapscript leaves, every sighash type). Injected so
 * a test can stub it; an input the verifier cannot check is refused, never waved through.
 */
import type { Transaction } from '@scure/btc-signer';
import { verifyInputSignature } from '../../bitcoin/input-signature.js';
import type { Prevout } from '../../bitcoin/transaction.js';

export type InputVerifier = (
  tx: Transaction,
  index: number,
  prevouts: readonly Prevout[],
  rules: 'standard' | 'consensus',
) => { ok: true } | { ok: false; error: string };

export const defaultInputVerifier: InputVerifier = (tx, index, prevouts, rules) => {
  const r = verifyInputSignature(tx, index, prevouts, { rules });
  return r.ok ? { ok: true } : { ok: false, error: r.error };
};
