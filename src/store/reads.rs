//! Entry reads that the read model and the protocol's views compose: index rows (the model's
//! load and refresh), pages by rowid, a session's layers by index, and the ids a needle matches
//! in SQLite (FTS5 or a scan).
#![forbid(unsafe_code)]

use std::collections::HashMap;

use rusqlite::{params, Connection, Row};

use crate::protocol::model::{Entry, Scope, Track};
use crate::store::{entry_from_row, Visibility, ENTRY_COLUMNS};

/// An entry and its rowid (the creation-order tie-break).
fn with_rowid(row: &Row<'_>) -> rusqlite::Result<(i64, Entry)> {
  Ok((row.get(14)?, entry_from_row(row)?))
}

/// What the read model indexes of an entry row, borrowed from SQLite's buffers.
#[derive(Debug, Clone, Copy)]
pub struct IndexRow<'a> {
  /// SQLite rowid.
  pub rowid: i64,
  /// Entry id.
  pub id: &'a str,
  /// Track.
  pub track: Track,
  /// Scope.
  pub scope: Scope,
  /// Workspace key.
  pub workspace_key: &'a str,
  /// Agent key.
  pub agent_key: &'a str,
  /// Text.
  pub text: &'a str,
  /// Epoch ms.
  pub updated_at: i64,
  /// Epoch ms of the last query hit.
  pub last_recalled: Option<i64>,
  /// Query hit count.
  pub recall_count: i64,
}

const INDEX_COLUMNS: &str =
  "rowid, id, track, scope, workspace_key, agent_key, text, updated_at, last_recalled, recall_count";

fn index_row<'r>(row: &'r Row<'_>) -> rusqlite::Result<IndexRow<'r>> {
  let text = |i: usize| -> rusqlite::Result<&'r str> {
    row.get_ref(i)?.as_str().map_err(|e| {
      rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
    })
  };
  let bad = |what: String| rusqlite::Error::InvalidColumnType(0, what, rusqlite::types::Type::Text);
  let (track, scope) = (text(2)?, text(3)?);
  Ok(IndexRow {
    rowid: row.get(0)?,
    id: text(1)?,
    track: Track::parse(track).ok_or_else(|| bad(format!("track {track}")))?,
    scope: Scope::parse(scope).ok_or_else(|| bad(format!("scope {scope}")))?,
    workspace_key: text(4)?,
    agent_key: text(5)?,
    text: text(6)?,
    updated_at: row.get(7)?,
    last_recalled: row.get(8)?,
    recall_count: row.get(9)?,
  })
}

/// How many entries the store holds.
pub fn entry_count(conn: &Connection) -> rusqlite::Result<usize> {
  conn.query_row("SELECT count(*) FROM entries", [], |r| {
    r.get::<_, i64>(0).map(|n| n.max(0) as usize)
  })
}

