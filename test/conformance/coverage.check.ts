/**
 * Run by scripts/test.mjs after a whole-suite run (not a *.test.ts file: it reads what every other
 * test file recorded through test/conformance/observed.ts). Fails when a code of the spec's table
 * (or an extension) was never triggered by any test, when an answer carries a code at a status its
 * row does not allow, or when it lacks an extra its row promises. Run it alone on a directory:
 *   CONFORMANCE_OBSERVED=/tmp/dir node --import tsx --test test/conformance/coverage.check.ts
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OBSERVED_DIR, readObserved } from './observed.js';
import { EXTENSION_CODES, SPEC_CODES } from './spec-tables.js';

const CODES = { ...SPEC_CODES, ...EXTENSION_CODES };

/**
 * Statuses beyond a code's row, each for a reason: the framework's and Node's own refusals of a
 * malformed request keep the HTTP status that names them (408, 414, 417, 431) and speak
 * invalid_request; an over-long path parameter is 414.
 */
const ALSO: Record<string, number[]> = { invalid_request: [408, 414, 417, 431] };

const dir = process.env[OBSERVED_DIR];

test('every code of the spec\'s table is triggered by at least one test, at one of its statuses, with its extras', { skip: dir ? false : `${OBSERVED_DIR} is not set (a whole-suite run sets it)` }, () => {
  const seen = readObserved(dir!);
  assert.ok(seen.length > 0, `nothing was recorded under ${dir}`);
  const never = Object.keys(CODES).filter((c) => !seen.some((o) => o.code === c));
  assert.deepEqual(never, [], 'codes no test triggers');
  const problems: string[] = [];
  for (const o of seen) {
    const row = CODES[o.code];
    const where = `${o.method} ${o.route}`;
    if (!row) {
      problems.push(`${where}: ${o.code} is in no row`);
      continue;
    }
    if (!row.statuses.includes(o.status) && !(ALSO[o.code] ?? []).includes(o.status)) problems.push(`${where}: ${o.code} at ${o.status}, its row allows ${row.statuses.join(', ')}`);
    for (const x of row.extras) if (!o.fields.includes(x)) problems.push(`${where}: ${o.code} without ${x}`);
    // 401 only means "sign in again": a signature_invalid 401 is a sign-in proof's, on /v1/auth/*.
    if (o.code === 'signature_invalid' && o.status === 401 && !o.route.startsWith('/v1/auth/')) problems.push(`${where}: signature_invalid 401 outside sign-in`);
  }
  assert.deepEqual(problems, []);
});
