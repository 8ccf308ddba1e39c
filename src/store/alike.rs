//! The stored entries a new text may resemble: the entries of its layer a session sees, all of
//! them when the layer is small, else the ones the FTS index finds sharing the most of its
//! terms — never a scan of a large layer.
#![forbid(unsafe_code)]

use std::collections::{HashMap, HashSet};

use rusqlite::{Connection, Row};

use crate::protocol::model::Entry;
use crate::store::{named_rows, Named, Visibility};

/// A layer of at most this many visible entries is compared whole.
pub const SCAN_MAX: u64 = 256;
/// Entries an FTS term may be found in before it is too common to tell candidates apart.
const TERM_ROWS: i64 = 256;

/// A stored entry as read for a comparison, `(id, text)`, borrowed from its row: a caller
/// that knows the text already copies nothing.
pub type Seen<'r> = (&'r str, &'r str);

/// Reads a [`Seen`] from the columns `id, text` and hands it to `keep`.
fn seen<T>(r: &Row<'_>, keep: &mut impl FnMut(Seen<'_>) -> T) -> rusqlite::Result<T> {
  Ok(keep((r.get_ref(0)?.as_str()?, r.get_ref(1)?.as_str()?)))
}

/// One layer as a writer of `agent_key` sees it: its shared rows and its own agent's.
#[derive(Debug, Clone, Copy)]
pub struct Layer<'a> {
  /// `user` or `agent`.
  pub track: &'a str,
  /// `user-global` or `workspace`.
  pub scope: &'a str,
  /// The workspace of a workspace layer (not read for the global scope).
  pub workspace_key: &'a str,
  /// The writer's agent.
  pub agent_key: &'a str,
}

impl Layer<'_> {
  /// The layer's rows of a table aliased `e`, by equality on the prefix of its layer index (the
  /// `:track IS NULL OR …` form of the general filter scans every layer), and their parameters.
  fn rows(&self) -> (&'static str, Named<'_>) {
    let args = Named {
      track: Some(self.track),
      scope: Some(self.scope),
      agent: Some(self.agent_key),
      workspace: Some(self.workspace_key),
      ..Named::default()
    };
    let sql = match self.scope {
      "workspace" => {
        "e.track = :track AND e.scope = :scope AND e.workspace_key = :workspace
        AND e.agent_key IN ('', :agent)"
      }
      _ => "e.track = :track AND e.scope = :scope AND e.agent_key IN ('', :agent)",
    };
    (sql, args)
  }

  /// Whether `e` is one of the layer's rows: the rule of its SQL, for an entry in hand.
  pub fn holds(&self, e: &Entry) -> bool {
    let vis = Visibility {
      agent_key: Some(self.agent_key.to_string()),
      workspace_key: Some(self.workspace_key.to_string()),
    };
    let layer = e.track.as_str() == self.track && e.scope.as_str() == self.scope;
    layer && vis.sees(e.scope.as_str(), &e.workspace_key, &e.agent_key)
  }
}

/// SQLite's `data_version`: it changes when another connection commits to the store.
///
/// # Errors
/// SQLite failures.
pub fn data_version(conn: &Connection) -> rusqlite::Result<i64> {
  conn
    .prepare_cached("PRAGMA data_version")?
    .query_row([], |r| r.get(0))
}

/// Every entry of `layer` through `keep`, when it holds at most [`SCAN_MAX`] (one range of the
/// covering `entries_layer` index).
///
/// # Errors
/// SQLite failures.
pub fn whole<T>(
  conn: &Connection,
  layer: &Layer<'_>,
  mut keep: impl FnMut(Seen<'_>) -> T,
) -> rusqlite::Result<Option<Vec<T>>> {
  let (rows, args) = layer.rows();
  let limit = SCAN_MAX + 1;
  let sql = format!("SELECT e.id, e.text FROM entries AS e WHERE {rows} LIMIT {limit}");
  let all = named_rows(conn, &sql, &args, |r| seen(r, &mut keep))?;
  Ok((all.len() as u64 <= SCAN_MAX).then_some(all))
}

/// Whether a layer of `n` entries is small enough to be compared whole.
pub fn is_small(n: usize) -> bool {
  n as u64 <= SCAN_MAX
}

/// Up to `limit` entries of `layer` that share the most of `terms`, through `keep`
/// (FTS5 phrases, 3+ characters each), found in the index within the layer's groups. A term
/// found in more than [`TERM_ROWS`] entries tells nothing apart and is passed over, so the cost
/// is bounded by the terms, never by the layer.
///
/// # Errors
/// SQLite failures.
pub fn found<T>(
  conn: &Connection,
  layer: &Layer<'_>,
  terms: &[String],
  limit: usize,
  mut keep: impl FnMut(Seen<'_>) -> T,
) -> rusqlite::Result<Vec<T>> {
  let (rows, args) = layer.rows();
  let groups = format!("SELECT e.id FROM entry_groups AS e WHERE {rows}");
  let groups: HashSet<i64> = named_rows(conn, &groups, &args, |r| r.get(0))?
    .into_iter()
    .collect();
  let mut hits: HashMap<i64, usize> = HashMap::new();
  let find =
    format!("SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1 LIMIT {TERM_ROWS} + 1");
  for term in terms {
    let phrase = format!("\"{}\"", term.replace('"', "\"\""));
    let found: Vec<i64> = super::rows(conn, &find, [phrase], |r| r.get(0))?;
    if found.len() as i64 > TERM_ROWS {
      continue;
    }
    let mine = found.into_iter().filter(|id| groups.contains(&(id >> 32)));
    mine.for_each(|id| *hits.entry(id).or_default() += 1);
  }
  let mut ranked: Vec<(usize, i64)> = hits.into_iter().map(|(id, n)| (n, id)).collect();
  ranked.sort_unstable_by(|a, b| b.cmp(a));
  ranked.truncate(limit);
  // The candidates in one statement, then back in their rank (most terms shared first).
  let sql =
    "SELECT id, text, fts_id FROM entries WHERE fts_id IN (SELECT value FROM json_each(?1))";
  let ids: Vec<i64> = ranked.iter().map(|&(_, id)| id).collect();
  let list = serde_json::to_string(&ids).unwrap_or_default();
  let mut out = super::rows(conn, sql, [list], |r| {
    Ok((r.get::<_, i64>(2)?, seen(r, &mut keep)?))
  })?;
  let rank: HashMap<i64, usize> = ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
  out.sort_by_key(|(id, _)| rank.get(id).copied().unwrap_or(usize::MAX));
  Ok(out.into_iter().map(|(_, kept)| kept).collect())
}
