import { ipBucketId } from './ip-key.js';
import type { Bucket } from './limiter.js';

/**
 * The spec's rate-limit classes ("Limits"), as one table. A route names its
 * class next to its schema: `config: { limit: 'expensive_write' }`.
 */
export const BUCKET_CLASSES = [
  'expensive_write',
  'signed_completion',
  'sign_in',
  'uncached_read',
  'recovery_read',
  'account_maintenance',
  'artist_edit',
] as const;

export type BucketClass = (typeof BUCKET_CLASSES)[number];

export type ClassLimits = {
  /** Key namespace; distinct per class, so no two classes ever share a budget. */
  tag: string;
  /** `route`: every route has its own budget. `shared`: one budget across all routes of the class. */
  scope: 'route' | 'shared';
  /** What the first bucket counts: the session address (the IP when anonymous), or always the IP. */
  principal: 'session_or_ip' | 'ip';
  principalLimit: number;
  /** Limit over everything from one IP (all its sessions and its anonymous requests); null when none. */
  ipCeiling: number | null;
  /** On a limiter outage, let the request through uncounted (the others are counted on the instance's own windows, or refused with 503 where there are none). */
  failOpen: boolean;
};

/** Requests per exact sliding 60 s window (WINDOW_MS in limiter.ts). */
export const LIMITS: Readonly<Record<BucketClass, Readonly<ClassLimits>>> = {
  // Routes that compose or verify against the chain before answering.
  expensive_write: { tag: 'ew', scope: 'route', principal: 'session_or_ip', principalLimit: 20, ipCeiling: 120, failOpen: false },
  // Signed completions fail open: refusing a signed settlement because our
  // limiter is down would cost a user a trade they already signed.
  signed_completion: { tag: 'sc', scope: 'route', principal: 'session_or_ip', principalLimit: 120, ipCeiling: 600, failOpen: true },
  // All of /v1/auth/*, per IP whether or not a session is sent.
  sign_in: { tag: 'signin', scope: 'shared', principal: 'ip', principalLimit: 60, ipCeiling: null, failOpen: false },
  // One budget across paths and filters: a new cursor or filter is no new budget.
  uncached_read: { tag: 'read', scope: 'shared', principal: 'session_or_ip', principalLimit: 300, ipCeiling: 1_800, failOpen: false },
  recovery_read: { tag: 'recovery', scope: 'shared', principal: 'session_or_ip', principalLimit: 300, ipCeiling: 1_800, failOpen: false },
  account_maintenance: { tag: 'maint', scope: 'shared', principal: 'session_or_ip', principalLimit: 120, ipCeiling: 600, failOpen: false },
  // Profile edit and check share one budget.
  artist_edit: { tag: 'artist', scope: 'shared', principal: 'session_or_ip', principalLimit: 6, ipCeiling: 30, failOpen: false },
};

export type BucketSubject = {
  /** Route identity for per-route classes (the hook passes `METHOD /pattern`). */
  route: string;
  /** Session address, or null when anonymous. */
  address: string | null;
  ip: string;
};

/**
 * The buckets one request of class `cls` counts in (see limiter.ts for how
 * they are counted: all or none). Keys are `|`-separated parts with `|` and
 * `%` escaped in the variable ones, so a route, address or IP can never forge
 * another bucket's key.
 *
 * The anonymous per-IP bucket (`ip`) and the ceiling (`ip-all`) are different
 * keys: an anonymous IP stops at `principalLimit` (20 for expensive writes),
 * each session address at `principalLimit`, and everything from one IP
 * together (sessions and anonymous) at `ipCeiling` (120).
 */
export function bucketsFor(cls: BucketClass, subject: BucketSubject): Bucket[] {
  const spec = LIMITS[cls];
  if (!spec) throw new RangeError(`rate limit: unknown class ${String(cls)}`);
  const base = spec.scope === 'route' ? [spec.tag, escapePart(subject.route)] : [spec.tag];
  const ip = escapePart(ipBucketId(subject.ip));
  const address = spec.principal === 'session_or_ip' && subject.address ? escapePart(subject.address) : null;

  const buckets: Bucket[] = [
    { key: (address ? [...base, 'addr', address] : [...base, 'ip', ip]).join('|'), limit: spec.principalLimit },
  ];
  if (spec.ipCeiling !== null) buckets.push({ key: [...base, 'ip-all', ip].join('|'), limit: spec.ipCeiling });
  return buckets;
}

function escapePart(part: string): string {
  return part.replace(/%/g, '%25').replace(/\|/g, '%7C');
}
