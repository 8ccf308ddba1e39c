//! The audit ledger's hash chain: append-only rows chained by SHA-256 (`sha2`), their reads, and
//! retention pruning that leaves a checkpoint so what remains stays verifiable ([`super::ledger`]
//! walks it).
//!
//! Threat model: the chain makes *accidental or naive* edits evident — a row changed, removed or
//! inserted anywhere, the newest rows or every row deleted (the chain's head, `seq` and hash, is
//! recorded in `meta` with every append, and SQLite's own `sqlite_sequence` remembers the highest
//! `seq` handed out), and entries whose text or layer usage no longer match what the ledger
//! approved. Anyone who can write the file can also recompute the whole chain, its head and the
//! sequence consistently; the head hash (returned by [`super::ledger::verify`]) is what a user records elsewhere
//! to detect that.
#![forbid(unsafe_code)]

use rusqlite::{params, Connection, Params};
use serde_json::json;

use super::now_ms;
use super::sql::{exec, has_column, meta, one, put_meta, row_into};
use crate::protocol::model::AuditRow;
pub use crate::text::hex_digest;

/// Meta key holding the hash of the last pruned row (the chain's starting point).
pub(super) const CHECKPOINT_KEY: &str = "audit_checkpoint";
/// Meta key holding the newest row's `seq` and hash (`"{seq} {hash}"`), written with every append.
const HEAD_KEY: &str = "audit_head";

/// An audit row to append (`seq`/`ts` are assigned by the store).
#[derive(Debug, Clone, Default)]
pub struct NewAudit<'a> {
  /// Action from the catalogue.
  pub action: &'a str,
  /// Track.
  pub track: Option<&'a str>,
  /// Scope.
  pub scope: Option<&'a str>,
  /// Entry or proposal id.
  pub entry_id: Option<&'a str>,
  /// Text.
  pub text: Option<&'a str>,
  /// Outcome label.
  pub outcome: Option<&'a str>,
  /// Source.
  pub source: Option<&'a str>,
  /// Session.
  pub session_id: Option<&'a str>,
  /// An entry's keys and tags as approved ([`crate::protocol::model::approved_fields`]).
  pub fields: Option<String>,
}

/// The hash of one row: SHA-256 over a canonical JSON array of the previous hash and every field
/// (`fields` last, when the row has them: rows written before it existed keep their hash).
pub fn row_hash(prev: &str, row: &AuditRow) -> String {
  let mut canonical = json!([
    prev,
    row.seq,
    row.ts,
    row.action,
    row.track,
    row.scope,
    row.entry_id,
    row.text,
    row.outcome,
    row.source,
    row.session_id
  ]);
  if let (Some(fields), Some(all)) = (&row.fields, canonical.as_array_mut()) {
    all.push(fields.clone().into());
  }
  hex_digest(canonical.to_string().as_bytes())
}

/// The hash the next row chains to, and the `seq` it will get: one past the highest ever used
/// (`AUTOINCREMENT` keeps it in `sqlite_sequence` even when the tail rows are gone), as SQLite
/// itself would assign it.
fn chain_tail(conn: &Connection) -> rusqlite::Result<(String, i64)> {
  let sql = "SELECT coalesce(CASE WHEN EXISTS (SELECT 1 FROM audit)
         THEN (SELECT hash FROM audit ORDER BY seq DESC LIMIT 1)
         ELSE (SELECT value FROM meta WHERE key = ?1) END, ''),
       max(coalesce((SELECT max(seq) FROM audit), 0),
           coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'audit'), 0)) + 1";
  let mut tail = conn.prepare_cached(sql)?;
  tail.query_row([CHECKPOINT_KEY], |r| r.try_into())
}

/// Append one row, chained to the previous one, in one INSERT. Returns its `seq`.
pub fn append(conn: &Connection, a: &NewAudit<'_>) -> rusqlite::Result<i64> {
  append_all(conn, std::slice::from_ref(a))
}

