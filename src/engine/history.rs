//! An entry's past as the ledger holds it — every version, the row that made it, and the row
//! that ended it — and the sessions whose frozen snapshots it recorded. Reads only.
#![forbid(unsafe_code)]

use super::*;

/// Most sessions one listing returns unless told.
const SESSIONS: u64 = 50;

/// Which entry a history is asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryTarget {
  /// An entry id (of an entry that exists or once did).
  Id(String),
  /// The one visible entry of a layer whose text contains `needle` (as `replace` finds it).
  Match {
    /// Track.
    track: Track,
    /// Scope.
    scope: Scope,
    /// The substring.
    needle: String,
  },
  /// The entry an audit row names.
  Seq(i64),
}

/// One version of an entry: what a row set it to, and that row.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryVersion {
  /// The entry's version.
  pub version: i64,
  /// Its text.
  pub text: String,
  /// Its tags.
  pub tags: Vec<String>,
  /// Track.
  pub track: String,
  /// Scope.
  pub scope: String,
  /// Workspace key.
  pub workspace_key: String,
  /// Agent key.
  pub agent_key: String,
  /// Source label.
  pub source: String,
  /// The row's `seq`.
  pub seq: i64,
  /// The row's time.
  pub ts: i64,
  /// The row's action (`add`, `replace`, `consolidate-add`, `adopt`).
  pub action: String,
  /// The row's outcome label.
  pub outcome: Option<String>,
  /// The writing session.
  pub session_id: Option<String>,
  /// The `seq` of the change this version reverts, when it came from a revert.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub reverts: Option<i64>,
}

/// The row that ended an entry that no longer exists.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ended {
  /// Its `seq`.
  pub seq: i64,
  /// Its time.
  pub ts: i64,
  /// `remove` or `consolidate-remove`.
  pub action: String,
  /// The entry a consolidate merged it into.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub into: Option<String>,
}

/// An entry's history, oldest version first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct History {
  /// The entry's id.
  pub entry_id: String,
  /// Whether the ledger still holds the row that created it (retention may have pruned older
  /// rows: the first version listed is then where the history starts).
  pub complete: bool,
  /// Every version the ledger holds.
  pub versions: Vec<EntryVersion>,
  /// How it ended, when it no longer exists.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub ended: Option<Ended>,
}

/// A session whose snapshot the store recorded.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord {
  /// Session id.
  pub session_id: String,
  /// When its snapshot was recorded.
  pub ts: i64,
  /// The workspace key it saw (`null`: recorded before keys were).
  pub workspace_key: Option<String>,
  /// The agent key it saw.
  pub agent_key: Option<String>,
  /// The snapshot's length in UTF-16 units.
  pub chars: u64,
  /// The exact text it was given (asked for by session id).
  #[serde(skip_serializing_if = "Option::is_none")]
  pub text: Option<String>,
}

/// The versions the rows of one entry set, numbered: a row that recorded its version says it;
/// before versions were recorded, an `add` is 1 and each `replace` one more, counted forward
/// and, from the entry as it is now, backward. `complete` when the first row created it.
pub(super) fn versions_of(rows: &[AuditRow], now: Option<&Entry>) -> (Vec<EntryVersion>, bool) {
  // Each row that set a version, with the fields it recorded.
  let sets = rows.iter().filter(|r| SETS.contains(&r.action.as_str()));
  let sets = sets.map(|r| (r, RowFields::parse(r.fields.as_deref())));
  let sets: Vec<(&AuditRow, Option<RowFields>)> = sets.collect();
  let reverts = |i: usize| sets[i].1.as_ref().and_then(|f| f.reverts);
  let mut numbers: Vec<Option<i64>> = sets.iter().map(|(_, f)| f.as_ref()?.version).collect();
  for i in 0..sets.len() {
    let counted = match sets[i].0.action.as_str() {
      "add" | "consolidate-add" => Some(1),
      "replace" => i.checked_sub(1).and_then(|p| numbers[p]).map(|v| v + 1),
      _ => None,
    };
    numbers[i] = numbers[i].or(counted);
  }
  if let (Some(last), Some(e)) = (numbers.last_mut(), now) {
    last.get_or_insert(e.version);
  }
  for i in (0..sets.len().saturating_sub(1)).rev() {
    // A replace, and a restore, are one version past the row before them.
    let step = i64::from(sets[i + 1].0.action == "replace" || reverts(i + 1).is_some());
    numbers[i] = numbers[i].or(numbers[i + 1].map(|v| v - step));
  }
  let created = sets.first().is_some_and(|(r, _)| {
    matches!(r.action.as_str(), "add" | "consolidate-add") && reverts(0).is_none()
  });
  let complete = created && numbers.iter().all(Option::is_some);
  // What a row before v11 did not record (keys, tags) is the next known version's.
  let mut known = now.map(|e| (e.workspace_key.clone(), e.agent_key.clone(), e.tags.clone()));
  let keys = |f: &RowFields| (f.workspace_key.clone(), f.agent_key.clone(), f.tags.clone());
  let mut out: Vec<EntryVersion> = Vec::with_capacity(sets.len());
  for (i, (r, fields)) in sets.iter().enumerate().rev() {
    known = fields.as_ref().map(keys).or(known);
    let (workspace_key, agent_key, tags) = known.clone().unwrap_or_default();
    out.push(EntryVersion {
      version: numbers[i].unwrap_or(i as i64 + 1),
      text: r.text.clone().unwrap_or_default(),
      tags,
      track: r.track.clone().unwrap_or_default(),
      scope: r.scope.clone().unwrap_or_default(),
      workspace_key,
      agent_key,
      source: r.source.clone().unwrap_or_default(),
      seq: r.seq,
      ts: r.ts,
      action: r.action.clone(),
      outcome: r.outcome.clone(),
      session_id: r.session_id.clone(),
      reverts: reverts(i),
    });
  }
  out.reverse();
  (out, complete)
}

