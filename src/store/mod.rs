//! The SQLite store: opening (permissions, pragmas, migration, retention) and the row-level
//! statements the protocol layer composes into transactions. No protocol policy lives here.
#![deny(unsafe_code)] // but one file control, in `keep_wal_files`.

pub mod alike;
pub mod audit;
pub mod ledger;
pub mod reads;
pub mod schema;

use std::fs::{self, OpenOptions};
use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{
  config::DbConfig, params, Connection, OptionalExtension, Params, Row, Transaction,
  TransactionBehavior,
};

use crate::error::{MemoryError, Result, StoreReason};
use crate::protocol::model::{Entry, Proposal, Scope, Track};

pub(crate) const ENTRY_COLUMNS: &str = "id, track, scope, workspace_key, agent_key, text, source, tags, version, created_at, updated_at, last_recalled, recall_count, session_id";
/// The visibility rule: whether the row `e` (of `entries`, or of anything with its keys) is what
/// a filter admits: `:track`/`:scope` its track/scope, `:agent` a session's agent key,
/// `:workspace` its workspace key (each `NULL` for any).
pub(crate) const ADMITS: &str = "(:track IS NULL OR e.track = :track)
  AND (:scope IS NULL OR e.scope = :scope)
  AND (:agent IS NULL OR e.agent_key = '' OR e.agent_key = :agent)
  AND (e.scope <> 'workspace' OR :workspace IS NULL OR e.workspace_key = :workspace)";

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
}

impl<'a> Named<'a> {
  /// The visibility parameters of `vis`, any track and scope.
  pub fn seen_by(vis: &'a Visibility) -> Self {
    let (agent, workspace) = (vis.agent_key.as_deref(), vis.workspace_key.as_deref());
    Named {
      agent,
      workspace,
      ..Named::default()
    }
  }

  fn pairs(&self) -> [(&'static str, Option<&'a str>); 7] {
    [
      (":track", self.track),
      (":scope", self.scope),
      (":agent", self.agent),
      (":workspace", self.workspace),
      (":pattern", self.pattern),
      (":needle", self.needle),
      (":id", self.id),
    ]
  }
}

/// Every row of a statement with [`Named`] parameters (by a cached statement), each mapped by
/// `map`.
pub(crate) fn named_rows<T>(
  conn: &Connection,
  sql: &str,
  args: &Named<'_>,
  mut map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
  let mut stmt = conn.prepare_cached(sql)?;
  for (name, value) in args.pairs() {
    if let Some(i) = stmt.parameter_index(name)? {
      stmt.raw_bind_parameter(i, value)?;
    }
  }
  let mut rows = stmt.raw_query();
  let mut out = Vec::new();
  while let Some(row) = rows.next()? {
    out.push(map(row)?);
  }
  Ok(out)
}

/// The one row of an aggregate with [`Named`] parameters.
pub(crate) fn named_value<T: rusqlite::types::FromSql>(
  conn: &Connection,
  sql: &str,
  args: &Named<'_>,
) -> rusqlite::Result<T> {
  let first = named_rows(conn, sql, args, |r| r.get(0))?
    .into_iter()
    .next();
  first.ok_or(rusqlite::Error::QueryReturnedNoRows)
}

const PROPOSAL_COLUMNS: &str =
  "id, kind, track, scope, workspace_key, agent_key, text, source, session_id, status, created_at, decided_at";
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";
/// How long a writer waits for another process's transaction (ms).
const BUSY_TIMEOUT_MS: u32 = 10_000;
/// Most expired audit rows one write prunes, so retention never stalls a write.
const PRUNE_BATCH: i64 = 256;
/// Prepared statements kept per connection (the crate prepares about 35 distinct ones).
const STATEMENT_CACHE: usize = 64;

/// Current time in epoch milliseconds.
pub fn now_ms() -> i64 {
  SystemTime::now()
    .duration_since(UNIX_EPOCH)
    .map(|d| d.as_millis() as i64)
    .unwrap_or(0)
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
  /// Whether a row of `scope`, `workspace_key` and `agent_key` is visible: the rule of
  /// [`ADMITS`] for a row in hand (the shared rows and this agent's; workspace rows of this
  /// workspace only).
  pub fn sees(&self, scope: &str, workspace_key: &str, agent_key: &str) -> bool {
    let agent = self.agent_key.as_deref();
    let workspace = self.workspace_key.as_deref();
    agent.is_none_or(|a| agent_key.is_empty() || agent_key == a)
      && (scope != "workspace" || workspace.is_none_or(|w| workspace_key == w))
  }
}

/// An open store file.
#[derive(Debug)]
pub struct Store {
  conn: Connection,
  path: String,
  retention_days: u64,
}

