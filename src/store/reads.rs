//! Entry reads: the entries a filter matches (targeting, listings and snapshots:
//! [`oldest_first`]) and the ranked page of a query ([`ranked_page`]).
//!
//! A needle of 3+ characters is a phrase query on the FTS5 trigram index of `lower(text)`,
//! which is exactly the protocol's ASCII-case-insensitive substring test; a shorter one is the
//! index's trigrams that begin with it (by the `fts5vocab` table `entries_fts_terms`). A needle
//! that the index matches often is a `LIKE` over the groups the filter admits (an entry's
//! group: its track, scope, workspace key and agent key), each one range of `entries_layer`,
//! which covers what a search reads; its total is counted in the index, whose rowids carry
//! their group. A search reads one snapshot of the store, and the index once.
#![forbid(unsafe_code)]

use std::cmp::Reverse;
use std::collections::HashMap;

use rusqlite::{named_params, params, Connection, Row};

use super::entries::{entry_and_rowid, Only, Visibility, ADMITS, ENTRY_COLUMNS};
use super::sql::{named_rows, named_value, one, one_snapshot, rows, Named};
use crate::protocol::model::Entry;

/// Which entries to read.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter<'a> {
  /// Only this track (an unknown value matches nothing).
  pub track: Option<&'a str>,
  /// Only this scope (an unknown value matches nothing).
  pub scope: Option<&'a str>,
  /// Only what this visibility admits.
  pub visibility: Option<&'a Visibility>,
  /// Only texts containing this needle (ASCII-folded, non-empty).
  pub folded: Option<&'a str>,
  /// Only the entries of these exact facets (their track and scope are `track`'s and `scope`'s).
  pub only: Option<&'a Only>,
}

/// The visibility of a filter without one: every entry.
static ANYONE: Visibility = Visibility {
  agent_key: None,
  workspace_key: None,
};

/// How a filter's needle is matched.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Needle {
  None,
  /// A phrase query on the FTS index (3+ characters).
  Phrase,
  /// The FTS index's trigrams that begin with the needle (1–2 characters): every text is
  /// indexed with two `\u{1}` after it, so every occurrence begins one.
  Short,
  /// `LIKE`, which folds exactly the ASCII letters, as the protocol does.
  Like,
  /// `instr(text)`: a needle without ASCII letters, which folding cannot change.
  Exact,
  /// `instr(lower(text))`: a needle with a NUL and an ASCII letter.
  Folded,
}

impl Needle {
  fn of(folded: Option<&str>) -> Self {
    match folded {
      None => Self::None,
      Some(n) if n.contains(['\0', '\u{1}']) => Self::scan(n),
      Some(n) if n.chars().nth(2).is_some() => Self::Phrase,
      Some(_) => Self::Short,
    }
  }

  /// How a scan of the layers tests `folded`.
  fn scan(folded: &str) -> Self {
    let letters = folded.bytes().any(|b| b.is_ascii_alphabetic());
    match (letters, folded.contains('\0')) {
      (false, _) => Self::Exact,
      (true, false) => Self::Like,
      (true, true) => Self::Folded,
    }
  }

  /// The FTS rowids whose folded text may contain the pattern bound at `param`.
  fn indexed(self) -> Option<&'static str> {
    match self {
      Self::Phrase => {
        Some("SELECT rowid AS fts_id FROM entries_fts WHERE entries_fts MATCH :pattern")
      }
      Self::Short => Some(
        "SELECT DISTINCT doc AS fts_id FROM entries_fts_terms
         WHERE term >= :pattern AND term <= :pattern || char(1114111, 1114111)",
      ),
      _ => None,
    }
  }

  /// The scan's test of a row `e` for `:pattern`; a text with a NUL, where `LIKE` stops, is
  /// tested exactly for the folded `:needle`.
  fn test(self) -> String {
    let test = match self {
      Self::Like => "e.text LIKE :pattern ESCAPE '\\'",
      Self::Exact => "instr(e.text, :pattern) > 0",
      Self::Folded => "instr(lower(e.text), :pattern) > 0",
      _ => ":pattern IS NULL",
    };
    format!("({test} OR e.fts_id IN {NUL_MATCHES})")
  }

  fn pattern(self, folded: &str) -> String {
    match self {
      Self::Phrase => format!("\"{}\"", folded.replace('"', "\"\"")),
      Self::Like => {
        let escaped = folded.replace('\\', "\\\\");
        format!("%{}%", escaped.replace('%', "\\%").replace('_', "\\_"))
      }
      _ => folded.to_string(),
    }
  }
}

