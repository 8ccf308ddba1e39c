//! The entry rows: who sees which ([`Visibility`], and `ADMITS`, its SQL), and the row statements the engine
//! composes into transactions (insert, rewrite, delete, recall counts, layer usage).
#![forbid(unsafe_code)]

use rusqlite::{params, Connection, Row};

use super::sql::{exec, named_rows, one, row_into, Named};
use crate::protocol::model::{Entry, Scope, Track};
use crate::protocol::snapshot::ORDER;

pub(crate) const ENTRY_COLUMNS: &str = "id, track, scope, workspace_key, agent_key, text, source, tags, version, created_at, updated_at, last_recalled, recall_count, session_id";
/// The visibility rule: whether the row `e` (of `entries`, or of anything with its keys) is what
/// a filter admits: `:track`/`:scope` its track/scope, `:agent` a session's agent key,
/// `:workspace` its workspace key, and the exact facets `:only_workspace`/`:only_agent` ([`Only`])
/// (each `NULL` for any).
pub(crate) const ADMITS: &str = "(:track IS NULL OR e.track = :track)
  AND (:scope IS NULL OR e.scope = :scope)
  AND (:agent IS NULL OR e.agent_key = '' OR e.agent_key = :agent)
  AND (e.scope <> 'workspace' OR :workspace IS NULL OR e.workspace_key = :workspace)
  AND (:only_workspace IS NULL OR CASE :only_workspace WHEN '' THEN e.scope <> 'workspace'
    ELSE e.scope = 'workspace' AND e.workspace_key = :only_workspace END)
  AND (:only_agent IS NULL OR e.agent_key = :only_agent)";

/// Exact facets of a listing — a management view's filter, not a session's visibility: one
/// track, one scope, one workspace's entries (`''`: the user-global ones), one agent's entries
/// (`''`: the shared ones).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Only {
  /// Only this track.
  pub track: Option<String>,
  /// Only this scope.
  pub scope: Option<String>,
  /// Only the workspace entries of this workspace, or (`''`) only the user-global entries.
  pub workspace_key: Option<String>,
  /// Only this agent's entries, or (`''`) only the shared ones.
  pub agent_key: Option<String>,
}

/// Which entries a session can see and target.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Visibility {
  /// Shared layer plus this agent's entries (`None` = every agent).
  pub agent_key: Option<String>,
  /// Workspace entries of this workspace only (`None` = every workspace).
  pub workspace_key: Option<String>,
}

impl Visibility {
  /// The visibility parameters of a statement ([`Named`]): any track and scope.
  pub(crate) fn named(&self) -> Named<'_> {
    Named {
      agent: self.agent_key.as_deref(),
      workspace: self.workspace_key.as_deref(),
      ..Named::default()
    }
  }

  /// Whether a row of `scope`, `workspace_key` and `agent_key` is visible: the rule of
  /// `ADMITS` for a row in hand (the shared rows and this agent's; workspace rows of this
  /// workspace only).
  pub fn sees(&self, scope: &str, workspace_key: &str, agent_key: &str) -> bool {
    let (agent, workspace) = (self.agent_key.as_deref(), self.workspace_key.as_deref());
    sees(agent, workspace, (scope, workspace_key, agent_key))
  }
}

/// [`Visibility::sees`] with borrowed keys (`None`: every agent, every workspace), for a
/// caller that holds them without a `Visibility`.
pub(crate) fn sees(
  agent: Option<&str>,
  workspace: Option<&str>,
  (scope, workspace_key, agent_key): (&str, &str, &str),
) -> bool {
  agent.is_none_or(|a| agent_key.is_empty() || agent_key == a)
    && (scope != "workspace" || workspace.is_none_or(|w| workspace_key == w))
}

pub(crate) fn entry_from_row(row: &Row<'_>) -> rusqlite::Result<Entry> {
  let bad = |what: String| rusqlite::Error::InvalidColumnType(0, what, rusqlite::types::Type::Text);
  let as_track = |t: String| Track::parse(&t).ok_or_else(|| bad(format!("track {t}")));
  let as_scope = |s: String| Scope::parse(&s).ok_or_else(|| bad(format!("scope {s}")));
  let as_tags = |t: String| {
    serde_json::from_str(&t)
      .map_err(|_| bad(format!("memory database has a corrupt tags column: {t}")))
  };
  row_into!(row => Entry {
    id, track: as_track, scope: as_scope, workspace_key, agent_key, text, source, tags: as_tags,
    version, created_at, updated_at, last_recalled, recall_count, session_id
  })
}