pub(crate) fn entry_from_row(row: &Row<'_>) -> rusqlite::Result<Entry> {
  let track: String = row.get(1)?;
  let scope: String = row.get(2)?;
  let tags: String = row.get(7)?;
  let bad = |what: String| rusqlite::Error::InvalidColumnType(0, what, rusqlite::types::Type::Text);
  Ok(Entry {
    id: row.get(0)?,
    track: Track::parse(&track).ok_or_else(|| bad(format!("track {track}")))?,
    scope: Scope::parse(&scope).ok_or_else(|| bad(format!("scope {scope}")))?,
    workspace_key: row.get(3)?,
    agent_key: row.get(4)?,
    text: row.get(5)?,
    source: row.get(6)?,
    tags: serde_json::from_str(&tags)
      .map_err(|_| bad(format!("memory database has a corrupt tags column: {tags}")))?,
    version: row.get(8)?,
    created_at: row.get(9)?,
    updated_at: row.get(10)?,
    last_recalled: row.get(11)?,
    recall_count: row.get(12)?,
    session_id: row.get(13)?,
  })
}

/// An entry and its rowid, from `{ENTRY_COLUMNS}, rowid`.
pub(crate) fn entry_and_rowid(row: &Row<'_>) -> rusqlite::Result<(i64, Entry)> {
  Ok((row.get(14)?, entry_from_row(row)?))
}

/// Every row of a query (by a cached statement), each mapped by `map`.
pub(crate) fn rows<T>(
  conn: &Connection,
  sql: &str,
  args: impl Params,
  map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
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

fn proposal_from_row(row: &Row<'_>) -> rusqlite::Result<Proposal> {
  Ok(Proposal {
    id: row.get(0)?,
    kind: row.get(1)?,
    track: row.get(2)?,
    scope: row.get(3)?,
    workspace_key: row.get(4)?,
    agent_key: row.get(5)?,
    text: row.get(6)?,
    source: row.get(7)?,
    session_id: row.get(8)?,
    status: row.get(9)?,
    created_at: row.get(10)?,
    decided_at: row.get(11)?,
  })
}

/// Create the parent directory (0700 when we create it) and the file (0600), and refuse a file
/// that is not SQLite before SQLite ever touches it. Windows has no modes: there the file
/// inherits its folder's ACL (under the user's profile: the user, SYSTEM and Administrators).
fn prepare_file(path: &Path, shown: &str) -> Result<()> {
  let io = |what: &str, e: std::io::Error| {
    use std::io::ErrorKind::{PermissionDenied, ReadOnlyFilesystem, StorageFull};
    let reason = match e.kind() {
      PermissionDenied | ReadOnlyFilesystem => StoreReason::Readonly,
      StorageFull => StoreReason::Full,
      _ => StoreReason::Io,
    };
    let what = format!("cannot open memory database at {shown}: {what}");
    MemoryError::store(shown, reason, &what, Some(e.into()))
  };
  if let Some(dir) = path
    .parent()
    .filter(|d| !d.as_os_str().is_empty() && !d.exists())
  {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
      .create(dir)
      .map_err(|e| io("cannot create directory", e))?;
  }
  match fs::File::open(path) {
    Ok(mut file) => {
      let mut head = [0u8; 16];
      let read = file.read(&mut head).map_err(|e| io("cannot read", e))?;
      if read > 0 && (read < 16 || &head != SQLITE_MAGIC) {
        return Err(MemoryError::store(
          shown,
          StoreReason::Corrupt,
          &format!(
            "cannot open memory database at {shown}: file is not a database (left untouched)"
          ),
          None,
        ));
      }
    }
    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
      let mut options = OpenOptions::new();
      options.write(true).create_new(true);
      #[cfg(unix)]
      std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
      match options.open(path) {
        // A concurrent opener created it first: an empty file, for whichever of us migrates.
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
          return Err(io("cannot create", e))
        }
        _ => {}
      }
    }
    Err(e) => return Err(io("cannot read", e)),
  }
  Ok(())
}

/// chmod the store and any sidecar to 0600 when it is not (best effort: a sidecar may come and
/// go).
#[cfg(unix)]
fn protect(path: &Path) {
  use std::os::unix::fs::PermissionsExt;
  for suffix in ["", "-wal", "-shm", "-journal"] {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    let mode = fs::metadata(&p).map(|m| m.permissions().mode() & 0o777);
    if mode.is_ok_and(|m| m != 0o600) {
      let _ = fs::set_permissions(&p, fs::Permissions::from_mode(0o600));
    }
  }
}

/// Windows has no modes; the files inherit their folder's ACL (see [`prepare_file`]).
#[cfg(not(unix))]
fn protect(_path: &Path) {}

