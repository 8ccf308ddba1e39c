//! Reads: ranked search, budgets, listings and the audit ledger.
#![forbid(unsafe_code)]

use super::*;
use crate::protocol::pending;
use crate::protocol::snapshot::{self, Labels};

/// How many pending proposals are scanned for a session's visible ones.
const PROPOSALS_SCANNED: u64 = 1000;

impl Memory {
  /// Search entries (ASCII-case-insensitive substring), ranked by recall count then recency.
  /// Returned entries carry their pre-query counters. Track/scope are not validated (unknown
  /// values match nothing); a non-positive or non-integer limit falls back to the default.
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn query(&mut self, filter: &Value, opts: &QueryOptions) -> Result<QueryResult> {
    let obj = as_object(filter);
    let string = |key| obj.get(key).and_then(Value::as_str);
    let track = string("track").or(opts.only.track.as_deref());
    let scope = string("scope").or(opts.only.scope.as_deref());
    let limit = obj.get("limit").and_then(Value::as_u64).filter(|n| *n > 0);
    let default = self.config.default_query_limit;
    let limit = limit.unwrap_or(default).min(MAX_QUERY_LIMIT) as usize;
    let folded = string("text").filter(|t| !t.is_empty()).map(fold);
    let search = Filter {
      track,
      scope,
      visibility: Some(&opts.visibility),
      folded: folded.as_deref(),
      only: Some(&opts.only),
    };
    let (page, total) =
      reads::ranked_page(self.store.conn(), &search, limit).map_err(|e| self.fail(e))?;
    let (bump, entries): (Vec<i64>, Vec<Entry>) = page.into_iter().unzip();
    let bump = if opts.count_recall { bump } else { Vec::new() };
    // A query is not screened (it writes no memory), but its audit row must not keep a
    // credential someone pasted into a search.
    let raw_text = string("text").map(|t| match screen::secret_kind(t) {
      Some(kind) => format!("[redacted: the query looked like it contained {kind}]"),
      None => t.to_string(),
    });
    if !bump.is_empty() || opts.session_id.is_some() {
      self.store.write(|tx, path| {
        let f = |e| fail_at(path, e);
        store::bump_recalls(tx, &bump, now_ms()).map_err(f)?;
        let Some(session) = &opts.session_id else {
          return Ok(());
        };
        let row = NewAudit {
          action: "recalled",
          track,
          scope,
          text: raw_text.as_deref(),
          outcome: Some("ok"),
          source: Some(&self.config.source_label),
          session_id: Some(session),
          ..NewAudit::default()
        };
        let asked = [row.track, row.scope, row.text];
        let last = chain::last_recall(tx, session).map_err(f)?;
        let last = last.map(|r| [r.track, r.scope, r.text]);
        // A session repeating its last recall is already evidenced.
        if !last.is_some_and(|l| l.iter().map(Option::as_deref).eq(asked)) {
          chain::append(tx, &row).map_err(f)?;
        }
        Ok(())
      })?;
    }
    let truncated = total > entries.len() as u64;
    Ok(QueryResult {
      entries,
      total,
      truncated,
    })
  }

  /// Usage per layer, in protocol order. With a workspace key, the workspace rows are that
  /// workspace's layer (what its writes are checked against); without, the fullest workspace.
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn budgets(&self, workspace_key: Option<&str>) -> Result<Vec<Usage>> {
    let used = store::usage(self.store.conn(), workspace_key).map_err(|e| self.fail(e))?;
    let layers = Track::ALL.iter().flat_map(|&t| Scope::ALL.map(|s| (t, s)));
    let rows = layers.zip(used).map(|((track, scope), used)| Usage {
      track,
      scope,
      used,
      limit: self.config.budgets.limit(track, scope),
    });
    Ok(rows.collect())
  }

  /// The stored entries an add of `input` (`{track, scope, text, workspaceKey?, agentKey?}`)
  /// would be told it is like, best first: the hints alone, for a caller that only asks (the
  /// digest), with nothing planned and nobody asked.
  ///
  /// # Errors
  /// `INVALID_INPUT` (the add's own checks of its input); `STORE_CORRUPT`.
  pub fn similar(&mut self, input: &Value) -> Result<Vec<Similar>> {
    let entry = self.new_entry(model::parse_entry_input(input)?, &Writer::default());
    self.similar_to(&[(None, &entry)], &entry.agent_key, None)
  }

  /// Every entry (or every entry a session can see), oldest first.
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn list_entries(&self, visibility: Option<&Visibility>) -> Result<Vec<Entry>> {
    self.list(visibility, &Only::default())
  }

  /// The entries of exact facets `only` (of a session's visible set, with `visibility`), oldest
  /// first.
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn list(&self, visibility: Option<&Visibility>, only: &Only) -> Result<Vec<Entry>> {
    let filter = Filter {
      track: only.track.as_deref(),
      scope: only.scope.as_deref(),
      visibility,
      only: Some(only),
      ..Filter::default()
    };
    reads::oldest_first(self.store.conn(), &filter).map_err(|e| self.fail(e))
  }

  /// The entry `id`, if there is one.
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn entry(&self, id: &str) -> Result<Option<Entry>> {
    let anyone = Visibility::default();
    store::get_visible(self.store.conn(), id, &anyone).map_err(|e| self.fail(e))
  }

  /// The snapshot of a session's visible set (`labels`: the plugin's words, `proposalsHeader`
  /// included), followed by a notice of how many pending proposals it sees and of which kinds
  /// (none when `max` is 0).
  ///
  /// # Errors
  /// `INVALID_INPUT` for a label that is not a string; `STORE_CORRUPT`.
  pub fn snapshot_with_proposals(
    &mut self,
    vis: &Visibility,
    labels: &Value,
    max: u64,
  ) -> Result<String> {
    let labels = Labels::from_json(labels)?;
    let text = self.snapshot(vis, &labels)?;
    let pending = match max {
      0 => Vec::new(),
      _ => self.proposal_list(Some("pending"), PROPOSALS_SCANNED)?,
    };
    let sees = |p: &&Proposal| vis.sees(&p.scope, &p.workspace_key, &p.agent_key);
    let seen: Vec<&Proposal> = pending.iter().filter(sees).collect();
    Ok(pending::append(text, &seen, max > 0, &labels))
  }

  /// The frozen-snapshot text of a session's visible set (not recorded: see
  /// [`Memory::snapshot_record`]).
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn snapshot(&self, vis: &Visibility, labels: &Labels) -> Result<String> {
    let entries = self.list_entries(Some(vis))?;
    let usage = self.budgets(vis.workspace_key.as_deref())?;
    Ok(snapshot::render(&entries, &usage, labels))
  }

  /// The newest `limit` audit rows.
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn audit_list(&self, limit: u64) -> Result<Vec<AuditRow>> {
    chain::list(self.store.conn(), limit).map_err(|e| self.fail(e))
  }

  /// Walk the audit hash chain; the first row that does not verify is reported.
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn audit_verify(&self) -> Result<Verification> {
    crate::store::ledger::verify(self.store.conn()).map_err(|e| self.fail(e))
  }
}