/// An entry and its rowid, from `{ENTRY_COLUMNS}, rowid`.
pub(crate) fn entry_and_rowid(row: &Row<'_>) -> rusqlite::Result<(i64, Entry)> {
  Ok((row.get(14)?, entry_from_row(row)?))
}

/// One entry by id, if it exists and the visibility admits it.
pub fn get_visible(
  conn: &Connection,
  id: &str,
  vis: &Visibility,
) -> rusqlite::Result<Option<Entry>> {
  let sql = format!("SELECT {ENTRY_COLUMNS} FROM entries AS e WHERE e.id = :id AND {ADMITS}");
  let args = Named {
    id: Some(id),
    ..vis.named()
  };
  Ok(named_rows(conn, &sql, &args, entry_from_row)?.pop())
}

/// A `used` value as units (none or negative: 0).
fn as_units(used: Option<i64>) -> u64 {
  used.unwrap_or(0).max(0) as u64
}

/// Units used in one budget layer.
pub fn layer_used(
  conn: &Connection,
  track: Track,
  scope: Scope,
  layer_key: &str,
) -> rusqlite::Result<u64> {
  let sql = "SELECT used FROM layer_usage WHERE track = ?1 AND scope = ?2 AND workspace_key = ?3";
  let args = params![track.as_str(), scope.as_str(), layer_key];
  Ok(as_units(one(conn, sql, args, |r| r.get(0))?))
}

/// Units used per layer, in protocol order (`[user/user-global, user/workspace,
/// agent/user-global, agent/workspace]`): with a workspace key, that workspace's layers; without,
/// each track's fullest workspace (by `layer_usage_fullest`). Scalar lookups, not an `IN` list,
/// which would build an ephemeral table on every read.
pub fn usage(conn: &Connection, workspace_key: Option<&str>) -> rusqlite::Result<[u64; 4]> {
  let layer = |track: Track, scope: Scope| {
    let (used, key) = match (scope, workspace_key) {
      (Scope::UserGlobal, _) => ("used", "workspace_key = ''"),
      (Scope::Workspace, Some(_)) => ("used", "workspace_key = ?1"),
      (Scope::Workspace, None) => ("max(used)", "?1 IS NULL"),
    };
    let (track, scope) = (track.as_str(), scope.as_str());
    format!(
      "(SELECT {used} FROM layer_usage WHERE track = '{track}' AND scope = '{scope}' AND {key})"
    )
  };
  let layers = ORDER.map(|(t, s)| layer(t, s));
  let sql = format!("SELECT {}", layers.join(", "));
  conn.prepare_cached(&sql)?.query_row([workspace_key], |r| {
    let at = |i: usize| r.get(i).map(as_units);
    Ok([at(0)?, at(1)?, at(2)?, at(3)?])
  })
}

/// Insert new entry rows in one statement: FTS5 writes its pending terms out at every
/// statement, so a batch inserted row by row would write (and merge) one index segment per entry.
pub fn insert_entries(conn: &Connection, entries: &[Entry]) -> rusqlite::Result<()> {
  let row = |e: &Entry| {
    let units = crate::text::units(&e.text);
    serde_json::json!([
      e.id,
      e.track,
      e.scope,
      e.workspace_key,
      e.agent_key,
      e.text,
      e.source,
      tags_json(&e.tags),
      e.version,
      e.created_at,
      e.updated_at,
      e.last_recalled,
      e.recall_count,
      e.session_id,
      units
    ])
  };
  let rows: Vec<serde_json::Value> = entries.iter().map(row).collect();
  let rows = serde_json::Value::Array(rows).to_string();
  let groups = "INSERT OR IGNORE INTO entry_groups (track, scope, workspace_key, agent_key)
    SELECT value ->> 1, value ->> 2, value ->> 3, value ->> 4 FROM json_each(?1)";
  exec(conn, groups, [&rows])?;
  // An entry's fts_id: its group's id in the high 32 bits, the group's next number in the low.
  let values: Vec<String> = (0..15).map(|i| format!("value ->> {i}")).collect();
  let sql = format!(
    "INSERT INTO entries ({ENTRY_COLUMNS}, units, fts_id)
     SELECT {}, coalesce((SELECT max(fts_id) FROM entries
         WHERE fts_id BETWEEN g.id << 32 AND (g.id << 32) + 4294967295), g.id << 32)
       + row_number() OVER (PARTITION BY g.id ORDER BY key)
     FROM json_each(?1) JOIN entry_groups AS g ON g.track = value ->> 1 AND g.scope = value ->> 2
       AND g.workspace_key = value ->> 3 AND g.agent_key = value ->> 4
     ORDER BY key",
    values.join(", ")
  );
  exec(conn, &sql, [&rows])?;
  // FTS5 flushes its pending terms whenever a rowid is lower than the last: in rowid order,
  // the batch is one index segment.
  let index = "INSERT INTO entries_fts (rowid, folded)
    SELECT fts_id, lower(text) || char(1, 1) FROM entries
    WHERE id IN (SELECT value ->> 0 FROM json_each(?1)) ORDER BY fts_id";
  exec(conn, index, [&rows])?;
  // The batch's units, per layer.
  let usage = "INSERT INTO layer_usage (track, scope, workspace_key, used)
    SELECT value ->> 1, value ->> 2, CASE value ->> 2 WHEN 'workspace' THEN value ->> 3 ELSE '' END,
      sum(value ->> 14) FROM json_each(?1) WHERE true GROUP BY 1, 2, 3
    ON CONFLICT (track, scope, workspace_key) DO UPDATE SET used = used + excluded.used";
  exec(conn, usage, [rows]).map(drop)
}