/// Visit every entry's indexed columns, one row at a time (the read model's load).
pub fn for_each_index_row(
  conn: &Connection,
  mut visit: impl FnMut(IndexRow<'_>),
) -> rusqlite::Result<()> {
  let mut stmt = conn.prepare(&format!(
    "SELECT {INDEX_COLUMNS} FROM entries ORDER BY rowid"
  ))?;
  let mut rows = stmt.query([])?;
  while let Some(row) = rows.next()? {
    visit(index_row(row)?);
  }
  Ok(())
}

/// Visit one entry's indexed columns, by id; `false` when there is no such entry.
pub fn index_row_by_id(
  conn: &Connection,
  id: &str,
  visit: impl FnOnce(IndexRow<'_>),
) -> rusqlite::Result<bool> {
  let mut stmt = conn.prepare_cached(&format!(
    "SELECT {INDEX_COLUMNS} FROM entries WHERE id = ?1"
  ))?;
  let mut rows = stmt.query([id])?;
  match rows.next()? {
    Some(row) => {
      visit(index_row(row)?);
      Ok(true)
    }
    None => Ok(false),
  }
}

/// Visit the recall counters of every entry that has been recalled.
pub fn for_each_recalled(
  conn: &Connection,
  mut visit: impl FnMut(&str, i64, Option<i64>),
) -> rusqlite::Result<()> {
  let mut stmt = conn
    .prepare_cached("SELECT id, recall_count, last_recalled FROM entries WHERE recall_count > 0")?;
  let mut rows = stmt.query([])?;
  while let Some(row) = rows.next()? {
    let id = row.get_ref(0)?.as_str().map_err(|e| {
      rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    })?;
    visit(id, row.get(1)?, row.get(2)?);
  }
  Ok(())
}

/// The entries with these rowids, by rowid (absent ones missing), in one statement: a page
/// of 20 costs 13 µs where 20 lookups cost 70.
pub fn entries_by_rowids(
  conn: &Connection,
  rowids: &[i64],
) -> rusqlite::Result<HashMap<i64, Entry>> {
  if rowids.is_empty() {
    return Ok(HashMap::new());
  }
  let list = format!(
    "[{}]",
    rowids
      .iter()
      .map(i64::to_string)
      .collect::<Vec<_>>()
      .join(",")
  );
  let mut stmt = conn.prepare_cached(&by_rowids_sql())?;
  let rows = stmt.query_map([list], with_rowid)?;
  rows.collect()
}

/// A join over the JSON list, not `rowid IN (SELECT …)`: no ephemeral table (see [`LayerRead`]).
fn by_rowids_sql() -> String {
  let columns: Vec<String> = ENTRY_COLUMNS
    .split(", ")
    .map(|c| format!("e.{c}"))
    .collect();
  format!(
    "SELECT {}, e.rowid FROM json_each(?1) AS j CROSS JOIN entries AS e ON e.rowid = j.value",
    columns.join(", ")
  )
}

/// Ids of the entries whose ASCII-folded text contains `folded` (3+ characters): a phrase
/// query on the trigram index of `lower(text)`, which is exactly that substring test.
pub fn fts_match_ids(conn: &Connection, folded: &str) -> rusqlite::Result<Vec<String>> {
  let phrase = format!("\"{}\"", folded.replace('"', "\"\""));
  let mut stmt = conn.prepare_cached(
    "SELECT e.id FROM entries_fts f JOIN entries e ON e.fts_id = f.rowid WHERE entries_fts MATCH ?1",
  )?;
  let ids = stmt.query_map([phrase], |r| r.get(0))?;
  ids.collect()
}

/// Ids of the entries whose ASCII-folded text contains `folded`, by a scan (the 1–2 character
/// needles no index serves).
pub fn scan_match_ids(conn: &Connection, folded: &str) -> rusqlite::Result<Vec<String>> {
  let mut stmt = conn.prepare_cached("SELECT id FROM entries WHERE instr(lower(text), ?1) > 0")?;
  let ids = stmt.query_map([folded], |r| r.get(0))?;
  ids.collect()
}

fn oldest_first(mut rows: Vec<(i64, Entry)>) -> Vec<Entry> {
  rows.sort_by_key(|(rowid, e)| (e.created_at, *rowid));
  rows.into_iter().map(|(_, e)| e).collect()
}

/// The entries of one budget layer the visibility admits, oldest first, optionally only those
/// whose ASCII-folded text contains `folded`. User-global is one layer whatever a row's
/// workspace key; a workspace layer without a workspace key is every workspace's.
pub fn layer_entries(
  conn: &Connection,
  track: Track,
  scope: Scope,
  vis: &Visibility,
  folded: Option<&str>,
) -> rusqlite::Result<Vec<Entry>> {
  Ok(oldest_first(layer_rows(conn, track, scope, vis, folded)?))
}

fn layer_rows(
  conn: &Connection,
  track: Track,
  scope: Scope,
  vis: &Visibility,
  folded: Option<&str>,
) -> rusqlite::Result<Vec<(i64, Entry)>> {
  let rows: Vec<(i64, Entry)> = match (
    scope,
    vis.workspace_key.as_deref(),
    vis.agent_key.as_deref(),
  ) {
    (Scope::Workspace, Some(ws), Some(agent)) => conn
      .prepare_cached(&LayerRead::SessionWorkspace.sql())?
      .query_map(params![track.as_str(), ws, folded, agent], with_rowid)?
      .collect::<rusqlite::Result<_>>()?,
    (Scope::Workspace, Some(ws), None) => conn
      .prepare_cached(&LayerRead::Workspace.sql())?
      .query_map(params![track.as_str(), ws, folded], with_rowid)?
      .collect::<rusqlite::Result<_>>()?,
    _ => conn
      .prepare_cached(&LayerRead::Layer.sql())?
      .query_map(params![track.as_str(), scope.as_str(), folded], with_rowid)?
      .collect::<rusqlite::Result<_>>()?,
  };
  // The SQL `instr` keeps most rows out of Rust; the Rust test is the protocol's definition.
  Ok(
    rows
      .into_iter()
      .filter(|(_, e)| vis.admits(e))
      .filter(|(_, e)| folded.is_none_or(|n| crate::protocol::text::fold(&e.text).contains(n)))
      .collect(),
  )
}

/// The statements that read one layer by index (`?1` track, `?2` workspace key or scope, `?3`
/// the folded needle or NULL, `?4` the agent key).
///
/// None of them opens an ephemeral table. SQLite builds one on every execution for an `IN`
/// list or an `OR` of index terms: a b-tree with a page cache of its own, allocated and freed
/// each time. Under Node that churn let glibc hand the pages back and fault them in again on
/// the next read: `budgets()`, whose counter read had such an `IN` list, ran 3× slower (11 →
/// 33 µs) depending on the heap's layout.
#[derive(Debug, Clone, Copy)]
enum LayerRead {
  /// A session's workspace layer: the shared rows and its agent's, two index ranges.
  SessionWorkspace,
  /// A workspace layer, every agent's rows.
  Workspace,
  /// A track × scope, every workspace and agent.
  Layer,
}

impl LayerRead {
  fn sql(self) -> String {
    let select = format!("SELECT {ENTRY_COLUMNS}, rowid FROM entries WHERE track = ?1");
    let filter = "AND (?3 IS NULL OR instr(lower(text), ?3) > 0)";
    let workspace = "scope = 'workspace' AND workspace_key = ?2";
    match self {
      Self::SessionWorkspace => format!(
        "{select} AND {workspace} AND agent_key = '' {filter}
         UNION ALL {select} AND {workspace} AND agent_key = ?4 AND ?4 <> '' {filter}"
      ),
      Self::Workspace => format!("{select} AND {workspace} {filter}"),
      Self::Layer => format!("{select} AND scope = ?2 {filter}"),
    }
  }
}

/// Every entry the visibility admits (`None`: every entry), oldest first. A session with a
/// workspace reads just its layers, by index.
pub fn visible_entries(
  conn: &Connection,
  vis: Option<&Visibility>,
) -> rusqlite::Result<Vec<Entry>> {
  if let Some(v) = vis.filter(|v| v.workspace_key.is_some()) {
    let mut all = Vec::new();
    for track in Track::ALL {
      for scope in Scope::ALL {
        all.extend(layer_rows(conn, track, scope, v, None)?);
      }
    }
    return Ok(oldest_first(all));
  }
  let mut stmt = conn.prepare_cached(&format!("SELECT {ENTRY_COLUMNS}, rowid FROM entries"))?;
  let rows = stmt
    .query_map([], with_rowid)?
    .filter(|r| match (r, vis) {
      (Ok((_, e)), Some(v)) => v.admits(e),
      _ => true,
    })
    .collect::<rusqlite::Result<Vec<_>>>()?;
  Ok(oldest_first(rows))
}

#[cfg(test)]
mod tests {
  use super::*;

  /// The opcodes SQLite compiles `sql` to.
  fn opcodes(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("EXPLAIN {sql}"))?;
    let nulls = vec![rusqlite::types::Null; stmt.parameter_count()];
    let ops = stmt.query_map(rusqlite::params_from_iter(nulls), |r| r.get(1))?;
    ops.collect()
  }

  #[test]
  fn the_hot_reads_open_no_ephemeral_table() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let store = crate::store::Store::open(&dir.path().join("memory.db"), 0)?;
    let reads = [
      LayerRead::SessionWorkspace,
      LayerRead::Workspace,
      LayerRead::Layer,
    ];
    let mut sqls: Vec<String> = reads.iter().map(|r| r.sql()).collect();
    sqls.push(by_rowids_sql());
    sqls.push(crate::store::SESSION_USAGE.to_string());
    sqls.push(crate::store::STORE_USAGE.to_string());
    for sql in &sqls {
      let ops = opcodes(store.conn(), sql)?;
      assert!(
        !ops.iter().any(|op| op.contains("Ephemeral")),
        "{sql}: {ops:?}"
      );
    }
    // The check sees one: the `IN` list these reads once used.
    let before = "SELECT used FROM layer_usage WHERE track IN ('user', 'agent') AND scope = ?1 AND workspace_key = ?2";
    assert!(opcodes(store.conn(), before)?
      .iter()
      .any(|op| op == "OpenEphemeral"));
    Ok(())
  }

  #[test]
  fn a_session_workspace_layer_is_its_shared_rows_and_its_agents(
  ) -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let store = crate::store::Store::open(&dir.path().join("memory.db"), 0)?;
    let conn = store.conn();
    for (i, agent) in ["", "coder", "reviewer", ""].iter().enumerate() {
      conn.execute(
        "INSERT INTO entries (id, track, scope, workspace_key, agent_key, text, source, tags, version, created_at, updated_at, recall_count, units, fts_id)
         VALUES (?1, 'agent', 'workspace', '/w', ?2, ?3, 's', '[]', 1, 0, 0, 0, 4, ?4)",
        params![format!("e{i}"), agent, format!("note {i}"), i as i64 + 1],
      )?;
    }
    let ids = |agent: Option<&str>, needle: Option<&str>| -> rusqlite::Result<Vec<String>> {
      let vis = Visibility {
        agent_key: agent.map(str::to_string),
        workspace_key: Some("/w".into()),
      };
      let rows = layer_entries(conn, Track::Agent, Scope::Workspace, &vis, needle)?;
      Ok(rows.into_iter().map(|e| e.id).collect())
    };
    assert_eq!(ids(Some("coder"), None)?, ["e0", "e1", "e3"]);
    // An empty agent key sees the shared rows once, not twice.
    assert_eq!(ids(Some(""), None)?, ["e0", "e3"]);
    assert_eq!(ids(None, None)?, ["e0", "e1", "e2", "e3"]);
    assert_eq!(ids(Some("reviewer"), Some("note 2"))?, ["e2"]);
    Ok(())
  }
}
