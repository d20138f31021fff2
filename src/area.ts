import type { App } from './http/app-type.js';
import type { Context } from './context.js';
import type { Watcher } from './indexer/indexer.js';
import type { SettlementHandlers } from './settlement/journal.js';
import type { Job } from './jobs/runner.js';

/**
 * Everything one area of the spec contributes to the service, declared in its
 * own `modules/<area>/manifest.ts`. The app, the bootstrap and the job starter
 * read the list in `modules/areas.ts`; the layers below (indexer, settlement,
 * jobs) never import an area. A new area plugs in with one line in that list.
 */
export interface Area {
  /** The area's folder name. */
  name: string;
  /** Its HTTP routes. */
  routes?(app: App, ctx: Context): void | Promise<void>;
  /** What it follows on the chain, block by block, inside the indexer's transaction (in this order; rollback in reverse). */
  watchers?(ctx: Context): Watcher[];
  /** Its reactions to its own kinds of journaled settlement (journaled → relayed → confirmed, released, …), by kind. */
  settlementHandlers?(ctx: Context): Record<string, SettlementHandlers>;
  /** Its background jobs, started by the serve command beside the indexer and recovery. */
  jobs?(ctx: Context): Job[];
}