/// Add entry `id`, as it is now, to its layer's usage and to the FTS index (`sign` 1), or take
/// it out (`sign` -1): the store's own bookkeeping around a rewrite or a delete.
fn account(conn: &Connection, id: &str, sign: i64) -> rusqlite::Result<()> {
  let usage = "INSERT INTO layer_usage (track, scope, workspace_key, used)
    SELECT track, scope, CASE scope WHEN 'workspace' THEN workspace_key ELSE '' END, ?2 * units
    FROM entries WHERE id = ?1 AND true
    ON CONFLICT (track, scope, workspace_key) DO UPDATE SET used = used + excluded.used";
  exec(conn, usage, params![id, sign])?;
  let index = if sign > 0 {
    "INSERT INTO entries_fts (rowid, folded)
      SELECT fts_id, lower(text) || char(1, 1) FROM entries WHERE id = ?1"
  } else {
    "DELETE FROM entries_fts WHERE rowid = (SELECT fts_id FROM entries WHERE id = ?1)"
  };
  exec(conn, index, [id]).map(drop)
}

/// Rewrite an entry's text/tags/version/updated_at/session (replace).
pub fn update_entry(conn: &Connection, e: &Entry) -> rusqlite::Result<()> {
  let sql = "UPDATE entries SET text = ?2, tags = ?3, version = ?4, updated_at = ?5, session_id = ?6, units = ?7 WHERE id = ?1";
  let args = params![
    e.id,
    e.text,
    tags_json(&e.tags),
    e.version,
    e.updated_at,
    e.session_id,
    crate::text::units(&e.text) as i64
  ];
  account(conn, &e.id, -1)?;
  exec(conn, sql, args)?;
  account(conn, &e.id, 1)
}

/// Delete an entry by id.
pub fn delete_entry(conn: &Connection, id: &str) -> rusqlite::Result<()> {
  account(conn, id, -1)?;
  exec(conn, "DELETE FROM entries WHERE id = ?1", [id]).map(drop)
}

fn tags_json(tags: &[String]) -> String {
  serde_json::to_string(tags).unwrap_or_else(|_| "[]".to_string())
}

/// Count a query hit on each of these rows: `recall_count + 1`, `last_recalled` at least `at`.
pub fn bump_recalls(conn: &Connection, rowids: &[i64], at: i64) -> rusqlite::Result<()> {
  let sql = "UPDATE entries SET recall_count = recall_count + 1, last_recalled = max(coalesce(last_recalled, 0), ?2) WHERE rowid = ?1";
  for rowid in rowids {
    exec(conn, sql, params![rowid, at])?;
  }
  Ok(())
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn a_session_sees_shared_and_own_agent_rows_of_its_workspace_and_every_global_row() {
    let vis = Visibility {
      agent_key: Some("coder".into()),
      workspace_key: Some("/ws".into()),
    };
    let sees = |scope, ws, agent| vis.sees(scope, ws, agent);
    assert!(sees("workspace", "/ws", "") && sees("workspace", "/ws", "coder"));
    assert!(!sees("workspace", "/other", "") && !sees("workspace", "/ws", "reviewer"));
    assert!(sees("user-global", "", "") && sees("user-global", "/anywhere", "coder"));
    assert!(!sees("user-global", "", "reviewer"));
    assert!(Visibility::default().sees("workspace", "/other", "reviewer"));
  }
}
