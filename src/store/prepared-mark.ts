// A module of its own, without pg: the reads that carry the mark are loaded on SQLite too, where
// pg is never loaded (docs/performance.md, idle memory).
/**
 * A query that opts in with `PREPARED_MARK` (a marker comment in its SQL) is sent to
 * PostgreSQL as a named prepared statement: parsed and planned once per connection, then only
 * bound and run. Kysely sends every query unnamed, so PostgreSQL parses and plans each one every
 * time; for the collection book (one statement of a dozen subqueries) planning alone was most of
 * a read. Opt-in, not for every query: after five runs PostgreSQL may keep a generic plan, which
 * suits the few hot reads marked, each with the same shape whatever its parameters.
 *
 * The name is a hash of the text, so two texts never share one (PostgreSQL refuses a name
 * prepared with other text on the same connection), and the same text has the same name on
 * every connection of the pool.
 */
export const PREPARED_MARK = '/*prepared*/';
