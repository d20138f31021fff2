import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repo root, whatever directory the clone lives in. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** `../shared` beside the clone (spec, vectors, fixtures); SHARED_DIR overrides. */
export const SHARED_DIR = process.env.SHARED_DIR ?? path.resolve(REPO_ROOT, '..', 'shared');
export const VECTORS_DIR = path.join(SHARED_DIR, 'vectors');
