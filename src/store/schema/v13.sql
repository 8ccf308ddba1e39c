-- v13: per-layer usage and the FTS index kept by the store's three writes of entries
-- (`store::entries`: insert, update, delete), in the write's own transaction, instead of by
-- triggers. SQLite parses every trigger of the schema whenever a connection opens, and these five
-- were a third of the schema it reads there. `IF EXISTS`: a v13 store that lost its version row
-- reads as v12 by its shape, and runs this step again.
DROP TRIGGER IF EXISTS entries_usage_insert;
DROP TRIGGER IF EXISTS entries_usage_delete;
DROP TRIGGER IF EXISTS entries_usage_update;
DROP TRIGGER IF EXISTS entries_fts_delete;
DROP TRIGGER IF EXISTS entries_fts_update;
