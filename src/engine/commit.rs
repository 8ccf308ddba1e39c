//! Finishing a planned write: the gate's answer decides between the denial row and one
//! `BEGIN IMMEDIATE` transaction that re-finds, re-checks, mutates and audits.
#![forbid(unsafe_code)]

use super::plan::check_batch;
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
    plan: &Plan,
    answer: GateAnswer,
    label: Option<String>,
    aborted: bool,
  ) -> Result<Finished> {
    let (outcome, detail) = match answer {
      GateAnswer::Outcome(o) if o == "allowed-once" => {
        let label = label.unwrap_or_else(|| self.default_label("allowed-once"));
        if aborted {
          self.record(
            plan,
            "aborted",
            &format!("{label}; aborted by the caller before commit, nothing was written"),
          )?;
          return Ok(Finished::Aborted);
        }
        return match self.commit(plan, &label) {
          Ok(written) => Ok(Finished::Written(written)),
          Err(e) => {
            // Approved but not committed (the target changed, the budget filled, the store
            // failed): the approval must not vanish from the ledger. Best effort — a store
            // that just failed may fail again.
            let note = format!("{label}; approved but not committed: {}: {e}", e.code());
            let _ = self.record(plan, "failed", &note);
            Err(e)
          }
        };
      }
      GateAnswer::Outcome(o) => (o, None),
      GateAnswer::NotAString(what) => (
        "unavailable".to_string(),
        Some(format!("approval gate returned {what}")),
      ),
      GateAnswer::Failed(msg) => (
        "unavailable".to_string(),
        Some(format!("approval ask failed: {msg}")),
      ),
    };
    let label = label.unwrap_or_else(|| self.default_label(&outcome));
    self.record(plan, "denied", &label)?;
    Err(MemoryError::WriteDenied { outcome, detail })
  }

  /// Append the `{action}-{suffix}` row that is the only evidence of a write that did not land.
  pub(super) fn record(&mut self, plan: &Plan, suffix: &str, label: &str) -> Result<()> {
    let p = &plan.payload;
    let action = format!("{}-{suffix}", p.action);
    let source = p
      .source
      .clone()
      .unwrap_or_else(|| self.config.source_label.clone());
    self.store.write(|tx, path| {
      audit::append(
        tx,
        &NewAudit {
          action: &action,
          track: Some(&p.track),
          scope: Some(&p.scope),
          entry_id: None,
          text: Some(&p.text),
          outcome: Some(label),
          source: Some(&source),
          session_id: Some(&plan.writer.session_id),
        },
      )
      .map_err(|e| fail_at(path, e))?;
      Ok(())
    })
  }

  pub(super) fn commit(&mut self, plan: &Plan, label: &str) -> Result<Value> {
    let (result, touched) = self.commit_tx(plan, label)?;
    // The model takes the commit from what was written; if that fails it reloads on next read.
    let Self { store, cache, .. } = self;
    if cache
      .apply(store.conn(), &touched.written, &touched.removed)
      .is_err()
    {
      cache.invalidate();
    }
    Ok(result)
  }

  fn commit_tx(&mut self, plan: &Plan, label: &str) -> Result<(Value, Touched)> {
    let budgets = self.config.budgets;
    let source_label = self.config.source_label.clone();
    let session = plan.writer.session_id.as_str();
    let op = plan.op.clone();
    let payload_text = plan.payload.text.clone();
    self.store.write(|tx, path| {
      let f = |e: rusqlite::Error| fail_at(path, e);
      let now = now_ms();
      let audit = |action: &str, e: &Entry| {
        audit::append(
          tx,
          &NewAudit {
            action,
            track: Some(e.track.as_str()),
            scope: Some(e.scope.as_str()),
            entry_id: Some(&e.id),
            text: Some(&e.text),
            outcome: Some(label),
            source: Some(&e.source),
            session_id: Some(session),
          },
        )
        .map_err(f)
      };
      let usage = |e: &Entry| -> Result<Usage> {
        let used = store::layer_used(tx, e.track, e.scope, layer_key(e.scope, &e.workspace_key))
          .map_err(f)?;
        Ok(Usage {
          track: e.track,
          scope: e.scope,
          used,
          limit: budgets.limit(e.track, e.scope),
        })
      };
      // Check that `delta` more units fit `e`'s layer; its usage once they are written.
      let recheck = |e: &Entry, delta: i64| -> Result<Usage> {
        let used = store::layer_used(tx, e.track, e.scope, layer_key(e.scope, &e.workspace_key))
          .map_err(f)?;
        let limit = budgets.limit(e.track, e.scope);
        check_budget(e.track, e.scope, used, limit, delta)?;
        Ok(Usage {
          track: e.track,
          scope: e.scope,
          used: used.saturating_add_signed(delta),
          limit,
        })
      };
      // The approved id at the approved version: exactly the text the approver saw. A target
      // rewritten meanwhile is reported with its current text, so the write can be re-planned.
      let refind = |vis: &Visibility, t: &Target| -> Result<Entry> {
        match store::get_visible(tx, &t.id, vis).map_err(f)? {
          Some(e) if e.version == t.version => Ok(e),
          Some(e) => Err(MemoryError::EntryNotFound {
            track: t.track.as_str().into(),
            scope: t.scope.as_str().into(),
            r#match: t.needle.clone(),
            changed: Some(Box::new(Changed {
              id: e.id,
              approved_version: t.version,
              version: e.version,
              text: e.text,
            })),
          }),
          None => Err(target_error(t.track, t.scope, &t.needle, &[])),
        }
      };
      let stamp = |mut e: Entry| {
        e.id = Uuid::new_v4().to_string();
        e.created_at = now;
        e.updated_at = now;
        e
      };
      match op {
        Op::Add(new) => {
          let usage = recheck(&new, units(&new.text) as i64)?;
          let entry = stamp(new);
          store::insert_entry(tx, &entry).map_err(f)?;
          let rowid = tx.last_insert_rowid();
          audit("add", &entry)?;
          let result = json!({ "entry": entry, "usage": usage });
          Ok((result, Touched::written(vec![(Some(rowid), entry)])))
        }
        Op::Approve { proposal_id, new } => {
          super::records::pending_proposal(tx, &proposal_id, path)?;
          let usage = recheck(&new, units(&new.text) as i64)?;
          let entry = stamp(new);
          store::insert_entry(tx, &entry).map_err(f)?;
          let rowid = tx.last_insert_rowid();
          store::decide_proposal(tx, &proposal_id, "approved", now).map_err(f)?;
          audit("add", &entry)?;
          let proposal = store::get_proposal(tx, &proposal_id).map_err(f)?;
          let result = json!({ "proposal": proposal, "entry": entry, "usage": usage });
          Ok((result, Touched::written(vec![(Some(rowid), entry)])))
        }
        Op::Replace {
          vis,
          target,
          text,
          tags,
        } => {
          let current = refind(&vis, &target)?;
          let usage = recheck(&current, units(&text) as i64 - units(&current.text) as i64)?;
          let mut entry = current.clone();
          entry.text = text;
          if let Some(tags) = tags {
            entry.tags = tags;
          }
          entry.version += 1;
          entry.updated_at = now.max(entry.created_at);
          entry.session_id = Some(session.to_string());
          store::update_entry(tx, &entry).map_err(f)?;
          audit("replace", &entry)?;
          let result = json!({ "previous": current, "entry": entry, "usage": usage });
          Ok((result, Touched::written(vec![(None, entry)])))
        }
        Op::Remove { vis, target } => {
          let entry = refind(&vis, &target)?;
          store::delete_entry(tx, &entry.id).map_err(f)?;
          audit("remove", &entry)?;
          let result = json!({ "entry": entry, "usage": usage(&entry)? });
          Ok((
            result,
            Touched {
              written: Vec::new(),
              removed: vec![entry.id],
            },
          ))
        }
        Op::Consolidate { vis, targets, new } => {
          let mut removed = Vec::with_capacity(targets.len());
          for t in &targets {
            let entry = refind(&vis, t)?;
            store::delete_entry(tx, &entry.id).map_err(f)?;
            removed.push(entry);
          }
          let usage = recheck(&new, units(&new.text) as i64)?;
          let entry = stamp(new);
          store::insert_entry(tx, &entry).map_err(f)?;
          let rowid = tx.last_insert_rowid();
          for old in &removed {
            audit("consolidate-remove", old)?;
          }
          audit("consolidate-add", &entry)?;
          let result = json!({ "removed": removed, "entry": entry, "usage": usage });
          Ok((
            result,
            Touched {
              written: vec![(Some(rowid), entry)],
              removed: removed.into_iter().map(|e| e.id).collect(),
            },
          ))
        }
        Op::Seed(news) => {
          let entries: Vec<Entry> = news.into_iter().map(stamp).collect();
          check_batch(tx, &budgets, &entries, path)?;
          audit::append(
            tx,
            &NewAudit {
              action: "seed",
              text: Some(&payload_text),
              outcome: Some(label),
              source: Some(&source_label),
              session_id: Some(session),
              ..NewAudit::default()
            },
          )
          .map_err(f)?;
          let mut written = Vec::with_capacity(entries.len());
          for e in &entries {
            store::insert_entry(tx, e).map_err(f)?;
            written.push(tx.last_insert_rowid());
            audit("add", e)?;
          }
          let result = json!({ "added": entries.len(), "entries": entries });
          let written = written.into_iter().map(Some).zip(entries).collect();
          Ok((result, Touched::written(written)))
        }
      }
    })
  }
}

/// What a commit changed, for the read model: entries written (with their rowid when inserted)
/// and ids removed.
struct Touched {
  written: Vec<(Option<i64>, Entry)>,
  removed: Vec<String>,
}

impl Touched {
  fn written(written: Vec<(Option<i64>, Entry)>) -> Self {
    Self {
      written,
      removed: Vec::new(),
    }
  }
}
