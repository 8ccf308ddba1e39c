//! The audit ledger: append-only rows chained by SHA-256 (`sha2`), verification, and retention pruning
//! that leaves a checkpoint so what remains stays verifiable.
//!
//! Threat model: the chain makes *accidental or naive* edits evident — a row changed, removed or
//! inserted anywhere, the newest rows or every row deleted (the chain's head, `seq` and hash, is
//! recorded in `meta` with every append, and SQLite's own `sqlite_sequence` remembers the highest
//! `seq` handed out), and entries whose text or layer usage no longer match what the ledger
//! approved. Anyone who can write the file can also recompute the whole chain, its head and the
//! sequence consistently; the head hash (returned by [`verify`]) is what a user records elsewhere
//! to detect that.
#![forbid(unsafe_code)]

use rusqlite::{params, Connection};
use serde::Serialize;
use serde_json::json;

use super::ledger::{stale_usage, Ledger, RecordsCheck, StaleUsage};
use super::{exec, meta, now_ms, one, put_meta};
use crate::protocol::model::AuditRow;
pub use crate::protocol::text::hex_digest;

/// Meta key holding the hash of the last pruned row (the chain's starting point).
const CHECKPOINT_KEY: &str = "audit_checkpoint";
/// Meta key holding the newest row's `seq` and hash (`"{seq} {hash}"`), written with every append.
const HEAD_KEY: &str = "audit_head";

/// An audit row to append (`seq`/`ts` are assigned by the store).
#[derive(Debug, Clone, Default)]
pub struct NewAudit<'a> {
  /// Action from the catalogue.
  pub action: &'a str,
  /// Track.
  pub track: Option<&'a str>,
  /// Scope.
  pub scope: Option<&'a str>,
  /// Entry or proposal id.
  pub entry_id: Option<&'a str>,
  /// Text.
  pub text: Option<&'a str>,
  /// Outcome label.
  pub outcome: Option<&'a str>,
  /// Source.
  pub source: Option<&'a str>,
  /// Session.
  pub session_id: Option<&'a str>,
  /// An entry's keys and tags as approved ([`crate::protocol::model::approved_fields`]).
  pub fields: Option<String>,
}

/// The result of walking the chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verification {
  /// No broken row.
  pub ok: bool,
  /// Rows checked.
  pub checked: u64,
  /// Hash of the newest row (record it elsewhere to detect a rewritten chain).
  pub head: Option<String>,
  /// The first row that does not verify (or, for deleted newest rows, the `seq` the head
  /// recorded).
  pub first_broken: Option<BrokenRow>,
  /// Entries, pending proposals and frozen snapshot texts checked against the ledger.
  pub records: RecordsCheck,
  /// Layers whose recorded usage is not the sum of their entries' lengths.
  pub layers: Vec<StaleUsage>,
}

/// A row that failed verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrokenRow {
  /// Its sequence number.
  pub seq: i64,
  /// Why.
  pub reason: String,
}

/// The hash of one row: SHA-256 over a canonical JSON array of the previous hash and every field
/// (`fields` last, when the row has them: rows written before it existed keep their hash).
pub fn row_hash(prev: &str, row: &AuditRow) -> String {
  let mut canonical = json!([
    prev,
    row.seq,
    row.ts,
    row.action,
    row.track,
    row.scope,
    row.entry_id,
    row.text,
    row.outcome,
    row.source,
    row.session_id
  ]);
  if let (Some(fields), Some(all)) = (&row.fields, canonical.as_array_mut()) {
    all.push(fields.clone().into());
  }
  hex_digest(canonical.to_string().as_bytes())
}

fn chain_start(conn: &Connection) -> rusqlite::Result<String> {
  Ok(meta(conn, CHECKPOINT_KEY)?.unwrap_or_default())
}

/// The hash the next row chains to, and the `seq` it will get: one past the highest ever used
/// (`AUTOINCREMENT` keeps it in `sqlite_sequence` even when the tail rows are gone), as SQLite
/// itself would assign it.
fn chain_tail(conn: &Connection) -> rusqlite::Result<(String, i64)> {
  let sql = "SELECT coalesce(CASE WHEN EXISTS (SELECT 1 FROM audit)
         THEN (SELECT hash FROM audit ORDER BY seq DESC LIMIT 1)
         ELSE (SELECT value FROM meta WHERE key = ?1) END, ''),
       max(coalesce((SELECT max(seq) FROM audit), 0),
           coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'audit'), 0)) + 1";
  conn
    .prepare_cached(sql)?
    .query_row([CHECKPOINT_KEY], |r| Ok((r.get(0)?, r.get(1)?)))
}

