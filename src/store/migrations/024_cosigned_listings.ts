import type { Kysely } from 'kysely';

/**
 * Co-signed listings (issue 18 item 2): which kind of listing protocol a draft and a listing use
 * (`plain`: the seller's naked SINGLE|ANYONECANPAY half; `cosigned`: the unit on a taproot output
 * whose leaf also needs the market signer), and for a co-signed one the keys of that output: the
 * seller's x-only key (the internal key) and the market signer's key with its version.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['listing_drafts', 'listings']) {
    await db.schema.alterTable(table).addColumn('protocol_subtype', 'text', (c) => c.notNull().defaultTo('plain')).execute();
    await db.schema.alterTable(table).addColumn('cosign_market_key', 'text').execute();
    await db.schema.alterTable(table).addColumn('cosign_key_version', 'integer').execute();
  }
  await db.schema.alterTable('listings').addColumn('cosign_seller_key', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('listings').dropColumn('cosign_seller_key').execute();
  for (const table of ['listings', 'listing_drafts']) {
    await db.schema.alterTable(table).dropColumn('cosign_key_version').execute();
    await db.schema.alterTable(table).dropColumn('cosign_market_key').execute();
    await db.schema.alterTable(table).dropColumn('protocol_subtype').execute();
  }
}