/// From this many matches on, a scan of the admitted groups' index ranges beats joining the
/// FTS matches to their rows one by one.
const PHRASE_ROWS: i64 = 256;

/// FTS5 and `LIKE` end a text at its first NUL: the texts with one (by the `entries_nul` index)
/// that contain the folded `:needle`.
const NUL_MATCHES: &str = "(SELECT fts_id FROM entries WHERE instr(text, char(0)) > 0
  AND instr(lower(text), :needle) > 0)";

/// How a needle is matched, with the FTS rowids it matches (a JSON list) when the index holds
/// it and it matches fewer than [`PHRASE_ROWS`] entries there; otherwise, like a needle the index
/// cannot hold, by a scan. The index is searched once: its matches are what the rows are read by.
fn needle_for(
  conn: &Connection,
  folded: Option<&str>,
) -> rusqlite::Result<(Needle, Option<String>)> {
  let needle = Needle::of(folded);
  let (Some(n), Some(indexed)) = (folded, needle.indexed()) else {
    return Ok((needle, None));
  };
  let pattern = needle.pattern(n);
  let sql = format!("{indexed} LIMIT {PHRASE_ROWS}");
  let args = named_params! { ":pattern": pattern };
  let found: Vec<i64> = super::sql::rows(conn, &sql, args, |r| r.get(0))?;
  Ok(match found.len() as i64 >= PHRASE_ROWS {
    true => (Needle::scan(n), None),
    false => (needle, serde_json::to_string(&found).ok()),
  })
}

/// The rows of one group (its `:track`, `:scope`, `:agent` key and `:workspace` key): one range
/// of `entries_layer`, in rank order.
const IN_GROUP: &str =
  "e.track = :track AND e.scope = :scope AND e.agent_key = :agent AND e.workspace_key = :workspace";

/// The ranking order, best first: recall count, then recency, then id.
const BEST_FIRST: &str = "ORDER BY e.recall_count DESC, e.updated_at DESC, e.id";

/// A statement's parameters: a filter's track, scope and visibility keys, and what it searches.
fn bind<'a>(f: &Filter<'a>, pattern: Option<&'a str>, needle: Option<&'a str>) -> Named<'a> {
  let only = |key: fn(&'a Only) -> &'a Option<String>| f.only.and_then(|o| key(o).as_deref());
  Named {
    track: f.track,
    scope: f.scope,
    pattern,
    needle,
    only_workspace: only(|o| &o.workspace_key),
    only_agent: only(|o| &o.agent_key),
    ..f.visibility.unwrap_or(&ANYONE).named()
  }
}

/// A group of entries: track, scope, agent key and workspace key.
type Group = (String, String, String, String);

/// The groups a filter admits, by the unique index of `entry_groups`: each track's
/// user-global groups, and its workspace groups (of the visibility's workspace, if it has one).
fn groups(conn: &Connection, f: &Filter<'_>) -> rusqlite::Result<Vec<Group>> {
  named_rows(conn, &admitted(f), &bind(f, None, None), |r| r.try_into())
}

/// The statement of [`groups`].
fn admitted(f: &Filter<'_>) -> String {
  let workspace = match f.visibility.unwrap_or(&ANYONE).workspace_key {
    Some(_) => "e.workspace_key = :workspace",
    None => ":workspace IS NULL",
  };
  let of = |scope: &str| {
    format!(
      "SELECT e.track AS g_track, e.scope AS g_scope, e.agent_key AS g_agent,
         e.workspace_key AS g_workspace FROM entry_groups AS e WHERE e.track IN ('user', 'agent') AND e.scope = '{scope}' AND {ADMITS}"
    )
  };
  let (global, local) = (of("user-global"), of("workspace"));
  format!("{global} UNION ALL {local} AND {workspace}")
}