/// Append one row, chained to the previous one, in one INSERT. Returns its `seq`.
pub fn append(conn: &Connection, a: &NewAudit<'_>) -> rusqlite::Result<i64> {
  append_all(conn, std::slice::from_ref(a))
}

/// Append rows in order, each chained to the one before; the chain's tail is read once.
/// Returns the last `seq`.
pub fn append_all(conn: &Connection, rows: &[NewAudit<'_>]) -> rusqlite::Result<i64> {
  if rows.is_empty() {
    return Ok(0);
  }
  let (mut prev, mut seq) = chain_tail(conn)?;
  let mut insert = conn.prepare_cached(
    "INSERT INTO audit (seq, ts, action, track, scope, entry_id, text, outcome, source, session_id, prev_hash, hash, fields)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
  )?;
  for a in rows {
    let row = AuditRow {
      seq,
      ts: now_ms(),
      action: a.action.to_string(),
      track: a.track.map(str::to_string),
      scope: a.scope.map(str::to_string),
      entry_id: a.entry_id.map(str::to_string),
      text: a.text.map(str::to_string),
      outcome: a.outcome.map(str::to_string),
      source: a.source.map(str::to_string),
      session_id: a.session_id.map(str::to_string),
      fields: a.fields.clone(),
    };
    let hash = row_hash(&prev, &row);
    insert.execute(params![
      seq,
      row.ts,
      a.action,
      a.track,
      a.scope,
      a.entry_id,
      a.text,
      a.outcome,
      a.source,
      a.session_id,
      prev,
      hash,
      a.fields
    ])?;
    (prev, seq) = (hash, seq + 1);
  }
  put_meta(conn, HEAD_KEY, &format!("{} {prev}", seq - 1))?;
  Ok(seq - 1)
}

/// The recorded head: `(seq, hash)`.
fn head(conn: &Connection) -> rusqlite::Result<Option<(i64, String)>> {
  let parse = |v: String| {
    let (seq, hash) = v.split_once(' ')?;
    Some((seq.parse().ok()?, hash.to_string()))
  };
  Ok(meta(conn, HEAD_KEY)?.and_then(parse))
}

/// The highest `seq` SQLite has handed out (`AUTOINCREMENT` keeps it after its row is gone).
fn sequence(conn: &Connection) -> rusqlite::Result<i64> {
  let sql = "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'audit'), 0)";
  conn.prepare_cached(sql)?.query_row([], |r| r.get(0))
}

/// Record the chain's head as it stands: its newest row, or — every row pruned — the highest
/// `seq` handed out with the checkpoint. Part of the migration that introduced heads.
pub fn record_head(conn: &Connection) -> rusqlite::Result<()> {
  let newest = one(
    conn,
    "SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1",
    [],
    |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?)),
  )?;
  let head = match newest {
    Some((seq, hash)) => Some((seq, hash.unwrap_or_default())),
    None => meta(conn, CHECKPOINT_KEY)?.map(|hash| (0, hash)),
  };
  match head {
    Some((0, hash)) => put_meta(conn, HEAD_KEY, &format!("{} {hash}", sequence(conn)?)),
    Some((seq, hash)) => put_meta(conn, HEAD_KEY, &format!("{seq} {hash}")),
    None => Ok(()),
  }
}

/// Every row, oldest first.
pub(super) fn rows_in_order(conn: &Connection) -> rusqlite::Result<Vec<AuditRow>> {
  let sql = format!("SELECT {AUDIT_COLUMNS} FROM audit ORDER BY seq");
  super::rows(conn, &sql, [], audit_from_row)
}

fn audit_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<AuditRow> {
  Ok(AuditRow {
    seq: row.get(0)?,
    ts: row.get(1)?,
    action: row.get(2)?,
    track: row.get(3)?,
    scope: row.get(4)?,
    entry_id: row.get(5)?,
    text: row.get(6)?,
    outcome: row.get(7)?,
    source: row.get(8)?,
    session_id: row.get(9)?,
    fields: row.get(10)?,
  })
}

