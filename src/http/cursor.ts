import crypto from 'node:crypto';
import { ApiError } from './errors.js';

/**
 * Opaque page cursors, bound by a MAC to their route and filters: a forged
 * cursor, one from another route, or one replayed with changed filters is
 * refused as 400 invalid_request instead of silently paging something else.
 */
export class Cursors {
  constructor(private readonly secret: Buffer) {}

  encode(route: string, filters: Record<string, unknown>, position: unknown): string {
    const payload = Buffer.from(JSON.stringify(position)).toString('base64url');
    return `${payload}.${this.mac(route, filters, payload)}`;
  }

  decode<T>(cursor: string | undefined, route: string, filters: Record<string, unknown>): T | undefined {
    if (cursor === undefined || cursor === '') return undefined;
    const [payload, mac, extra] = cursor.split('.');
    const bad = () => new ApiError('invalid_request', 'cursor is not valid for this route and these filters', { field: 'query.cursor' });
    if (!payload || !mac || extra !== undefined) throw bad();
    const expected = this.mac(route, filters, payload);
    const a = Buffer.from(mac);
    const b = Buffer.from(expected);
    if (a.length !== b.length || !crypto.timingSafeEqual(a, b)) throw bad();
    try {
      return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as T;
    } catch {
      throw bad();
    }
  }

  private mac(route: string, filters: Record<string, unknown>, payload: string): string {
    const canon = Object.keys(filters)
      .sort()
      .filter((k) => filters[k] !== undefined && k !== 'cursor' && k !== 'limit')
      .map((k) => `${k}=${JSON.stringify(filters[k])}`)
      .join('&');
    return crypto.createHmac('sha256', this.secret).update(`${route}\n${canon}\n${payload}`).digest('base64url').slice(0, 27);
  }
}
