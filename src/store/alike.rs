//! The stored entries a new text may resemble: the entries of its layer a session sees, all of
//! them when the layer is small, else the ones the FTS index finds sharing the most of its
//! terms — never a scan of a large layer.
#![forbid(unsafe_code)]

use std::collections::HashMap;

use rusqlite::{params, Connection};

use crate::protocol::model::Entry;
use crate::store::reads::{oldest_first, Filter};
use crate::store::{entry_from_row, one, Visibility, ADMITS, ENTRY_COLUMNS};

/// A layer of at most this many visible entries is compared whole.
pub const SCAN_MAX: u64 = 256;
/// Rows an FTS term may contribute before it is too common to tell candidates apart.
const TERM_ROWS: i64 = 2048;

/// How many entries of one layer (`f`: track, scope and a visibility) are visible.
///
/// # Errors
/// SQLite failures.
pub fn count(conn: &Connection, f: &Filter<'_>) -> rusqlite::Result<u64> {
  let vis = f.visibility.cloned().unwrap_or_default();
  let sql = format!("SELECT count(*) FROM entries AS e WHERE {ADMITS}");
  let args = params![f.track, f.scope, vis.agent_key, vis.workspace_key];
  let n: i64 = conn.prepare_cached(&sql)?.query_row(args, |r| r.get(0))?;
  Ok(n.unsigned_abs())
}

/// Whether a layer of `n` entries is small enough to be compared whole.
pub fn is_small(n: usize) -> bool {
  n as u64 <= SCAN_MAX
}

/// The entries of layer `f` worth comparing a new text with, and whether they are the whole
/// layer: all of them when it holds at most [`SCAN_MAX`], else up to `limit` that share the most
/// of `terms` (FTS5 phrase terms, ASCII-folded, 3+ characters each), found in the index within
/// the layer's groups.
///
/// # Errors
/// SQLite failures.
pub fn candidates(
  conn: &Connection,
  f: &Filter<'_>,
  terms: &[String],
  limit: usize,
) -> rusqlite::Result<(Vec<Entry>, bool)> {
  if count(conn, f)? <= SCAN_MAX {
    return Ok((oldest_first(conn, f)?, true));
  }
  let vis = f.visibility.cloned().unwrap_or_default();
  let groups = format!("SELECT e.id FROM entry_groups AS e WHERE {ADMITS}");
  let args = params![f.track, f.scope, vis.agent_key, vis.workspace_key];
  let groups: Vec<i64> = super::rows(conn, &groups, args, |r| r.get(0))?;
  let mut hits: HashMap<i64, usize> = HashMap::new();
  let find = "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1 LIMIT ?2";
  for term in terms {
    let phrase = format!("\"{}\"", term.replace('"', "\"\""));
    let found: Vec<i64> = super::rows(conn, find, params![phrase, TERM_ROWS], |r| r.get(0))?;
    let mine = found.into_iter().filter(|id| groups.contains(&(id >> 32)));
    mine.for_each(|id| *hits.entry(id).or_default() += 1);
  }
  let mut ranked: Vec<(usize, i64)> = hits.into_iter().map(|(id, n)| (n, id)).collect();
  ranked.sort_unstable_by(|a, b| b.cmp(a));
  ranked.truncate(limit);
  let sql = format!("SELECT {ENTRY_COLUMNS} FROM entries WHERE fts_id = ?1");
  let mut out = Vec::with_capacity(ranked.len());
  for (_, id) in ranked {
    out.extend(one(conn, &sql, [id], entry_from_row)?);
  }
  Ok((out, false))
}

/// Visibility of the layer an entry of `workspace_key` lands in, as a writer of `agent_key` sees
/// it (the shared rows and its own agent's).
pub fn layer_of(workspace_key: &str, agent_key: &str) -> Visibility {
  Visibility {
    agent_key: Some(agent_key.to_string()),
    workspace_key: Some(workspace_key.to_string()),
  }
}