const AUDIT_COLUMNS: &str =
  "seq, ts, action, track, scope, entry_id, text, outcome, source, session_id, fields";

/// Prefix of a `snapshot` row's stored text: the row references the text by its SHA-256, and
/// listings show the text itself.
pub const SNAPSHOT_REF: &str = "sha256:";

/// The newest `limit` rows, newest first; `snapshot` rows carry their full text. Without their
/// `fields` (hashed, not listed).
pub fn list(conn: &Connection, limit: u64) -> rusqlite::Result<Vec<AuditRow>> {
  let sql = "SELECT seq, ts, action, track, scope, entry_id,
       CASE WHEN action = 'snapshot' AND text LIKE 'sha256:%'
         THEN coalesce((SELECT t.text FROM snapshot_texts t WHERE t.hash = substr(audit.text, 8)), audit.text)
         ELSE text END,
       outcome, source, session_id, NULL
     FROM audit ORDER BY seq DESC LIMIT ?1";
  let limit = limit.min(i64::MAX as u64) as i64;
  super::rows(conn, sql, [limit], audit_from_row)
}

/// The newest `recalled` row of a session, if any.
pub fn last_recall(conn: &Connection, session_id: &str) -> rusqlite::Result<Option<AuditRow>> {
  let sql = format!("SELECT {AUDIT_COLUMNS} FROM audit WHERE session_id = ?1 AND action = 'recalled' ORDER BY seq DESC LIMIT 1");
  one(conn, &sql, [session_id], audit_from_row)
}

/// Walk the whole chain from its checkpoint and report the first row that does not verify; then
/// check that its newest row is the recorded head, and the store's records and layer usage
/// against it ([`super::ledger`]).
pub fn verify(conn: &Connection) -> rusqlite::Result<Verification> {
  let checkpoint = meta(conn, CHECKPOINT_KEY)?;
  let mut expected_prev = checkpoint.clone().unwrap_or_default();
  let mut stmt = conn.prepare(&format!(
    "SELECT {AUDIT_COLUMNS}, prev_hash, hash FROM audit ORDER BY seq"
  ))?;
  let mut rows = stmt.query([])?;
  let mut checked = 0u64;
  let mut last_seq = 0;
  let mut ledger = Ledger::default();
  let mut first_broken = None;
  while let Some(r) = rows.next()? {
    let row = audit_from_row(r)?;
    let prev: Option<String> = r.get(11)?;
    let hash: Option<String> = r.get(12)?;
    checked += 1;
    let broken = |reason: &str| BrokenRow {
      seq: row.seq,
      reason: reason.to_string(),
    };
    if prev.as_deref() != Some(expected_prev.as_str()) {
      first_broken = Some(broken("prev_hash does not match the previous row: a row before it was removed, inserted or re-chained"));
      break;
    }
    let actual = row_hash(&expected_prev, &row);
    if hash.as_deref() != Some(actual.as_str()) {
      first_broken = Some(broken(
        "the row's content does not match its hash: it was changed after it was written",
      ));
      break;
    }
    expected_prev = actual;
    last_seq = row.seq;
    ledger.note(&row);
  }
  drop(rows);
  let last = (checked > 0).then(|| (last_seq, expected_prev.clone()));
  let first_broken = match first_broken {
    Some(b) => Some(b),
    None => tail_broken(conn, last.as_ref(), checkpoint.as_deref())?,
  };
  let records = ledger.check(conn, sequence(conn)?)?;
  let layers = stale_usage(conn)?;
  Ok(Verification {
    ok: first_broken.is_none() && records.mismatched.is_empty() && layers.is_empty(),
    checked,
    head: last.map(|(_, hash)| hash),
    first_broken,
    records,
    layers,
  })
}

