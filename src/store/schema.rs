//! The store's SQL schema and its forward-only migration ladder.
//!
//! Versions 1–4 are the JS dsh-memento's schema, byte for byte, so its `memory.db` opens here.
//! Version 10 is ours, reached from 4 in one step. Each step's SQL is `schema/vNN.sql`, which
//! says what it adds.
//! Every step runs in its own `BEGIN IMMEDIATE` transaction together with its version bump, so
//! a crash leaves the store at the old or the new version, never in between.
#![forbid(unsafe_code)]

use rusqlite::{Connection, TransactionBehavior};

use super::sql::{self, has_column};
use super::{chain, ledger};
use crate::error::{MemoryError, Result, StoreReason};
use crate::text::units;

/// The store schema version this build writes.
pub const SCHEMA_VERSION: i64 = 14;

/// Run the step that ends at `version`: 1–4 the JS plugin's, 10–14 ours. A version with no
/// step is an error, never another step run again.
fn run_step(conn: &Connection, version: i64) -> rusqlite::Result<()> {
  conn.execute_batch(match version {
    1 => include_str!("schema/v01.sql"),
    2 => include_str!("schema/v02.sql"),
    3 => include_str!("schema/v03.sql"),
    4 => include_str!("schema/v04.sql"),
    10 => include_str!("schema/v10.sql"),
    11 => include_str!("schema/v11.sql"),
    12 => include_str!("schema/v12.sql"),
    13 => include_str!("schema/v13.sql"),
    14 => include_str!("schema/v14.sql"),
    _ => {
      let what = format!("no migration step ends at schema version {version}");
      return Err(rusqlite::Error::InvalidParameterName(what));
    }
  })?;
  if version == 11 {
    ledger::adopt_entries(conn)?;
    chain::record_head(conn)?;
  } else if version == 10 {
    // Step 10's UPDATE OF units trigger (dropped by step 13) accounts each row's usage.
    let mut update = conn.prepare("UPDATE entries SET units = ?1 WHERE rowid = ?2")?;
    let sql = "SELECT rowid, text FROM entries";
    let texts: Vec<(i64, String)> = sql::rows(conn, sql, [], |r| r.try_into())?;
    for (rowid, text) in texts {
      update.execute(rusqlite::params![units(&text) as i64, rowid])?;
    }
    chain::backfill(conn)?;
  }
  Ok(())
}

/// `STORE_CORRUPT` (with SQLite's reason: busy, corrupt, …) for a step of opening that reads or
/// changes the schema.
pub fn failed_check(path: &str, e: rusqlite::Error) -> MemoryError {
  let what = format!("memory database at {path} failed schema validation");
  sql::failed(path, &what, e)
}

/// The version a store is at: `0` for an empty file, the `meta` row when present, and — for a
/// `meta` table that lost its row (the JS plugin never re-inserts it) — the version its shape
/// shows.
fn current_version(conn: &Connection, path: &str) -> Result<i64> {
  let storage = |e| failed_check(path, e);
  let corrupt = |what: String| MemoryError::store(path, StoreReason::Corrupt, &what, None);
  let sql = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'";
  let tables: Vec<String> = sql::rows(conn, sql, [], |r| r.get(0)).map_err(storage)?;
  if tables.is_empty() {
    return Ok(0);
  }
  let table = |name: &str| tables.iter().any(|t| t == name);
  let has = |name, column| has_column(conn, name, column).map_err(storage);
  if !table("meta") {
    return Err(corrupt(format!("memory database at {path} is not a dsh-memento store (it has tables but no meta table); refusing to adopt it")));
  }
  match sql::meta(conn, "schema_version").map_err(storage)? {
    Some(raw) => match raw.trim().parse::<i64>() {
      Ok(v) if v >= 0 && raw.trim() == raw => Ok(v),
      _ => Err(corrupt(format!(
        "memory database at {path} has invalid schema_version {raw:?}"
      ))),
    },
    None if has("snapshots", "agent_key")? => Ok(12),
    None if has("audit", "fields")? => Ok(11),
    None if table("entries_fts") => Ok(10),
    None if has("entries", "tags")? => Ok(4),
    None if has("entries", "agent_key")? => Ok(3),
    None if table("proposals") => Ok(2),
    None => Ok(1),
  }
}

