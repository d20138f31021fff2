import crypto from 'node:crypto';
import fs from 'node:fs';
import { etagOf } from '../../http/cache-front-door.js';

/** One file of the page, held in memory: its bytes, its strong ETag and a short content hash for its URL. */
export interface PageAsset {
  body: string;
  etag: string;
  version: string;
  contentType: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * Reads a file of `assets/` (beside this module in src/, copied beside it in dist/ by `npm run
 * build`). Called when the routes register, never at import.
 */
export function readAsset(name: string, transform: (text: string) => string = (t) => t): PageAsset {
  const body = transform(fs.readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8'));
  const ext = name.slice(name.lastIndexOf('.'));
  return {
    body,
    etag: etagOf(body),
    version: crypto.createHash('sha256').update(body).digest('hex').slice(0, 12),
    contentType: TYPES[ext] ?? 'application/octet-stream',
  };
}
