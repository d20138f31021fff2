import type { Context } from '../src/context.js';

export interface Scenario {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
}

/** Market scenarios (book of 10,000 listings, cart completion) join here as those flows land. */
export async function marketScenarios(_ctx: Context, _api: string): Promise<Scenario[]> {
  return [];
}
