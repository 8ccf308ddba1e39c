//! Undo: the inverse of a landed change, planned against the store as it is now and asked for
//! like any write. Each row of the change is inverted — an addition removed, a removal
//! restored, a rewrite rewritten back — to exactly what it was (id, version, text, tags, keys,
//! source), so a revert of the revert is a redo; and nothing that changed since is ever
//! overwritten: such a revert is refused before anyone is asked.
#![forbid(unsafe_code)]

use super::history::{names_entry, no_row, versions_of};
use super::*;

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

impl Memory {
  /// Plan the revert of the change audit row `seq` belongs to: every row of a consolidate, a
  /// seed's or import's batch (by its `seed` row), one entry's own row, a revert's rows (a redo).
  ///
  /// # Errors
  /// `INVALID_INPUT` (no such row, a row of no landed change, a row that no longer holds what
  /// it would restore); `ENTRY_NOT_FOUND` (an entry gone, or changed since: details name its
  /// current version and text); `BUDGET_EXCEEDED` (a restore that does not fit).
  pub fn plan_revert(&mut self, seq: i64, writer: Writer) -> Result<Plan> {
    let rows = ledger::change_of(self.store.conn(), seq).map_err(|e| self.fail(e))?;
    let first = rows.first().ok_or_else(|| no_row(seq))?;
    let batch = first.action == "seed";
    // Every row that sets or ends an entry, but the adopt rows a migration wrote (no change).
    let invertible = |r: &&AuditRow| r.action != "adopt" && names_entry(&r.action);
    let changes: Vec<&AuditRow> = rows.iter().filter(invertible).collect();
    if changes.is_empty() {
      return Err(MemoryError::invalid(format!(
        "audit row {seq} is a {} row, not a landed change: only an add, replace, remove, consolidate, seed, import, approved proposal or revert can be reverted",
        first.action
      )));
    }
    let vis = Self::visible(None, None, &writer);
    // Inverted newest first: a change that touched one entry twice is undone in reverse.
    let invert = |r: &&AuditRow| self.invert(r, &vis, batch, seq);
    let steps = changes.iter().rev().map(invert);
    let mut steps: Vec<Step> = steps.filter_map(Result::transpose).collect::<Result<_>>()?;
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
    // Each step's entry as it is now (none for a restore): as its target was just found.
    let now = steps.iter().map(|step| match step {
      Step::Remove(t) | Step::Rewrite(t, _) => Some(t.shown.clone()),
      Step::Restore(_) => None,
    });
    let now: Vec<Option<Entry>> = now.collect();
    for (e, delta) in filled(&steps, &now) {
      self.precheck(e, delta, &writer.agent_key)?;
    }
    let change = shown(&steps, &now);
    let by = self.writer_source(&writer, None);
    let (mut payload, policy) = self.build("revert", None, None, change, Default::default(), by);
    // The reason's first line names what the change was: `undo the consolidate`, `undo the
    // seed or import`, `undo the replace`, ….
    let kind = match (batch, changes.as_slice()) {
      (true, _) => "seed or import",
      (_, [one]) => one.action.as_str(),
      (_, many) if many.iter().any(|r| r.action.starts_with("consolidate")) => "consolidate",
      _ => "revert",
    };
    let header = format!("{REASON_MARKER} revert of change #{seq} (undo the {kind})");
    if let Some((_, rest)) = payload.reason.split_once('\n') {
      payload.reason = format!("{header}\n{rest}");
    }
    payload.reverts = Some(seq);
    Ok(Plan::new(writer, (payload, policy), Op::Revert(seq, steps)))
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
    let id = row.entry_id.clone().unwrap_or_default();
    let history = ledger::of_entry(self.store.conn(), &id).map_err(|e| self.fail(e))?;
    let now = self.entry(&id)?;
    let (versions, _) = versions_of(&history, now.as_ref());
    // The entry as the row left it, and as it was before the row.
    let left = versions.iter().find(|v| v.seq == row.seq);
    let before = versions.iter().rev().find(|v| v.seq < row.seq);
    let bad = |what| MemoryError::invalid(format!("audit row {} names no {what}", row.seq));
    let track = row.track.as_deref().and_then(Track::parse);
    let track = track.ok_or_else(|| bad("track"))?;
    let scope = row.scope.as_deref().and_then(Scope::parse);
    let scope = scope.ok_or_else(|| bad("scope"))?;
    let changed = |e: Entry, left: i64| not_found(track, scope, &id, Some((e, left, Some(seq))));
    if ENDS.contains(&row.action.as_str()) {
      if let Some(e) = now {
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
        ..Entry::default()
      };
      if !vis.sees(scope.as_str(), &restored.workspace_key, &restored.agent_key) {
        return Err(not_found(track, scope, &restored.id, None));
      }
      return Ok(Some(Step::Restore(restored)));
    }
    // Named by its text as the change left it: its id means nothing to a person.
    let named = row.text.as_deref().unwrap_or(&id);
    let e = match now.filter(|e| vis.sees(e.scope.as_str(), &e.workspace_key, &e.agent_key)) {
      None if batch => return Ok(None),
      None => return Err(not_found(track, scope, named, None)),
      Some(e) => e,
    };
    // Exactly as the row left it, or it changed since.
    let unchanged =
      left.is_some_and(|v| (v.version, &v.text, &v.tags) == (e.version, &e.text, &e.tags));
    if !unchanged {
      return Err(changed(e, left.map_or(0, |v| v.version)));
    }
    let target = Target::of(e.clone(), &e.id, vis);
    if row.action != "replace" {
      return Ok(Some(Step::Remove(target)));
    }
    let before = before.ok_or_else(|| {
      MemoryError::invalid(format!(
        "the ledger no longer holds the version before change #{} (retention pruned it): it cannot be rewritten back",
        row.seq
      ))
    })?;
    let to = (before.text.clone(), before.tags.clone(), before.version);
    Ok(Some(Step::Rewrite(target, to)))
  }
}

/// Every entry the steps remove or rewrite as it is `now`, and every entry they leave.
fn shown(steps: &[Step], now: &[Option<Entry>]) -> (Vec<Shown>, Vec<Shown>) {
  let before = now.iter().flatten().map(Shown::stored).collect();
  let after = steps.iter().zip(now).filter_map(|step| match step {
    (Step::Restore(e), _) => Some(Shown::stored(e)),
    (Step::Rewrite(_, (text, tags, version)), Some(e)) => {
      let mut to = Shown::stored(e);
      (to.version, to.text, to.tags) = (Some(*version), text.clone(), tags.clone());
      Some(to)
    }
    _ => None,
  });
  (before, after.collect())
}

/// The layers the steps fill, each by one entry of it, with the units they add there less what
/// they free; `now`: each step's entry as it is (none for a restore).
pub(super) fn filled<'a>(steps: &'a [Step], now: &'a [Option<Entry>]) -> Vec<(&'a Entry, i64)> {
  let changes = steps.iter().zip(now).filter_map(|step| match step {
    (Step::Restore(e), _) => Some((e, units(&e.text) as i64)),
    (Step::Remove(_), Some(e)) => Some((e, -(units(&e.text) as i64))),
    (Step::Rewrite(_, (text, ..)), Some(e)) => {
      Some((e, units(text) as i64 - units(&e.text) as i64))
    }
    _ => None,
  });
  let mut layers = plan::per_layer(changes);
  layers.retain(|(_, d)| *d > 0);
  layers
}
