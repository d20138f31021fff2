/**
 * Just enough Counterparty to read a message a PSBT carries: `OP_RETURN <ARC4(txid of input 0,
 * "CNTRPRTY" ‖ type ‖ payload)>` (type one byte when below 256). The client reads what the
 * server built; it never builds messages itself.
 */
const PREFIX = new TextEncoder().encode('CNTRPRTY');

function arc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  const s = Uint8Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = new Uint8Array(data.length);
  for (let k = 0, i = 0, j = 0; k < data.length; k++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[k] = data[k]! ^ s[(s[i]! + s[j]!) & 0xff]!;
  }
  return out;
}

/** The message of an OP_RETURN script, keyed by input 0's txid as displayed (how scure's PSBT inputs hold it, and how Core keys ARC4). */
export function decodeMessage(script: Uint8Array, input0Txid: Uint8Array): { type: number; payload: Uint8Array } | null {
  if (script[0] !== 0x6a || script.length < 2) return null;
  let at = 1;
  let len = script[at]!;
  at++;
  if (len === 0x4c) {
    len = script[at]!;
    at++;
  } else if (len === 0x4d) {
    len = script[at]! | (script[at + 1]! << 8);
    at += 2;
  }
  const data = script.subarray(at, at + len);
  const plain = arc4(input0Txid, data);
  if (plain.length < PREFIX.length + 1 || !PREFIX.every((b, i) => plain[i] === b)) return null;
  return { type: plain[PREFIX.length]!, payload: plain.subarray(PREFIX.length + 1) };
}
