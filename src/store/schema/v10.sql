-- v10 from v4, one step (versions 5–9 were only ever written by unreleased builds):
-- - per-layer usage in UTF-16 units (`units`, filled from Rust, which can count them), kept by
--   triggers; a workspace entry is budgeted per workspace, a user-global one in one layer;
-- - the audit hash chain (`prev_hash`/`hash`, see `store/chain.rs`) and frozen snapshots, one per
--   session, their texts stored once per distinct text;
-- - an FTS5 trigram index over the ASCII-folded text (SQLite's `lower()` is exactly the
--   protocol's folding, and `case_sensitive 1` folds nothing else), so a phrase match is the
--   protocol's substring match for needles of 3+ characters. Every text gets two `\u{1}` after
--   it, so every occurrence of a 1–2 character needle begins an indexed trigram (found through
--   the `fts5vocab` table `entries_fts_terms`). It is keyed by `entries.fts_id`, a stable
--   integer (a rowid of a table without an INTEGER PRIMARY KEY may change on VACUUM) whose
--   high 32 bits are the entry's group (`entry_groups`: one per track, scope, workspace key
--   and agent key), so a search counts the matches a session can see in the index itself.
--   `store::insert_entries` indexes new rows itself, in rowid order; triggers follow the rest;
-- - the indexes the SQL search reads: `entries_layer` covers what a search reads (the ranking
--   keys, best first, the text and `fts_id`; one range per group), `entries_rank` pages a
--   common needle in rank order, and `entries_nul` finds the texts with a NUL (FTS5 and `LIKE`
--   are not exact for those); the JS plugin's `(track, scope)` and `audit (ts)` indexes had no
--   reader;
-- - a proposals table whose one-pending-per-session rule no longer blocks after a dismissal.
ALTER TABLE entries ADD COLUMN units INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN fts_id INTEGER;
CREATE TABLE entry_groups (
  id INTEGER PRIMARY KEY,
  track TEXT NOT NULL,
  scope TEXT NOT NULL,
  workspace_key TEXT NOT NULL,
  agent_key TEXT NOT NULL,
  UNIQUE (track, scope, workspace_key, agent_key)
);
INSERT INTO entry_groups (track, scope, workspace_key, agent_key)
  SELECT DISTINCT track, scope, workspace_key, agent_key FROM entries;
UPDATE entries SET fts_id = rowid | (SELECT g.id << 32 FROM entry_groups AS g WHERE g.track = entries.track
  AND g.scope = entries.scope AND g.workspace_key = entries.workspace_key AND g.agent_key = entries.agent_key);
CREATE UNIQUE INDEX entries_fts_id ON entries (fts_id);
DROP INDEX entries_track_scope;
DROP INDEX audit_ts;
CREATE INDEX entries_layer ON entries (track, scope, workspace_key, agent_key, recall_count DESC, updated_at DESC, id, text, fts_id);
CREATE INDEX entries_nul ON entries (fts_id) WHERE instr(text, char(0)) > 0;
CREATE INDEX entries_rank ON entries (recall_count DESC, updated_at DESC, id);
CREATE TABLE layer_usage (
  track TEXT NOT NULL,
  scope TEXT NOT NULL,
  workspace_key TEXT NOT NULL,
  used INTEGER NOT NULL,
  PRIMARY KEY (track, scope, workspace_key)
) WITHOUT ROWID;
CREATE INDEX layer_usage_fullest ON layer_usage (track, scope, used);
CREATE TRIGGER entries_usage_insert AFTER INSERT ON entries BEGIN
  INSERT INTO layer_usage (track, scope, workspace_key, used)
    VALUES (NEW.track, NEW.scope, CASE NEW.scope WHEN 'workspace' THEN NEW.workspace_key ELSE '' END, NEW.units)
    ON CONFLICT (track, scope, workspace_key) DO UPDATE SET used = used + excluded.used;
END;
CREATE TRIGGER entries_usage_delete AFTER DELETE ON entries BEGIN
  UPDATE layer_usage SET used = used - OLD.units WHERE track = OLD.track AND scope = OLD.scope
    AND workspace_key = CASE OLD.scope WHEN 'workspace' THEN OLD.workspace_key ELSE '' END;
END;
CREATE TRIGGER entries_usage_update AFTER UPDATE OF units, track, scope, workspace_key ON entries BEGIN
  UPDATE layer_usage SET used = used - OLD.units WHERE track = OLD.track AND scope = OLD.scope
    AND workspace_key = CASE OLD.scope WHEN 'workspace' THEN OLD.workspace_key ELSE '' END;
  INSERT INTO layer_usage (track, scope, workspace_key, used)
    VALUES (NEW.track, NEW.scope, CASE NEW.scope WHEN 'workspace' THEN NEW.workspace_key ELSE '' END, NEW.units)
    ON CONFLICT (track, scope, workspace_key) DO UPDATE SET used = used + excluded.used;
END;
CREATE VIRTUAL TABLE entries_fts USING fts5(folded, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1);
INSERT INTO entries_fts (rowid, folded) SELECT fts_id, lower(text) || char(1, 1) FROM entries ORDER BY fts_id;
CREATE VIRTUAL TABLE entries_fts_terms USING fts5vocab(entries_fts, 'instance');
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
  DELETE FROM entries_fts WHERE rowid = OLD.fts_id;
END;
CREATE TRIGGER entries_fts_update AFTER UPDATE OF text ON entries BEGIN
  DELETE FROM entries_fts WHERE rowid = OLD.fts_id;
  INSERT INTO entries_fts (rowid, folded) VALUES (NEW.fts_id, lower(NEW.text) || char(1, 1));
END;
ALTER TABLE audit ADD COLUMN prev_hash TEXT;
ALTER TABLE audit ADD COLUMN hash TEXT;
CREATE INDEX audit_recalls ON audit (session_id, action, seq);
CREATE TABLE snapshot_texts (hash TEXT PRIMARY KEY, text TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE snapshots (
  session_id TEXT PRIMARY KEY,
  hash TEXT NOT NULL REFERENCES snapshot_texts (hash),
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE proposals_v10 (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  track TEXT NOT NULL,
  scope TEXT NOT NULL,
  workspace_key TEXT NOT NULL DEFAULT '',
  text TEXT NOT NULL,
  source TEXT NOT NULL,
  session_id TEXT,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','approved','dismissed')),
  created_at INTEGER NOT NULL,
  decided_at INTEGER,
  agent_key TEXT NOT NULL DEFAULT ''
);
INSERT INTO proposals_v10 SELECT id, kind, track, scope, workspace_key, text, source, session_id, status, created_at, decided_at, agent_key FROM proposals;
DROP TABLE proposals;
ALTER TABLE proposals_v10 RENAME TO proposals;
CREATE INDEX proposals_status ON proposals (status, created_at, id);
CREATE UNIQUE INDEX proposals_pending_once ON proposals (session_id, kind)
  WHERE status = 'pending' AND session_id IS NOT NULL AND session_id <> '';
