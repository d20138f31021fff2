/**
 * What Counterparty Core reads from a Bitcoin transaction before applying any rule
 * (`parser/gettxinfo.py` with counterparty-rs `parse_vout`, taproot and `utxo_support` on):
 *
 * - Outputs are scanned in order. Address outputs before the data are the `destinations`;
 *   OP_RETURN outputs must decrypt to a `CNTRPRTY` message; an address output after the data
 *   ends the scan. An OP_RETURN that is not a message, or an output with no address (P2PK,
 *   bare multisig, unknown), makes the whole transaction carry no message.
 * - With data, input 0 must pass the SIGHASH rule (`sighash-flag.ts`) and its prevout must have
 *   an address: that address is the `source`. Otherwise the message is dropped.
 * - Independently of any message, `utxos_info` needs the first non-OP_RETURN output (the move
 *   destination), the output count and the first OP_RETURN output.
 */
import { bytesToHex, concatBytes } from '@noble/hashes/utils.js';
import { bech32m } from '@scure/base';
import type { Transaction } from '@scure/btc-signer';
import { scriptToAddress } from '../bitcoin/address.js';
import { networkParams, type Network } from '../bitcoin/networks.js';
import { readMessageOutput, unpackMessageType } from './message.js';
import { OP_RETURN, readScript } from './script-reader.js';
import { checkInput0Sighash } from './sighash-flag.js';

export interface CpTxInputView {
  txid: string;
  vout: number;
  scriptSig: Uint8Array;
  witness: readonly Uint8Array[];
  /** The output this input spends; null when unknown (then no message can be read). */
  prevout: { script: Uint8Array; value: bigint } | null;
}

export interface CpTxView {
  txid: string;
  inputs: readonly CpTxInputView[];
  outputs: readonly { script: Uint8Array; value: bigint }[];
}

export interface CpMessage {
  /** Address spent by input 0. */
  source: string;
  /** type ‖ payload, as Core stores it in `transactions.data`. */
  data: Uint8Array;
  /** null when the data is too short to hold a type (Core parses nothing then). */
  typeId: number | null;
  payload: Uint8Array | null;
  /** Addresses of the outputs before the data, joined with `-` (Core's `destination`). */
  destination: string;
  btcAmount: bigint;
}

export interface CpTxInfo {
  txHash: string;
  message: CpMessage | null;
  /** Why `message` is null: no data, an unreadable output, or the input-0 SIGHASH rule. */
  noMessageReason: string | null;
  /** First output whose script does not start with OP_RETURN (the move destination). */
  firstNonOpReturnVout: number | null;
  opReturnVout: number | null;
  outputsCount: number;
  /** Address of every output (null for OP_RETURN and other scripts without one). */
  outputAddresses: (string | null)[];
  /** Every input as `txid:vout` with the address of the output it spends. */
  inputs: { utxo: string; address: string | null }[];
  /** Sum of prevouts minus sum of outputs; null when a prevout is unknown. */
  fee: bigint | null;
}

/** P2A (`OP_1 <0x4e73>`) has an address (rust-bitcoin's script_to_address) but no family here. */
function isP2a(script: Uint8Array): boolean {
  return script.length === 4 && script[0] === 0x51 && script[1] === 0x02 && script[2] === 0x4e && script[3] === 0x73;
}

function p2aAddress(network: Network): string {
  return bech32m.encode(networkParams(network).bech32, [1, ...bech32m.toWords(script2a)]);
}
const script2a = new Uint8Array([0x4e, 0x73]);

/** The address Core derives for an output script (P2A included), or null. */
export function outputAddress(script: Uint8Array, network: Network): string | null {
  return scriptToAddress(script, network) ?? (isP2a(script) ? p2aAddress(network) : null);
}

type OutputRead = { kind: 'destination'; address: string } | { kind: 'data'; data: Uint8Array } | { kind: 'error'; why: string };

