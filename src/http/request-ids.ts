import crypto from 'node:crypto';

const CALLER_ID = /^[A-Za-z0-9._:-]{1,64}$/;
const ID_BYTES = 16;

/**
 * Request ids for the `x-request-id` of every answer: the caller's own when it is a sane token
 * (so a trace crosses our logs), else 128 random bits as 22 base64url characters.
 *
 * Random, not a counter: an id a client sees must not tell it how many requests an instance has
 * answered. Cut from a pool of CSPRNG bytes refilled 4 KiB at a time, each id is one flat string
 * made by one `toString`: a cache hit is about 10 µs of server CPU in all, and a UUID's text
 * (`randomUUID` joins 20 pieces, which Node then flattens to write and validate) was 2% of it.
 */
export class RequestIds {
  private readonly pool = Buffer.allocUnsafe(256 * ID_BYTES);
  private offset = this.pool.length;

  next(): string {
    if (this.offset + ID_BYTES > this.pool.length) {
      crypto.randomFillSync(this.pool);
      this.offset = 0;
    }
    const id = this.pool.toString('base64url', this.offset, this.offset + ID_BYTES);
    this.offset += ID_BYTES;
    return id;
  }

  /** The caller's x-request-id when it is a sane token, else a new one (every answer carries one). */
  of(given: string | string[] | undefined): string {
    return typeof given === 'string' && CALLER_ID.test(given) ? given : this.next();
  }
}