/// Keep the `-wal` and `-shm` files when the last connection closes: the next open (every
/// command, every session) reuses them instead of creating both and deleting them again (≈ 10%
/// of an open and close, measured). The close still checkpoints, and with a `journal_size_limit`
/// SQLite then truncates the WAL to nothing, so the main file alone holds the store. A VFS
/// without the control keeps SQLite's default (the files are deleted), hence no error here.
#[allow(unsafe_code)]
fn keep_wal_files(conn: &Connection) {
  let mut on: std::ffi::c_int = 1;
  // SAFETY: the handle is this open connection's, used on this thread only; "main" is a
  // NUL-terminated name; `on` is a live int the call reads and writes only during the call.
  unsafe {
    rusqlite::ffi::sqlite3_file_control(
      conn.handle(),
      c"main".as_ptr(),
      rusqlite::ffi::SQLITE_FCNTL_PERSIST_WAL,
      (&raw mut on).cast(),
    )
  };
}

impl Store {
  /// Open (creating if needed) the store at `path`, migrate it and prune expired audit rows.
  ///
  /// # Errors
  /// `STORE_CORRUPT` when the file cannot be opened or is not a dsh-memento store (the file is
  /// never modified then); `STORE_UNSUPPORTED_VERSION` for a newer schema.
  pub fn open(path: &Path, retention_days: u64) -> Result<Store> {
    let shown = path.to_string_lossy().into_owned();
    prepare_file(path, &shown)?;
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
      let attempt = conn
        .execute_batch(
          "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = OFF;
           PRAGMA cache_size = -32768; PRAGMA journal_size_limit = 4194304;",
        )
        .map_err(|e| schema::invalid(&shown, e))
        .and_then(|()| schema::migrate(&mut conn, &shown));
      match attempt {
        Err(e) if e.store_reason() == Some(StoreReason::Busy) && Instant::now() < deadline => {
          std::thread::sleep(Duration::from_millis(5));
        }
        other => break other?,
      }
    }
    keep_wal_files(&conn);
    protect(path);
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
    let tx = self
      .conn
      .transaction_with_behavior(TransactionBehavior::Immediate)
      .map_err(|e| fail_at(path, e))?;
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
    StoreReason::Busy => {
      format!("memory database at {path} stayed locked by another process for {BUSY_TIMEOUT_MS} ms")
    }
    StoreReason::Full => format!("memory database at {path} cannot be written (disk full)"),
    StoreReason::Readonly => format!("memory database at {path} is read-only"),
    StoreReason::Corrupt => format!("memory database at {path} has a corrupt row or schema"),
    StoreReason::Closed | StoreReason::Io => format!("memory database at {path} failed"),
  };
  failed(path, &what, e)
}

fn prune_audit(conn: &Connection, days: u64, batch: Option<i64>) -> rusqlite::Result<usize> {
  audit::prune(
    conn,
    now_ms() - (days as i64).saturating_mul(86_400_000),
    batch,
  )
}

// ---- row-level statements (all take a connection or transaction) ----

/// A value of the `meta` table.
pub(crate) fn meta(conn: &Connection, key: &str) -> rusqlite::Result<Option<String>> {
  one(conn, "SELECT value FROM meta WHERE key = ?1", [key], |r| {
    r.get(0)
  })
}

/// Set a value of the `meta` table.
pub(crate) fn put_meta(conn: &Connection, key: &str, value: &str) -> rusqlite::Result<()> {
  let sql = "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value";
  exec(conn, sql, [key, value]).map(drop)
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
    ..Named::seen_by(vis)
  };
  Ok(
    named_rows(conn, &sql, &args, entry_from_row)?
      .into_iter()
      .next(),
  )
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
  let layers: Vec<String> = Track::ALL
    .into_iter()
    .flat_map(|t| Scope::ALL.map(|s| layer(t, s)))
    .collect();
  let sql = format!("SELECT {}", layers.join(", "));
  conn.prepare_cached(&sql)?.query_row([workspace_key], |r| {
    let at = |i: usize| r.get(i).map(as_units);
    Ok([at(0)?, at(1)?, at(2)?, at(3)?])
  })
}

/// Insert new entry rows in one statement: FTS5 writes its pending terms out at every
/// statement, so a batch inserted row by row would write (and merge) one index segment per entry.
pub fn insert_entries(conn: &Connection, entries: &[Entry]) -> rusqlite::Result<()> {
  let rows: Vec<serde_json::Value> = entries
    .iter()
    .map(|e| {
      let units = crate::protocol::text::units(&e.text);
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
    })
    .collect();
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
  exec(conn, index, [rows]).map(drop)
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
    crate::protocol::text::units(&e.text) as i64
  ];
  exec(conn, sql, args).map(drop)
}

