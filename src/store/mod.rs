//! The SQLite store: opening (the files, pragmas, migration, retention), one write transaction
//! at a time, and the statements the engine composes into them. No protocol policy lives here.
//!
//! The layers inside run one way: [`sql`], [`file`] and `checkpoint` (the WAL's, on a thread)
//! at the bottom; the rows ([`entries`], [`records`], [`chain`] — the audit ledger's hash chain);
//! [`ledger`], which checks the store against the chain; [`schema`], whose migration steps call
//! the chain and the ledger (each step's SQL is in `schema/vNN.sql`); and the reads ([`reads`],
//! [`similar`], [`history`]).
#![deny(unsafe_code)] // but one file control, in `file::keep_wal_files`.

pub mod chain;
mod checkpoint;
pub mod entries;
mod file;
pub mod history;
pub mod ledger;
pub mod reads;
pub mod records;
pub mod schema;
pub mod similar;
pub mod sql;

use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{config::DbConfig, Connection, Transaction, TransactionBehavior};

use crate::error::{MemoryError, Result, StoreReason};
pub use entries::{
  bump_recalls, delete_entry, get_visible, insert_entries, layer_used, update_entry, usage,
  Visibility,
};
pub use records::{
  decide_proposal, get_proposal, insert_proposal, insert_snapshot, list_proposals,
  pending_proposals, snapshot_of,
};
pub use sql::{fail_at, failed};
use sql::{meta, put_meta, BUSY_TIMEOUT_MS};

/// Most expired audit rows one write prunes, so retention never stalls a write.
const PRUNE_BATCH: i64 = 256;
/// Prepared statements kept per connection (the crate prepares about 35 distinct ones).
const STATEMENT_CACHE: usize = 64;

/// Current time in epoch milliseconds.
pub fn now_ms() -> i64 {
  let since = SystemTime::now().duration_since(UNIX_EPOCH);
  since.map_or(0, |d| d.as_millis() as i64)
}

/// An open store file.
#[derive(Debug)]
pub struct Store {
  conn: Connection,
  path: String,
  retention_days: u64,
}

impl Store {
  /// Open (creating if needed) the store at `path`, migrate it and prune expired audit rows.
  ///
  /// # Errors
  /// `STORE_CORRUPT` when the file cannot be opened or is not a dsh-memento store (the file is
  /// never modified then); `STORE_UNSUPPORTED_VERSION` for a newer schema.
  pub fn open(path: &Path, retention_days: u64) -> Result<Store> {
    let shown = path.to_string_lossy().into_owned();
    file::prepare_file(path, &shown)?;
    let what = format!("cannot open memory database at {shown}");
    let fail = |e| failed(&shown, &what, e);
    let busy_wait = Duration::from_millis(u64::from(BUSY_TIMEOUT_MS));
    let mut conn = Connection::open(path).map_err(fail)?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    // Plans that do not depend on bound values: without this, SQLite re-prepares a cached
    // statement whenever a parameter it peeked at (a `LIMIT ?`, a `:track IS NULL`) is bound again.
    let stable = DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG;
    conn.set_db_config(stable, true).map_err(fail)?;
    conn.busy_timeout(busy_wait).map_err(fail)?;
    // Switching to WAL and migrating take the file's write lock without SQLite's busy wait when
    // another process is creating or migrating the same store at this instant: wait for it
    // (each migration step re-reads the version inside its own immediate transaction).
    let deadline = Instant::now() + busy_wait;
    loop {
      let pragmas =
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = OFF;
           PRAGMA cache_size = -32768; PRAGMA journal_size_limit = 4194304;";
      let unchecked = |e| schema::failed_check(&shown, e);
      let set = conn.execute_batch(pragmas).map_err(unchecked);
      let attempt = set.and_then(|()| schema::migrate(&mut conn, &shown));
      match attempt {
        Err(e) if e.store_reason() == Some(StoreReason::Busy) && Instant::now() < deadline => {
          std::thread::sleep(Duration::from_millis(5));
        }
        other => break other?,
      }
    }
    file::keep_wal_files(&conn);
    checkpoint::aside(&mut conn, path).map_err(fail)?;
    file::protect(path);
    let mut store = Store {
      conn,
      path: shown,
      retention_days,
    };
    if retention_days > 0 {
      store
        .write(|tx, path| prune_audit(tx, retention_days, None).map_err(|e| fail_at(path, e)))?;
    }
    Ok(store)
  }

  /// The store file's path.
  pub fn path(&self) -> &str {
    &self.path
  }

  /// Map a SQLite failure to the protocol's store error.
  pub fn fail(&self, e: rusqlite::Error) -> MemoryError {
    fail_at(&self.path, e)
  }

  /// A value of the store's `meta` table.
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn meta(&self, key: &str) -> Result<Option<String>> {
    meta(&self.conn, key).map_err(|e| fail_at(&self.path, e))
  }

  /// Set a value of the store's `meta` table (a write transaction only when it changes).
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn set_meta(&mut self, key: &str, value: &str) -> Result<()> {
    if self.meta(key)?.as_deref() == Some(value) {
      return Ok(());
    }
    self.write(|tx, path| put_meta(tx, key, value).map_err(|e| fail_at(path, e)))
  }

  /// Run `f` in one `BEGIN IMMEDIATE` transaction (held across processes); roll back on error.
  ///
  /// # Errors
  /// Whatever `f` returns, or `STORE_CORRUPT` when SQLite fails.
  /// The body gets the transaction and the store path (for [`fail_at`]).
  pub fn write<T>(&mut self, f: impl FnOnce(&Transaction<'_>, &str) -> Result<T>) -> Result<T> {
    let path = &self.path;
    let begun = self
      .conn
      .transaction_with_behavior(TransactionBehavior::Immediate);
    let tx = begun.map_err(|e| fail_at(path, e))?;
    let value = f(&tx, path)?;
    if self.retention_days > 0 {
      prune_audit(&tx, self.retention_days, Some(PRUNE_BATCH)).map_err(|e| fail_at(path, e))?;
    }
    tx.commit().map_err(|e| fail_at(path, e))?;
    Ok(value)
  }

  /// Read-only access to the connection.
  pub fn conn(&self) -> &Connection {
    &self.conn
  }
}

fn prune_audit(conn: &Connection, days: u64, batch: Option<i64>) -> rusqlite::Result<usize> {
  let cutoff = now_ms() - (days as i64).saturating_mul(86_400_000);
  chain::prune(conn, cutoff, batch)
}

#[cfg(test)]
mod tests;
