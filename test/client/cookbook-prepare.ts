/**
 * `node --import tsx test/client/cookbook-prepare.ts`: builds, packs and installs the client once
 * (cookbook-harness.ts) before the cookbook files run, so their time limit covers the examples,
 * not a cold build. scripts/test.mjs runs it when a cookbook file is selected.
 */
import { installedClient } from './cookbook-harness.js';

process.stdout.write(`packed client installed in ${await installedClient()}\n`);
