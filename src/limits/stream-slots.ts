/**
 * Concurrent streams per key (an IP's, an address's): a slot is taken when a stream opens and
 * given back when it closes. In process by default; on Redis (redis-stream-slots.ts) when
 * several instances share the limits, so 20 streams per IP means 20 across the whole market.
 */
export interface SlotRequest {
  key: string;
  limit: number;
}

export type SlotGrant = { release: () => void } | { full: string };

export interface StreamSlots {
  /** A slot under every key, all or none: its release (idempotent), or the first key that is full. */
  take(list: readonly SlotRequest[]): Promise<SlotGrant>;
  close(): Promise<void>;
}

export class MemoryStreamSlots implements StreamSlots {
  private readonly counts = new Map<string, number>();

  async take(list: readonly SlotRequest[]): Promise<SlotGrant> {
    // No await between the check and the count: concurrent opens cannot both pass a full key.
    const full = list.find((r) => (this.counts.get(r.key) ?? 0) >= r.limit);
    if (full) return { full: full.key };
    for (const r of list) this.bump(r.key, 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        for (const r of list) this.bump(r.key, -1);
      },
    };
  }

  private bump(key: string, by: number): void {
    const n = (this.counts.get(key) ?? 0) + by;
    if (n <= 0) this.counts.delete(key);
    else this.counts.set(key, n);
  }

  async close(): Promise<void> {}
}