/// Append rows in order, each chained to the one before; the chain's tail is read once.
/// Returns the last `seq`.
pub fn append_all(conn: &Connection, rows: &[NewAudit<'_>]) -> rusqlite::Result<i64> {
  if rows.is_empty() {
    return Ok(0);
  }
  let (mut prev, mut seq) = chain_tail(conn)?;
  let mut insert = conn.prepare_cached(
    "INSERT INTO audit (seq, ts, action, track, scope, entry_id, text, outcome, source, session_id, prev_hash, hash, fields)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
  )?;
  for a in rows {
    let row = AuditRow {
      seq,
      ts: now_ms(),
      action: a.action.to_string(),
      track: a.track.map(str::to_string),
      scope: a.scope.map(str::to_string),
      entry_id: a.entry_id.map(str::to_string),
      text: a.text.map(str::to_string),
      outcome: a.outcome.map(str::to_string),
      source: a.source.map(str::to_string),
      session_id: a.session_id.map(str::to_string),
      fields: a.fields.clone(),
    };
    let hash = row_hash(&prev, &row);
    insert.execute(params![
      seq,
      row.ts,
      a.action,
      a.track,
      a.scope,
      a.entry_id,
      a.text,
      a.outcome,
      a.source,
      a.session_id,
      prev,
      hash,
      a.fields
    ])?;
    (prev, seq) = (hash, seq + 1);
  }
  put_meta(conn, HEAD_KEY, &format!("{} {prev}", seq - 1))?;
  Ok(seq - 1)
}

/// The recorded head: `(seq, hash)`.
pub(super) fn head(conn: &Connection) -> rusqlite::Result<Option<(i64, String)>> {
  let parse = |v: String| {
    let (seq, hash) = v.split_once(' ')?;
    Some((seq.parse().ok()?, hash.to_string()))
  };
  Ok(meta(conn, HEAD_KEY)?.and_then(parse))
}

/// The highest `seq` SQLite has handed out (`AUTOINCREMENT` keeps it after its row is gone).
pub(super) fn sequence(conn: &Connection) -> rusqlite::Result<i64> {
  let sql = "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'audit'), 0)";
  conn.prepare_cached(sql)?.query_row([], |r| r.get(0))
}

/// Record the chain's head as it stands: its newest row, or — every row pruned — the highest
/// `seq` handed out with the checkpoint. Part of the migration that introduced heads.
pub fn record_head(conn: &Connection) -> rusqlite::Result<()> {
  let sql = "SELECT seq, coalesce(hash, '') FROM audit ORDER BY seq DESC LIMIT 1";
  let newest: Option<(i64, String)> = one(conn, sql, [], |r| r.try_into())?;
  let head = match newest {
    Some((seq, hash)) if seq != 0 => format!("{seq} {hash}"),
    Some((_, hash)) => format!("{} {hash}", sequence(conn)?),
    None => match meta(conn, CHECKPOINT_KEY)? {
      Some(hash) => format!("{} {hash}", sequence(conn)?),
      None => return Ok(()),
    },
  };
  put_meta(conn, HEAD_KEY, &head)
}

/// The rows of `SELECT {AUDIT_COLUMNS} FROM audit {rest}`, in its order.
pub(super) fn audit_rows(
  conn: &Connection,
  rest: &str,
  args: impl Params,
) -> rusqlite::Result<Vec<AuditRow>> {
  let sql = format!("SELECT {AUDIT_COLUMNS} FROM audit {rest}");
  super::sql::rows(conn, &sql, args, audit_from_row)
}

pub(super) fn audit_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<AuditRow> {
  row_into!(row => AuditRow {
    seq, ts, action, track, scope, entry_id, text, outcome, source, session_id, fields
  })
}

pub(super) const AUDIT_COLUMNS: &str =
  "seq, ts, action, track, scope, entry_id, text, outcome, source, session_id, fields";

/// Prefix of a `snapshot` row's stored text: the row references the text by its SHA-256, and
/// listings show the text itself.
pub const SNAPSHOT_REF: &str = "sha256:";

/// The newest `limit` rows, newest first; `snapshot` rows carry their full text. Without their
/// `fields` (hashed, not listed).
pub fn list(conn: &Connection, limit: u64) -> rusqlite::Result<Vec<AuditRow>> {
  let sql = "SELECT seq, ts, action, track, scope, entry_id,
       CASE WHEN action = 'snapshot' AND text LIKE 'sha256:%'
         THEN coalesce((SELECT t.text FROM snapshot_texts t WHERE t.hash = substr(audit.text, 8)), audit.text)
         ELSE text END,
       outcome, source, session_id, NULL
     FROM audit ORDER BY seq DESC LIMIT ?1";
  let limit = limit.min(i64::MAX as u64) as i64;
  super::sql::rows(conn, sql, [limit], audit_from_row)
}

/// The newest `recalled` row of a session, if any.
pub fn last_recall(conn: &Connection, session_id: &str) -> rusqlite::Result<Option<AuditRow>> {
  let rest = "WHERE session_id = ?1 AND action = 'recalled' ORDER BY seq DESC LIMIT 1";
  Ok(audit_rows(conn, rest, [session_id])?.pop())
}

/// Delete the expired head of the ledger: rows older than `cutoff_ms`, oldest first, up to
/// `batch` of them (`None`: all), stopping at the first row that is not expired — so only a
/// prefix is ever removed and the rest still verifies from the checkpoint, which moves to the
/// last deleted row's hash. Reads only the rows it deletes plus one.
pub fn prune(conn: &Connection, cutoff_ms: i64, batch: Option<i64>) -> rusqlite::Result<usize> {
  let mut last: Option<(i64, Option<String>)> = None;
  {
    let mut stmt = conn.prepare_cached("SELECT seq, hash, ts FROM audit ORDER BY seq LIMIT ?1")?;
    let mut rows = stmt.query([batch.unwrap_or(-1)])?;
    while let Some(row) = rows.next()? {
      if row.get::<_, i64>(2)? >= cutoff_ms {
        break;
      }
      last = Some((row.get(0)?, row.get(1)?));
    }
  }
  let Some((seq, hash)) = last else {
    return Ok(0);
  };
  let deleted = exec(conn, "DELETE FROM audit WHERE seq <= ?1", [seq])?;
  put_meta(conn, CHECKPOINT_KEY, &hash.unwrap_or_default())?;
  Ok(deleted)
}

/// Compute `prev_hash`/`hash` for every row and record the head (the migration of an older store).
pub fn backfill(conn: &Connection) -> rusqlite::Result<()> {
  // Run by the v10 step, before v11 adds `fields` (every row then has none).
  let columns = match has_column(conn, "audit", "fields")? {
    true => AUDIT_COLUMNS.to_string(),
    false => AUDIT_COLUMNS.replace(", fields", ", NULL"),
  };
  let sql = format!("SELECT {columns} FROM audit ORDER BY seq");
  let rows: Vec<AuditRow> = super::sql::rows(conn, &sql, [], audit_from_row)?;
  let mut update = conn.prepare("UPDATE audit SET prev_hash = ?2, hash = ?3 WHERE seq = ?1")?;
  let mut prev = meta(conn, CHECKPOINT_KEY)?.unwrap_or_default();
  for row in &rows {
    let hash = row_hash(&prev, row);
    update.execute(params![row.seq, prev, hash])?;
    prev = hash;
  }
  let head = rows.last().map(|row| format!("{} {prev}", row.seq));
  head.map_or(Ok(()), |head| put_meta(conn, HEAD_KEY, &head))
}
