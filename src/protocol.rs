//! The write pipeline and reads of `dsh-memory-protocol/v1`.
//!
//! A write is two calls with the approval in between, and nothing else can touch the store:
//! [`Memory::plan_add`] (and siblings) validate, resolve the target in the writer's visible set,
//! pre-check the budget and build the approve-what-you-see payload; the caller asks its gate;
//! [`Memory::finish`] then either records the denial, or — in ONE `BEGIN IMMEDIATE`
//! transaction — re-finds the approved target by id within the visible set, re-checks the
//! budget, mutates and appends the audit rows.
#![forbid(unsafe_code)]

use serde_json::{json, Value};
use uuid::Uuid;

use crate::audit::{self, NewAudit, Verification};
use crate::cache::{EntryCache, Search};
use crate::error::{json_str, MemoryError, Result};
use crate::model::{
  self, as_object, AuditRow, Budgets, Entry, EntryInput, Proposal, Scope, Track, Usage, Writer,
  MAX_QUERY_LIMIT,
};
use crate::screen;
use crate::store::{self, fail_at, now_ms, Store, Visibility};
use crate::text::{excerpt, fold, units};

/// The global write policy. `off` refuses every write without asking; `ask` and `auto` both ask
/// the gate (the policy is the gate's business) and are named in the audit label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WritePolicy {
  /// Ask the gate.
  Ask,
  /// Ask the gate (its answerer approves on its own).
  Auto,
  /// Refuse without asking.
  Off,
}

impl WritePolicy {
  /// Parse `ask|auto|off`.
  ///
  /// # Errors
  /// `INVALID_INPUT` (`invalid writePolicy …`).
  pub fn parse(value: &str) -> Result<Self> {
    match value {
      "ask" => Ok(Self::Ask),
      "auto" => Ok(Self::Auto),
      "off" => Ok(Self::Off),
      other => Err(MemoryError::invalid(format!(
        "invalid writePolicy {} (one of ask|auto|off)",
        json_str(other)
      ))),
    }
  }
  /// The wire name.
  pub fn as_str(self) -> &'static str {
    match self {
      Self::Ask => "ask",
      Self::Auto => "auto",
      Self::Off => "off",
    }
  }
}

/// What to do with text that looks like a credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretPolicy {
  /// Refuse the write with `INVALID_INPUT` (`details.reason = "secret"`).
  Refuse,
  /// Ask anyway, with a warning in the approval payload.
  Warn,
}

impl SecretPolicy {
  /// Parse `refuse|warn`.
  ///
  /// # Errors
  /// `INVALID_INPUT`.
  pub fn parse(value: &str) -> Result<Self> {
    match value {
      "refuse" => Ok(Self::Refuse),
      "warn" => Ok(Self::Warn),
      other => Err(MemoryError::invalid(format!(
        "invalid secretPolicy {} (one of refuse|warn)",
        json_str(other)
      ))),
    }
  }
}

/// Provider configuration.
#[derive(Debug, Clone)]
pub struct Config {
  /// Per-layer limits.
  pub budgets: Budgets,
  /// Global write policy.
  pub write_policy: WritePolicy,
  /// Default page size of `query`.
  pub default_query_limit: u64,
  /// Source of entries whose input names none.
  pub source_label: String,
  /// Credential-looking text: refuse (default) or warn.
  pub secret_policy: SecretPolicy,
}

impl Default for Config {
  fn default() -> Self {
    Self {
      budgets: Budgets::default(),
      write_policy: WritePolicy::Ask,
      default_query_limit: 20,
      source_label: model::DEFAULT_SOURCE.to_string(),
      secret_policy: SecretPolicy::Refuse,
    }
  }
}

/// What the approver is shown: the complete change.
#[derive(Debug, Clone, PartialEq)]
pub struct Payload {
  /// `add`, `replace`, `remove`, `consolidate` or `seed`.
  pub action: &'static str,
  /// Track, or `batch` for seed.
  pub track: String,
  /// Scope, or `batch` for seed.
  pub scope: String,
  /// The change in full.
  pub text: String,
  /// Source (absent for seed).
  pub source: Option<String>,
  /// Seed only: entries in the batch.
  pub count: Option<usize>,
  /// What the approver should notice (instruction-like text, invisible characters, a possible
  /// secret under `secretPolicy: warn`).
  pub warnings: Vec<String>,
}

impl Payload {
  /// The payload as the gate receives it.
  pub fn to_json(&self) -> Value {
    let mut v =
      json!({ "action": self.action, "track": self.track, "scope": self.scope, "text": self.text });
    if let Some(source) = &self.source {
      v["source"] = json!(source);
    }
    if let Some(count) = self.count {
      v["count"] = json!(count);
    }
    if !self.warnings.is_empty() {
      v["warnings"] = json!(self.warnings);
    }
    v
  }
}

