//! The ledger read for one entry or one change: the rows that made and ended an entry (by the
//! `audit_entry` index), the rows of the change an audit row belongs to, and the sessions whose
//! snapshots were recorded.
#![forbid(unsafe_code)]

use rusqlite::{params, Connection};

use super::chain::audit_rows;
use super::sql::rows;
use crate::protocol::model::{AuditRow, RowFields};

pub use super::ledger::{ENDS, SETS};

/// Every row that names entry `id`, oldest first.
pub fn of_entry(conn: &Connection, id: &str) -> rusqlite::Result<Vec<AuditRow>> {
  audit_rows(conn, "WHERE entry_id = ?1 ORDER BY seq", [id])
}

/// The row `seq`, if the ledger still holds it.
pub fn row(conn: &Connection, seq: i64) -> rusqlite::Result<Option<AuditRow>> {
  Ok(audit_rows(conn, "WHERE seq = ?1", [seq])?.pop())
}

/// The rows from `from` to `to` (both included), oldest first.
pub fn span(conn: &Connection, from: i64, to: i64) -> rusqlite::Result<Vec<AuditRow>> {
  let rest = "WHERE seq BETWEEN ?1 AND ?2 ORDER BY seq";
  audit_rows(conn, rest, params![from, to])
}

/// How many rows around `seq` one change may span: a consolidate of its most targets, or a
/// seed of its most entries, is read in pages of this many.
const PAGE: i64 = 64;

/// The rows of the change `seq` belongs to — what one committed write appended in one
/// transaction: a consolidate's removals and its addition; a seed's row and its entries'; a
/// revert's rows (they name the `seq` they revert); any other row alone.
pub fn change_of(conn: &Connection, seq: i64) -> rusqlite::Result<Vec<AuditRow>> {
  let Some(at) = row(conn, seq)? else {
    return Ok(Vec::new());
  };
  let reverts = |r: &AuditRow| RowFields::parse(r.fields.as_deref())?.reverts;
  if let Some(n) = reverts(&at) {
    let same = |r: &AuditRow| reverts(r) == Some(n) && r.session_id == at.session_id;
    return around(conn, seq, same, same);
  }
  let consolidate =
    |r: &AuditRow| r.session_id == at.session_id && r.action.starts_with("consolidate-");
  match at.action.as_str() {
    "seed" => seed_batch(conn, &at),
    "consolidate-remove" | "consolidate-add" => {
      // Its removals, then the one addition that ends it.
      let removal = |r: &AuditRow| consolidate(r) && r.action == "consolidate-remove";
      let mut rows = around(conn, seq, removal, consolidate)?;
      let added = |r: &AuditRow| r.seq >= seq && r.action == "consolidate-add";
      let end = rows.iter().position(added);
      rows.truncate(end.map_or(rows.len(), |end| end + 1));
      Ok(rows)
    }
    _ => Ok(vec![at]),
  }
}

/// The run of rows around `seq` that `before` admits going back and `after` going forward
/// (`seq` itself included), oldest first.
fn around(
  conn: &Connection,
  seq: i64,
  before: impl Fn(&AuditRow) -> bool,
  after: impl Fn(&AuditRow) -> bool,
) -> rusqlite::Result<Vec<AuditRow>> {
  let mut rows = walk(conn, seq - 1, true, before)?;
  rows.reverse();
  rows.extend(walk(conn, seq, false, |r| r.seq == seq || after(r))?);
  Ok(rows)
}

/// The rows from `from` on, down (`back`) or up, while `keep` admits them, read in pages.
fn walk(
  conn: &Connection,
  from: i64,
  back: bool,
  mut keep: impl FnMut(&AuditRow) -> bool,
) -> rusqlite::Result<Vec<AuditRow>> {
  let mut out = Vec::new();
  let mut next = from;
  loop {
    let mut page = match back {
      true => span(conn, (next - PAGE + 1).max(1), next)?,
      false => span(conn, next, next + PAGE - 1)?,
    };
    let full = page.len() as i64 == PAGE;
    if back {
      page.reverse();
    }
    for r in page {
      if !keep(&r) {
        return Ok(out);
      }
      next = if back { r.seq - 1 } else { r.seq + 1 };
      out.push(r);
    }
    if !full || next < 1 {
      return Ok(out);
    }
  }
}

