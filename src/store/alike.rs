//! The stored entries a new text may resemble: the entries of its layer a session sees, all of
//! them when the layer is small, else the ones the FTS index finds sharing the most of its
//! terms — never a scan of a large layer.
#![forbid(unsafe_code)]

use std::collections::{HashMap, HashSet};

use rusqlite::{params, Connection};

use crate::store::reads::Filter;
use crate::store::{one, Visibility, ADMITS};

/// A layer of at most this many visible entries is compared whole.
pub const SCAN_MAX: u64 = 256;
/// Entries an FTS term may be found in before it is too common to tell candidates apart.
const TERM_ROWS: i64 = 256;

/// A stored entry as a comparison needs it: its id and text.
pub type Stamp = (String, String);

/// The `(id, text)` of every entry of layer `f`, when it holds at most [`SCAN_MAX`] (read from
/// the covering `entries_layer` index alone).
///
/// # Errors
/// SQLite failures.
pub fn whole(conn: &Connection, f: &Filter<'_>) -> rusqlite::Result<Option<Vec<Stamp>>> {
  let vis = f.visibility.cloned().unwrap_or_default();
  let sql = format!("SELECT e.id, e.text FROM entries AS e WHERE {ADMITS} LIMIT ?5");
  let args = params![
    f.track,
    f.scope,
    vis.agent_key,
    vis.workspace_key,
    SCAN_MAX as i64 + 1
  ];
  let all: Vec<Stamp> = super::rows(conn, &sql, args, |r| Ok((r.get(0)?, r.get(1)?)))?;
  Ok((all.len() as u64 <= SCAN_MAX).then_some(all))
}

/// Whether a layer of `n` entries is small enough to be compared whole.
pub fn is_small(n: usize) -> bool {
  n as u64 <= SCAN_MAX
}

/// The `(id, text)` of up to `limit` entries of layer `f` that share the most of `terms`
/// (FTS5 phrases, 3+ characters each), found in the index within the layer's groups. A term
/// found in more than [`TERM_ROWS`] entries tells nothing apart and is passed over, so the cost
/// is bounded by the terms, never by the layer.
///
/// # Errors
/// SQLite failures.
pub fn found(
  conn: &Connection,
  f: &Filter<'_>,
  terms: &[String],
  limit: usize,
) -> rusqlite::Result<Vec<Stamp>> {
  let vis = f.visibility.cloned().unwrap_or_default();
  let groups = format!("SELECT e.id FROM entry_groups AS e WHERE {ADMITS}");
  let args = params![f.track, f.scope, vis.agent_key, vis.workspace_key];
  let groups: HashSet<i64> = super::rows(conn, &groups, args, |r| r.get(0))?
    .into_iter()
    .collect();
  let mut hits: HashMap<i64, usize> = HashMap::new();
  let find = "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1 LIMIT ?2";
  for term in terms {
    let phrase = format!("\"{}\"", term.replace('"', "\"\""));
    let found: Vec<i64> = super::rows(conn, find, params![phrase, TERM_ROWS + 1], |r| r.get(0))?;
    if found.len() as i64 > TERM_ROWS {
      continue;
    }
    let mine = found.into_iter().filter(|id| groups.contains(&(id >> 32)));
    mine.for_each(|id| *hits.entry(id).or_default() += 1);
  }
  let mut ranked: Vec<(usize, i64)> = hits.into_iter().map(|(id, n)| (n, id)).collect();
  ranked.sort_unstable_by(|a, b| b.cmp(a));
  ranked.truncate(limit);
  let sql = "SELECT id, text FROM entries WHERE fts_id = ?1";
  let mut out = Vec::with_capacity(ranked.len());
  for (_, id) in ranked {
    out.extend(one(conn, sql, [id], |r| Ok((r.get(0)?, r.get(1)?)))?);
  }
  Ok(out)
}

/// Visibility of the layer an entry of `workspace_key` lands in, as a writer of `agent_key` sees
/// it (the shared rows and its own agent's).
pub fn layer_of(workspace_key: &str, agent_key: &str) -> Visibility {
  Visibility {
    agent_key: Some(agent_key.to_string()),
    workspace_key: Some(workspace_key.to_string()),
  }
}