/// Bring the store to [`SCHEMA_VERSION`], one transaction per step.
///
/// # Errors
/// `STORE_UNSUPPORTED_VERSION` for a newer store; `STORE_CORRUPT` for a file that is not a
/// dsh-memento store, a bad version row, or a failing step (which leaves the previous version).
pub fn migrate(conn: &mut Connection, path: &str) -> Result<()> {
  // Almost every open finds the store current: one read, without the write lock a step needs.
  let current = SCHEMA_VERSION.to_string();
  if sql::meta(conn, "schema_version").ok().flatten() == Some(current) {
    return Ok(());
  }
  let fail = |e| failed_check(path, e);
  loop {
    let begun = conn.transaction_with_behavior(TransactionBehavior::Immediate);
    let tx = begun.map_err(fail)?;
    let version = current_version(&tx, path)?;
    if version > SCHEMA_VERSION {
      return Err(MemoryError::StoreUnsupportedVersion {
        path: path.to_string(),
        version,
        supported: SCHEMA_VERSION,
      });
    }
    if version == SCHEMA_VERSION {
      return tx.commit().map_err(fail);
    }
    // A store at 5–9 (unreleased builds) fails step 10's first ALTER and is refused.
    let next = match version {
      4..=9 => 10,
      _ => version + 1,
    };
    run_step(&tx, next).map_err(fail)?;
    sql::put_meta(&tx, "schema_version", &next.to_string()).map_err(fail)?;
    tx.commit().map_err(fail)?;
  }
}

#[cfg(test)]
mod tests {
  #[test]
  fn a_version_without_a_step_is_an_error_not_another_step_again() -> rusqlite::Result<()> {
    let conn = Connection::open_in_memory()?;
    for version in [5, 9, SCHEMA_VERSION + 1] {
      assert!(run_step(&conn, version).is_err(), "{version}");
    }
    Ok(())
  }

  use super::*;

  fn old_store(version: i64) -> rusqlite::Result<Connection> {
    let conn = Connection::open_in_memory()?;
    for v in 1..=version {
      run_step(&conn, v)?;
    }
    conn.execute(
      "INSERT INTO meta VALUES ('schema_version', ?1)",
      [version.to_string()],
    )?;
    Ok(conn)
  }

  #[test]
  fn fresh_store_reaches_current_version() -> Result<()> {
    let mut conn =
      Connection::open_in_memory().map_err(|e| crate::store::failed("m", "open", e))?;
    migrate(&mut conn, "m")?;
    assert_eq!(current_version(&conn, "m")?, SCHEMA_VERSION);
    Ok(())
  }