#[derive(Debug, Clone)]
struct Target {
  track: Track,
  scope: Scope,
  id: String,
  needle: String,
  folded: String,
}

#[derive(Debug, Clone)]
enum Op {
  Add(Entry),
  Replace {
    vis: Visibility,
    target: Target,
    text: String,
    tags: Option<Vec<String>>,
  },
  Remove {
    vis: Visibility,
    target: Target,
  },
  Consolidate {
    vis: Visibility,
    targets: Vec<Target>,
    new: Entry,
  },
  Seed(Vec<Entry>),
  Approve {
    proposal_id: String,
    new: Entry,
  },
}

/// A checked write waiting for its approval.
#[derive(Debug, Clone)]
pub struct Plan {
  writer: Writer,
  payload: Payload,
  op: Op,
}

impl Plan {
  /// What the gate is asked to approve.
  pub fn payload(&self) -> &Payload {
    &self.payload
  }
}

/// What the gate answered.
#[derive(Debug, Clone, PartialEq)]
pub enum GateAnswer {
  /// The gate resolved to a string outcome.
  Outcome(String),
  /// The gate resolved to something that is not a string (described).
  NotAString(String),
  /// The gate threw or rejected (its message).
  Failed(String),
}

/// How a planned write ended when it did not fail.
#[derive(Debug, Clone, PartialEq)]
pub enum Finished {
  /// Committed; the protocol result object.
  Written(Value),
  /// Approved, but the caller's abort signal fired before commit; an `{action}-aborted` row
  /// records it and nothing was written.
  Aborted,
}

/// Options of a query.
#[derive(Debug, Clone, Default)]
pub struct QueryOptions {
  /// Records a `recalled` row for this session.
  pub session_id: Option<String>,
  /// The session's visible set.
  pub visibility: Visibility,
  /// Bump recall counters (management views pass `false`).
  pub count_recall: bool,
}

/// A page of query results.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct QueryResult {
  /// The ranked page (pre-query counters).
  pub entries: Vec<Entry>,
  /// Every match, not only this page.
  pub total: u64,
  /// `total > entries.len()`.
  pub truncated: bool,
}

/// A proposal to record.
#[derive(Debug, Clone)]
pub struct ProposalInput {
  /// Kind, e.g. `compaction-summary`.
  pub kind: String,
  /// Raw input (track, scope, text, source?, workspaceKey?, agentKey?).
  pub input: Value,
  /// Proposing session.
  pub session_id: Option<String>,
}

/// Above this many entries, a 3+ character needle first asks the FTS5 trigram index; below it,
/// scanning the in-memory texts is faster than any index round trip.
pub const INDEX_THRESHOLD: usize = 20_000;
/// An index answer with more candidates than this is a common word: scanning is cheaper.
const INDEX_CANDIDATE_CAP: usize = 512;

/// The protocol engine over one store.
#[derive(Debug)]
pub struct Memory {
  store: Store,
  config: Config,
  cache: EntryCache,
  index_threshold: usize,
}

fn layer_key(scope: Scope, workspace_key: &str) -> &str {
  match scope {
    Scope::Workspace => workspace_key,
    Scope::UserGlobal => "",
  }
}

fn check_budget(track: Track, scope: Scope, used: u64, limit: u64, delta: i64) -> Result<()> {
  let needed = (used as i64 + delta).max(0) as u64;
  if needed > limit {
    return Err(MemoryError::BudgetExceeded {
      track: track.as_str().into(),
      scope: scope.as_str().into(),
      used,
      limit,
      needed,
    });
  }
  Ok(())
}

fn target_error(track: Track, scope: Scope, needle: &str, hits: &[Entry]) -> MemoryError {
  if hits.is_empty() {
    MemoryError::EntryNotFound {
      track: track.as_str().into(),
      scope: scope.as_str().into(),
      r#match: needle.into(),
    }
  } else {
    MemoryError::AmbiguousMatch {
      track: track.as_str().into(),
      scope: scope.as_str().into(),
      r#match: needle.into(),
      candidates: hits.len() as u64,
      sample: hits.iter().map(|e| excerpt(&e.text, 200)).collect(),
    }
  }
}

impl Memory {
  /// An engine over an open store.
  pub fn new(store: Store, config: Config) -> Self {
    Self {
      store,
      config,
      cache: EntryCache::default(),
      index_threshold: INDEX_THRESHOLD,
    }
  }

  /// The store file's path.
  pub fn path(&self) -> &str {
    self.store.path()
  }

  /// The configuration.
  pub fn config(&self) -> &Config {
    &self.config
  }

  fn fail(&self, e: rusqlite::Error) -> MemoryError {
    self.store.fail(e)
  }

