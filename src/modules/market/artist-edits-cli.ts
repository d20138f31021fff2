import { parseArgs } from 'node:util';
import type { Context } from '../../context.js';
import { isApiError } from '../../http/errors.js';
import { artistsServiceOf } from './artists-routes.js';
import { ArtistProfileStore, type EditRecord } from './artist-profile-store.js';

const USAGE = 'usage: npm run artist:edits -- [--artist KEY_OR_ID] [--since UNIX_SECONDS] [--limit N]';

/**
 * The operator's read of the artist profile edit record (there is no operator role on the
 * HTTP API, so this stays off it): one JSON object per line, newest first, each with the
 * artist, the editor address, when, why it was eligible and every changed field's old and new value.
 * `--artist` takes an artist key as the API shows it, or a curated artist id (also for an artist
 * a later import removed).
 */
export async function artistEditsCommand(ctx: Context, argv: string[]): Promise<EditRecord[]> {
  const { values } = parseArgs({ args: argv, options: { artist: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' } }, strict: true });
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  const since = values.since === undefined ? undefined : Number(values.since);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100_000) throw new Error(`--limit must be an integer 1..100000; ${USAGE}`);
  if (since !== undefined && (!Number.isInteger(since) || since < 0)) throw new Error(`--since must be unix seconds; ${USAGE}`);
  let artistId: string | undefined;
  if (values.artist !== undefined) artistId = await artistIdOf(ctx, values.artist);
  return new ArtistProfileStore(ctx.store.db).edits({ ...(artistId === undefined ? {} : { artistId }), ...(since === undefined ? {} : { since }), limit });
}

async function artistIdOf(ctx: Context, keyOrId: string): Promise<string> {
  try {
    const { curated } = await artistsServiceOf(ctx).resolve(keyOrId);
    if (curated) return curated.id;
  } catch (e) {
    if (!isApiError(e)) throw e;
  }
  if (/^[0-9a-f]{16}$/.test(keyOrId)) return keyOrId;
  throw new Error(`no curated artist ${keyOrId}; ${USAGE}`);
}
