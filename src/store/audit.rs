//! The audit ledger: append-only rows chained by SHA-256 (`sha2`), verification, and retention pruning
//! that leaves a checkpoint so what remains stays verifiable.
//!
//! Threat model: the chain makes *accidental or naive* edits evident — a row changed, removed or
//! inserted in the middle, or rows dropped from the head, without recomputing every later hash.
//! Anyone who can write the file can also recompute the whole chain; the chain's head hash
//! (returned by [`verify`]) is what a user records elsewhere to detect that.
#![forbid(unsafe_code)]

use rusqlite::{params, Connection};
use serde::Serialize;
use serde_json::json;

use super::{exec, meta, now_ms, one, put_meta};
use crate::protocol::model::AuditRow;
use sha2::{Digest, Sha256};

/// Meta key holding the hash of the last pruned row (the chain's starting point).
const CHECKPOINT_KEY: &str = "audit_checkpoint";

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
  /// The first row that does not verify.
  pub first_broken: Option<BrokenRow>,
}

/// A row that failed verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrokenRow {
  /// Its sequence number.
  pub seq: i64,
  /// Why.
  pub reason: String,
}

/// The SHA-256 digest of `data` as 64 lowercase hex characters (the `sha2` crate; checked
/// against the FIPS 180-4 vectors in the tests).
pub fn hex_digest(data: &[u8]) -> String {
  format!("{:x}", Sha256::digest(data))
}

/// The hash of one row: SHA-256 over a canonical JSON array of the previous hash and every field.
pub fn row_hash(prev: &str, row: &AuditRow) -> String {
  let canonical = json!([
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
  let (mut prev, mut seq) = chain_tail(conn)?;
  let mut insert = conn.prepare_cached(
    "INSERT INTO audit (seq, ts, action, track, scope, entry_id, text, outcome, source, session_id, prev_hash, hash)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
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
      hash
    ])?;
    (prev, seq) = (hash, seq + 1);
  }
  Ok(seq - 1)
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
  })
}

const AUDIT_COLUMNS: &str =
  "seq, ts, action, track, scope, entry_id, text, outcome, source, session_id";

/// Prefix of a `snapshot` row's stored text: the row references the text by its SHA-256, and
/// listings show the text itself.
pub const SNAPSHOT_REF: &str = "sha256:";

/// The newest `limit` rows, newest first; `snapshot` rows carry their full text.
pub fn list(conn: &Connection, limit: u64) -> rusqlite::Result<Vec<AuditRow>> {
  let sql = "SELECT seq, ts, action, track, scope, entry_id,
       CASE WHEN action = 'snapshot' AND text LIKE 'sha256:%'
         THEN coalesce((SELECT t.text FROM snapshot_texts t WHERE t.hash = substr(audit.text, 8)), audit.text)
         ELSE text END,
       outcome, source, session_id
     FROM audit ORDER BY seq DESC LIMIT ?1";
  let limit = limit.min(i64::MAX as u64) as i64;
  super::rows(conn, sql, [limit], audit_from_row)
}

/// The newest `recalled` row of a session, if any.
pub fn last_recall(conn: &Connection, session_id: &str) -> rusqlite::Result<Option<AuditRow>> {
  let sql = format!("SELECT {AUDIT_COLUMNS} FROM audit WHERE session_id = ?1 AND action = 'recalled' ORDER BY seq DESC LIMIT 1");
  one(conn, &sql, [session_id], audit_from_row)
}

/// Walk the whole chain from its checkpoint and report the first row that does not verify.
pub fn verify(conn: &Connection) -> rusqlite::Result<Verification> {
  let mut expected_prev = chain_start(conn)?;
  let mut stmt = conn.prepare(&format!(
    "SELECT {AUDIT_COLUMNS}, prev_hash, hash FROM audit ORDER BY seq"
  ))?;
  let mut rows = stmt.query([])?;
  let mut checked = 0u64;
  while let Some(r) = rows.next()? {
    let row = audit_from_row(r)?;
    let prev: Option<String> = r.get(10)?;
    let hash: Option<String> = r.get(11)?;
    checked += 1;
    let broken = |reason: &str| Verification {
      ok: false,
      checked,
      head: None,
      first_broken: Some(BrokenRow {
        seq: row.seq,
        reason: reason.to_string(),
      }),
    };
    if prev.as_deref() != Some(expected_prev.as_str()) {
      return Ok(broken("prev_hash does not match the previous row: a row before it was removed, inserted or re-chained"));
    }
    let actual = row_hash(&expected_prev, &row);
    if hash.as_deref() != Some(actual.as_str()) {
      return Ok(broken(
        "the row's content does not match its hash: it was changed after it was written",
      ));
    }
    expected_prev = actual;
  }
  let head = (checked > 0).then_some(expected_prev);
  Ok(Verification {
    ok: true,
    checked,
    head,
    first_broken: None,
  })
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

/// Compute `prev_hash`/`hash` for every row (the v6 migration of an older store).
pub fn backfill(conn: &Connection) -> rusqlite::Result<()> {
  let sql = format!("SELECT {AUDIT_COLUMNS} FROM audit ORDER BY seq");
  let rows = super::rows(conn, &sql, [], audit_from_row)?;
  let mut update = conn.prepare("UPDATE audit SET prev_hash = ?2, hash = ?3 WHERE seq = ?1")?;
  let mut prev = chain_start(conn)?;
  for row in rows {
    let hash = row_hash(&prev, &row);
    update.execute(params![row.seq, prev, hash])?;
    prev = hash;
  }
  Ok(())
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
