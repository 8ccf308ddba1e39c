//! Finishing a planned write: the gate's answer decides between the denial row and one
//! `BEGIN IMMEDIATE` transaction that re-finds, re-checks, mutates and audits.
#![forbid(unsafe_code)]

use super::plan::per_layer;
use super::revert::Step;

use super::*;

impl Memory {
  /// End a planned write with the gate's answer. Only `Outcome("allowed-once")` commits; any
  /// other answer appends an `{action}-denied` row and fails with `WRITE_DENIED`. `label`
  /// overrides the audit outcome label; `aborted` reports a caller abort after approval.
  ///
  /// # Errors
  /// `WRITE_DENIED`, or the re-check's `ENTRY_NOT_FOUND` / `BUDGET_EXCEEDED` /
  /// `PROPOSAL_NOT_FOUND`, or `STORE_CORRUPT`. Nothing is written on any error.
  pub fn finish(
    &mut self,
    plan: Plan,
    answer: GateAnswer,
    via: Via,
    aborted: bool,
  ) -> Result<Finished> {
    let (writer, payload, op) = (plan.writer, plan.payload, plan.op);
    let unavailable = |why: String| ("unavailable".to_string(), Some(why));
    let (outcome, detail) = match answer {
      GateAnswer::Outcome(o) if o == "allowed-once" => {
        let label = via.label("allowed-once", &payload.policy);
        if aborted {
          let note = format!("{label}; aborted by the caller before commit, nothing was written");
          self.record(&writer, &payload, "aborted", &note)?;
          return Ok(Finished::Aborted);
        }
        let written = self.commit(&writer, &payload, op, &label);
        if let Err(e) = &written {
          // Approved but not committed (the target changed, the budget filled, the store
          // failed): the approval must not vanish from the ledger. Best effort — a store
          // that just failed may fail again.
          let note = format!("{label}; approved but not committed: {}: {e}", e.code());
          let _ = self.record(&writer, &payload, "failed", &note);
        }
        let written = written?;
        self.committed(&written);
        return Ok(Finished::Written(Box::new(written)));
      }
      GateAnswer::Outcome(o) => (o, None),
      GateAnswer::NotAString(what) => unavailable(format!("approval gate returned {what}")),
      GateAnswer::Failed(msg) => unavailable(format!("approval ask failed: {msg}")),
    };
    let label = via.label(&outcome, &payload.policy);
    self.record(&writer, &payload, "denied", &label)?;
    Err(MemoryError::WriteDenied { outcome, detail })
  }

  /// Append the `{action}-{suffix}` row that is the only evidence of a write that did not land.
  fn record(&mut self, writer: &Writer, p: &Payload, suffix: &str, label: &str) -> Result<()> {
    let action = format!("{}-{suffix}", p.action);
    let row = NewAudit {
      action: &action,
      track: Some(&p.track),
      scope: Some(&p.scope),
      text: Some(&p.text),
      outcome: Some(label),
      source: Some(p.source.as_deref().unwrap_or(&self.config.source_label)),
      session_id: Some(&writer.session_id),
      ..NewAudit::default()
    };
    let append =
      |tx: &Connection, path: &str| chain::append(tx, &row).map_err(|e| fail_at(path, e));
    self.store.write(|tx, path| append(tx, path).map(drop))
  }

  /// Commit an approved write in one `BEGIN IMMEDIATE` transaction.
  fn commit(&mut self, writer: &Writer, payload: &Payload, op: Op, label: &str) -> Result<Written> {
    self.store.write(|tx, path| {
      let c = Commit {
        tx,
        path,
        label,
        session: &writer.session_id,
        budgets: self.config.budgets,
        now: now_ms(),
        reverts: payload.reverts,
      };
      match op {
        Op::Add(new, approves) => c.add(new, approves.as_deref()),
        Op::Replace(target, to) => c.replace(&target, to),
        Op::Remove(target) => c.remove(&target),
        Op::Consolidate(targets, new) => c.consolidate(&targets, new),
        Op::Seed(news) => c.seed(news, &payload.text, &self.config.source_label),
        Op::Revert(reverts, steps) => c.revert(reverts, steps),
      }
    })
  }
}

