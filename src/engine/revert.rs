//! Undo: the inverse of a landed change, planned against the store as it is now and asked for
//! like any write. Each row of the change is inverted — an addition removed, a removal
//! restored, a rewrite rewritten back — to exactly what it was (id, version, text, tags, keys,
//! source), so a revert of the revert is a redo; and nothing that changed since is ever
//! overwritten: such a revert is refused before anyone is asked.
#![forbid(unsafe_code)]

use super::history::{no_row, versions_of};
use super::plan::build;
use super::*;
use crate::protocol::model::RowFields;
use crate::store::history::{self as ledger, ENDS};

/// One step of a revert: the inverse of one row of the change it undoes.
#[derive(Debug)]
pub(super) enum Step {
  /// Remove the entry, at the version the approver saw.
  Remove(Target),
  /// Put back an entry a removal took away, at the version it had.
  Restore(Entry),
  /// Rewrite the entry, at the version the approver saw, back to an earlier version: its text,
  /// tags and version number.
  Rewrite(Target, (String, Vec<String>, i64)),
}

/// What a landed revert did to one entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reverted {
  /// `remove`, `restore` or `replace`.
  pub action: &'static str,
  /// The entry as the step left it (as it was, for a removal).
  pub entry: Entry,
}

/// The actions a change's rows may have that a revert inverts.
const INVERTIBLE: [&str; 5] = [
  "add",
  "replace",
  "remove",
  "consolidate-add",
  "consolidate-remove",
];

impl Memory {
  /// Plan the revert of the change audit row `seq` belongs to: every row of a consolidate, a
  /// seed's or import's batch (by its `seed` row), one entry's own row, a revert's rows (a redo).
  ///
  /// # Errors
  /// `INVALID_INPUT` (no such row, a row of no landed change, a row that no longer holds what
  /// it would restore); `ENTRY_NOT_FOUND` (an entry gone, or changed since: details name its
  /// current version and text); `BUDGET_EXCEEDED` (a restore that does not fit).
  pub fn plan_revert(&mut self, seq: i64, writer: Writer) -> Result<Plan> {
    let conn = self.store.conn();
    let rows = ledger::change_of(conn, seq).map_err(|e| self.fail(e))?;
    let first = rows.first().ok_or_else(|| no_row(seq))?;
    let batch = first.action == "seed";
    let changes: Vec<&AuditRow> = rows
      .iter()
      .filter(|r| INVERTIBLE.contains(&r.action.as_str()))
      .collect();
    if changes.is_empty() {
      return Err(MemoryError::invalid(format!(
        "audit row {seq} is a {} row, not a landed change: only an add, replace, remove, consolidate, seed, import, approved proposal or revert can be reverted",
        first.action
      )));
    }
    let vis = Self::visible(None, None, &writer);
    let mut steps = Vec::with_capacity(changes.len());
    // Inverted newest first: a change that touched one entry twice is undone in reverse.
    for row in changes.iter().rev() {
      if let Some(step) = self.invert(row, &vis, batch, seq)? {
        steps.push(step);
      }
    }
    // Entries put back side by side go back in their first order, so a list shows them as it
    // did (entries of one millisecond are listed in the order they were stored).
    for run in steps.chunk_by_mut(|a, b| matches!((a, b), (Step::Restore(_), Step::Restore(_)))) {
      run.reverse();
    }
    if steps.is_empty() {
      return Err(MemoryError::invalid(format!(
        "nothing of change #{seq} is left to revert: every entry it added is gone"
      )));
    }
    let (before, after) = self.shown(&steps)?;
    let deltas = layer_deltas(&steps, |id| {
      before.iter().find(|b| b.id.as_deref() == Some(id))
    });
    for (e, delta) in &deltas {
      if *delta > 0 {
        self
          .precheck(e, *delta)
          .map_err(|x| self.with_room(x, e, &writer.agent_key))?;
      }
    }
    let touched = before
      .iter()
      .chain(&after)
      .map(|s| (s.track, s.scope, self.writer_source(&writer, None)));
    let decided = self.config.policies.decide_all(touched);
    let what = changes
      .iter()
      .map(|r| r.action.as_str())
      .collect::<Vec<_>>();
    let (mut payload, policy) = build(
      "revert",
      None,
      None,
      (before, after),
      (Vec::new(), Vec::new()),
      decided,
    );
    let header = format!(
      "{REASON_MARKER} revert of change #{seq} ({})",
      summary(batch, &what)
    );
    if let Some((_, rest)) = payload.reason.split_once('\n') {
      payload.reason = format!("{header}\n{rest}");
    }
    payload.reverts = Some(seq);
    let op = Op::Revert {
      reverts: seq,
      vis,
      steps,
    };
    Ok(Plan::new(writer, (payload, policy), op))
  }

