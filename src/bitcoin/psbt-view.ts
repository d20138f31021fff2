/**
 * One read of a PSBT's transaction, shared by the checks and the extraction of one request.
 * scure's `getInput`/`getOutput` deep-copy the whole input or output on every call, and the
 * prevouts, the shared signature digests and the extraction each read every input again: a
 * view reads each once, and hashes the digests' shared parts once, for every check that uses it.
 *
 * It holds the unsigned fields (outpoints, sequences, outputs, version, locktime) and the
 * prevouts, which adding signatures or final fields does not change: the transaction may gain
 * those while its view is in use, never anything else (a request builds one, never keeps it).
 */
import { hex } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { RawTx } from '@scure/btc-signer/script.js';
import type { Transaction } from '@scure/btc-signer';
import { prevoutOf } from './psbt.js';
import type { Prevout } from './transaction.js';
import { TxDigests } from './tx-digests.js';

const EMPTY = new Uint8Array();

export class PsbtView {
  readonly inputs: ReadonlyArray<{ txid?: Uint8Array; index?: number; sequence?: number }>;
  readonly outputs: ReadonlyArray<{ script?: Uint8Array; amount?: bigint }>;
  /** Each input's prevout (psbtPrevout), undefined where unknown with the reason in `errors`. */
  readonly prevouts: (Prevout | undefined)[];
  readonly errors: (string | undefined)[];
  /** The names of each input's fields as read (what a signer put on it, besides the unsigned ones). */
  readonly fields: string[][];
  private d?: TxDigests;
  private id?: string;

  constructor(readonly tx: Transaction) {
    const inputs: { txid?: Uint8Array; index?: number; sequence?: number }[] = [];
    this.prevouts = [];
    this.errors = [];
    this.fields = [];
    for (let i = 0; i < tx.inputsLength; i++) {
      const input = tx.getInput(i);
      inputs.push({ txid: input.txid, index: input.index, sequence: input.sequence });
      const p = prevoutOf(input);
      this.prevouts.push(p.ok ? p.prevout : undefined);
      this.errors.push(p.ok ? undefined : p.error);
      this.fields.push(Object.keys(input));
    }
    this.inputs = inputs;
    const outputs: { script?: Uint8Array; amount?: bigint }[] = [];
    for (let o = 0; o < tx.outputsLength; o++) outputs.push(tx.getOutput(o));
    this.outputs = outputs;
  }

  /**
   * The shared digests over the prevouts (an unknown one is a placeholder: BIP-143 and legacy
   * digests never commit to other inputs' prevouts, BIP-341 ones do unless ANYONECANPAY).
   * Throws for an input without an outpoint or an output without a script or amount.
   */
  digests(): TxDigests {
    return (this.d ??= new TxDigests(this.tx, this.prevouts.map((p) => p ?? { script: new Uint8Array([0x6a]), amount: 0n }), this));
  }

  /** The txid of the transaction without its scriptSigs (every input SegWit: its final txid). Throws as `digests`. */
  unsignedTxid(): string {
    if (this.id) return this.id;
    const inputs = this.inputs.map((x, i) => {
      if (!x.txid || x.index === undefined) throw new Error(`input ${i} has no outpoint`);
      return { txid: x.txid, index: x.index, sequence: x.sequence ?? 0xffffffff, finalScriptSig: EMPTY };
    });
    const outputs = this.outputs.map((o, i) => {
      if (!o.script || o.amount === undefined) throw new Error(`output ${i} has no script or amount`);
      return { script: o.script, amount: o.amount };
    });
    const raw = RawTx.encode({ version: this.tx.version, lockTime: this.tx.lockTime, inputs, outputs, segwitFlag: false });
    return (this.id = hex.encode(sha256(sha256(raw)).reverse()));
  }
}