/// One approved write inside its transaction.
struct Commit<'c> {
  tx: &'c Connection,
  path: &'c str,
  label: &'c str,
  session: &'c str,
  budgets: Budgets,
  now: i64,
  /// The `seq` of the change a revert undoes: every row it appends names it.
  reverts: Option<i64>,
}

impl Commit<'_> {
  fn fail(&self, e: rusqlite::Error) -> MemoryError {
    fail_at(self.path, e)
  }

  fn audit_row<'a>(&'a self, action: &'a str, e: &'a Entry) -> NewAudit<'a> {
    NewAudit {
      action,
      track: Some(e.track.as_str()),
      scope: Some(e.scope.as_str()),
      entry_id: Some(&e.id),
      text: Some(&e.text),
      outcome: Some(self.label),
      source: Some(&e.source),
      session_id: Some(self.session),
      fields: Some(model::row_fields(e, self.reverts)),
    }
  }

  fn audit(&self, action: &str, e: &Entry) -> Result<()> {
    let appended = chain::append(self.tx, &self.audit_row(action, e));
    appended.map(drop).map_err(|e| self.fail(e))
  }

  /// `e`'s layer's usage once `delta` more units are written, checked against its limit; with
  /// no delta, as it is.
  fn recheck(&self, e: &Entry, delta: Option<i64>) -> Result<Usage> {
    usage_after(self.tx, &self.budgets, (e, delta), self.path)
  }

  /// The approved id at the approved version: exactly the text the approver saw. A target
  /// rewritten meanwhile is reported with its current text, so the write can be re-planned.
  fn refind(&self, t: &Target) -> Result<Entry> {
    match store::get_visible(self.tx, &t.shown.id, &t.vis).map_err(|e| self.fail(e))? {
      Some(e) if t.holds(&e) => Ok(e),
      now => {
        let changed = now.map(|e| (e, t.shown.version, self.reverts));
        Err(not_found(t.shown.track, t.shown.scope, &t.needle, changed))
      }
    }
  }

  /// A new entry's id and timestamps.
  fn stamp(&self, mut e: Entry) -> Entry {
    (e.id, e.created_at, e.updated_at) = (Uuid::new_v4().to_string(), self.now, self.now);
    e
  }

  /// `e` rewritten (or put back) now by this session.
  fn touch(&self, e: &mut Entry) {
    (e.updated_at, e.session_id) = (self.now.max(e.created_at), Some(self.session.to_string()));
  }

  /// Delete `e`, audited as `action`.
  fn delete(&self, e: &Entry, action: &str) -> Result<()> {
    store::delete_entry(self.tx, &e.id).map_err(|x| self.fail(x))?;
    self.audit(action, e)
  }

  /// Store `e` rewritten by this session to a text, tags and version, audited as a `replace`.
  fn rewrite(&self, mut e: Entry, to: (String, Vec<String>, i64)) -> Result<Entry> {
    (e.text, e.tags, e.version) = to;
    self.touch(&mut e);
    store::update_entry(self.tx, &e).map_err(|x| self.fail(x))?;
    self.audit("replace", &e)?;
    Ok(e)
  }

  /// Insert a new entry, audited as `action`, and its layer's usage after.
  fn insert(&self, new: Entry, action: &str) -> Result<(Entry, Usage)> {
    let usage = self.recheck(&new, Some(units(&new.text) as i64))?;
    let entry = self.stamp(new);
    store::insert_entries(self.tx, std::slice::from_ref(&entry)).map_err(|e| self.fail(e))?;
    self.audit(action, &entry)?;
    Ok((entry, usage))
  }

  /// Add `new`; with the id of the pending proposal it `approves`, approve that too.
  fn add(&self, new: Entry, approves: Option<&str>) -> Result<Written> {
    let Some(proposal_id) = approves else {
      let (entry, usage) = self.insert(new, "add")?;
      return Ok(Written::Add { entry, usage });
    };
    super::records::pending_proposal(self.tx, proposal_id, self.path)?;
    let (entry, usage) = self.insert(new, "add")?;
    let f = |e| self.fail(e);
    store::decide_proposal(self.tx, proposal_id, "approved", self.now).map_err(f)?;
    let proposal = store::get_proposal(self.tx, proposal_id).map_err(f)?;
    Ok(Written::Approve {
      proposal,
      entry,
      usage,
    })
  }

  fn replace(&self, t: &Target, (text, tags): Change) -> Result<Written> {
    let previous = self.refind(t)?;
    let delta = units(&text) as i64 - units(&previous.text) as i64;
    let usage = self.recheck(&previous, Some(delta))?;
    let tags = tags.unwrap_or_else(|| previous.tags.clone());
    let entry = self.rewrite(previous.clone(), (text, tags, previous.version + 1))?;
    Ok(Written::Replace {
      previous,
      entry,
      usage,
    })
  }

  fn remove(&self, target: &Target) -> Result<Written> {
    let entry = self.refind(target)?;
    self.delete(&entry, "remove")?;
    let usage = self.recheck(&entry, None)?;
    Ok(Written::Remove { entry, usage })
  }

  fn consolidate(&self, targets: &[Target], new: Entry) -> Result<Written> {
    let removed = targets.iter().map(|t| {
      let old = self.refind(t)?;
      self.delete(&old, "consolidate-remove").map(|()| old)
    });
    let removed = removed.collect::<Result<Vec<_>>>()?;
    let (entry, usage) = self.insert(new, "consolidate-add")?;
    Ok(Written::Consolidate {
      removed,
      entry,
      usage,
    })
  }

  fn seed(&self, news: Vec<Entry>, summary: &str, source: &str) -> Result<Written> {
    let entries: Vec<Entry> = news.into_iter().map(|e| self.stamp(e)).collect();
    // Per layer, in first-appearance order: used + Σ new units ≤ limit.
    for (first, delta) in per_layer(entries.iter().map(|e| (e, units(&e.text) as i64))) {
      self.recheck(first, Some(delta))?;
    }
    let mut rows = vec![NewAudit {
      action: "seed",
      text: Some(summary),
      outcome: Some(self.label),
      source: Some(source),
      session_id: Some(self.session),
      // How many rows of the batch follow: a revert of the batch takes exactly these.
      fields: Some(json!({ "entries": entries.len() }).to_string()),
      ..NewAudit::default()
    }];
    store::insert_entries(self.tx, &entries).map_err(|e| self.fail(e))?;
    rows.extend(entries.iter().map(|e| self.audit_row("add", e)));
    chain::append_all(self.tx, &rows).map_err(|e| self.fail(e))?;
    Ok(Written::Seed {
      added: entries.len(),
      entries,
    })
  }

  /// Apply a revert's steps in order, each re-checked at the version the approver saw; the
  /// layers it fills are re-checked against their limits first.
  fn revert(&self, reverts: i64, steps: Vec<Step>) -> Result<Written> {
    // Each step's entry as it is now; a restored one must still be gone.
    let found = steps.iter().map(|step| match step {
      Step::Remove(t) | Step::Rewrite(t, _) => self.refind(t).map(Some),
      Step::Restore(e) => {
        let anyone = Visibility::default();
        let now = store::get_visible(self.tx, &e.id, &anyone).map_err(|x| self.fail(x))?;
        if let Some(now) = now {
          let changed = Some((now, 0, Some(reverts)));
          return Err(not_found(e.track, e.scope, &e.id, changed));
        }
        Ok(None)
      }
    });
    let found: Vec<Option<Entry>> = found.collect::<Result<_>>()?;
    for (e, delta) in revert::filled(&steps, &found) {
      self.recheck(e, Some(delta))?;
    }
    let mut changes = Vec::with_capacity(steps.len());
    for (step, now) in steps.into_iter().zip(found) {
      let (action, entry) = match (step, now) {
        (Step::Remove(_), Some(e)) => self.delete(&e, "remove").map(|()| ("remove", e))?,
        (Step::Rewrite(_, to), Some(e)) => ("replace", self.rewrite(e, to)?),
        (Step::Restore(mut e), _) => {
          self.touch(&mut e);
          store::insert_entries(self.tx, std::slice::from_ref(&e)).map_err(|x| self.fail(x))?;
          self.audit("add", &e)?;
          ("restore", e)
        }
        _ => continue,
      };
      changes.push(Reverted { action, entry });
    }
    Ok(Written::Revert {
      reverted: reverts,
      changes,
    })
  }
}
