//! The store's files: created private (0700 folder, 0600 file), refused when they are not
//! SQLite, kept private, and the WAL files kept between opens.

use std::fs::{self, OpenOptions};
use std::io::Read;
use std::path::Path;

use rusqlite::Connection;

use crate::error::{MemoryError, Result, StoreReason};

const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Create the parent directory (0700 when we create it) and the file (0600), and refuse a file
/// that is not SQLite before SQLite ever touches it. Windows has no modes: there the file
/// inherits its folder's ACL (under the user's profile: the user, SYSTEM and Administrators).
pub(super) fn prepare_file(path: &Path, shown: &str) -> Result<()> {
  let fail = |reason, what: &str, cause| {
    let what = format!("cannot open memory database at {shown}: {what}");
    MemoryError::store(shown, reason, &what, cause)
  };
  let io = |what: &str, e: std::io::Error| {
    use std::io::ErrorKind::{PermissionDenied, ReadOnlyFilesystem, StorageFull};
    let reason = match e.kind() {
      PermissionDenied | ReadOnlyFilesystem => StoreReason::Readonly,
      StorageFull => StoreReason::Full,
      _ => StoreReason::Io,
    };
    fail(reason, what, Some(e.into()))
  };
  let missing = |d: &&Path| !d.as_os_str().is_empty() && !d.exists();
  if let Some(dir) = path.parent().filter(missing) {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    let created = builder.create(dir);
    created.map_err(|e| io("cannot create directory", e))?;
  }
  match fs::File::open(path) {
    Ok(mut file) => {
      let mut head = [0u8; 16];
      let read = file.read(&mut head).map_err(|e| io("cannot read", e))?;
      if read > 0 && (read < 16 || &head != SQLITE_MAGIC) {
        let what = "file is not a database (left untouched)";
        return Err(fail(StoreReason::Corrupt, what, None));
      }
    }
    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
      let mut options = OpenOptions::new();
      options.write(true).create_new(true);
      #[cfg(unix)]
      std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
      // A concurrent opener created it first: an empty file, for whichever of us migrates.
      if let Err(e) = options.open(path) {
        if e.kind() != std::io::ErrorKind::AlreadyExists {
          return Err(io("cannot create", e));
        }
      }
    }
    Err(e) => return Err(io("cannot read", e)),
  }
  Ok(())
}

/// chmod the store and any sidecar to 0600 when it is not (best effort: a sidecar may come and
/// go).
#[cfg(unix)]
pub(super) fn protect(path: &Path) {
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
pub(super) fn protect(_path: &Path) {}

/// Keep the `-wal` and `-shm` files when the last connection closes: the next open (every
/// command, every session) reuses them instead of creating both and deleting them again. The close still checkpoints, and with a `journal_size_limit`
/// SQLite then truncates the WAL to nothing, so the main file alone holds the store. A VFS
/// without the control keeps SQLite's default (the files are deleted), hence no error here.
#[allow(unsafe_code)]
pub(super) fn keep_wal_files(conn: &Connection) {
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
