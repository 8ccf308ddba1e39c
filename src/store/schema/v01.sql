CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entries (
  id TEXT PRIMARY KEY,
  track TEXT NOT NULL CHECK (track IN ('user','agent')),
  scope TEXT NOT NULL CHECK (scope IN ('user-global','workspace')),
  workspace_key TEXT NOT NULL DEFAULT '',
  text TEXT NOT NULL,
  source TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  session_id TEXT
);
CREATE INDEX entries_track_scope ON entries (track, scope);
CREATE TABLE audit (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  ts INTEGER NOT NULL,
  action TEXT NOT NULL,
  track TEXT, scope TEXT, entry_id TEXT, text TEXT, outcome TEXT, source TEXT, session_id TEXT
);
CREATE INDEX audit_ts ON audit (ts);
