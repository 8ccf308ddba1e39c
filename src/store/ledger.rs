//! The ledger checked ([`verify`]): the hash chain walked from its checkpoint to its recorded
//! head, and what the ledger says of the rest of the store: every entry holds the layer, text,
//! source, keys and tags the ledger last approved for it; every pending proposal is the one its
//! `proposal` row recorded; every frozen snapshot text matches its hash; every layer's recorded
//! usage is the sum of its entries. And the adoption, when a store is migrated, of the entries
//! its ledger did not account for (the JS plugin did not audit every entry, nor keys and tags).
#![forbid(unsafe_code)]

use std::collections::{BTreeMap, HashMap};

use rusqlite::Connection;
use serde::Serialize;

use super::chain::{
  append_all, audit_from_row, audit_rows, head, row_hash, sequence, NewAudit, AUDIT_COLUMNS,
  CHECKPOINT_KEY,
};
use super::sql::{meta, rows};
use crate::protocol::model::{approved_fields, AuditRow, RowFields};
use crate::text::{hex_digest, units};

/// The actions that set an entry's content (a version): their row holds what it was approved
/// with.
pub const SETS: [&str; 4] = ["add", "replace", "consolidate-add", "adopt"];
/// The actions that end an entry.
pub const ENDS: [&str; 2] = ["remove", "consolidate-remove"];

/// The stored records checked against the ledger.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RecordsCheck {
  /// Records compared.
  pub checked: u64,
  /// Records the ledger no longer covers (their rows were pruned), not compared.
  pub unverifiable: u64,
  /// Records that differ from the ledger, or are not in it.
  pub mismatched: Vec<Mismatch>,
}

/// A record that does not match the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mismatch {
  /// Its table: `entries`, `proposals` or `snapshot_texts`.
  pub table: &'static str,
  /// Its id (a snapshot text's hash).
  pub id: String,
  /// How it differs.
  pub reason: String,
}

/// A layer whose recorded usage disagrees with its entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StaleUsage {
  /// Track.
  pub track: String,
  /// Scope.
  pub scope: String,
  /// Workspace key (`''` for user-global).
  pub workspace_key: String,
  /// What the store records (and budgets enforce).
  pub recorded: i64,
  /// The sum of its entries' lengths.
  pub actual: i64,
}

/// What one row approved of an entry or a proposal.
#[derive(Debug, Clone, PartialEq)]
struct Approved {
  track: Option<String>,
  scope: Option<String>,
  text: Option<String>,
  source: Option<String>,
  /// The keys and tags ([`approved_fields`]).
  fields: Option<String>,
  /// The entry's version, when the row recorded it.
  version: Option<i64>,
}

impl Approved {
  fn of(row: &AuditRow) -> Self {
    let parsed = RowFields::parse(row.fields.as_deref());
    // A row's other fields (its version, the seq a revert undoes) are not the record's.
    let approved = parsed.as_ref().map(RowFields::approved);
    Self {
      track: row.track.clone(),
      scope: row.scope.clone(),
      text: row.text.clone(),
      source: row.source.clone(),
      fields: approved.or(row.fields.clone()),
      version: parsed.and_then(|f| f.version),
    }
  }

  /// Whether the record `stored` is what this row approved (its version too, when the row
  /// recorded one).
  fn admits(&self, stored: &Approved) -> bool {
    fn content(a: &Approved) -> [&Option<String>; 5] {
      [&a.track, &a.scope, &a.text, &a.source, &a.fields]
    }
    let version = self.version.is_none() || self.version == stored.version;
    version && content(self) == content(stored)
  }
}

/// A record as the store holds it, in the terms of [`Approved`].
struct Stored {
  id: String,
  created_at: i64,
  approved: Approved,
  units: i64,
}

/// What the ledger says last of each entry and proposal, by id.
#[derive(Default)]
pub(super) struct Ledger {
  /// An entry's last row: its `seq` and what it approved (`None`: it removed the entry).
  entries: HashMap<String, (i64, Option<Approved>)>,
  proposals: HashMap<String, (i64, Approved)>,
  /// The first row still in the ledger: `(seq, ts)`.
  first: Option<(i64, i64)>,
}

impl Ledger {
  /// Take one row, in `seq` order.
  pub(super) fn note(&mut self, row: &AuditRow) {
    self.first.get_or_insert((row.seq, row.ts));
    let Some(id) = row.entry_id.clone() else {
      return;
    };
    let action = row.action.as_str();
    if SETS.contains(&action) {
      self.entries.insert(id, (row.seq, Some(Approved::of(row))));
    } else if ENDS.contains(&action) {
      self.entries.insert(id, (row.seq, None));
    } else if action == "proposal" {
      self.proposals.insert(id, (row.seq, Approved::of(row)));
    }
  }

  /// How `e` differs from what the ledger last said of it (`Some(None)`: no row names it).
  fn differs(&self, e: &Stored) -> Option<Option<String>> {
    match self.entries.get(&e.id) {
      Some((seq, Some(approved))) => (!approved.admits(&e.approved)).then(|| {
        Some(format!("its layer, text, source, keys or tags are not what the ledger approved (seq {seq}): it was changed around the provider"))
      }),
      Some((seq, None)) => Some(Some(format!(
        "the ledger removed it (seq {seq}) but it is still stored"
      ))),
      None => Some(None),
    }
  }

