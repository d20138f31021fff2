import type { Kysely } from 'kysely';
import { upBookFills } from './085_book_fills.js';
import { upHolderAssets } from './085_holder_assets.js';

/**
 * Two reads that walked more than they show, kept ready by triggers instead (issue #33 item 1):
 * the book's recent fills (`book_fills`, 085_book_fills.ts) and the listed holders' assets
 * (`holder_assets`, 085_holder_assets.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await upBookFills(db);
  await upHolderAssets(db);
}