  /// The step that inverts `row`, checked against the store as it is now; `None` for an entry
  /// of a batch that is gone already.
  fn invert(
    &self,
    row: &AuditRow,
    vis: &Visibility,
    batch: bool,
    seq: i64,
  ) -> Result<Option<Step>> {
    let conn = self.store.conn();
    let id = row.entry_id.clone().unwrap_or_default();
    let history = ledger::of_entry(conn, &id).map_err(|e| self.fail(e))?;
    let now = store::get_visible(conn, &id, &Visibility::default()).map_err(|e| self.fail(e))?;
    let (versions, _) = versions_of(&history, now.as_ref());
    // The entry as the row left it, and as it was before the row.
    let left = versions.iter().find(|v| v.seq == row.seq);
    let before = versions.iter().rev().find(|v| v.seq < row.seq);
    let (track, scope) = (parse_track(row)?, parse_scope(row)?);
    let changed = |e: &Entry, left: i64| MemoryError::EntryNotFound {
      track: track.as_str().into(),
      scope: scope.as_str().into(),
      r#match: id.clone(),
      changed: Some(Box::new(Changed {
        id: e.id.clone(),
        approved_version: left,
        version: e.version,
        text: e.text.clone(),
        reverting: Some(seq),
      })),
    };
    if ENDS.contains(&row.action.as_str()) {
      if let Some(e) = &now {
        return Err(changed(e, 0));
      }
      let fields = RowFields::parse(row.fields.as_deref()).ok_or_else(|| {
        MemoryError::invalid(format!(
          "audit row {} does not record the keys and tags of the entry it removed (an older version wrote it): it cannot be restored exactly",
          row.seq
        ))
      })?;
      let version = fields.version.or(before.map(|v| v.version)).unwrap_or(1);
      let created = history.first().map_or(now_ms(), |r| r.ts);
      let restored = Entry {
        id,
        track,
        scope,
        workspace_key: fields.workspace_key,
        agent_key: fields.agent_key,
        text: row.text.clone().unwrap_or_default(),
        source: row.source.clone().unwrap_or_default(),
        tags: fields.tags,
        version,
        created_at: created,
        updated_at: created,
        last_recalled: None,
        recall_count: 0,
        session_id: None,
      };
      if !vis.sees(scope.as_str(), &restored.workspace_key, &restored.agent_key) {
        return Err(target_error(track, scope, &restored.id, &[]));
      }
      return Ok(Some(Step::Restore(restored)));
    }
    let e = match now.filter(|e| vis.sees(e.scope.as_str(), &e.workspace_key, &e.agent_key)) {
      None if batch => return Ok(None),
      // Named by its text as the change left it: its id means nothing to a person.
      None => {
        return Err(target_error(
          track,
          scope,
          row.text.as_deref().unwrap_or(&id),
          &[],
        ))
      }
      Some(e) => e,
    };
    // Exactly as the row left it, or it changed since.
    let unchanged =
      left.is_some_and(|v| (v.version, &v.text, &v.tags) == (e.version, &e.text, &e.tags));
    if !unchanged {
      return Err(changed(&e, left.map_or(0, |v| v.version)));
    }
    let target = Target::of(&e, &e.id);
    if row.action != "replace" {
      return Ok(Some(Step::Remove(target)));
    }
    let before = before.ok_or_else(|| {
      MemoryError::invalid(format!(
        "the ledger no longer holds the version before change #{} (retention pruned it): it cannot be rewritten back",
        row.seq
      ))
    })?;
    Ok(Some(Step::Rewrite(
      target,
      (before.text.clone(), before.tags.clone(), before.version),
    )))
  }

