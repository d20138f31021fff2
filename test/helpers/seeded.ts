/** A small deterministic generator: a seeded test's run is the same on every backend and every time. */
export function random(seed: number) {
  let s = seed >>> 0;
  // mulberry32: every bit of it varies, so small ranges are all reached.
  return (n: number) => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}
