-- v12: an entry's rows found by its id (its history, the change a revert undoes), and the keys
-- a session saw beside its frozen snapshot.
CREATE INDEX audit_entry ON audit (entry_id, seq) WHERE entry_id IS NOT NULL;
ALTER TABLE snapshots ADD COLUMN workspace_key TEXT;
ALTER TABLE snapshots ADD COLUMN agent_key TEXT;