impl Memory {
  /// Every version of an entry the ledger holds, oldest first, and how it ended if it no longer
  /// exists; only of an entry `vis` sees (as it is, or as it last was).
  ///
  /// # Errors
  /// `INVALID_INPUT` for a seq or id the ledger does not know; `ENTRY_NOT_FOUND`,
  /// `AMBIGUOUS_MATCH` for a match; `STORE_CORRUPT`.
  pub fn history(&mut self, target: &HistoryTarget, vis: &Visibility) -> Result<History> {
    let conn = self.store.conn();
    let id = match target {
      HistoryTarget::Id(id) => id.clone(),
      HistoryTarget::Match {
        track,
        scope,
        needle,
      } => self.resolve(*track, *scope, vis, needle)?.shown.id,
      HistoryTarget::Seq(seq) => {
        let row = ledger::row(conn, *seq).map_err(|e| self.fail(e))?;
        let row = row.ok_or_else(|| no_row(*seq))?;
        let action = row.action;
        let bad = || format!("audit row {seq} is a {action} row: it names no entry");
        let id = row.entry_id.filter(|_| names_entry(&action));
        id.ok_or_else(|| MemoryError::invalid(bad()))?
      }
    };
    let rows = ledger::of_entry(conn, &id).map_err(|e| self.fail(e))?;
    let now = self.entry(&id)?;
    let (versions, complete) = versions_of(&rows, now.as_ref());
    let seen = match (&now, versions.last()) {
      (Some(e), _) => vis.sees(e.scope.as_str(), &e.workspace_key, &e.agent_key),
      (None, Some(v)) => vis.sees(&v.scope, &v.workspace_key, &v.agent_key),
      (None, None) => false,
    };
    if !seen {
      return Err(MemoryError::invalid(format!(
        "no entry with id {} is known to the ledger or visible to this session",
        json_str(&id)
      )));
    }
    let end = rows.iter().rev().find(|r| names_entry(&r.action));
    let end = end.filter(|r| now.is_none() && ENDS.contains(&r.action.as_str()));
    let merged = match end {
      Some(r) if r.action == "consolidate-remove" => ledger::merged_after(conn, r.seq),
      _ => Ok(None),
    };
    let into = merged.map_err(|e| self.fail(e))?.and_then(|m| m.entry_id);
    let ended = end.map(|r| Ended {
      seq: r.seq,
      ts: r.ts,
      action: r.action.clone(),
      into,
    });
    Ok(History {
      entry_id: id,
      complete,
      versions,
      ended,
    })
  }

  /// Recorded sessions, newest first (up to `limit`, default 50), or the one `session_id` with
  /// the exact text it was given; with `vis`'s keys, only sessions that saw them.
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn sessions(
    &mut self,
    session_id: Option<&str>,
    limit: u64,
    vis: &Visibility,
  ) -> Result<Vec<SessionRecord>> {
    let limit = if limit == 0 { SESSIONS } else { limit };
    let found = ledger::sessions(self.store.conn(), session_id, limit).map_err(|e| self.fail(e))?;
    let admits = |want: &Option<String>, saw: &Option<String>| want.is_none() || want == saw;
    let shown = found.into_iter().filter(|(_, _, workspace, agent, _)| {
      admits(&vis.workspace_key, workspace) && admits(&vis.agent_key, agent)
    });
    let records = shown.map(|(id, ts, workspace_key, agent_key, text)| SessionRecord {
      chars: units(&text),
      text: session_id.map(|_| text),
      session_id: id,
      ts,
      workspace_key,
      agent_key,
    });
    Ok(records.collect())
  }
}

/// Whether a row of `action` names an entry: it sets or ends one.
pub(super) fn names_entry(action: &str) -> bool {
  SETS.contains(&action) || ENDS.contains(&action)
}

/// The refusal of a `seq` the ledger does not hold.
pub(super) fn no_row(seq: i64) -> MemoryError {
  MemoryError::invalid(format!(
    "no audit row has seq {seq} (the audit list shows the rows the ledger keeps; retention prunes the oldest)"
  ))
}
