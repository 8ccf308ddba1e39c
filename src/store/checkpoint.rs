//! WAL checkpoints off the write path. Once a commit leaves [`ASIDE`] pages in the WAL, a
//! connection of its own on a background thread copies them into the database, so no write
//! waits on that copy. A write still checkpoints itself past [`INLINE`] pages, as SQLite's
//! `wal_autocheckpoint` would, when the thread falls behind or cannot start.

use std::ffi::c_int;
use std::path::Path;
use std::thread::{self, JoinHandle};

use rusqlite::{hooks::Wal, Connection};

/// WAL pages after a commit that start the background checkpoint.
const ASIDE: c_int = 4000;
/// WAL pages after a commit at which the write checkpoints itself.
const INLINE: c_int = 8000;

/// Have `conn`'s commits hand their checkpoints to a background connection to `path`.
pub(super) fn aside(conn: &mut Connection, path: &Path) -> rusqlite::Result<()> {
  let path = path.to_owned();
  let mut running = Running(None);
  conn.wal_hook(Some(move |wal: &mut Wal, pages| {
    if pages >= INLINE || (pages >= ASIDE && !running.start(&path)) {
      // As SQLite's own hook: a checkpoint that cannot run now (busy) fails no commit.
      let _ = wal.checkpoint();
    }
    Ok(())
  }))
}

/// The background checkpoint, if one was started; joined when the connection closes, so no
/// file stays open after a close.
struct Running(Option<JoinHandle<()>>);

impl Running {
  /// Start a checkpoint on a thread unless one is running; false when none could start.
  fn start(&mut self, path: &Path) -> bool {
    if self.0.as_ref().is_some_and(|t| !t.is_finished()) {
      return true;
    }
    let path = path.to_owned();
    let named = thread::Builder::new().name("dsh-memento checkpoint".into());
    let started = named.spawn(move || {
      if let Ok(conn) = Connection::open(&path) {
        super::file::keep_wal_files(&conn);
        let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
      }
    });
    self.0 = started.ok();
    self.0.is_some()
  }
}

impl Drop for Running {
  fn drop(&mut self) {
    if let Some(thread) = self.0.take() {
      let _ = thread.join();
    }
  }
}
