import type { Context } from '../src/context.js';
import { bookScenarios } from './book.js';

export interface Scenario {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
}

/** Market scenarios (book of 10,000 listings, cart completion) join here as those flows land. */
export async function marketScenarios(ctx: Context, api: string): Promise<Scenario[]> {
  return [...(await bookScenarios(ctx, api))];
}
