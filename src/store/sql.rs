//! SQL helpers every statement of the store uses: statements with named parameters built from
//! shared pieces, cached statements, the `meta` table, and what a SQLite failure means for the
//! caller (busy, full, read-only, corrupt).
#![forbid(unsafe_code)]

use rusqlite::{Connection, OptionalExtension, Params, Row};

use crate::error::{MemoryError, StoreReason};

/// How long a writer waits for another process's transaction (ms).
pub(crate) const BUSY_TIMEOUT_MS: u32 = 10_000;

/// The named parameters of the statements built from shared pieces ([`ADMITS`], the searches'
/// tests): a statement binds those it names, so a piece's parameters never depend on its place.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Named<'a> {
  /// `:track`.
  pub track: Option<&'a str>,
  /// `:scope`.
  pub scope: Option<&'a str>,
  /// `:agent`, an agent key.
  pub agent: Option<&'a str>,
  /// `:workspace`, a workspace key.
  pub workspace: Option<&'a str>,
  /// `:pattern`, what a search matches (an FTS phrase, a `LIKE` pattern or a folded needle).
  pub pattern: Option<&'a str>,
  /// `:needle`, the folded needle itself.
  pub needle: Option<&'a str>,
  /// `:id`, an entry id.
  pub id: Option<&'a str>,
  /// `:only_workspace`, an exact workspace facet (`''`: user-global rows).
  pub only_workspace: Option<&'a str>,
  /// `:only_agent`, an exact agent facet (`''`: shared rows).
  pub only_agent: Option<&'a str>,
}

impl<'a> Named<'a> {
  /// Whether no parameter is bound: the shared pieces (`ADMITS`) then admit every row.
  pub(crate) fn is_empty(&self) -> bool {
    self.pairs().iter().all(|(_, value)| value.is_none())
  }

  fn pairs(&self) -> [(&'static str, Option<&'a str>); 9] {
    [
      (":track", self.track),
      (":scope", self.scope),
      (":agent", self.agent),
      (":workspace", self.workspace),
      (":pattern", self.pattern),
      (":needle", self.needle),
      (":id", self.id),
      (":only_workspace", self.only_workspace),
      (":only_agent", self.only_agent),
    ]
  }
}

/// `Ok($ty { .. })` of a row whose columns are the fields named, in their order: each field read
/// from the next column, and passed through `read` where it says `field: read`.
macro_rules! row_into {
  ($row:expr => $ty:ident { $($field:ident $(: $read:expr)?),+ }) => {{
    let mut column = 0;
    Ok($ty { $($field: { column += 1; row_into!(@ $row.get(column - 1)? $(, $read)?) }),+ })
  }};
  (@ $value:expr) => { $value };
  (@ $value:expr, $read:expr) => { $read($value)? };
}

pub(crate) use row_into;

/// `f`'s reads on one snapshot of the store: in a read transaction, unless one is open.
pub(crate) fn one_snapshot<T>(
  conn: &Connection,
  f: impl FnOnce() -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
  if !conn.is_autocommit() {
    return f();
  }
  let tx = conn.unchecked_transaction()?;
  let value = f()?;
  tx.commit()?;
  Ok(value)
}

/// Every row of a statement with [`Named`] parameters (by a cached statement), each mapped by
/// `map`.
pub(crate) fn named_rows<T>(
  conn: &Connection,
  sql: &str,
  args: &Named<'_>,
  map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
  let mut stmt = conn.prepare_cached(sql)?;
  for (name, value) in args.pairs() {
    if let Some(i) = stmt.parameter_index(name)? {
      stmt.raw_bind_parameter(i, value)?;
    }
  }
  stmt.raw_query().mapped(map).collect()
}

/// The one row of an aggregate with [`Named`] parameters.
pub(crate) fn named_value<T: rusqlite::types::FromSql>(
  conn: &Connection,
  sql: &str,
  args: &Named<'_>,
) -> rusqlite::Result<T> {
  let mut found = named_rows(conn, sql, args, |r| r.get(0))?.into_iter();
  found.next().ok_or(rusqlite::Error::QueryReturnedNoRows)
}