/// Whether a filter admits a quarter of the store's text or more (by the layers' usage, which
/// counts every agent's rows as shared): then counting a common needle's matches in the FTS
/// index, visible or not, beats testing each admitted row, which costs about four times as
/// much per row.
fn admits_much(conn: &Connection, f: &Filter<'_>) -> rusqlite::Result<bool> {
  let sql = format!(
    "SELECT 4 * coalesce(sum(used) FILTER (WHERE {ADMITS}), 0) >= coalesce(sum(used), 0)
     FROM (SELECT track, scope, workspace_key, '' AS agent_key, used FROM layer_usage) AS e"
  );
  named_value(conn, &sql, &bind(f, None, None))
}

/// Whether a filter admits every entry, whatever its text: it binds none of [`ADMITS`]'s
/// parameters (no track, scope, visibility or exact facet).
fn admits_all(f: &Filter<'_>) -> bool {
  bind(f, None, None).is_empty()
}

/// A small session's layers together hold at most this many units (a few hundred entries,
/// about three times the default budgets): testing each of its rows costs no more than asking
/// the index for a rare needle's rows, and much less than for a common one.
const SESSION_UNITS: i64 = 32_000;

/// Whether `vis` is a session's whose layers (the user-global ones and its workspace's, every
/// agent's rows counted) hold at most [`SESSION_UNITS`].
fn small_session(conn: &Connection, vis: &Visibility) -> rusqlite::Result<bool> {
  let Some(workspace) = vis.workspace_key.as_deref() else {
    return Ok(false);
  };
  let sql = "SELECT coalesce(sum(used), 0) <= ?2 FROM layer_usage
    WHERE track IN ('user', 'agent') AND (scope = 'user-global' AND workspace_key = ''
      OR scope = 'workspace' AND workspace_key = ?1)";
  Ok(one(conn, sql, params![workspace, SESSION_UNITS], |r| r.get(0))?.unwrap_or(false))
}

/// The rows a filter matches by `needle`, each mapped by `map` from `columns` (of `entries AS
/// e`): those of the FTS matches [`needle_for`] found, or a scan of the groups the filter
/// admits, in one statement, each group a range of `entries_layer`. A text with a NUL is
/// tested exactly.
fn select<T>(
  conn: &Connection,
  f: &Filter<'_>,
  (needle, found): (Needle, Option<String>),
  columns: &str,
  map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
  let pattern = f.folded.map(|n| needle.pattern(n));
  let all = bind(f, pattern.as_deref(), f.folded);
  let from = |condition: &str| format!("SELECT {columns} FROM entries AS e WHERE {condition}");
  if let Some(found) = &found {
    let sql = from(&format!(
      "{ADMITS} AND (e.fts_id IN (SELECT value FROM json_each(:pattern))
         AND instr(e.text, char(0)) = 0 OR e.fts_id IN {NUL_MATCHES})"
    ));
    let args = Named {
      pattern: Some(found),
      ..all
    };
    return named_rows(conn, &sql, &args, map);
  }
  // Each admitted group is one range of `entries_layer`, read in the order of the groups.
  let sql = format!(
    "SELECT {columns} FROM ({}) AS g CROSS JOIN entries AS e
     WHERE e.track = g_track AND e.scope = g_scope AND e.workspace_key = g_workspace
       AND e.agent_key = g_agent AND {}",
    admitted(f),
    needle.test()
  );
  named_rows(conn, &sql, &all, map)
}

/// A matching entry's ranking keys, best first: recall count DESC, updated_at DESC, id ASC.
type Rank = (Reverse<i64>, Reverse<i64>, String);

/// The ranking keys and rowid of a row of `e.recall_count, e.updated_at, e.id, e.rowid`.
fn rank_and_rowid(r: &Row<'_>) -> rusqlite::Result<(Rank, i64)> {
  let rank = (Reverse(r.get(0)?), Reverse(r.get(1)?), r.get(2)?);
  Ok((rank, r.get(3)?))
}