function readOutput(script: Uint8Array, key: string, network: Network): OutputRead {
  if (script[0] === OP_RETURN) {
    const r = readMessageOutput(script, key);
    return r.kind === 'data' ? r : { kind: 'error', why: 'OP_RETURN output is not a Counterparty message' };
  }
  const address = outputAddress(script, network);
  if (address) return { kind: 'destination', address };
  return { kind: 'error', why: 'unrecognised output type' };
}

/** Core's `get_op_return_vout` / `select_utxo_destination` test: first token is OP_RETURN. */
function startsWithOpReturn(script: Uint8Array): boolean {
  const items = readScript(script);
  // Core counts an unparsable script as a possible destination (Ordinals compatibility).
  if (!items || items.length === 0) return false;
  const first = items[0]!;
  return 'op' in first && first.op === OP_RETURN;
}

export function readCounterpartyTx(tx: CpTxView, network: Network): CpTxInfo {
  const outputAddresses = tx.outputs.map((o) => outputAddress(o.script, network));
  const opFlags = tx.outputs.map((o) => startsWithOpReturn(o.script));
  const firstNonOp = opFlags.indexOf(false);
  const firstOp = opFlags.indexOf(true);
  let fee: bigint | null = 0n;
  for (const i of tx.inputs) fee = i.prevout && fee !== null ? fee + i.prevout.value : null;
  if (fee !== null) for (const o of tx.outputs) fee -= o.value;
  const base = {
    txHash: tx.txid,
    firstNonOpReturnVout: firstNonOp < 0 ? null : firstNonOp,
    opReturnVout: firstOp < 0 ? null : firstOp,
    outputsCount: tx.outputs.length,
    outputAddresses,
    inputs: tx.inputs.map((i) => ({ utxo: `${i.txid}:${i.vout}`, address: i.prevout ? outputAddress(i.prevout.script, network) : null })),
    fee,
  };
  const none = (why: string): CpTxInfo => ({ ...base, message: null, noMessageReason: why });
  const input0 = tx.inputs[0];
  if (!input0) return none('no inputs');

  const destinations: string[] = [];
  let btcAmount = 0n;
  const chunks: Uint8Array[] = [];
  for (const out of tx.outputs) {
    const r = readOutput(out.script, input0.txid, network);
    if (r.kind === 'error') return none(r.why);
    if (r.kind === 'destination') {
      if (chunks.length > 0) break;
      destinations.push(r.address);
      btcAmount += out.value;
    } else chunks.push(r.data);
  }
  const data = concatBytes(...chunks);
  if (data.length === 0) return none('no data');

  const sig = checkInput0Sighash(input0.scriptSig, input0.witness);
  if (!sig.ok) return none(sig.reason);
  const source = base.inputs[0]!.address;
  if (!source) return none('unrecognised source type');
  const unpacked = data.length > 1 ? unpackMessageType(data) : null;
  return {
    ...base,
    noMessageReason: null,
    message: {
      source,
      data,
      typeId: unpacked?.typeId ?? null,
      payload: unpacked?.payload ?? null,
      destination: destinations.join('-'),
      btcAmount,
    },
  };
}


/** The view `readCounterpartyTx` needs, from a parsed scure transaction and its prevouts. */
export function txViewFromTransaction(
  tx: Transaction,
  prevouts: readonly ({ script: Uint8Array; amount: bigint } | null)[],
): CpTxView {
  const inputs: CpTxInputView[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const inp = tx.getInput(i);
    const p = prevouts[i] ?? null;
    inputs.push({
      txid: bytesToHex(inp.txid!),
      vout: inp.index!,
      scriptSig: inp.finalScriptSig ?? new Uint8Array(),
      witness: inp.finalScriptWitness ?? [],
      prevout: p ? { script: p.script, value: p.amount } : null,
    });
  }
  const outputs: { script: Uint8Array; value: bigint }[] = [];
  for (let i = 0; i < tx.outputsLength; i++) {
    const o = tx.getOutput(i);
    outputs.push({ script: o.script!, value: o.amount! });
  }
  return { txid: tx.id, inputs, outputs };
}
