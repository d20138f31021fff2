import type { Context } from '../src/context.js';
import { bookScenarios, type Timing } from './book.js';

export interface Scenario {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
}

/** Market read scenarios over HTTP, and the uncached builds the shared cache hides. */
export async function marketScenarios(ctx: Context, api: string): Promise<{ scenarios: Scenario[]; uncached: Timing[] }> {
  return bookScenarios(ctx, api);
}
