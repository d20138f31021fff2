import type { CounterpartyBackend } from '../../chain/ports.js';
import { mapPool } from '../../util/pool.js';

/** Longnames remembered per process; an asset's longname never changes once issued. */
const MAX_REMEMBERED = 50_000;

/**
 * Subasset longnames for rows that do not carry one (listings store none; fills do). Only a
 * numeric `A…` asset can be a subasset, so named assets and XCP never cost a lookup; a numeric
 * one is asked of Counterparty once and remembered (with its absence). A backend outage is
 * not remembered and surfaces as 503 upstream_unavailable rather than a wrong null.
 */
export class AssetLongnames {
  private readonly known = new Map<string, string | null>();

  constructor(private readonly counterparty: CounterpartyBackend) {}

  /** `seed` holds longnames already in hand (from fills), which spare a lookup. */
  async of(assets: readonly string[], seed: ReadonlyMap<string, string | null> = new Map()): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    const missing: string[] = [];
    for (const a of new Set(assets)) {
      if (!/^A[0-9]+$/.test(a)) out.set(a, null);
      else if (seed.get(a)) out.set(a, seed.get(a)!);
      else if (this.known.has(a)) out.set(a, this.known.get(a)!);
      else missing.push(a);
    }
    const found = await mapPool(missing, 4, async (a) => (await this.counterparty.getAsset(a))?.asset_longname ?? null);
    missing.forEach((a, i) => {
      out.set(a, found[i]!);
      this.remember(a, found[i]!);
    });
    return out;
  }

  private remember(asset: string, longname: string | null): void {
    if (this.known.size >= MAX_REMEMBERED) {
      const oldest = this.known.keys().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
    this.known.set(asset, longname);
  }
}