/// Whether the chain ends where its recorded head and SQLite's sequence say it does.
fn tail_broken(
  conn: &Connection,
  last: Option<&(i64, String)>,
  checkpoint: Option<&str>,
) -> rusqlite::Result<Option<BrokenRow>> {
  let sequence = sequence(conn)?;
  let broken = |seq: i64, reason: String| Some(BrokenRow { seq, reason });
  let found = match (head(conn)?, last) {
    (None, None) if sequence == 0 => None,
    (None, _) => broken(sequence, format!("the ledger's recorded head is missing and SQLite has handed out seq {sequence}: its newest rows or its head were deleted")),
    (Some((seq, _)), None) if sequence > seq => broken(sequence, format!("the ledger is empty and SQLite has handed out seq {sequence}, past its head (seq {seq}): rows were deleted")),
    (Some((seq, hash)), None) => (checkpoint != Some(hash.as_str())).then(|| BrokenRow {
      seq,
      reason: format!("the ledger is empty but its head is seq {seq} and no pruning accounts for it: every row was deleted"),
    }),
    (Some((seq, hash)), Some((last, last_hash))) => {
      if *last < seq.max(sequence) {
        let head = seq.max(sequence);
        broken(head, format!("the ledger ends at seq {last} but its head is seq {head}: the newest rows were deleted"))
      } else if *last > seq {
        broken(*last, format!("rows after the recorded head (seq {seq}) were written around the provider"))
      } else if *last_hash != hash {
        broken(*last, "the newest row is not the one the head recorded: it was rewritten".into())
      } else {
        None
      }
    }
  };
  Ok(found)
}

/// Delete the expired head of the ledger: rows older than `cutoff_ms`, oldest first, up to
/// `batch` of them (`None`: all), stopping at the first row that is not expired — so only a
/// prefix is ever removed and the rest still verifies from the checkpoint, which moves to the
/// last deleted row's hash. Reads only the rows it deletes plus one.
pub fn prune(conn: &Connection, cutoff_ms: i64, batch: Option<i64>) -> rusqlite::Result<usize> {
  let mut last: Option<(i64, Option<String>)> = None;
  {
    let mut stmt = conn.prepare_cached("SELECT seq, hash, ts FROM audit ORDER BY seq LIMIT ?1")?;
    let mut rows = stmt.query([batch.unwrap_or(-1)])?;
    while let Some(row) = rows.next()? {
      if row.get::<_, i64>(2)? >= cutoff_ms {
        break;
      }
      last = Some((row.get(0)?, row.get(1)?));
    }
  }
  let Some((seq, hash)) = last else {
    return Ok(0);
  };
  let deleted = exec(conn, "DELETE FROM audit WHERE seq <= ?1", [seq])?;
  put_meta(conn, CHECKPOINT_KEY, &hash.unwrap_or_default())?;
  Ok(deleted)
}

/// Compute `prev_hash`/`hash` for every row and record the head (the migration of an older store).
pub fn backfill(conn: &Connection) -> rusqlite::Result<()> {
  // Run by the v10 step, before v11 adds `fields` (every row then has none).
  let columns = match super::schema::has_column(conn, "audit", "fields")? {
    true => AUDIT_COLUMNS.to_string(),
    false => AUDIT_COLUMNS.replace(", fields", ", NULL"),
  };
  let sql = format!("SELECT {columns} FROM audit ORDER BY seq");
  let rows = super::rows(conn, &sql, [], audit_from_row)?;
  let mut update = conn.prepare("UPDATE audit SET prev_hash = ?2, hash = ?3 WHERE seq = ?1")?;
  let mut prev = chain_start(conn)?;
  let mut last = None;
  for row in rows {
    let hash = row_hash(&prev, &row);
    update.execute(params![row.seq, prev, hash])?;
    prev = hash;
    last = Some(row.seq);
  }
  match last {
    Some(seq) => put_meta(conn, HEAD_KEY, &format!("{seq} {prev}")),
    None => Ok(()),
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn sha256_matches_the_standard_vectors() {
    assert_eq!(
      hex_digest(b""),
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
      hex_digest(b"abc"),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
      hex_digest(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
    assert_eq!(
      hex_digest(&[b'a'; 1_000_000]),
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    );
    assert_eq!(hex_digest(&[0u8; 55]).len(), 64);
    assert_eq!(
      hex_digest(&[0u8; 56]),
      "d4817aa5497628e7c77e6b606107042bbba3130888c5f47a375e6179be789fbb"
    );
  }
  use crate::store::schema::migrate;

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
}
