/**
 * One owner per state machine: only listings/lifecycle.ts writes listing rows and
 * only fills/ledger.ts writes fills and only offers/lifecycle.ts writes offers and their slots, so every transition has one guarded UPDATE
 * (and its event) and no second writer can bypass the guard.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { REPO_ROOT } from '../helpers/fixtures.js';

const OWNERS: Record<string, string> = {
  listings: 'src/modules/listings/lifecycle.ts',
  fills: 'src/trade/fills.ts',
  offers: 'src/modules/offers/lifecycle.ts',
  offer_slots: 'src/modules/offers/lifecycle.ts',
  offer_placements: 'src/modules/offers/lifecycle.ts',
  exact_authorizations: 'src/modules/offers/authorizations.ts',
  offer_counters: 'src/modules/offers/counters.ts',
  policy_funding_sets: 'src/modules/policy-offers/lifecycle.ts',
  policy_funding_inputs: 'src/modules/policy-offers/lifecycle.ts',
  policy_offers: 'src/modules/policy-offers/lifecycle.ts',
  policy_accepts: 'src/modules/policy-offers/lifecycle.ts',
  market_anchors: 'src/modules/policy-offers/anchors.ts',
  webhook_endpoints: 'src/modules/webhooks/lifecycle.ts',
  webhook_deliveries: 'src/modules/webhooks/lifecycle.ts',
  webhook_delivery_counts: 'src/modules/webhooks/lifecycle.ts',
  owner_events: 'src/trade/owner-events.ts',
  event_log: 'src/events/append.ts',
  event_seq: 'src/events/append.ts',
  leader_epochs: 'src/cluster/fence.ts',
};

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

void it('each state table is written by its owner only', () => {
  const offenders: string[] = [];
  for (const file of sources(path.join(REPO_ROOT, 'src'))) {
    const rel = path.relative(REPO_ROOT, file);
    if (rel.startsWith('src/store/migrations/')) continue;
    const text = fs.readFileSync(file, 'utf8');
    for (const [table, owner] of Object.entries(OWNERS)) {
      const writes = new RegExp(`(updateTable|insertInto|deleteFrom)\\(\\s*'${table}'`);
      if (rel !== owner && writes.test(text)) offenders.push(`${rel} writes ${table} (owner: ${owner})`);
    }
  }
  assert.deepEqual(offenders, []);
});
