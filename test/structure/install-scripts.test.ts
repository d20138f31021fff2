/**
 * `npm ci` builds native parts (better-sqlite3, zeromq, the secp256k1 bindings) through their
 * install scripts. npm 11.16 started listing dependencies whose scripts are not reviewed in
 * package.json's `allowScripts`, and npm 12 skips them: the store would then fail to load on the
 * first `npm start`. Every package of the lockfile that has an install script is decided there.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { REPO_ROOT } from '../helpers/fixtures.js';

const read = (f: string) => JSON.parse(fs.readFileSync(path.join(REPO_ROOT, f), 'utf8')) as Record<string, unknown>;

it('every dependency with an install script is approved or denied in allowScripts', () => {
  const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean; version?: string }> };
  const allow = (read('package.json').allowScripts ?? {}) as Record<string, boolean>;
  const withScripts = Object.entries(lock.packages)
    .filter(([, p]) => p.hasInstallScript)
    .map(([at]) => at.slice(at.lastIndexOf('node_modules/') + 'node_modules/'.length));
  assert.ok(withScripts.includes('better-sqlite3'), 'the lockfile is read (the store builds through its install script)');
  const undecided = [...new Set(withScripts)].filter((name) => typeof allow[name] !== 'boolean');
  assert.deepEqual(undecided, [], 'decide them with npm install-scripts approve|deny <name>');
  assert.equal(allow['better-sqlite3'], true, 'the store cannot load without its build');
});