/// The best `limit` entries a filter matches, best first, and the exact number of matches.
///
/// # Errors
/// SQLite failures.
pub fn ranked_page(
  conn: &Connection,
  f: &Filter<'_>,
  limit: usize,
) -> rusqlite::Result<(Vec<(i64, Entry)>, u64)> {
  let vis = f.visibility.unwrap_or(&ANYONE);
  one_snapshot(conn, || {
    // A small session's rows are all tested, without asking the index.
    let small = small_session(conn, vis)?;
    let needle = match f.folded {
      Some(folded) if small => (Needle::scan(folded), None),
      _ => needle_for(conn, f.folded)?,
    };
    // A common needle: one the index holds that is scanned for.
    let common = !small && needle.0 != Needle::of(f.folded);
    if let Some(folded) = f.folded.filter(|_| common) {
      if admits_all(f) || admits_much(conn, f)? {
        return common_page(conn, f, vis, folded, limit);
      }
    }
    // Few matches, or few admitted rows, or a needle the index cannot hold: rank them all.
    let columns = "e.recall_count, e.updated_at, e.id, e.rowid";
    let mut page = select(conn, f, needle, columns, rank_and_rowid)?;
    let total = page.len() as u64;
    page.sort_unstable();
    page.truncate(limit);
    Ok((in_order(conn, &page)?, total))
  })
}

/// [`ranked_page`] of a common indexed needle over much of the store: the total counted in the
/// FTS index, whose rowids carry their group (texts with a NUL counted apart, exactly); the page
/// of a session by the best of each group it sees, any other by a walk down `entries_rank`
/// until it is full, which takes few rows when the needle is common.
fn common_page(
  conn: &Connection,
  f: &Filter<'_>,
  vis: &Visibility,
  folded: &str,
  limit: usize,
) -> rusqlite::Result<(Vec<(i64, Entry)>, u64)> {
  let visible = match admits_all(f) {
    true => String::new(),
    false => format!("AND fts_id >> 32 IN (SELECT e.id FROM entry_groups AS e WHERE {ADMITS})"),
  };
  let indexed = Needle::of(Some(folded));
  let count = format!(
    "SELECT (SELECT count(*) FROM ({}) WHERE fts_id NOT IN
         (SELECT fts_id FROM entries WHERE instr(text, char(0)) > 0) {visible})
       + (SELECT count(*) FROM entries AS e WHERE {ADMITS} AND e.fts_id IN {NUL_MATCHES})",
    indexed.indexed().unwrap_or_default(),
  );
  let phrase = indexed.pattern(folded);
  let total: i64 = named_value(conn, &count, &bind(f, Some(&phrase), Some(folded)))?;
  let scan = Needle::scan(folded);
  let (pattern, test) = (scan.pattern(folded), scan.test());
  let searched = bind(f, Some(&pattern), Some(folded));
  let ranks = "SELECT e.recall_count, e.updated_at, e.id, e.rowid FROM entries AS e";
  // A session sees 8 groups (more only where the JS plugin keyed user-global rows by
  // workspace): the best of each, merged, never walks other sessions' rows.
  let page = if vis.agent_key.is_some() && vis.workspace_key.is_some() {
    let best = format!("{ranks} WHERE {IN_GROUP} AND {test} {BEST_FIRST} LIMIT {limit}");
    let mut page = Vec::new();
    for (track, scope, agent, workspace) in groups(conn, f)? {
      // The parameters of one group's rows ([`IN_GROUP`]) and what they are searched for.
      let args = Named {
        track: Some(&track),
        scope: Some(&scope),
        agent: Some(&agent),
        workspace: Some(&workspace),
        ..searched
      };
      page.extend(named_rows(conn, &best, &args, rank_and_rowid)?);
    }
    page.sort_unstable();
    page.truncate(limit);
    page
  } else {
    let walk = format!(
      "{ranks} INDEXED BY entries_rank WHERE {ADMITS} AND {test} {BEST_FIRST} LIMIT {limit}"
    );
    named_rows(conn, &walk, &searched, rank_and_rowid)?
  };
  Ok((in_order(conn, &page)?, total.max(0) as u64))
}