  /// The default audit label: `{outcome} (via approval, writePolicy {policy})`.
  pub fn default_label(&self, outcome: &str) -> String {
    format!(
      "{outcome} (via approval, writePolicy {})",
      self.config.write_policy.as_str()
    )
  }

  /// `Some(outcome)` when the policy answers without asking the gate (`off` → `rejected`).
  pub fn policy_answer(&self) -> Option<&'static str> {
    (self.config.write_policy == WritePolicy::Off).then_some("rejected")
  }

  // ---- planning ----

  fn new_entry(&self, input: EntryInput, writer: &Writer) -> Entry {
    let workspace_key = match input.scope {
      Scope::UserGlobal => String::new(),
      Scope::Workspace => input
        .workspace_key
        .unwrap_or_else(|| writer.workspace_key.clone()),
    };
    Entry {
      id: String::new(),
      track: input.track,
      scope: input.scope,
      workspace_key,
      agent_key: input.agent_key.unwrap_or_else(|| writer.agent_key.clone()),
      text: input.text,
      source: input
        .source
        .unwrap_or_else(|| self.config.source_label.clone()),
      tags: input.tags.unwrap_or_default(),
      version: 1,
      created_at: 0,
      updated_at: 0,
      last_recalled: None,
      recall_count: 0,
      session_id: Some(writer.session_id.clone()),
    }
  }

  /// The visible set a targeting input picks: its explicit non-empty keys, else the writer's.
  fn visibility_for(obj: &serde_json::Map<String, Value>, writer: &Writer) -> Result<Visibility> {
    let (ws, agent) = model::parse_keys(obj)?;
    Ok(Visibility {
      agent_key: Some(
        agent
          .filter(|k| !k.is_empty())
          .unwrap_or_else(|| writer.agent_key.clone()),
      ),
      workspace_key: Some(
        ws.filter(|k| !k.is_empty())
          .unwrap_or_else(|| writer.workspace_key.clone()),
      ),
    })
  }

  /// Screen new texts: refuse (or, under `warn`, flag) credentials; flag instruction-like text
  /// and invisible characters for the approver.
  fn screen<'t>(&self, texts: impl IntoIterator<Item = &'t str>) -> Result<Vec<String>> {
    let mut found: Vec<String> = Vec::new();
    for text in texts {
      if let Some(kind) = screen::secret_kind(text) {
        if self.config.secret_policy == SecretPolicy::Refuse {
          return Err(MemoryError::InvalidInput {
            message: format!(
              "entry text looks like it contains {kind}; memory is injected into every future prompt and is no place for credentials, so nothing was written (secretPolicy 'warn' asks anyway)"
            ),
            reason: Some("secret".into()),
          });
        }
        found.push(format!("possible secret: {kind}"));
      }
      found.extend(screen::warnings(text));
    }
    found.dedup();
    Ok(found)
  }

  /// Use the search index from this many entries on (tests lower it to exercise both plans).
  pub fn set_index_threshold(&mut self, entries: usize) {
    self.index_threshold = entries;
  }

  /// The search plan for a folded needle: the index's candidate keys, or `None` to scan.
  fn index_candidates(&self, folded: Option<&str>) -> Result<Option<Vec<i64>>> {
    match folded {
      Some(n) if n.chars().count() >= 3 && self.cache.len() >= self.index_threshold => {
        store::fts_candidates(self.store.conn(), n, INDEX_CANDIDATE_CAP).map_err(|e| self.fail(e))
      }
      _ => Ok(None),
    }
  }

  /// Bring the in-memory read model up to date with the store.
  fn sync(&mut self) -> Result<()> {
    let Self { store, cache, .. } = self;
    if cache.sync(store.conn()).map_err(|e| store.fail(e))? {
      // A reload reads the file, which does not have this connection's pending recalls yet.
      for (id, at) in store.pending_recalls() {
        cache.bump(std::slice::from_ref(id), *at);
      }
    }
    Ok(())
  }

  fn resolve(
    &mut self,
    track: Track,
    scope: Scope,
    vis: &Visibility,
    needle: &str,
  ) -> Result<(Target, Entry)> {
    let folded = fold(needle);
    self.sync()?;
    // Targeting reads one layer of the visible set, which its budget keeps small: no index needed.
    let mut hits = self.cache.candidates(track, scope, vis, &folded);
    if hits.len() != 1 {
      return Err(target_error(track, scope, needle, &hits));
    }
    let entry = hits.remove(0);
    Ok((
      Target {
        track,
        scope,
        id: entry.id.clone(),
        needle: needle.to_string(),
        folded,
      },
      entry,
    ))
  }

  fn used(&self, track: Track, scope: Scope, layer: &str) -> Result<u64> {
    store::layer_used(self.store.conn(), track, scope, layer).map_err(|e| self.fail(e))
  }

  fn precheck_entry(&self, e: &Entry, delta: i64) -> Result<()> {
    let used = self.used(e.track, e.scope, layer_key(e.scope, &e.workspace_key))?;
    check_budget(
      e.track,
      e.scope,
      used,
      self.config.budgets.limit(e.track, e.scope),
      delta,
    )
  }

  /// Plan an `add`.
  ///
  /// # Errors
  /// `INVALID_INPUT`, `BUDGET_EXCEEDED` (pre-check).
  pub fn plan_add(&mut self, input: &Value, writer: Writer) -> Result<Plan> {
    let input = model::parse_entry_input(input)?;
    let entry = self.new_entry(input, &writer);
    let warnings = self.screen(entry_strings(&entry))?;
    self.precheck_entry(&entry, units(&entry.text) as i64)?;
    let payload = Payload {
      action: "add",
      track: entry.track.as_str().into(),
      scope: entry.scope.as_str().into(),
      text: entry.text.clone(),
      source: Some(entry.source.clone()),
      count: None,
      warnings,
    };
    Ok(Plan {
      writer,
      payload,
      op: Op::Add(entry),
    })
  }

  /// Plan a `replace`.
  ///
  /// # Errors
  /// `INVALID_INPUT`, `ENTRY_NOT_FOUND`, `AMBIGUOUS_MATCH`, `BUDGET_EXCEEDED`.
  pub fn plan_replace(&mut self, input: &Value, writer: Writer) -> Result<Plan> {
    let obj = as_object(input);
    let (track, scope) = model::parse_layer(&obj)?;
    let text = model::parse_text(&obj)?;
    let tags = model::parse_tags(&obj)?;
    let needle = model::parse_match(&obj)?;
    let source = model::parse_source(&obj)?;
    let vis = Self::visibility_for(&obj, &writer)?;
    let warnings = self.screen(
      std::iter::once(text.as_str())
        .chain(source.as_deref())
        .chain(tags.iter().flatten().map(String::as_str)),
    )?;
    let (target, initial) = self.resolve(track, scope, &vis, &needle)?;
    self.precheck_entry(&initial, units(&text) as i64 - units(&initial.text) as i64)?;
    let payload = Payload {
      action: "replace",
      track: track.as_str().into(),
      scope: scope.as_str().into(),
      text: format!("from:\n{}\n\nto:\n{}", initial.text, text),
      source: Some(source.unwrap_or_else(|| self.config.source_label.clone())),
      count: None,
      warnings,
    };
    Ok(Plan {
      writer,
      payload,
      op: Op::Replace {
        vis,
        target,
        text,
        tags,
      },
    })
  }

  /// Plan a `remove`.
  ///
  /// # Errors
  /// `INVALID_INPUT`, `ENTRY_NOT_FOUND`, `AMBIGUOUS_MATCH`.
  pub fn plan_remove(&mut self, input: &Value, writer: Writer) -> Result<Plan> {
    let obj = as_object(input);
    let (track, scope) = model::parse_layer(&obj)?;
    let needle = model::parse_match(&obj)?;
    let vis = Self::visibility_for(&obj, &writer)?;
    let (target, entry) = self.resolve(track, scope, &vis, &needle)?;
    let payload = Payload {
      action: "remove",
      track: track.as_str().into(),
      scope: scope.as_str().into(),
      text: entry.text.clone(),
      source: Some(entry.source.clone()),
      count: None,
      warnings: Vec::new(),
    };
    Ok(Plan {
      writer,
      payload,
      op: Op::Remove { vis, target },
    })
  }

  /// Plan a `consolidate`. Two matches naming the same entry fail here, before approval.
  ///
  /// # Errors
  /// `INVALID_INPUT`, `ENTRY_NOT_FOUND`, `AMBIGUOUS_MATCH`, `BUDGET_EXCEEDED`.
  pub fn plan_consolidate(&mut self, input: &Value, writer: Writer) -> Result<Plan> {
    let obj = as_object(input);
    let (track, scope) = model::parse_layer(&obj)?;
    let text = model::parse_text(&obj)?;
    let tags = model::parse_tags(&obj)?;
    let matches = model::parse_matches(&obj)?;
    let source = model::parse_source(&obj)?;
    let vis = Self::visibility_for(&obj, &writer)?;
    let (ws, agent) = model::parse_keys(&obj)?;
    let new = self.new_entry(
      EntryInput {
        track,
        scope,
        text: text.clone(),
        source,
        tags,
        workspace_key: ws,
        agent_key: agent,
      },
      &writer,
    );
    let warnings = self.screen(entry_strings(&new))?;
    let mut targets: Vec<Target> = Vec::with_capacity(matches.len());
    let mut found: Vec<Entry> = Vec::with_capacity(matches.len());
    for needle in &matches {
      let (target, entry) = self.resolve(track, scope, &vis, needle)?;
      if let Some(i) = targets.iter().position(|t| t.id == target.id) {
        return Err(MemoryError::invalid(format!(
          "consolidate matches {} and {} name the same entry; give each entry once",
          json_str(&targets[i].needle),
          json_str(needle)
        )));
      }
      targets.push(target);
      found.push(entry);
    }
    let freed: u64 = found
      .iter()
      .filter(|e| same_layer(e, &new))
      .map(|e| units(&e.text))
      .sum();
    self.precheck_entry(&new, units(&new.text) as i64 - freed as i64)?;
    let mut parts: Vec<String> = targets
      .iter()
      .zip(&found)
      .map(|(t, e)| format!("remove: {}\n{}", t.needle, excerpt(&e.text, 300)))
      .collect();
    parts.push(format!("new text: {text}"));
    let payload = Payload {
      action: "consolidate",
      track: track.as_str().into(),
      scope: scope.as_str().into(),
      text: parts.join("\n"),
      source: Some(new.source.clone()),
      count: None,
      warnings,
    };
    Ok(Plan {
      writer,
      payload,
      op: Op::Consolidate { vis, targets, new },
    })
  }

  /// Plan a `seed`: every input validated and the whole batch budget-checked before approval.
  ///
  /// # Errors
  /// `INVALID_INPUT` (naming the failing item), `BUDGET_EXCEEDED`.
  pub fn plan_seed(&mut self, inputs: &Value, writer: Writer) -> Result<Plan> {
    let items = match inputs.as_array() {
      Some(items) if !items.is_empty() => items,
      _ => return Err(MemoryError::invalid("seed requires a non-empty entry list")),
    };
    let mut entries = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
      let input = model::parse_entry_input(item).map_err(|e| match e {
        MemoryError::InvalidInput { message, reason } => MemoryError::InvalidInput {
          message: format!("seed entry {i}: {message}"),
          reason,
        },
        other => other,
      })?;
      entries.push(self.new_entry(input, &writer));
    }
    let warnings = self.screen(entries.iter().flat_map(entry_strings))?;
    check_batch(
      self.store.conn(),
      &self.config.budgets,
      &entries,
      self.path(),
    )?;
    let summary: Vec<String> = entries
      .iter()
      .map(|e| format!("{}/{}: {}", e.track.as_str(), e.scope.as_str(), e.text))
      .collect();
    let payload = Payload {
      action: "seed",
      track: "batch".into(),
      scope: "batch".into(),
      text: summary.join("\n"),
      source: None,
      count: Some(entries.len()),
      warnings,
    };
    Ok(Plan {
      writer,
      payload,
      op: Op::Seed(entries),
    })
  }

  /// Plan the approval of a pending proposal: a gated `add` with source `proposal`.
  ///
  /// # Errors
  /// `PROPOSAL_NOT_FOUND`, `INVALID_INPUT`, `BUDGET_EXCEEDED`.
  pub fn plan_approve(&mut self, id: &str, writer: Writer) -> Result<Plan> {
    let proposal = self.pending_proposal(self.store.conn(), id)?;
    let input = json!({
      "track": proposal.track, "scope": proposal.scope, "text": proposal.text, "source": "proposal",
      "workspaceKey": proposal.workspace_key, "agentKey": proposal.agent_key,
    });
    let mut plan = self.plan_add(&input, writer)?;
    let Op::Add(new) = plan.op else {
      return Err(MemoryError::invalid("proposal approval must plan an add"));
    };
    plan.op = Op::Approve {
      proposal_id: proposal.id,
      new,
    };
    Ok(plan)
  }

  fn pending_proposal(&self, conn: &rusqlite::Connection, id: &str) -> Result<Proposal> {
    match store::get_proposal(conn, id).map_err(|e| self.fail(e))? {
      Some(p) if p.status == "pending" => Ok(p),
      Some(p) => Err(MemoryError::ProposalNotFound {
        id: id.into(),
        detail: Some(format!("already {}", p.status)),
      }),
      None => Err(MemoryError::ProposalNotFound {
        id: id.into(),
        detail: None,
      }),
    }
  }

  // ---- finishing ----

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
  fn record(&mut self, plan: &Plan, suffix: &str, label: &str) -> Result<()> {
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

  fn commit(&mut self, plan: &Plan, label: &str) -> Result<Value> {
    let result = self.commit_tx(plan, label)?;
    self.refresh_touched(&result);
    Ok(result)
  }

  /// Apply this connection's own commit to the read model by re-reading the rows it touched.
  fn refresh_touched(&mut self, result: &Value) {
    let mut ids: Vec<String> = Vec::new();
    let mut take = |v: &Value| {
      if let Some(id) = v.get("id").and_then(Value::as_str) {
        ids.push(id.to_string());
      }
    };
    for key in ["entry", "previous"] {
      if let Some(v) = result.get(key) {
        take(v);
      }
    }
    for key in ["removed", "entries"] {
      for v in result
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
      {
        take(v);
      }
    }
    let Self { store, cache, .. } = self;
    if cache.refresh_ids(store.conn(), &ids).is_err() {
      cache.invalidate();
    }
  }

  fn commit_tx(&mut self, plan: &Plan, label: &str) -> Result<Value> {
    let budgets = self.config.budgets;
    let source_label = self.config.source_label.clone();
    let session = plan.writer.session_id.as_str();
    let op = plan.op.clone();
    let payload_text = plan.payload.text.clone();
    let pending_check = |conn: &rusqlite::Connection, id: &str, path: &str| -> Result<()> {
      match store::get_proposal(conn, id).map_err(|e| fail_at(path, e))? {
        Some(p) if p.status == "pending" => Ok(()),
        Some(p) => Err(MemoryError::ProposalNotFound {
          id: id.into(),
          detail: Some(format!("already {}", p.status)),
        }),
        None => Err(MemoryError::ProposalNotFound {
          id: id.into(),
          detail: None,
        }),
      }
    };
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
      let recheck = |e: &Entry, delta: i64| -> Result<()> {
        let used = store::layer_used(tx, e.track, e.scope, layer_key(e.scope, &e.workspace_key))
          .map_err(f)?;
        check_budget(
          e.track,
          e.scope,
          used,
          budgets.limit(e.track, e.scope),
          delta,
        )
      };
      // The approved id, still visible and still containing its match; nothing else.
      let refind = |vis: &Visibility, t: &Target| -> Result<Entry> {
        match store::get_visible(tx, &t.id, vis).map_err(f)? {
          Some(e) if fold(&e.text).contains(&t.folded) => Ok(e),
          _ => Err(target_error(t.track, t.scope, &t.needle, &[])),
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
          recheck(&new, units(&new.text) as i64)?;
          let entry = stamp(new);
          store::insert_entry(tx, &entry).map_err(f)?;
          audit("add", &entry)?;
          Ok(json!({ "entry": entry, "usage": usage(&entry)? }))
        }
        Op::Approve { proposal_id, new } => {
          pending_check(tx, &proposal_id, path)?;
          recheck(&new, units(&new.text) as i64)?;
          let entry = stamp(new);
          store::insert_entry(tx, &entry).map_err(f)?;
          store::decide_proposal(tx, &proposal_id, "approved", now).map_err(f)?;
          audit("add", &entry)?;
          let proposal = store::get_proposal(tx, &proposal_id).map_err(f)?;
          Ok(json!({ "proposal": proposal, "entry": entry, "usage": usage(&entry)? }))
        }
        Op::Replace {
          vis,
          target,
          text,
          tags,
        } => {
          let current = refind(&vis, &target)?;
          recheck(&current, units(&text) as i64 - units(&current.text) as i64)?;
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
          Ok(json!({ "previous": current, "entry": entry, "usage": usage(&entry)? }))
        }
        Op::Remove { vis, target } => {
          let entry = refind(&vis, &target)?;
          store::delete_entry(tx, &entry.id).map_err(f)?;
          audit("remove", &entry)?;
          Ok(json!({ "entry": entry, "usage": usage(&entry)? }))
        }
        Op::Consolidate { vis, targets, new } => {
          let mut removed = Vec::with_capacity(targets.len());
          for t in &targets {
            let entry = refind(&vis, t)?;
            store::delete_entry(tx, &entry.id).map_err(f)?;
            removed.push(entry);
          }
          recheck(&new, units(&new.text) as i64)?;
          let entry = stamp(new);
          store::insert_entry(tx, &entry).map_err(f)?;
          for old in &removed {
            audit("consolidate-remove", old)?;
          }
          audit("consolidate-add", &entry)?;
          Ok(json!({ "removed": removed, "entry": entry, "usage": usage(&entry)? }))
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
          for e in &entries {
            store::insert_entry(tx, e).map_err(f)?;
            audit("add", e)?;
          }
          Ok(json!({ "added": entries.len(), "entries": entries }))
        }
      }
    })
  }

  // ---- reads and non-memory writes ----

  /// Search entries (ASCII-case-insensitive substring), ranked by recall count then recency.
  /// Returned entries carry their pre-query counters.
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn query(&mut self, filter: &Value, opts: &QueryOptions) -> Result<QueryResult> {
    let parsed = model::parse_query_filter(filter);
    let limit = parsed
      .limit
      .unwrap_or(self.config.default_query_limit)
      .min(MAX_QUERY_LIMIT);
    let folded = parsed.text.as_deref().map(fold);
    self.sync()?;
    let keys = self.index_candidates(folded.as_deref())?;
    let (entries, total) = self.cache.search(&Search {
      track: parsed.track.as_deref(),
      scope: parsed.scope.as_deref(),
      folded: folded.as_deref(),
      visibility: Some(&opts.visibility),
      limit: limit as usize,
      keys: keys.as_deref(),
    });
    let at = now_ms();
    if opts.count_recall && !entries.is_empty() {
      let ids: Vec<String> = entries.iter().map(|e| e.id.clone()).collect();
      self.store.note_recalls(&ids, at)?;
      self.cache.bump(&ids, at);
    }
    if let Some(session) = &opts.session_id {
      // A query is not screened (it writes no memory), but its audit row must not keep a
      // credential someone pasted into a search.
      let raw_text = as_object(filter)
        .get("text")
        .and_then(Value::as_str)
        .map(|t| match screen::secret_kind(t) {
          Some(kind) => format!("[redacted: the query looked like it contained {kind}]"),
          None => t.to_string(),
        });
      let source = self.config.source_label.clone();
      self.store.write(|tx, path| {
        let same = audit::last_recall(tx, session)
          .map_err(|e| fail_at(path, e))?
          .is_some_and(|last| {
            (
              last.track.as_deref(),
              last.scope.as_deref(),
              last.text.as_deref(),
            ) == (
              parsed.track.as_deref(),
              parsed.scope.as_deref(),
              raw_text.as_deref(),
            )
          });
        if same {
          return Ok(()); // a session repeating its last recall is already evidenced
        }
        audit::append(
          tx,
          &NewAudit {
            action: "recalled",
            track: parsed.track.as_deref(),
            scope: parsed.scope.as_deref(),
            text: raw_text.as_deref(),
            outcome: Some("ok"),
            source: Some(&source),
            session_id: Some(session),
            ..NewAudit::default()
          },
        )
        .map_err(|e| fail_at(path, e))?;
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
    let conn = self.store.conn();
    let mut rows = Vec::with_capacity(4);
    for track in Track::ALL {
      for scope in Scope::ALL {
        let used = match (scope, workspace_key) {
          (Scope::UserGlobal, _) => store::layer_used(conn, track, scope, ""),
          (Scope::Workspace, Some(ws)) => store::layer_used(conn, track, scope, ws),
          (Scope::Workspace, None) => store::max_layer_used(conn, track, scope),
        }
        .map_err(|e| self.fail(e))?;
        rows.push(Usage {
          track,
          scope,
          used,
          limit: self.config.budgets.limit(track, scope),
        });
      }
    }
    Ok(rows)
  }

  /// Every entry (or every entry a session can see), oldest first.
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn list_entries(&mut self, visibility: Option<&Visibility>) -> Result<Vec<Entry>> {
    self.sync()?;
    Ok(self.cache.list(visibility))
  }

  /// The newest `limit` audit rows.
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn audit_list(&self, limit: u64) -> Result<Vec<AuditRow>> {
    audit::list(self.store.conn(), limit).map_err(|e| self.fail(e))
  }

  /// Walk the audit hash chain; the first row that does not verify is reported.
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn audit_verify(&self) -> Result<Verification> {
    audit::verify(self.store.conn()).map_err(|e| self.fail(e))
  }

  /// Record a pending proposal and its `proposal` audit row; `None` when the session already has
  /// a pending proposal of this kind.
  ///
  /// # Errors
  /// `INVALID_INPUT` (`proposal text must be a non-empty string`, bad layer), `STORE_CORRUPT`.
  pub fn proposal_add(&mut self, p: ProposalInput) -> Result<Option<Proposal>> {
    let obj = as_object(&p.input);
    if p.kind.is_empty() {
      return Err(MemoryError::invalid(
        "proposal kind must be a non-empty string",
      ));
    }
    let (track, scope) = model::parse_layer(&obj)?;
    let text = match obj.get("text").and_then(Value::as_str) {
      Some(t) if !t.is_empty() => t.to_string(),
      _ => {
        return Err(MemoryError::invalid(
          "proposal text must be a non-empty string",
        ))
      }
    };
    let (ws, agent) = model::parse_keys(&obj)?;
    let source = model::parse_source(&obj)?.unwrap_or_else(|| self.config.source_label.clone());
    self.screen([text.as_str(), source.as_str()])?;
    let proposal = Proposal {
      id: Uuid::new_v4().to_string(),
      kind: p.kind,
      track: track.as_str().into(),
      scope: scope.as_str().into(),
      workspace_key: if scope == Scope::Workspace {
        ws.unwrap_or_default()
      } else {
        String::new()
      },
      agent_key: agent.unwrap_or_default(),
      text,
      source,
      session_id: p.session_id.filter(|s| !s.is_empty()),
      status: "pending".into(),
      created_at: now_ms(),
      decided_at: None,
    };
    self.store.write(|tx, path| {
      if !store::insert_proposal(tx, &proposal).map_err(|e| fail_at(path, e))? {
        return Ok(None);
      }
      audit::append(
        tx,
        &NewAudit {
          action: "proposal",
          track: Some(&proposal.track),
          scope: Some(&proposal.scope),
          entry_id: Some(&proposal.id),
          text: Some(&proposal.text),
          outcome: Some("pending"),
          source: Some(&proposal.source),
          session_id: proposal.session_id.as_deref(),
        },
      )
      .map_err(|e| fail_at(path, e))?;
      Ok(Some(proposal.clone()))
    })
  }

  /// The frozen snapshot of a session: the first text recorded for `session_id` wins, is
  /// audited once (a `snapshot` row referencing the text, stored once per distinct text) and is
  /// returned on every later call — across reloads and processes.
  ///
  /// # Errors
  /// `INVALID_INPUT` without a session id, `STORE_CORRUPT`.
  pub fn snapshot_record(&mut self, session_id: &str, text: &str) -> Result<String> {
    if session_id.is_empty() {
      return Err(MemoryError::invalid(
        "snapshot session id must be a non-empty string",
      ));
    }
    let source = self.config.source_label.clone();
    self.store.write(|tx, path| {
      let f = |e: rusqlite::Error| fail_at(path, e);
      if let Some(frozen) = store::snapshot_of(tx, session_id).map_err(f)? {
        return Ok(frozen);
      }
      let hash = crate::sha256::hex_digest(text.as_bytes());
      store::insert_snapshot(tx, session_id, &hash, text, now_ms()).map_err(f)?;
      let reference = format!("{}{hash}", audit::SNAPSHOT_REF);
      audit::append(
        tx,
        &NewAudit {
          action: "snapshot",
          text: Some(&reference),
          outcome: Some("ok"),
          source: Some(&source),
          session_id: Some(session_id),
          ..NewAudit::default()
        },
      )
      .map_err(f)?;
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
    let pending = self.pending_proposal(self.store.conn(), id)?;
    self.store.write(|tx, path| {
      let f = |e: rusqlite::Error| fail_at(path, e);
      if !store::decide_proposal(tx, id, "dismissed", now_ms()).map_err(f)? {
        return Err(MemoryError::ProposalNotFound {
          id: id.into(),
          detail: Some("decided meanwhile".into()),
        });
      }
      audit::append(
        tx,
        &NewAudit {
          action: "proposal-dismissed",
          track: Some(&pending.track),
          scope: Some(&pending.scope),
          entry_id: Some(id),
          text: Some(&pending.text),
          outcome: Some("dismissed"),
          source: Some(&pending.source),
          session_id: Some(&writer.session_id),
        },
      )
      .map_err(f)?;
      store::get_proposal(tx, id)
        .map_err(f)?
        .ok_or_else(|| MemoryError::ProposalNotFound {
          id: id.into(),
          detail: None,
        })
    })
  }
}

fn same_layer(a: &Entry, b: &Entry) -> bool {
  a.track == b.track
    && a.scope == b.scope
    && layer_key(a.scope, &a.workspace_key) == layer_key(b.scope, &b.workspace_key)
}

/// Per layer, in first-appearance order: used + Σ new units ≤ limit.
fn check_batch(
  conn: &rusqlite::Connection,
  budgets: &Budgets,
  entries: &[Entry],
  path: &str,
) -> Result<()> {
  let mut layers: Vec<(Track, Scope, &str, u64)> = Vec::new();
  for e in entries {
    let key = layer_key(e.scope, &e.workspace_key);
    match layers
      .iter_mut()
      .find(|(t, s, k, _)| *t == e.track && *s == e.scope && *k == key)
    {
      Some(layer) => layer.3 += units(&e.text),
      None => layers.push((e.track, e.scope, key, units(&e.text))),
    }
  }
  for (track, scope, key, adding) in layers {
    let used = store::layer_used(conn, track, scope, key).map_err(|e| fail_at(path, e))?;
    check_budget(
      track,
      scope,
      used,
      budgets.limit(track, scope),
      adding as i64,
    )?;
  }
  Ok(())
}

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;

/// Every caller-chosen string of a new entry (what secret screening looks at).
fn entry_strings(e: &Entry) -> impl Iterator<Item = &str> {
  [e.text.as_str(), e.source.as_str()]
    .into_iter()
    .chain(e.tags.iter().map(String::as_str))
}
