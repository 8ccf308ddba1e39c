//! Entry reads: the entries a filter matches (search, targeting, listings and snapshots all
//! go through [`select`]), pages by rowid, and the ranking of a query.
//!
//! A needle of 3+ characters is a phrase query on the FTS5 trigram index of `lower(text)`,
//! which is exactly the protocol's ASCII-case-insensitive substring test; a shorter one is the
//! index's trigrams that begin with it (by the `fts5vocab` table `entries_fts_terms`). A needle
//! that the index matches often is a `LIKE` over the visible layers, read by the
//! `entries_layer` index (which covers what a search reads).
#![forbid(unsafe_code)]

use std::cmp::Reverse;
use std::collections::HashMap;

use rusqlite::{params, Connection, Row};

use crate::protocol::model::{Entry, Scope, Track};
use crate::store::{entry_and_rowid, rows, Visibility, ENTRY_COLUMNS};

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
}

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
    match (
      folded.bytes().any(|b| b.is_ascii_alphabetic()),
      folded.contains('\0'),
    ) {
      (false, _) => Self::Exact,
      (true, false) => Self::Like,
      (true, true) => Self::Folded,
    }
  }

  /// The FTS rowids whose folded text may contain the pattern bound at `param`.
  fn indexed(self, param: &str) -> Option<String> {
    match self {
      Self::Phrase => Some(format!(
        "SELECT rowid AS fts_id FROM entries_fts WHERE entries_fts MATCH {param}"
      )),
      Self::Short => Some(format!(
        "SELECT DISTINCT doc AS fts_id FROM entries_fts_terms
         WHERE term >= {param} AND term <= {param} || char(1114111, 1114111)"
      )),
      _ => None,
    }
  }

  /// The scan's test of a row `e` for the pattern `?5`.
  fn test(self) -> &'static str {
    match self {
      Self::Like => "e.text LIKE ?5 ESCAPE '\\'",
      Self::Exact => "instr(e.text, ?5) > 0",
      Self::Folded => "instr(lower(e.text), ?5) > 0",
      _ => "?5 IS NULL",
    }
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

/// From this many matches on, a scan of the visible layers' index beats joining the FTS
/// matches to their rows one by one.
const PHRASE_ROWS: i64 = 256;

/// FTS5 and `LIKE` end a text at its first NUL: the texts with one (by the `entries_nul` index)
/// that contain the folded needle `?6`.
const NUL_MATCHES: &str = "(SELECT fts_id FROM entries WHERE instr(text, char(0)) > 0
  AND instr(lower(text), ?6) > 0)";

/// Whether the FTS index matches `folded` (when it can) in `PHRASE_ROWS` entries or more.
fn is_common(conn: &Connection, folded: &str) -> rusqlite::Result<bool> {
  let needle = Needle::of(Some(folded));
  let Some(indexed) = needle.indexed("?1") else {
    return Ok(false);
  };
  let probe = format!("SELECT count(*) >= ?2 FROM ({indexed} LIMIT ?2)");
  let args = params![needle.pattern(folded), PHRASE_ROWS];
  conn.prepare_cached(&probe)?.query_row(args, |r| r.get(0))
}

/// The rows a filter matches, each mapped by `map` from `columns` (of `entries AS e`).
///
/// A needle matching fewer than `PHRASE_ROWS` entries in the FTS index is driven by it.
/// Anything else reads the visible layers by index: per track the user-global rows, and the
/// workspace rows of the visibility's workspace (all workspaces without one); user-global is one
/// layer whatever a row's workspace key. A session's agent key narrows each range to the shared
/// rows and its agent's. Texts with a NUL are tested apart, exactly.
///
/// # Errors
/// SQLite failures.
pub fn select<T>(
  conn: &Connection,
  f: &Filter<'_>,
  columns: &str,
  map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
  let common = match f.folded {
    Some(n) => is_common(conn, n)?,
    None => false,
  };
  select_by(conn, f, common, columns, map)
}

