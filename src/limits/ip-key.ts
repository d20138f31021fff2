import { isIPv4, isIPv6 } from 'node:net';

/**
 * The identity a per-IP bucket counts. An IPv4 address is itself (an
 * IPv4-mapped IPv6 address is the same IPv4 address). An IPv6 address counts
 * as its /64: one host is routinely handed a whole /64 and can rotate through
 * it at will, so per-address IPv6 buckets would make the per-IP limits and
 * ceilings meaningless. Anything else (unix socket, unknown form) is used as is.
 */
export function ipBucketId(ip: string): string {
  if (isIPv4(ip)) return ip;
  const bare = ip.replace(/%.*$/, ''); // zone index (fe80::1%eth0) is local routing, not identity
  if (!isIPv6(bare)) return ip;
  const groups = expandIPv6(bare);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi, lo] = [groups[6]!, groups[7]!];
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}

/** Eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 split in two). */
function expandIPv6(ip: string): number[] {
  const parse = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((g) => {
      if (!g.includes('.')) return [parseInt(g, 16)];
      const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const [head = '', tail] = ip.split('::');
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}
