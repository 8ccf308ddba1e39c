//! The stored entries a new text may resemble: the entries of its layer a writer sees.
#![forbid(unsafe_code)]

use rusqlite::Connection;

use super::entries::Visibility;
use super::sql::{named_rows, Named};
use crate::protocol::model::Entry;

/// A layer of at most this many visible entries is compared whole.
pub const SCAN_MAX: u64 = 256;

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

/// Every entry of `layer`, `(id, text)` (one range of the covering `entries_layer` index).
///
/// # Errors
/// SQLite failures.
pub fn all(conn: &Connection, layer: &Layer<'_>) -> rusqlite::Result<Vec<(String, String)>> {
  let (rows, args) = layer.rows();
  let sql = format!("SELECT e.id, e.text FROM entries AS e WHERE {rows}");
  named_rows(conn, &sql, &args, |r| Ok((r.get(0)?, r.get(1)?)))
}

/// Whether a layer of `n` entries is small enough to be compared whole.
pub fn is_small(n: usize) -> bool {
  n as u64 <= SCAN_MAX
}
