/**
 * The typed shape of every table, so one Kysely instance serves the whole
 * service. The store knows only its own tables; every area adds its tables to
 * this interface from its own `tables.ts` (TypeScript declaration merging:
 * `declare module '…/store/schema.js' { interface DatabaseSchema extends XTables {} }`),
 * so the query layer never imports the layers above it. Booleans are stored as
 * 0/1 and times as integers on both backends so one code path reads them the same way.
 */
import type { FoundationTables } from './foundation-tables.js';

export interface DatabaseSchema extends FoundationTables {}