  #[test]
  fn every_old_version_migrates_with_rows_and_usage(
  ) -> std::result::Result<(), Box<dyn std::error::Error>> {
    for version in 1..=4 {
      let mut conn = old_store(version)?;
      conn.execute(
        "INSERT INTO entries (id, track, scope, workspace_key, text, source, created_at, updated_at) VALUES ('e1', 'user', 'workspace', '/w', '记住 pnpm 😀', 'dsh-memento', 1, 1)",
        [],
      )?;
      conn.execute(
        "INSERT INTO audit (ts, action, text) VALUES (1, 'add', 'x')",
        [],
      )?;
      if version >= 2 {
        conn.execute(
          "INSERT INTO proposals (id, kind, track, scope, text, source, session_id, status, created_at) VALUES ('p1', 'compaction-summary', 'agent', 'workspace', 'uses vitest', 'compaction', 'S', 'dismissed', 1)",
          [],
        )?;
      }
      migrate(&mut conn, "m")?;
      if version >= 2 {
        let (status, text): (String, String) = conn.query_row(
          "SELECT status, text FROM proposals WHERE id = 'p1'",
          [],
          |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        assert_eq!(
          (status.as_str(), text.as_str()),
          ("dismissed", "uses vitest"),
          "proposals survive (from v{version})"
        );
      }
      let (units, tags, ver): (i64, String, i64) = conn.query_row(
        "SELECT units, tags, version FROM entries WHERE id = 'e1'",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
      )?;
      assert_eq!(
        (units, tags.as_str(), ver),
        (10, "[]", 1),
        "from v{version}"
      );
      let used: i64 = conn.query_row(
        "SELECT used FROM layer_usage WHERE track = 'user' AND scope = 'workspace' AND workspace_key = '/w'",
        [],
        |r| r.get(0),
      )?;
      assert_eq!(used, 10);
      // The legacy row is kept; the entry no row named is adopted into the ledger.
      let mut stmt = conn.prepare("SELECT action, entry_id FROM audit ORDER BY seq")?;
      let rows: Vec<(String, Option<String>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
      assert_eq!(
        rows,
        [("add".into(), None), ("adopt".into(), Some("e1".into()))]
      );
      drop(stmt);
      // Indexed under its group's id, as a search counts it.
      let indexed: i64 = conn.query_row(
        "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH '\"pnpm\"' AND rowid >> 32 =
           (SELECT id FROM entry_groups WHERE track = 'user' AND scope = 'workspace' AND workspace_key = '/w' AND agent_key = '')",
        [],
        |r| r.get(0),
      )?;
      assert_eq!(
        indexed, 1,
        "the search index covers migrated entries (from v{version})"
      );
      // Usage and the index are kept by the store's writes: opening parses no trigger.
      let triggers: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'",
        [],
        |r| r.get(0),
      )?;
      assert_eq!(triggers, 0, "from v{version}");
      // The search index merges a level's segments as soon as it holds four.
      let sql = "SELECT v FROM entries_fts_config WHERE k = 'crisismerge'";
      let merged_at: i64 = conn.query_row(sql, [], |r| r.get(0))?;
      assert_eq!(merged_at, 4, "from v{version}");
    }
    Ok(())
  }

  #[test]
  fn a_missing_version_row_is_read_from_the_shape(
  ) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let mut conn = old_store(3)?;
    conn.execute("DELETE FROM meta", [])?;
    migrate(&mut conn, "m")?;
    migrate(&mut conn, "m")?;
    assert_eq!(current_version(&conn, "m")?, SCHEMA_VERSION);
    // A current store read by its shape runs its last step again, harmlessly.
    conn.execute("DELETE FROM meta", [])?;
    migrate(&mut conn, "m")?;
    assert_eq!(current_version(&conn, "m")?, SCHEMA_VERSION);
    Ok(())
  }

  #[test]
  fn newer_and_foreign_stores_are_refused() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let mut conn = old_store(4)?;
    conn.execute("UPDATE meta SET value = '99'", [])?;
    assert_eq!(
      migrate(&mut conn, "m").err().map(|e| e.code()),
      Some("STORE_UNSUPPORTED_VERSION")
    );
    let mut foreign = Connection::open_in_memory()?;
    foreign.execute_batch("CREATE TABLE notes (x TEXT)")?;
    assert_eq!(
      migrate(&mut foreign, "m").err().map(|e| e.code()),
      Some("STORE_CORRUPT")
    );
    Ok(())
  }

  #[test]
  fn pending_proposals_are_unique_per_session_but_dismissed_ones_do_not_block() -> Result<()> {
    let mut conn =
      Connection::open_in_memory().map_err(|e| crate::store::failed("m", "open", e))?;
    migrate(&mut conn, "m")?;
    let insert = |id: &str, status: &str| {
      conn.execute(
        "INSERT INTO proposals (id, kind, track, scope, text, source, session_id, status, created_at) VALUES (?1, 'k', 'agent', 'workspace', 't', 's', 'S', ?2, 1)",
        [id, status],
      )
    };
    assert!(insert("a", "dismissed").is_ok());
    assert!(insert("b", "pending").is_ok());
    assert!(insert("c", "pending").is_err());
    Ok(())
  }
}