  /// Whether a record created at `created_at` that no row names was written around the
  /// provider: always, when no row was ever pruned (the first left is seq 1, or none was ever
  /// written); else when it is newer than the oldest row left, whose rows pruning kept.
  fn must_be_named(&self, sequence: i64, created_at: i64) -> bool {
    match self.first {
      None => sequence == 0,
      Some((seq, ts)) => seq == 1 || created_at >= ts,
    }
  }

  /// Every stored entry, pending proposal and snapshot text against the ledger.
  pub(super) fn check(mut self, conn: &Connection) -> rusqlite::Result<RecordsCheck> {
    // The highest `seq` SQLite handed out.
    let sequence = sequence(conn)?;
    let mut out = RecordsCheck::default();
    let mut mismatch = |table, id, reason| out.mismatched.push(Mismatch { table, id, reason });
    for e in stored_entries(conn)? {
      let found = match self.differs(&e) {
        Some(None) if !self.must_be_named(sequence, e.created_at) => {
          out.unverifiable += 1;
          None
        }
        Some(None) => Some("no audit row approved it: it was inserted around the provider".into()),
        other => other.flatten(),
      };
      out.checked += u64::from(self.entries.remove(&e.id).is_some() || found.is_some());
      let recorded = e.units;
      let actual = units(e.approved.text.as_deref().unwrap_or("")) as i64;
      let stale = (actual != recorded).then(|| {
        format!("its recorded length is {recorded} but its text is {actual} characters long")
      });
      if let Some(reason) = found.or(stale) {
        mismatch("entries", e.id, reason);
      }
    }
    // What the ledger approved last and is gone, with no row that removed it.
    let mut gone: Vec<(i64, String)> = self
      .entries
      .drain()
      .filter_map(|(id, (seq, a))| a.map(|_| (seq, id)))
      .collect();
    gone.sort();
    for (seq, id) in gone {
      out.checked += 1;
      mismatch("entries", id, format!("the ledger approved it (seq {seq}) and no row removed it, but it is gone: it was deleted around the provider"));
    }
    // Every pending proposal (what the snapshot's notice shows).
    let sql = "SELECT id, track, scope, text, source, workspace_key, agent_key, created_at, 0, '[]', NULL FROM proposals WHERE status = 'pending'";
    let pending: Vec<Stored> = rows(conn, sql, [], stored_from_row)?;
    for p in pending {
      let found = match self.proposals.get(&p.id) {
        None if !self.must_be_named(sequence, p.created_at) => {
          out.unverifiable += 1;
          continue;
        }
        None => Some("no audit row recorded it: it was inserted around the provider".into()),
        Some((seq, recorded)) => {
          // A row written before proposals recorded their keys is compared without them.
          let fields = recorded.fields.as_ref().and(p.approved.fields);
          (*recorded != Approved { fields, ..p.approved }).then(|| format!("it is not the proposal its row recorded (seq {seq}): it was changed around the provider"))
        }
      };
      out.checked += 1;
      if let Some(reason) = found {
        mismatch("proposals", p.id, reason);
      }
    }
    let sql = "SELECT hash, text FROM snapshot_texts";
    let texts: Vec<(String, String)> = rows(conn, sql, [], |r| r.try_into())?;
    for (hash, text) in texts {
      out.checked += 1;
      if hex_digest(text.as_bytes()) != hash {
        mismatch("snapshot_texts", hash, "a frozen snapshot's text does not match its hash: it was rewritten, and a resumed session would read it".into());
      }
    }
    Ok(out)
  }
}

/// Every entry, in insertion order.
fn stored_entries(conn: &Connection) -> rusqlite::Result<Vec<Stored>> {
  let sql = "SELECT id, track, scope, text, source, workspace_key, agent_key, created_at, units, tags, version FROM entries ORDER BY rowid";
  rows(conn, sql, [], stored_from_row)
}

/// A record of `id, track, scope, text, source, workspace_key, agent_key, created_at, units,
/// tags, version`.
fn stored_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Stored> {
  let tags: String = r.get(9)?;
  let tags: Vec<String> = serde_json::from_str(&tags).unwrap_or_default();
  let (workspace_key, agent_key): (String, String) = (r.get(5)?, r.get(6)?);
  Ok(Stored {
    id: r.get(0)?,
    created_at: r.get(7)?,
    units: r.get(8)?,
    approved: Approved {
      track: r.get(1)?,
      scope: r.get(2)?,
      text: r.get(3)?,
      source: r.get(4)?,
      fields: Some(approved_fields(&workspace_key, &agent_key, &tags)),
      version: r.get(10)?,
    },
  })
}

