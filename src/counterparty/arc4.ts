/**
 * ARC4 (RC4), the cipher Counterparty uses to obfuscate message data. Core keys it with the
 * txid of input 0 as displayed (big-endian hex decoded to 32 bytes; counterparty-rs reverses
 * the internal byte order before keying). RC4 is symmetric: the same call encrypts and decrypts.
 */
export function arc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  if (key.length === 0) throw new Error('ARC4: empty key');
  const s = new Uint8Array(256);
  for (let i = 0; i < 256; i++) s[i] = i;
  let j = 0;
  for (let i = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 0xff;
    const t = s[i]!;
    s[i] = s[j]!;
    s[j] = t;
  }
  const out = new Uint8Array(data.length);
  let i = 0;
  j = 0;
  for (let k = 0; k < data.length; k++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]!) & 0xff;
    const t = s[i]!;
    s[i] = s[j]!;
    s[j] = t;
    out[k] = data[k]! ^ s[(s[i]! + s[j]!) & 0xff]!;
  }
  return out;
}
