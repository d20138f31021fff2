import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repo root, whatever directory the clone lives in. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Public test data carried in the repository (see test/fixtures/README.md). */
export const FIXTURES_DIR = path.join(REPO_ROOT, 'test', 'fixtures');
/** The official BIP vectors. */
export const VECTORS_DIR = path.join(FIXTURES_DIR, 'vectors');
/** Counterparty Core's own OpenAPI description of API v2, with example replies. */
export const COUNTERPARTY_OPENAPI = path.join(FIXTURES_DIR, 'counterparty-core', 'api-v2.openapi.json');
/** Counterparty Core's failure replies, XCP's asset row and the bitcoin-utxos shape, each with its source. */
export const COUNTERPARTY_ERROR_REPLIES = path.join(FIXTURES_DIR, 'counterparty-core', 'error-replies.json');
