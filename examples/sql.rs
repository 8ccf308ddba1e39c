//! Runs the SQL on stdin against a store file with the crate's own bundled SQLite: how the tests
//! play an attacker who edits the file directly (a system `sqlite3` may be too old to open a
//! store whose FTS5 index uses `contentless_delete`).
//! `cargo run --no-default-features --example sql -- STORE.db < statements.sql`
#![allow(missing_docs)]

use std::io::Read;

fn main() -> Result<(), Box<dyn std::error::Error>> {
  let path = std::env::args()
    .nth(1)
    .ok_or("usage: sql STORE.db < statements.sql")?;
  let mut sql = String::new();
  std::io::stdin().read_to_string(&mut sql)?;
  rusqlite::Connection::open(path)?.execute_batch(&sql)?;
  Ok(())
}