  /// Every entry the steps remove or rewrite as it is now, and every entry they leave.
  fn shown(&self, steps: &[Step]) -> Result<(Vec<Shown>, Vec<Shown>)> {
    let conn = self.store.conn();
    let (mut before, mut after) = (Vec::new(), Vec::new());
    for step in steps {
      let stored = |t: &Target| {
        let found = store::get_visible(conn, &t.shown.id, &Visibility::default());
        found
          .map_err(|e| self.fail(e))?
          .ok_or_else(|| target_error(t.track, t.scope, &t.needle, &[]))
      };
      match step {
        Step::Remove(t) => before.push(Shown::stored(&stored(t)?)),
        Step::Restore(e) => after.push(Shown::stored(e)),
        Step::Rewrite(t, (text, tags, version)) => {
          let e = stored(t)?;
          let mut to = Shown::stored(&e);
          (to.version, to.text, to.tags) = (Some(*version), text.clone(), tags.clone());
          before.push(Shown::stored(&e));
          after.push(to);
        }
      }
    }
    Ok((before, after))
  }
}

fn parse_track(row: &AuditRow) -> Result<Track> {
  let bad = || MemoryError::invalid(format!("audit row {} names no track", row.seq));
  row.track.as_deref().and_then(Track::parse).ok_or_else(bad)
}

fn parse_scope(row: &AuditRow) -> Result<Scope> {
  let bad = || MemoryError::invalid(format!("audit row {} names no scope", row.seq));
  row.scope.as_deref().and_then(Scope::parse).ok_or_else(bad)
}

/// `undo the consolidate`, `undo the seed`, `undo the replace`, …: what the change was.
fn summary(batch: bool, actions: &[&str]) -> String {
  let kind = match (batch, actions) {
    (true, _) => "seed or import",
    (_, [one]) => one,
    (_, many) if many.iter().any(|a| a.starts_with("consolidate")) => "consolidate",
    _ => "revert",
  };
  format!("undo the {kind}")
}

/// Each layer the steps change, by one entry of it, with the units they add (less what they
/// free); `stored(id)` is an entry as it is now.
fn layer_deltas<'a>(
  steps: &'a [Step],
  stored: impl Fn(&str) -> Option<&'a Shown>,
) -> Vec<(Entry, i64)> {
  let mut out: Vec<(Entry, i64)> = Vec::new();
  for step in steps {
    let (e, delta) = match step {
      Step::Restore(e) => (e.clone(), units(&e.text) as i64),
      Step::Remove(t) | Step::Rewrite(t, _) => {
        let Some(now) = stored(&t.shown.id) else {
          continue;
        };
        let to = match step {
          Step::Rewrite(_, (text, ..)) => units(text) as i64,
          _ => 0,
        };
        (shown_entry(now), to - units(&now.text) as i64)
      }
    };
    match out.iter_mut().find(|(o, _)| plan::same_layer(o, &e)) {
      Some((_, d)) => *d += delta,
      None => out.push((e, delta)),
    }
  }
  out
}

/// An entry with the layer and keys of `s` (what a budget check reads of it).
fn shown_entry(s: &Shown) -> Entry {
  Entry {
    id: s.id.clone().unwrap_or_default(),
    track: s.track,
    scope: s.scope,
    workspace_key: s.workspace_key.clone(),
    agent_key: s.agent_key.clone(),
    text: s.text.clone(),
    source: s.source.clone(),
    tags: s.tags.clone(),
    version: s.version.unwrap_or(1),
    created_at: 0,
    updated_at: 0,
    last_recalled: None,
    recall_count: 0,
    session_id: None,
  }
}