/// Every row of a query (by a cached statement), each mapped by `map`, collected.
pub(crate) fn rows<T, C: FromIterator<T>>(
  conn: &Connection,
  sql: &str,
  args: impl Params,
  map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<C> {
  conn.prepare_cached(sql)?.query_map(args, map)?.collect()
}

/// The first row of a query (by a cached statement), if any, mapped by `map`.
pub(crate) fn one<T>(
  conn: &Connection,
  sql: &str,
  args: impl Params,
  map: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Option<T>> {
  conn.prepare_cached(sql)?.query_row(args, map).optional()
}

/// Run a statement (by a cached statement); the number of rows it changed.
pub(crate) fn exec(conn: &Connection, sql: &str, args: impl Params) -> rusqlite::Result<usize> {
  conn.prepare_cached(sql)?.execute(args)
}

/// A value of the `meta` table.
pub(crate) fn meta(conn: &Connection, key: &str) -> rusqlite::Result<Option<String>> {
  let sql = "SELECT value FROM meta WHERE key = ?1";
  one(conn, sql, [key], |r| r.get(0))
}

/// Set a value of the `meta` table.
pub(crate) fn put_meta(conn: &Connection, key: &str, value: &str) -> rusqlite::Result<()> {
  let sql = "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value";
  exec(conn, sql, [key, value]).map(drop)
}

/// Whether `table` has `column`.
pub(crate) fn has_column(conn: &Connection, table: &str, column: &str) -> rusqlite::Result<bool> {
  let sql = "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2";
  Ok(one(conn, sql, [table, column], |_| Ok(()))?.is_some())
}

/// Why a SQLite call failed, as a caller can act on it.
fn reason_of(e: &rusqlite::Error) -> StoreReason {
  use rusqlite::ErrorCode::*;
  match e {
    rusqlite::Error::SqliteFailure(f, _) => match f.code {
      DatabaseBusy | DatabaseLocked => StoreReason::Busy,
      // CANTOPEN on a file we just opened ourselves: SQLite could not create the -wal/-shm
      // beside it, i.e. the folder is not writable.
      ReadOnly | PermissionDenied | CannotOpen => StoreReason::Readonly,
      DiskFull | TooBig => StoreReason::Full,
      DatabaseCorrupt | NotADatabase | ApiMisuse | Unknown => StoreReason::Corrupt,
      _ => StoreReason::Io,
    },
    rusqlite::Error::InvalidColumnType(..)
    | rusqlite::Error::FromSqlConversionFailure(..)
    | rusqlite::Error::IntegralValueOutOfRange(..) => StoreReason::Corrupt,
    _ => StoreReason::Io,
  }
}

/// `STORE_CORRUPT` for a SQLite failure at the store `path`: `what` happened, the reason comes
/// from SQLite's code, SQLite's message is the cause.
pub fn failed(path: &str, what: &str, e: rusqlite::Error) -> MemoryError {
  let reason = reason_of(&e);
  MemoryError::store(path, reason, what, Some(e.into()))
}

/// Map a SQLite failure of a read or write at the store `path` to `STORE_CORRUPT`, saying what
/// happened (locked, disk full, read-only, corrupt row) and what to do.
pub fn fail_at(path: &str, e: rusqlite::Error) -> MemoryError {
  let what = match reason_of(&e) {
    StoreReason::Busy => format!("stayed locked by another process for {BUSY_TIMEOUT_MS} ms"),
    StoreReason::Full => "cannot be written (disk full)".into(),
    StoreReason::Readonly => "is read-only".into(),
    StoreReason::Corrupt => "has a corrupt row or schema".into(),
    StoreReason::Closed | StoreReason::Io => "failed".into(),
  };
  failed(path, &format!("memory database at {path} {what}"), e)
}
