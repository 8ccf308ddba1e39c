//! Proposal and frozen-snapshot rows.
#![forbid(unsafe_code)]

use rusqlite::{params, types::Type, Connection, Row};

use super::sql::{exec, one, row_into, rows};
use crate::protocol::model::Proposal;

const PROPOSAL_COLUMNS: &str =
  "id, kind, track, scope, workspace_key, agent_key, text, source, session_id, status, created_at, decided_at";

fn proposal_from_row(row: &Row<'_>) -> rusqlite::Result<Proposal> {
  row_into!(row => Proposal {
    id, kind, track, scope, workspace_key, agent_key, text, source, session_id, status,
    created_at, decided_at
  })
}

/// Insert a pending proposal; `false` when the session already has a pending one of this kind.
pub fn insert_proposal(conn: &Connection, p: &Proposal) -> rusqlite::Result<bool> {
  let sql = format!(
    "INSERT OR IGNORE INTO proposals ({PROPOSAL_COLUMNS})
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'pending', ?10, NULL)"
  );
  let args = params![
    p.id,
    p.kind,
    p.track,
    p.scope,
    p.workspace_key,
    p.agent_key,
    p.text,
    p.source,
    p.session_id,
    p.created_at
  ];
  Ok(exec(conn, &sql, args)? == 1)
}

/// One proposal by id.
pub fn get_proposal(conn: &Connection, id: &str) -> rusqlite::Result<Option<Proposal>> {
  let sql = format!("SELECT {PROPOSAL_COLUMNS} FROM proposals WHERE id = ?1");
  one(conn, &sql, [id], proposal_from_row)
}

/// Proposals, optionally of one status, oldest first.
pub fn list_proposals(
  conn: &Connection,
  status: Option<&str>,
  limit: u64,
) -> rusqlite::Result<Vec<Proposal>> {
  let sql = format!("SELECT {PROPOSAL_COLUMNS} FROM proposals WHERE (?1 IS NULL OR status = ?1) ORDER BY created_at, rowid LIMIT ?2");
  rows(conn, &sql, params![status, limit as i64], proposal_from_row)
}

/// How many proposals are pending.
pub fn pending_proposals(conn: &Connection) -> rusqlite::Result<u64> {
  let sql = "SELECT count(*) FROM proposals WHERE status = 'pending'";
  let n: Option<i64> = one(conn, sql, [], |r| r.get(0))?;
  Ok(n.unwrap_or(0).unsigned_abs())
}

/// Mark a pending proposal decided; `false` if it was not pending.
pub fn decide_proposal(
  conn: &Connection,
  id: &str,
  status: &str,
  at: i64,
) -> rusqlite::Result<bool> {
  let sql =
    "UPDATE proposals SET status = ?2, decided_at = ?3 WHERE id = ?1 AND status = 'pending'";
  Ok(exec(conn, sql, params![id, status, at])? == 1)
}

/// The frozen snapshot text of a session, if one was recorded.
///
/// A text that does not match its hash was rewritten around the provider: it is an error, never
/// a system prompt.
pub fn snapshot_of(conn: &Connection, session_id: &str) -> rusqlite::Result<Option<String>> {
  let sql = "SELECT t.hash, t.text FROM snapshots s JOIN snapshot_texts t ON t.hash = s.hash WHERE s.session_id = ?1";
  let found: Option<(String, String)> = one(conn, sql, [session_id], |r| r.try_into())?;
  match found {
    Some((hash, text)) if crate::text::hex_digest(text.as_bytes()) != hash => {
      let what =
        format!("the frozen snapshot of session {session_id} does not match its hash (rewritten)");
      Err(rusqlite::Error::InvalidColumnType(1, what, Type::Text))
    }
    found => Ok(found.map(|(_, text)| text)),
  }
}

/// Record a session's snapshot (its text stored once per distinct hash) and the keys of the
/// visible set it shows (`[workspace, agent]`, when known).
pub fn insert_snapshot(
  conn: &Connection,
  (session_id, hash, text): (&str, &str, &str),
  keys: [Option<&str>; 2],
  at: i64,
) -> rusqlite::Result<()> {
  let sql = "INSERT OR IGNORE INTO snapshot_texts (hash, text) VALUES (?1, ?2)";
  exec(conn, sql, params![hash, text])?;
  let sql = "INSERT INTO snapshots (session_id, hash, created_at, workspace_key, agent_key) VALUES (?1, ?2, ?3, ?4, ?5)";
  let [workspace, agent] = keys;
  exec(conn, sql, params![session_id, hash, at, workspace, agent]).map(drop)
}