/// [`select`], told whether the needle is common.
fn select_by<T>(
  conn: &Connection,
  f: &Filter<'_>,
  common: bool,
  columns: &str,
  mut map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
  let needle = match f.folded {
    Some(n) if common => Needle::scan(n),
    folded => Needle::of(folded),
  };
  let vis = f.visibility.cloned().unwrap_or_default();
  let pattern = f.folded.map(|n| needle.pattern(n));
  let mut out = Vec::new();
  let mut run = |condition: &str, args: &[&dyn rusqlite::ToSql]| -> rusqlite::Result<()> {
    let sql = format!(
      "SELECT {columns} FROM entries AS e
       WHERE (?3 IS NULL OR e.agent_key = '' OR e.agent_key = ?3)
         AND (e.scope <> 'workspace' OR ?4 IS NULL OR e.workspace_key = ?4) AND {condition}"
    );
    out.extend(rows(conn, &sql, args, &mut map)?);
    Ok(())
  };
  let any_layer = "(?1 IS NULL OR e.track = ?1) AND (?2 IS NULL OR e.scope = ?2)";
  let all = params![
    f.track,
    f.scope,
    vis.agent_key,
    vis.workspace_key,
    pattern,
    f.folded
  ];
  if let Some(indexed) = needle.indexed("?5") {
    return run(
      &format!(
        "(e.fts_id IN ({indexed}) AND instr(e.text, char(0)) = 0 OR e.fts_id IN {NUL_MATCHES})
         AND {any_layer}"
      ),
      all,
    )
    .map(|()| out);
  }
  if needle == Needle::Like {
    let nul =
      format!("e.fts_id IN {NUL_MATCHES} AND NOT e.text LIKE ?5 ESCAPE '\\' AND {any_layer}");
    run(&nul, all)?;
  }
  let text = needle.test();
  for track in Track::ALL {
    for scope in Scope::ALL {
      if f.track.is_some_and(|t| t != track.as_str())
        || f.scope.is_some_and(|s| s != scope.as_str())
      {
        continue;
      }
      let workspace = match scope {
        Scope::Workspace => vis.workspace_key.as_deref(),
        Scope::UserGlobal => Some(""),
      };
      let (track, scope) = (track.as_str(), scope.as_str());
      let layer = "e.track = ?1 AND e.scope = ?2";
      match (workspace, vis.agent_key.as_deref()) {
        // A session's rows of a layer: the shared ones and its agent's, each an index range.
        (Some(key), Some(agent)) => {
          let seek = format!("{layer} AND e.workspace_key = ?4 AND e.agent_key = ?6 AND {text}");
          for seeker in ["", agent].iter().take(1 + usize::from(!agent.is_empty())) {
            run(&seek, params![track, scope, agent, key, pattern, seeker])?;
          }
          if scope == Scope::UserGlobal.as_str() {
            let other = format!("{layer} AND e.workspace_key > '' AND {text}");
            run(&other, params![track, scope, agent, None::<&str>, pattern])?;
          }
        }
        (Some(key), None) if scope == Scope::Workspace.as_str() => {
          let seek = format!("{layer} AND e.workspace_key = ?4 AND {text}");
          run(&seek, params![track, scope, None::<&str>, key, pattern])?;
        }
        _ => run(
          &format!("{layer} AND {text}"),
          params![track, scope, vis.agent_key, None::<&str>, pattern],
        )?,
      }
    }
  }
  Ok(out)
}

/// A matching entry's ranking keys, best first: recall count DESC, updated_at DESC, id ASC.
type Rank<Id> = (Reverse<i64>, Reverse<i64>, Id);

