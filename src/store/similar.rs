//! The stored entries a new text may resemble: the entries of its layer a writer sees.
#![forbid(unsafe_code)]

use rusqlite::Connection;

use super::entries::sees;
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
  /// Whether `e` is one of the layer's rows: the rule of [`all`]'s SQL, for an entry in hand.
  pub fn holds(&self, e: &Entry) -> bool {
    let layer = e.track.as_str() == self.track && e.scope.as_str() == self.scope;
    let row: (&str, &str, &str) = (e.scope.as_str(), &e.workspace_key, &e.agent_key);
    layer && sees(Some(self.agent_key), Some(self.workspace_key), row)
  }
}

/// SQLite's `data_version`: it changes when another connection commits to the store.
///
/// # Errors
/// SQLite failures.
pub fn data_version(conn: &Connection) -> rusqlite::Result<i64> {
  let sql = "PRAGMA data_version";
  conn.prepare_cached(sql)?.query_row([], |r| r.get(0))
}

/// Every entry of `layer`, `(id, text)` (one range of the covering `entries_layer` index).
///
/// # Errors
/// SQLite failures.
pub fn all(conn: &Connection, layer: &Layer<'_>) -> rusqlite::Result<Vec<(String, String)>> {
  // By equality on the prefix of its layer index (the `:track IS NULL OR …` form of the general
  // filter scans every layer).
  let workspace = match layer.scope {
    "workspace" => "AND e.workspace_key = :workspace",
    _ => "",
  };
  let sql = format!(
    "SELECT e.id, e.text FROM entries AS e WHERE e.track = :track AND e.scope = :scope
       {workspace} AND e.agent_key IN ('', :agent)"
  );
  let args = Named {
    track: Some(layer.track),
    scope: Some(layer.scope),
    agent: Some(layer.agent_key),
    workspace: Some(layer.workspace_key),
    ..Named::default()
  };
  named_rows(conn, &sql, &args, |r| r.try_into())
}

/// Whether a layer of `n` entries is small enough to be compared whole.
pub fn is_small(n: usize) -> bool {
  n as u64 <= SCAN_MAX
}