/// A seed row and the `add` rows its transaction appended after it: as many as it recorded
/// (`{"entries": n}`), or, for a row written before seeds recorded their size, the `add` rows
/// of the same session and outcome that follow it.
fn seed_batch(conn: &Connection, at: &AuditRow) -> rusqlite::Result<Vec<AuditRow>> {
  let fields = at.fields.as_deref().unwrap_or_default();
  let fields: Option<serde_json::Value> = serde_json::from_str(fields).ok();
  let recorded = fields.and_then(|f| f["entries"].as_i64());
  let mut taken = 0;
  let more = |r: &AuditRow| {
    taken += 1;
    let same = r.action == "add" && r.session_id == at.session_id && r.outcome == at.outcome;
    recorded.is_none_or(|n| taken <= n) && same
  };
  let mut out = vec![at.clone()];
  out.extend(walk(conn, at.seq + 1, false, more)?);
  Ok(out)
}

/// The first `consolidate-add` row after `seq`: the entry a consolidate merged its targets into.
pub fn merged_after(conn: &Connection, seq: i64) -> rusqlite::Result<Option<AuditRow>> {
  let rest = "WHERE seq > ?1 AND action = 'consolidate-add' ORDER BY seq LIMIT 1";
  Ok(audit_rows(conn, rest, [seq])?.pop())
}

/// A recorded session: its id, when its snapshot was recorded (epoch ms), the workspace and
/// agent keys it saw (unknown for a session recorded before keys were), and the snapshot text it
/// was given.
pub type Session = (String, i64, Option<String>, Option<String>, String);

/// Recorded sessions, newest first: one (`session_id`), or up to `limit`.
pub fn sessions(
  conn: &Connection,
  session_id: Option<&str>,
  limit: u64,
) -> rusqlite::Result<Vec<Session>> {
  let sql = "SELECT s.session_id, s.created_at, s.workspace_key, s.agent_key, t.text
     FROM snapshots AS s JOIN snapshot_texts AS t ON t.hash = s.hash
     WHERE ?1 IS NULL OR s.session_id = ?1 ORDER BY s.created_at DESC, s.session_id LIMIT ?2";
  let limit = limit.min(i64::MAX as u64) as i64;
  rows(conn, sql, params![session_id, limit], |r| r.try_into())
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::store::chain::{append, NewAudit};

  #[test]
  fn a_change_is_read_across_pages_both_ways() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let mut store = crate::store::Store::open(&dir.path().join("memory.db"), 0)?;
    let row = |action, session, fields: Option<&str>| NewAudit {
      action,
      session_id: Some(session),
      fields: fields.map(str::to_string),
      ..NewAudit::default()
    };
    store.write(|tx, path| {
      let put = |a: NewAudit<'_>| append(tx, &a).map_err(|e| crate::store::fail_at(path, e));
      put(row("note", "s", None))?;
      // seq 2: a seed of 100 entries followed by 150 adds of its session.
      put(row("seed", "s", Some(r#"{"entries": 100}"#)))?;
      for _ in 0..150 {
        put(row("add", "s", None))?;
      }
      // seq 153: a seed that did not record its size, then 70 adds; then another session's.
      put(row("seed", "t", None))?;
      for _ in 0..70 {
        put(row("add", "t", None))?;
      }
      put(row("add", "u", None))?;
      // seq 225..=354: a consolidate's 130 removals, then its addition, then another one's.
      for _ in 0..130 {
        put(row("consolidate-remove", "c", None))?;
      }
      put(row("consolidate-add", "c", None))?;
      put(row("consolidate-remove", "c", None))?;
      Ok(())
    })?;
    let conn = store.conn();
    let seqs = |rows: Vec<AuditRow>| rows.iter().map(|r| r.seq).collect::<Vec<_>>();
    assert_eq!(seqs(change_of(conn, 2)?), (2..=102).collect::<Vec<_>>());
    assert_eq!(seqs(change_of(conn, 153)?), (153..=223).collect::<Vec<_>>());
    assert_eq!(seqs(change_of(conn, 300)?), (225..=355).collect::<Vec<_>>());
    assert_eq!(seqs(change_of(conn, 355)?), (225..=355).collect::<Vec<_>>());
    Ok(())
  }
}
