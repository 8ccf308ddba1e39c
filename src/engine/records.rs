//! Records that are not memory: proposals (pending, approved through a gated add, dismissed)
//! and frozen session snapshots.
#![forbid(unsafe_code)]

use super::*;

/// Proposal `id` if it is still pending (read on `conn`: the store, or a write transaction).
pub(super) fn pending_proposal(conn: &Connection, id: &str, path: &str) -> Result<Proposal> {
  match store::get_proposal(conn, id).map_err(|e| fail_at(path, e))? {
    Some(p) if p.status == "pending" => Ok(p),
    p => Err(MemoryError::ProposalNotFound {
      id: id.into(),
      detail: p.map(|p| format!("already {}", p.status)),
    }),
  }
}

/// The audit row of a decision on proposal `p` (by its proposing session).
fn proposal_row<'a>(p: &'a Proposal, action: &'a str, outcome: &'a str) -> NewAudit<'a> {
  NewAudit {
    action,
    track: Some(&p.track),
    scope: Some(&p.scope),
    entry_id: Some(&p.id),
    text: Some(&p.text),
    outcome: Some(outcome),
    source: Some(&p.source),
    session_id: p.session_id.as_deref(),
    fields: Some(model::approved_fields(&p.workspace_key, &p.agent_key, &[])),
  }
}

impl Memory {
  /// Record a pending proposal and its `proposal` audit row; `None` when the session already has
  /// a pending proposal of this kind, or `proposal_max_pending` are pending. A text longer than
  /// `proposal_max_chars` is cut to it, ending in `…` (never inside a surrogate pair).
  ///
  /// # Errors
  /// `INVALID_INPUT` (`proposal text must be a non-empty string`, a control character, a bad
  /// layer), `STORE_CORRUPT`.
  pub fn proposal_add(&mut self, p: ProposalInput) -> Result<Option<Proposal>> {
    let obj = as_object(&p.input);
    model::non_empty(Some(&p.kind), "proposal kind")?;
    let (track, scope) = model::parse_layer(&obj)?;
    let text = model::required(&obj, "text", "proposal text")?;
    crate::text::refuse_unseen("proposal text", &text, true)?;
    let max = self.config.proposal_max_chars;
    let text = match units(&text) as usize > max {
      true => excerpt(&text, max.saturating_sub(1)),
      false => text,
    };
    let (ws, agent) = model::parse_keys(&obj)?;
    let source = model::parse_source(&obj)?.unwrap_or_else(|| self.config.source_label.clone());
    self.screen([text.as_str(), source.as_str()])?;
    let proposal = Proposal {
      id: Uuid::new_v4().to_string(),
      kind: p.kind,
      track: track.as_str().into(),
      scope: scope.as_str().into(),
      workspace_key: ws.filter(|_| scope == Scope::Workspace).unwrap_or_default(),
      agent_key: agent.unwrap_or_default(),
      text,
      source,
      session_id: p.session_id.filter(|s| !s.is_empty()),
      status: "pending".into(),
      created_at: now_ms(),
      decided_at: None,
    };
    self.store.write(|tx, path| {
      let f = |e| fail_at(path, e);
      if store::pending_proposals(tx).map_err(f)? >= self.config.proposal_max_pending
        || !store::insert_proposal(tx, &proposal).map_err(f)?
      {
        return Ok(None);
      }
      let row = proposal_row(&proposal, "proposal", "pending");
      chain::append(tx, &row).map_err(f)?;
      Ok(Some(proposal.clone()))
    })
  }

  /// The frozen snapshot of a session: the first text recorded for `session_id` wins, is
  /// audited once (a `snapshot` row referencing the text, stored once per distinct text, with
  /// the keys of the visible set it shows, `vis`) and is returned on every later call — across
  /// reloads and processes.
  ///
  /// # Errors
  /// `INVALID_INPUT` without a session id, `STORE_CORRUPT`.
  pub fn snapshot_record(
    &mut self,
    session_id: &str,
    text: &str,
    vis: &Visibility,
  ) -> Result<String> {
    model::non_empty(Some(session_id), "snapshot session id")?;
    self.store.write(|tx, path| {
      let f = |e: rusqlite::Error| fail_at(path, e);
      if let Some(frozen) = store::snapshot_of(tx, session_id).map_err(f)? {
        return Ok(frozen);
      }
      let hash = chain::hex_digest(text.as_bytes());
      let keys = [vis.workspace_key.as_deref(), vis.agent_key.as_deref()];
      store::insert_snapshot(tx, (session_id, &hash, text), keys, now_ms()).map_err(f)?;
      let [ws, agent] = keys.map(Option::unwrap_or_default);
      let reference = format!("{}{hash}", chain::SNAPSHOT_REF);
      let row = NewAudit {
        action: "snapshot",
        text: Some(&reference),
        outcome: Some("ok"),
        source: Some(&self.config.source_label),
        session_id: Some(session_id),
        fields: (keys != [None, None]).then(|| model::approved_fields(ws, agent, &[])),
        ..NewAudit::default()
      };
      chain::append(tx, &row).map_err(f)?;
      Ok(text.to_string())
    })
  }

  /// Proposals (optionally of one status), oldest first.
  ///
  /// # Errors
  /// `INVALID_INPUT` for an unknown status, `STORE_CORRUPT`.
  pub fn proposal_list(&self, status: Option<&str>, limit: u64) -> Result<Vec<Proposal>> {
    if let Some(s) = status.filter(|s| !["pending", "approved", "dismissed"].contains(s)) {
      return Err(MemoryError::invalid(format!(
        "proposal status must be pending, approved or dismissed, got {}",
        json_str(s)
      )));
    }
    store::list_proposals(self.store.conn(), status, limit).map_err(|e| self.fail(e))
  }

  /// Dismiss a pending proposal (no memory changes; audited as `proposal-dismissed`).
  ///
  /// # Errors
  /// `PROPOSAL_NOT_FOUND`, `STORE_CORRUPT`.
  pub fn proposal_dismiss(&mut self, id: &str, writer: &Writer) -> Result<Proposal> {
    let pending = pending_proposal(self.store.conn(), id, self.store.path())?;
    self.store.write(|tx, path| {
      let f = |e: rusqlite::Error| fail_at(path, e);
      let gone = |detail: Option<&str>| MemoryError::ProposalNotFound {
        id: id.into(),
        detail: detail.map(Into::into),
      };
      if !store::decide_proposal(tx, id, "dismissed", now_ms()).map_err(f)? {
        return Err(gone(Some("decided meanwhile")));
      }
      let mut row = proposal_row(&pending, "proposal-dismissed", "dismissed");
      row.session_id = Some(&writer.session_id);
      chain::append(tx, &row).map_err(f)?;
      let dismissed = store::get_proposal(tx, id).map_err(f)?;
      dismissed.ok_or_else(|| gone(None))
    })
  }
}
