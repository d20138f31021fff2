/**
 * A minimal Bitcoin script tokenizer for the parts of Counterparty parsing that read scripts
 * (OP_RETURN payloads, scriptSig signatures). It follows rust-bitcoin's non-minimal
 * `Script::instructions()`, which counterparty-rs uses: every push opcode (direct, PUSHDATA1/2/4,
 * OP_0 as an empty push) yields bytes, every other opcode yields itself, and a push running past
 * the end of the script is an error.
 */
export type ScriptItem = { push: Uint8Array } | { op: number };

export const OP_RETURN = 0x6a;
const OP_PUSHDATA1 = 0x4c;
const OP_PUSHDATA2 = 0x4d;
const OP_PUSHDATA4 = 0x4e;

/** Tokens of `script`, or null when a push is truncated. */
export function readScript(script: Uint8Array): ScriptItem[] | null {
  const items: ScriptItem[] = [];
  let i = 0;
  while (i < script.length) {
    const op = script[i++]!;
    let len: number;
    if (op <= 0x4b) len = op;
    else if (op === OP_PUSHDATA1) {
      if (i + 1 > script.length) return null;
      len = script[i]!;
      i += 1;
    } else if (op === OP_PUSHDATA2) {
      if (i + 2 > script.length) return null;
      len = script[i]! | (script[i + 1]! << 8);
      i += 2;
    } else if (op === OP_PUSHDATA4) {
      if (i + 4 > script.length) return null;
      len = (script[i]! | (script[i + 1]! << 8) | (script[i + 2]! << 16) | (script[i + 3]! << 24)) >>> 0;
      i += 4;
    } else {
      items.push({ op });
      continue;
    }
    if (i + len > script.length) return null;
    items.push({ push: script.subarray(i, i + len) });
    i += len;
  }
  return items;
}

/** `OP_RETURN <data>` with the smallest push encoding (what Core and scure write). */
export function opReturnScript(data: Uint8Array): Uint8Array {
  if (data.length > 0xffff) throw new Error('OP_RETURN data too long');
  const head =
    data.length <= 0x4b
      ? [OP_RETURN, data.length]
      : data.length <= 0xff
        ? [OP_RETURN, OP_PUSHDATA1, data.length]
        : [OP_RETURN, OP_PUSHDATA2, data.length & 0xff, data.length >> 8];
  const out = new Uint8Array(head.length + data.length);
  out.set(head, 0);
  out.set(data, head.length);
  return out;
}