/// The entries of a page of `(rank, rowid)`, in page order, read in one statement.
fn in_order(conn: &Connection, page: &[(Rank, i64)]) -> rusqlite::Result<Vec<(i64, Entry)>> {
  let rowids: Vec<i64> = page.iter().map(|(_, rowid)| *rowid).collect();
  let list = serde_json::to_string(&rowids).unwrap_or_default();
  let sql = format!(
    "SELECT {ENTRY_COLUMNS}, rowid FROM entries WHERE rowid IN (SELECT value FROM json_each(?1))"
  );
  let mut found: HashMap<i64, Entry> = rows(conn, &sql, [list], entry_and_rowid)?;
  let take = |id: &i64| Some((*id, found.remove(id)?));
  Ok(rowids.iter().filter_map(take).collect())
}

/// The entries a filter matches, oldest first.
///
/// # Errors
/// SQLite failures.
pub fn oldest_first(conn: &Connection, f: &Filter<'_>) -> rusqlite::Result<Vec<Entry>> {
  let columns = format!("{ENTRY_COLUMNS}, rowid");
  let mut rows = one_snapshot(conn, || {
    let needle = needle_for(conn, f.folded)?;
    select(conn, f, needle, &columns, entry_and_rowid)
  })?;
  rows.sort_by_key(|(rowid, e)| (e.created_at, *rowid));
  Ok(rows.into_iter().map(|(_, e)| e).collect())
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::protocol::model::{Scope, Track};

  #[test]
  fn a_session_workspace_layer_is_its_shared_rows_and_its_agents(
  ) -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let store = crate::store::Store::open(&dir.path().join("memory.db"), 0)?;
    let conn = store.conn();
    let entry = |id: &str, scope, workspace: &str, agent: &str, text: &str| Entry {
      id: id.into(),
      track: Track::Agent,
      scope,
      workspace_key: workspace.into(),
      agent_key: agent.into(),
      text: text.into(),
      source: "s".into(),
      tags: vec![],
      version: 1,
      created_at: 0,
      updated_at: 0,
      last_recalled: None,
      recall_count: 0,
      session_id: None,
    };
    let agents = ["", "coder", "reviewer", ""].iter().enumerate();
    let rows: Vec<Entry> = agents
      .map(|(i, agent)| {
        entry(
          &format!("e{i}"),
          Scope::Workspace,
          "/w",
          agent,
          &format!("note {i}"),
        )
      })
      .collect();
    crate::store::insert_entries(conn, &rows)?;
    let ids = |agent: Option<&str>, needle: Option<&str>| -> rusqlite::Result<Vec<String>> {
      let vis = Visibility {
        agent_key: agent.map(str::to_string),
        workspace_key: Some("/w".into()),
      };
      let f = Filter {
        track: Some("agent"),
        scope: Some("workspace"),
        visibility: Some(&vis),
        folded: needle,
        only: None,
      };
      Ok(oldest_first(conn, &f)?.into_iter().map(|e| e.id).collect())
    };
    assert_eq!(ids(Some("coder"), None)?, ["e0", "e1", "e3"]);
    // An empty agent key sees the shared rows once, not twice.
    assert_eq!(ids(Some(""), None)?, ["e0", "e3"]);
    assert_eq!(ids(None, None)?, ["e0", "e1", "e2", "e3"]);
    assert_eq!(ids(Some("reviewer"), Some("note 2"))?, ["e2"]);
    assert_eq!(ids(Some("reviewer"), Some("2"))?, ["e2"]);
    // User-global is one layer whatever a row's workspace key (the JS plugin wrote some).
    let legacy = entry("g", Scope::UserGlobal, "/legacy", "coder", "old note");
    crate::store::insert_entries(conn, &[legacy])?;
    let vis = Visibility {
      agent_key: Some("coder".into()),
      workspace_key: Some("/w".into()),
    };
    let global = Filter {
      scope: Some("user-global"),
      visibility: Some(&vis),
      ..Filter::default()
    };
    let found: Vec<String> = oldest_first(conn, &global)?
      .into_iter()
      .map(|e| e.id)
      .collect();
    assert_eq!(found, ["g"]);
    Ok(())
  }
}
