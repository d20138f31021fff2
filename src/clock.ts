/** Wall-clock source, injected so tests can move time. Milliseconds since the epoch. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** The machine's clock moved by `skewMs` (an instance whose clock disagrees with its peers'). */
export const skewedClock = (skewMs: number): Clock => (skewMs === 0 ? systemClock : { now: () => Date.now() + skewMs });

/** A clock tests drive by hand. */
export class ManualClock implements Clock {
  constructor(private t = Date.UTC(2026, 10, 22, 12, 0, 0)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(ms: number): void {
    this.t = ms;
  }
}

export const nowSeconds = (clock: Clock): number => Math.floor(clock.now() / 1000);
