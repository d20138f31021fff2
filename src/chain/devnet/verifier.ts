/**
 * The signature check the devnet runs on every input: `src/bitcoin/input-signature.ts`
 * (P2PKH, P2WPKH, P2TR key path and simple tapscript leaves, every sighash type). Injected so
 * a test can stub it; an input the verifier cannot check is refused, never waved through.
 */
import { verifyInputSignature } from '../../bitcoin/input-signature.js';
import type { TxDigests } from '../../bitcoin/tx-digests.js';

/**
 * `tx` is parsed once per transaction with its prevouts (`prepareTransaction`), so the digests
 * its inputs share are hashed once, not once per input and rule set.
 */
export type InputVerifier = (
  tx: TxDigests,
  index: number,
  rules: 'standard' | 'consensus',
) => { ok: true } | { ok: false; error: string };

/**
 * `error` is Core's `ScriptErrorString` for the failure under those rules, the words its mempool
 * puts in a script failure's reject reason; a spend the verifier does not support (Core might
 * accept it) keeps the verifier's own words.
 */
export const defaultInputVerifier: InputVerifier = (tx, index, rules) => {
  const r = verifyInputSignature(tx, index, tx.prevouts, { rules });
  return r.ok ? { ok: true } : { ok: false, error: r.scriptError ?? r.error };
};