/// Append an `adopt` row for every entry the ledger does not account for with all of its fields
/// (no row, or a row without keys and tags, or one that says otherwise), so that from then on an
/// entry the ledger does not account for was written around the provider. Run by the migration
/// that introduced it: a store is adopted as it was when it was upgraded.
pub fn adopt_entries(conn: &Connection) -> rusqlite::Result<()> {
  let mut ledger = Ledger::default();
  for row in audit_rows(conn, "ORDER BY seq", [])? {
    ledger.note(&row);
  }
  let stored = stored_entries(conn)?;
  let unaccounted = stored.iter().filter(|e| ledger.differs(e).is_some());
  let rows: Vec<NewAudit<'_>> = unaccounted
    .map(|e| {
      let a = &e.approved;
      NewAudit {
        action: "adopt",
        track: a.track.as_deref(),
        scope: a.scope.as_deref(),
        entry_id: Some(&e.id),
        text: a.text.as_deref(),
        outcome: Some("stored when this store was upgraded, before its ledger recorded every entry in full (adopted as it was)"),
        source: a.source.as_deref(),
        fields: a.fields.clone(),
        ..NewAudit::default()
      }
    })
    .collect();
  append_all(conn, &rows).map(drop)
}

/// Layers whose recorded usage is not the sum of their entries' actual lengths.
pub(super) fn stale_usage(conn: &Connection) -> rusqlite::Result<Vec<StaleUsage>> {
  let mut actual: BTreeMap<(String, String, String), i64> = BTreeMap::new();
  let sql = "SELECT track, scope, CASE scope WHEN 'workspace' THEN workspace_key ELSE '' END, text FROM entries";
  let texts: Vec<(String, String, String, String)> = rows(conn, sql, [], |r| r.try_into())?;
  for (t, s, w, text) in texts {
    *actual.entry((t, s, w)).or_default() += units(&text) as i64;
  }
  let sql = "SELECT track, scope, workspace_key, used FROM layer_usage";
  let recorded: Vec<(String, String, String, i64)> = rows(conn, sql, [], |r| r.try_into())?;
  let stale = |(track, scope, workspace_key), recorded, actual| StaleUsage {
    track,
    scope,
    workspace_key,
    recorded,
    actual,
  };
  let changed = |(t, s, w, used): (String, String, String, i64)| {
    let key = (t, s, w);
    let sum = actual.remove(&key).unwrap_or(0);
    (sum != used).then(|| stale(key, used, sum))
  };
  let mut out: Vec<StaleUsage> = recorded.into_iter().filter_map(changed).collect();
  let unrecorded = actual.into_iter().filter(|(_, sum)| *sum != 0);
  out.extend(unrecorded.map(|(key, sum)| stale(key, 0, sum)));
  Ok(out)
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

/// Walk the whole chain from its checkpoint and report the first row that does not verify; then
/// check that its newest row is the recorded head, and the store's records and layer usage
/// against it (the ledger).
pub fn verify(conn: &Connection) -> rusqlite::Result<Verification> {
  let checkpoint = meta(conn, CHECKPOINT_KEY)?;
  let mut expected_prev = checkpoint.clone().unwrap_or_default();
  let sql = format!("SELECT {AUDIT_COLUMNS}, prev_hash, hash FROM audit ORDER BY seq");
  let mut stmt = conn.prepare(&sql)?;
  let mut checked = 0u64;
  let mut last_seq = 0;
  let mut ledger = Ledger::default();
  let mut first_broken = None;
  for found in stmt.query_map([], |r| Ok((audit_from_row(r)?, r.get(11)?, r.get(12)?)))? {
    let (row, prev, hash): (AuditRow, Option<String>, Option<String>) = found?;
    let seq = row.seq;
    checked += 1;
    let actual = row_hash(&expected_prev, &row);
    let reason = if prev.as_deref() != Some(expected_prev.as_str()) {
      "prev_hash does not match the previous row: a row before it was removed, inserted or re-chained".into()
    } else if hash.as_deref() != Some(actual.as_str()) {
      "the row's content does not match its hash: it was changed after it was written".into()
    } else {
      (expected_prev, last_seq) = (actual, seq);
      ledger.note(&row);
      continue;
    };
    first_broken = Some(BrokenRow { seq, reason });
    break;
  }
  let last = (checked > 0).then(|| (last_seq, expected_prev.clone()));
  if first_broken.is_none() {
    first_broken = tail_broken(conn, last.as_ref(), checkpoint.as_deref())?;
  }
  let records = ledger.check(conn)?;
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
    (Some((seq, hash)), None) if checkpoint != Some(hash.as_str()) => broken(seq, format!("the ledger is empty but its head is seq {seq} and no pruning accounts for it: every row was deleted")),
    (Some((seq, _)), Some((last, _))) if *last < seq.max(sequence) => {
      let head = seq.max(sequence);
      broken(head, format!("the ledger ends at seq {last} but its head is seq {head}: the newest rows were deleted"))
    }
    (Some((seq, _)), Some((last, _))) if *last > seq => broken(*last, format!("rows after the recorded head (seq {seq}) were written around the provider")),
    (Some((_, hash)), Some((last, last_hash))) if *last_hash != hash => broken(*last, "the newest row is not the one the head recorded: it was rewritten".into()),
    (Some(_), _) => None,
  };
  Ok(found)
}