/// Delete an entry by id.
pub fn delete_entry(conn: &Connection, id: &str) -> rusqlite::Result<()> {
  exec(conn, "DELETE FROM entries WHERE id = ?1", [id]).map(drop)
}

fn tags_json(tags: &[String]) -> String {
  serde_json::to_string(tags).unwrap_or_else(|_| "[]".to_string())
}

/// Count a query hit on each of these rows: `recall_count + 1`, `last_recalled` at least `at`.
pub fn bump_recalls(conn: &Connection, rowids: &[i64], at: i64) -> rusqlite::Result<()> {
  let mut stmt = conn.prepare_cached(
    "UPDATE entries SET recall_count = recall_count + 1, last_recalled = max(coalesce(last_recalled, 0), ?2) WHERE rowid = ?1",
  )?;
  for rowid in rowids {
    stmt.execute(params![rowid, at])?;
  }
  Ok(())
}

/// Insert a pending proposal; `false` when the session already has a pending one of this kind.
pub fn insert_proposal(conn: &Connection, p: &Proposal) -> rusqlite::Result<bool> {
  let sql = "INSERT OR IGNORE INTO proposals (id, kind, track, scope, workspace_key, agent_key, text, source, session_id, status, created_at, decided_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'pending', ?10, NULL)";
  let args = params![
    p.id,
    p.kind,
    p.track,
    p.scope,
    p.workspace_key,
    p.agent_key,
    p.text,
    p.source,
    p.session_id,
    p.created_at
  ];
  Ok(exec(conn, sql, args)? == 1)
}

/// One proposal by id.
pub fn get_proposal(conn: &Connection, id: &str) -> rusqlite::Result<Option<Proposal>> {
  let sql = format!("SELECT {PROPOSAL_COLUMNS} FROM proposals WHERE id = ?1");
  one(conn, &sql, [id], proposal_from_row)
}

/// Proposals, optionally of one status, oldest first.
pub fn list_proposals(
  conn: &Connection,
  status: Option<&str>,
  limit: u64,
) -> rusqlite::Result<Vec<Proposal>> {
  let sql = format!("SELECT {PROPOSAL_COLUMNS} FROM proposals WHERE (?1 IS NULL OR status = ?1) ORDER BY created_at, rowid LIMIT ?2");
  rows(conn, &sql, params![status, limit as i64], proposal_from_row)
}

/// How many proposals are pending.
pub fn pending_proposals(conn: &Connection) -> rusqlite::Result<u64> {
  let sql = "SELECT count(*) FROM proposals WHERE status = 'pending'";
  let n: i64 = conn.prepare_cached(sql)?.query_row([], |r| r.get(0))?;
  Ok(n.unsigned_abs())
}

/// Mark a pending proposal decided; `false` if it was not pending.
pub fn decide_proposal(
  conn: &Connection,
  id: &str,
  status: &str,
  at: i64,
) -> rusqlite::Result<bool> {
  let sql =
    "UPDATE proposals SET status = ?2, decided_at = ?3 WHERE id = ?1 AND status = 'pending'";
  Ok(exec(conn, sql, params![id, status, at])? == 1)
}

/// The frozen snapshot text of a session, if one was recorded.
///
/// A text that does not match its hash was rewritten around the provider: it is an error, never
/// a system prompt.
pub fn snapshot_of(conn: &Connection, session_id: &str) -> rusqlite::Result<Option<String>> {
  let sql = "SELECT t.hash, t.text FROM snapshots s JOIN snapshot_texts t ON t.hash = s.hash WHERE s.session_id = ?1";
  let found = one(conn, sql, [session_id], |r| {
    Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
  })?;
  match found {
    Some((hash, text)) if crate::protocol::text::hex_digest(text.as_bytes()) != hash => {
      let what =
        format!("the frozen snapshot of session {session_id} does not match its hash (rewritten)");
      Err(rusqlite::Error::InvalidColumnType(
        1,
        what,
        rusqlite::types::Type::Text,
      ))
    }
    found => Ok(found.map(|(_, text)| text)),
  }
}

/// Record a session's snapshot (its text stored once per distinct hash).
pub fn insert_snapshot(
  conn: &Connection,
  session_id: &str,
  hash: &str,
  text: &str,
  at: i64,
) -> rusqlite::Result<()> {
  let sql = "INSERT OR IGNORE INTO snapshot_texts (hash, text) VALUES (?1, ?2)";
  exec(conn, sql, params![hash, text])?;
  let sql = "INSERT INTO snapshots (session_id, hash, created_at) VALUES (?1, ?2, ?3)";
  exec(conn, sql, params![session_id, hash, at]).map(drop)
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
}
