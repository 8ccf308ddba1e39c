CREATE TABLE proposals (
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
  UNIQUE (session_id, kind)
);
CREATE INDEX proposals_status ON proposals (status);