/// The best `limit` entries a filter matches, best first, and the exact number of matches:
/// one pass over the matches' keys (an id is copied only when it enters the page), then the
/// page's rows.
///
/// # Errors
/// SQLite failures.
pub fn ranked_page(
  conn: &Connection,
  f: &Filter<'_>,
  limit: usize,
) -> rusqlite::Result<(Vec<(i64, Entry)>, u64)> {
  let everything = f.track.is_none() && f.scope.is_none();
  let everything = everything && f.visibility.is_none_or(|v| *v == Visibility::default());
  let common = match f.folded {
    Some(n) => is_common(conn, n)?,
    None => false,
  };
  if let Some(n) = f.folded.filter(|_| everything && common) {
    return common_page(conn, n, limit);
  }
  let mut page: Vec<(Rank<String>, i64)> = Vec::with_capacity(limit.min(64) + 1);
  let columns = "e.recall_count, e.updated_at, e.id, e.rowid";
  let matches = select_by(conn, f, common, columns, |r| {
    let id = r.get_ref(2)?.as_str()?;
    let rank = (Reverse(r.get(0)?), Reverse(r.get(1)?), id);
    let at = page.partition_point(|(p, _)| (p.0, p.1, p.2.as_str()) <= rank);
    if at < limit {
      page.insert(at, ((rank.0, rank.1, id.to_string()), r.get(3)?));
      page.truncate(limit);
    }
    Ok(())
  })?;
  // The page's rows in one statement, in page order.
  let rowids: Vec<i64> = page.iter().map(|(_, rowid)| *rowid).collect();
  let list = serde_json::to_string(&rowids).unwrap_or_default();
  let sql = format!(
    "SELECT {ENTRY_COLUMNS}, rowid FROM entries WHERE rowid IN (SELECT value FROM json_each(?1))"
  );
  let mut found: HashMap<i64, Entry> = rows(conn, &sql, [list], entry_and_rowid)?
    .into_iter()
    .collect();
  let page = rowids
    .iter()
    .filter_map(|id| Some((*id, found.remove(id)?)));
  Ok((page.collect(), matches.len() as u64))
}

/// [`ranked_page`] of a common indexed needle over every entry: the total counted in the FTS
/// index (texts with a NUL counted apart, exactly), the page by walking `entries_rank` until it
/// is full, which takes few rows when the needle is common.
fn common_page(
  conn: &Connection,
  folded: &str,
  limit: usize,
) -> rusqlite::Result<(Vec<(i64, Entry)>, u64)> {
  let indexed = Needle::of(Some(folded));
  let nul_texts = "SELECT fts_id FROM entries WHERE instr(text, char(0)) > 0";
  let count = format!(
    "SELECT (SELECT count(*) FROM ({}) WHERE fts_id NOT IN ({nul_texts}))
       + (SELECT count(*) FROM {NUL_MATCHES})",
    indexed.indexed("?5").unwrap_or_default()
  );
  let nulls = rusqlite::types::Null;
  let args = params![nulls, nulls, nulls, nulls, indexed.pattern(folded), folded];
  let total: i64 = conn.prepare_cached(&count)?.query_row(args, |r| r.get(0))?;
  let scan = Needle::scan(folded);
  // `LIKE` ends a text at its first NUL: texts with one are tested apart (`instr` is exact).
  let page = format!(
    "SELECT {ENTRY_COLUMNS}, rowid FROM entries AS e INDEXED BY entries_rank
     WHERE ({} OR e.fts_id IN {NUL_MATCHES})
     ORDER BY e.recall_count DESC, e.updated_at DESC, e.id LIMIT ?4",
    scan.test()
  );
  let (limit, pattern) = (limit as i64, scan.pattern(folded));
  let args = params![nulls, nulls, nulls, limit, pattern, folded];
  let page = rows(conn, &page, args, entry_and_rowid)?;
  Ok((page, total.max(0) as u64))
}

/// The entries a filter matches, oldest first.
///
/// # Errors
/// SQLite failures.
pub fn oldest_first(conn: &Connection, f: &Filter<'_>) -> rusqlite::Result<Vec<Entry>> {
  let columns = format!("{ENTRY_COLUMNS}, rowid");
  let mut rows = select(conn, f, &columns, entry_and_rowid)?;
  rows.sort_by_key(|(rowid, e)| (e.created_at, *rowid));
  Ok(rows.into_iter().map(|(_, e)| e).collect())
}

#[cfg(test)]
mod tests {
  use super::*;

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
      let f = Filter {
        track: Some("agent"),
        scope: Some("workspace"),
        visibility: Some(&vis),
        folded: needle,
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
    conn.execute(
      "INSERT INTO entries (id, track, scope, workspace_key, agent_key, text, source, tags, version, created_at, updated_at, recall_count, units, fts_id)
       VALUES ('g', 'agent', 'user-global', '/legacy', 'coder', 'old note', 's', '[]', 1, 0, 0, 0, 8, 9)",
      [],
    )?;
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
