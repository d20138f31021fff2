/**
 * Hex of the large byte strings a request carries (a signed PSBT in, a network transaction
 * out) through Node's native codec: scure's `hex` walks the string in JavaScript, ~25 µs per
 * 1.5 kB each way, on every completion. Small values keep `@scure/base`'s `hex`.
 */

/** Bytes of a hex string the caller has checked is hex of even length (an own copy, not a pooled Buffer). */
export const hexToBytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));

/** Lower-case hex of `b`. */
export const bytesToHex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
