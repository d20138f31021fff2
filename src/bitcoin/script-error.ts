/**
 * Bitcoin Core's script errors (`ScriptError` and `ScriptErrorString`), for the failures the
 * input verifier can tell apart. The devnet names a refused script with these words, as Core's
 * mempool does (`mandatory-script-verify-flag-failed (<text>)`), so a client matching Core's
 * reject reasons meets the same text on both.
 */
export const SCRIPT_ERROR_TEXT = {
  EVAL_FALSE: 'Script evaluated without error but finished with a false/empty top stack element',
  EQUALVERIFY: 'Script failed an OP_EQUALVERIFY operation',
  CHECKSIGVERIFY: 'Script failed an OP_CHECKSIGVERIFY operation',
  BAD_OPCODE: 'Opcode missing or not understood',
  INVALID_STACK_OPERATION: 'Operation not valid with the current stack size',
  NEGATIVE_LOCKTIME: 'Negative locktime',
  UNSATISFIED_LOCKTIME: 'Locktime requirement not satisfied',
  SIG_HASHTYPE: 'Signature hash type missing or not understood',
  SIG_DER: 'Non-canonical DER signature',
  MINIMALDATA: 'Data push larger than necessary',
  SIG_PUSHONLY: 'Only push operators allowed in signatures',
  SIG_HIGH_S: 'Non-canonical signature: S value is unnecessarily high',
  SIG_NULLFAIL: 'Signature must be zero for failed CHECK(MULTI)SIG operation',
  DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM: 'Witness version reserved for soft-fork upgrades',
  DISCOURAGE_UPGRADABLE_TAPROOT_VERSION: 'Taproot version reserved for soft-fork upgrades',
  PUBKEYTYPE: 'Public key is neither compressed or uncompressed',
  CLEANSTACK: 'Stack size must be exactly one after execution',
  WITNESS_PROGRAM_WITNESS_EMPTY: 'Witness program was passed an empty witness',
  WITNESS_PROGRAM_MISMATCH: 'Witness program hash mismatch',
  WITNESS_MALLEATED: 'Witness requires empty scriptSig',
  WITNESS_UNEXPECTED: 'Witness provided for non-witness script',
  WITNESS_PUBKEYTYPE: 'Using non-compressed keys in segwit',
  SCHNORR_SIG_SIZE: 'Invalid Schnorr signature size',
  SCHNORR_SIG_HASHTYPE: 'Invalid Schnorr signature hash type',
  SCHNORR_SIG: 'Invalid Schnorr signature',
  TAPROOT_WRONG_CONTROL_SIZE: 'Invalid Taproot control block size',
  UNKNOWN_ERROR: 'unknown error',
} as const;

export type ScriptError = keyof typeof SCRIPT_ERROR_TEXT;
