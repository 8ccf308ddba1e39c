//! The store as a whole: opening (a locked store, a file that is not one), and the ledger as it
//! keeps it — a chain appended, pruned and checked (`chain`, `ledger`) on a store the migration
//! made (`schema`).
use rusqlite::Connection;

use super::chain::*;
use super::ledger::verify;
use super::schema::migrate;
use super::{Store, StoreReason};
use std::time::Duration;

fn ledger(rows: usize) -> rusqlite::Result<Connection> {
  let mut conn = Connection::open_in_memory()?;
  migrate(&mut conn, "m").map_err(|e| rusqlite::Error::InvalidParameterName(e.to_string()))?;
  for i in 0..rows {
    let text = format!("row {i}");
    append(
      &conn,
      &NewAudit {
        action: "add",
        text: Some(&text),
        outcome: Some("ok"),
        ..NewAudit::default()
      },
    )?;
  }
  Ok(conn)
}

#[test]
fn an_untouched_chain_verifies() -> rusqlite::Result<()> {
  let conn = ledger(5)?;
  let v = verify(&conn)?;
  assert!(v.ok);
  assert_eq!(v.checked, 5);
  assert_eq!(v.head.map(|h| h.len()), Some(64));
  Ok(())
}

#[test]
fn an_edited_row_is_the_first_broken_one() -> rusqlite::Result<()> {
  let conn = ledger(5)?;
  conn.execute("UPDATE audit SET text = 'forged' WHERE seq = 3", [])?;
  let v = verify(&conn)?;
  assert_eq!(
    v.first_broken
      .map(|b| (b.seq, b.reason.contains("content"))),
    Some((3, true))
  );
  Ok(())
}

#[test]
fn a_removed_row_breaks_the_next_one() -> rusqlite::Result<()> {
  let conn = ledger(5)?;
  conn.execute("DELETE FROM audit WHERE seq = 2", [])?;
  let v = verify(&conn)?;
  assert_eq!(
    v.first_broken
      .map(|b| (b.seq, b.reason.contains("prev_hash"))),
    Some((3, true))
  );
  Ok(())
}

#[test]
fn after_every_row_is_pruned_the_next_one_continues_the_numbering_and_the_chain(
) -> rusqlite::Result<()> {
  let conn = ledger(3)?;
  conn.execute("UPDATE audit SET ts = 0", [])?;
  backfill(&conn)?;
  assert_eq!(prune(&conn, 1, None)?, 3);
  let seq = append(
    &conn,
    &NewAudit {
      action: "add",
      ..NewAudit::default()
    },
  )?;
  assert_eq!(seq, 4, "a seq is never reused");
  let v = verify(&conn)?;
  assert!(v.ok && v.checked == 1, "{v:?}");
  // A store whose sequence row is gone still gets the next free seq.
  conn.execute("DELETE FROM sqlite_sequence WHERE name = 'audit'", [])?;
  let next = append(
    &conn,
    &NewAudit {
      action: "add",
      ..NewAudit::default()
    },
  )?;
  assert_eq!(next, 5);
  assert!(verify(&conn)?.ok);
  Ok(())
}

#[test]
fn pruning_stops_at_the_first_row_that_has_not_expired() -> rusqlite::Result<()> {
  let conn = ledger(6)?;
  // A clock that went back: rows 1-2 and 4-6 are old, row 3 is not.
  conn.execute("UPDATE audit SET ts = 0 WHERE seq <> 3", [])?;
  backfill(&conn)?;
  assert_eq!(prune(&conn, 1, None)?, 2);
  let v = verify(&conn)?;
  assert!(v.ok && v.checked == 4, "{v:?}");
  assert_eq!(prune(&conn, 1, Some(256))?, 0);
  Ok(())
}

#[test]
fn pruning_leaves_a_checkpoint_so_the_rest_verifies() -> rusqlite::Result<()> {
  let conn = ledger(6)?;
  conn.execute("UPDATE audit SET ts = 0 WHERE seq <= 4", [])?;
  // ts is part of the hash: re-chain as if those rows had been written long ago.
  backfill(&conn)?;
  assert_eq!(prune(&conn, 1, Some(3))?, 3);
  assert!(verify(&conn)?.ok);
  assert_eq!(prune(&conn, 1, None)?, 1);
  let v = verify(&conn)?;
  assert!(v.ok && v.checked == 2, "{v:?}");
  append(
    &conn,
    &NewAudit {
      action: "add",
      ..NewAudit::default()
    },
  )?;
  assert!(verify(&conn)?.ok);
  Ok(())
}

type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

#[test]
fn a_locked_store_is_busy_and_retryable_never_corrupt() -> TestResult {
  let dir = tempfile::tempdir()?;
  let path = dir.path().join("memory.db");
  let store = Store::open(&path, 0)?;
  let holder = Connection::open(&path)?;
  holder.execute_batch("BEGIN EXCLUSIVE")?;
  store.conn().busy_timeout(Duration::ZERO)?;
  let err = store
    .conn()
    .execute("DELETE FROM entries", [])
    .map_err(|e| store.fail(e))
    .err()
    .ok_or("the write went through a held lock")?;
  assert_eq!(err.store_reason(), Some(StoreReason::Busy));
  assert_eq!(err.details()["retryable"], true);
  assert!(err.to_string().contains("stayed locked by another process"));
  assert!(err
    .to_string()
    .ends_with("another process holds the store, retry"));
  let cause = std::error::Error::source(&err).map(|c| c.to_string());
  assert!(
    cause.is_some_and(|c| c.contains("locked")),
    "the SQLite error is the source"
  );
  Ok(())
}

#[test]
fn a_file_that_is_not_a_database_is_corrupt_and_untouched() -> TestResult {
  let dir = tempfile::tempdir()?;
  let path = dir.path().join("memory.db");
  std::fs::write(&path, b"not sqlite at all, just a text file")?;
  let err = Store::open(&path, 0)
    .err()
    .ok_or("a text file was adopted")?;
  assert_eq!(err.store_reason(), Some(StoreReason::Corrupt));
  assert_eq!(
    std::fs::read(&path)?,
    b"not sqlite at all, just a text file"
  );
  Ok(())
}

#[test]
fn a_growing_wal_reaches_the_database_while_the_store_stays_open_and_nothing_stays_open_after(
) -> TestResult {
  let dir = tempfile::tempdir()?;
  let path = dir.path().join("memory.db");
  let mut store = Store::open(&path, 0)?;
  let value = "x".repeat(3000);
  // 1,400 commits of about three WAL pages each: past the background checkpoint's mark,
  // short of the point where a write checkpoints itself.
  for i in 0..1400 {
    store.set_meta(&format!("k{i}"), &value)?;
  }
  let copied = || std::fs::metadata(&path).is_ok_and(|m| m.len() > 4_000_000);
  let deadline = std::time::Instant::now() + Duration::from_secs(20);
  while !copied() && std::time::Instant::now() < deadline {
    std::thread::sleep(Duration::from_millis(20));
  }
  assert!(copied(), "the WAL was not checkpointed into the database");
  assert_eq!(store.meta("k1399")?.as_deref(), Some(value.as_str()));
  drop(store);
  #[cfg(target_os = "linux")]
  for fd in std::fs::read_dir("/proc/self/fd")? {
    let target = std::fs::read_link(fd?.path()).unwrap_or_default();
    assert!(!target.starts_with(dir.path()), "{target:?} is still open");
  }
  Ok(())
}
