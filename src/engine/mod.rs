//! The write pipeline and reads of `dsh-memory-protocol/v1`.
//!
//! A write is two calls with the approval in between, and nothing else can touch the store:
//! [`Memory::plan_add`] (and siblings) validate, resolve the target in the writer's visible set,
//! pre-check the budget and build the approve-what-you-see payload; the caller asks its gate;
//! [`Memory::finish`] then either records the denial, or — in ONE `BEGIN IMMEDIATE`
//! transaction — re-finds the approved target by id within the visible set, re-checks the
//! budget, mutates and appends the audit rows.
//!
//! `plan` builds checked writes, `commit` finishes them, `read` answers queries, `records` keeps
//! proposals and frozen snapshots, `history` reads an entry's past and `revert` plans its undo,
//! `similar` and `grams` find similar-write hints, `health` runs the health check; this file
//! holds the types they share.
#![forbid(unsafe_code)]

use rusqlite::Connection;
use serde::Serialize;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::error::{json_str, Changed, MemoryError, Result};
use crate::protocol::change::{self, LayerShare, Shown, Similar, REASON_MARKER};
use crate::protocol::model::{
  self, as_object, wire_names, AuditRow, Budgets, Entry, EntryInput, Proposal, RowFields, Scope,
  Track, Usage, Writer, MAX_QUERY_LIMIT,
};
use crate::screen;
use crate::store::chain::{self, NewAudit};
use crate::store::entries::Only;
use crate::store::history::{self as ledger, ENDS, SETS};
use crate::store::ledger::Verification;
use crate::store::reads::{self, Filter};
use crate::store::{self, fail_at, now_ms, Store, Visibility};
use crate::text::{excerpt, fold, units, visible};
pub use health::{Finding, Health, HealthOptions};
pub use history::{Ended, EntryVersion, History, HistoryTarget, SessionRecord};
pub use revert::Reverted;

pub use crate::protocol::policy::{Decision, Policies, WritePolicy};

/// What to do with text that looks like a credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretPolicy {
  /// Refuse the write with `INVALID_INPUT` (`details.reason = "secret"`).
  Refuse,
  /// Ask anyway, with a warning in the approval payload.
  Warn,
}

wire_names!(SecretPolicy { Refuse => "refuse", Warn => "warn" });

/// Provider configuration.
#[derive(Debug, Clone)]
pub struct Config {
  /// Per-layer limits.
  pub budgets: Budgets,
  /// The write policy and its per-layer / per-source overrides.
  pub policies: Policies,
  /// Default page size of `query`.
  pub default_query_limit: u64,
  /// Source of entries whose input names none.
  pub source_label: String,
  /// Credential-looking text: refuse (default) or warn.
  pub secret_policy: SecretPolicy,
  /// Longest proposal text kept (UTF-16 units); a longer one is cut, never split inside a
  /// surrogate pair.
  pub proposal_max_chars: usize,
  /// Most pending proposals; another is not recorded.
  pub proposal_max_pending: u64,
  /// Name the stored entries a new text is like in its approval (`similar`); off, a write is
  /// planned without looking.
  pub similar_hints: bool,
}

impl Default for Config {
  fn default() -> Self {
    Self {
      budgets: Budgets::default(),
      policies: Policies::default(),
      default_query_limit: 20,
      source_label: model::DEFAULT_SOURCE.to_string(),
      secret_policy: SecretPolicy::Refuse,
      proposal_max_chars: 2000,
      proposal_max_pending: 8,
      similar_hints: true,
    }
  }
}

/// What the approver is shown: the complete change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Payload {
  /// `add`, `replace`, `remove`, `consolidate` or `seed`.
  pub action: &'static str,
  /// Track, or `batch` for seed.
  pub track: String,
  /// Scope, or `batch` for seed.
  pub scope: String,
  /// The change in the protocol's words: the new text (add), `from:…to:…` (replace), the removed
  /// text (remove), each target then the new text (consolidate), every entry (seed).
  pub text: String,
  /// Source (absent for seed).
  #[serde(skip_serializing_if = "Option::is_none")]
  pub source: Option<String>,
  /// Seed only: entries in the batch.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub count: Option<usize>,
  /// What the approver should notice (instruction-like or heading-like text, invisible
  /// characters, a possible secret under `secretPolicy: warn`).
  #[serde(skip_serializing_if = "Vec::is_empty")]
  pub warnings: Vec<String>,
  /// The entries the write changes: it commits only on exactly these versions.
  #[serde(skip_serializing_if = "Vec::is_empty")]
  pub targets: Vec<Version>,
  /// Every entry the write removes or rewrites, as it is now, with all of its fields.
  pub before: Vec<Shown>,
  /// Every entry the write leaves (new, rewritten), with all of its fields: exactly what lands.
  pub after: Vec<Shown>,
  /// The stored entries a new text most likely duplicates or updates (up to three per new
  /// entry, best first): hints for the approver; the write is the same either way.
  #[serde(skip_serializing_if = "Vec::is_empty")]
  pub similar: Vec<Similar>,
  /// Seed only: the layers it adds to.
  #[serde(skip_serializing_if = "Vec::is_empty")]
  pub layers: Vec<LayerShare>,
  /// The policy that decides the write, from its layers and the writer's source.
  pub policy: Decision,
  /// The whole change as a person reads it (an approval card, a terminal prompt).
  pub reason: String,
  /// SHA-256 of `[action, before, after]`: a confirmation naming it commits exactly this.
  pub digest: String,
  /// Revert only: the `seq` of the change it undoes.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub reverts: Option<i64>,
}

/// An entry at the version an approval showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Version {
  /// Entry id.
  pub id: String,
  /// Its version.
  pub version: i64,
}

#[derive(Debug, Clone)]
struct Target {
  /// The entry as the approval payload showed it: the commit lands only on its id at that
  /// version, holding the text and tags it showed (a revert can bring a version number back).
  shown: Entry,
  needle: String,
  /// The visible set it was found in: the commit re-finds it there.
  vis: Visibility,
}

impl Target {
  /// The target an approval shows of `shown`, found by `needle` in `vis`.
  fn of(shown: Entry, needle: &str, vis: &Visibility) -> Self {
    Target {
      shown,
      needle: needle.to_string(),
      vis: vis.clone(),
    }
  }

  /// Whether `e` is this target as the approval showed it.
  fn holds(&self, e: &Entry) -> bool {
    let s = &self.shown;
    (e.version, &e.text, &e.tags) == (s.version, &s.text, &s.tags)
  }
}

/// A replace's new text and, when the input gave them, its new tags.
type Change = (String, Option<Vec<String>>);

#[derive(Debug)]
enum Op {
  /// The new entry, and the id of the pending proposal it approves, if it does.
  Add(Entry, Option<String>),
  Replace(Target, Change),
  Remove(Target),
  /// The entries merged, and the one they become.
  Consolidate(Vec<Target>, Entry),
  Seed(Vec<Entry>),
  /// The `seq` of the change undone, and how.
  Revert(i64, Vec<revert::Step>),
}

/// A checked write waiting for its approval ([`Memory::finish`] consumes it).
#[derive(Debug)]
pub struct Plan {
  writer: Writer,
  payload: Payload,
  policy: WritePolicy,
  op: Op,
}

impl Plan {
  fn new(writer: Writer, (payload, policy): (Payload, WritePolicy), op: Op) -> Self {
    Self {
      writer,
      payload,
      policy,
      op,
    }
  }

  /// What the gate is asked to approve.
  pub fn payload(&self) -> &Payload {
    &self.payload
  }

  /// `Some(outcome)` when the policy answers without asking the gate (`off` → `rejected`).
  pub fn policy_answer(&self) -> Option<&'static str> {
    (self.policy == WritePolicy::Off).then_some("rejected")
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

/// Who carried a write's approval, for its audit label: `{outcome} (via {via}, {decider}[;
/// {detail}])`. Unset parts default to the approval transport and the policy that decided.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Via {
  /// The transport: `approval`, `command`, `cli --yes`, `mcp elicitation, client …`.
  pub via: Option<String>,
  /// What decided, when not the write policy (`session approval policy never`).
  pub decider: Option<String>,
  /// Why the transport failed, when it did.
  pub detail: Option<String>,
}

impl Via {
  /// The audit label of `outcome` decided under `policy`; the one place its format lives.
  /// Control characters in what the caller said (a remote client's name) are escaped, so a
  /// label is one line and cannot forge another row in a rendered audit log.
  pub fn label(&self, outcome: &str, policy: &Decision) -> String {
    let via = self.via.as_deref().unwrap_or("approval");
    let decider = self.decider.clone().unwrap_or_else(|| policy.describe());
    let detail = self.detail.as_deref().map(|d| format!("; {d}"));
    let detail = detail.unwrap_or_default();
    let (via, decider, detail) = (visible(via), visible(&decider), visible(&detail));
    format!("{outcome} (via {via}, {decider}{detail})")
  }
}

/// How a planned write ended when it did not fail.
#[derive(Debug, Clone, PartialEq)]
pub enum Finished {
  /// Committed; the protocol result object.
  Written(Box<Written>),
  /// Approved, but the caller's abort signal fired before commit; an `{action}-aborted` row
  /// records it and nothing was written.
  Aborted,
}

/// The result of a committed write, as the protocol returns it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Written {
  /// `add`.
  Add {
    /// The new entry.
    entry: Entry,
    /// Its layer's usage after the write.
    usage: Usage,
  },
  /// An approved proposal: an add committed with the decision.
  Approve {
    /// The proposal, now approved.
    proposal: Option<Proposal>,
    /// The new entry.
    entry: Entry,
    /// Its layer's usage after the write.
    usage: Usage,
  },
  /// `replace`.
  Replace {
    /// The entry as it was.
    previous: Entry,
    /// The entry as it is.
    entry: Entry,
    /// Its layer's usage after the write.
    usage: Usage,
  },
  /// `remove`.
  Remove {
    /// The removed entry.
    entry: Entry,
    /// Its layer's usage after the write.
    usage: Usage,
  },
  /// `consolidate`.
  Consolidate {
    /// The removed entries.
    removed: Vec<Entry>,
    /// The new entry.
    entry: Entry,
    /// Its layer's usage after the write.
    usage: Usage,
  },
  /// `seed`.
  Seed {
    /// How many entries were added.
    added: usize,
    /// The new entries.
    entries: Vec<Entry>,
  },
  /// A revert.
  Revert {
    /// The `seq` of the change it undid.
    reverted: i64,
    /// What it did to each entry, in order.
    changes: Vec<Reverted>,
  },
}

impl Written {
  /// The ids of the entries the write deleted or rewrote, and the entries it left.
  fn changes(&self) -> (Vec<&str>, Vec<&Entry>) {
    match self {
      Written::Add { entry, .. } | Written::Approve { entry, .. } => (vec![], vec![entry]),
      Written::Replace { entry, .. } => (vec![entry.id.as_str()], vec![entry]),
      Written::Remove { entry, .. } => (vec![entry.id.as_str()], vec![]),
      Written::Consolidate { removed, entry, .. } => {
        (removed.iter().map(|e| e.id.as_str()).collect(), vec![entry])
      }
      Written::Seed { entries, .. } => (vec![], entries.iter().collect()),
      Written::Revert { changes, .. } => {
        let gone = changes.iter().filter(|c| c.action != "restore");
        let left = changes.iter().filter(|c| c.action != "remove");
        let ids = gone.map(|c| c.entry.id.as_str()).collect();
        (ids, left.map(|c| &c.entry).collect())
      }
    }
  }
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
  /// Exact facets (a management view's filter).
  pub only: Only,
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

/// The protocol engine over one store.
#[derive(Debug)]
pub struct Memory {
  store: Store,
  config: Config,
  /// What similar-write hints keep between calls.
  known: similar::Cache,
}

/// The layer `e` counts against: its track, scope and workspace (none for user-global).
fn layer_of(e: &Entry) -> (Track, Scope, &str) {
  let key = model::layer_key(e.scope, &e.workspace_key);
  (e.track, e.scope, key)
}

/// The usage of `e`'s layer once `delta` more units are written, refused with
/// `BUDGET_EXCEEDED` past the limit; with no delta, as it is.
fn usage_after(
  conn: &Connection,
  budgets: &Budgets,
  (e, delta): (&Entry, Option<i64>),
  path: &str,
) -> Result<Usage> {
  let (track, scope, key) = layer_of(e);
  let used = store::layer_used(conn, track, scope, key).map_err(|x| fail_at(path, x))?;
  let limit = budgets.limit(e.track, e.scope);
  let needed = used.saturating_add_signed(delta.unwrap_or(0));
  if delta.is_some() && needed > limit {
    return Err(MemoryError::BudgetExceeded {
      track: e.track.as_str().into(),
      scope: e.scope.as_str().into(),
      used,
      limit,
      needed,
      suggestions: Vec::new(),
    });
  }
  Ok(Usage {
    track: e.track,
    scope: e.scope,
    used: needed,
    limit,
  })
}

/// `ENTRY_NOT_FOUND` of `needle` in a layer; with `changed`, the entry it names changed since
/// the approval: the entry as it is now, the version the approval showed and the `seq` a revert
/// undoes.
fn not_found(
  track: Track,
  scope: Scope,
  needle: &str,
  changed: Option<(Entry, i64, Option<i64>)>,
) -> MemoryError {
  MemoryError::EntryNotFound {
    track: track.as_str().into(),
    scope: scope.as_str().into(),
    r#match: needle.into(),
    changed: changed.map(|(e, approved_version, reverting)| {
      Box::new(Changed {
        id: e.id,
        approved_version,
        version: e.version,
        text: e.text,
        reverting,
      })
    }),
  }
}

impl Memory {
  /// An engine over an open store.
  pub fn new(store: Store, config: Config) -> Self {
    Self {
      store,
      config,
      known: similar::Cache::default(),
    }
  }

  /// The store file's path.
  pub fn path(&self) -> &str {
    self.store.path()
  }

  pub(super) fn fail(&self, e: rusqlite::Error) -> MemoryError {
    self.store.fail(e)
  }

  // ---- planning ----

  /// Plan a write inside one read transaction: its target lookups and budget pre-check see
  /// one snapshot of the file and take its locks once.
  ///
  /// # Errors
  /// Whatever `plan` returns, or `STORE_CORRUPT` when the transaction cannot begin or end.
  pub fn planned(&mut self, plan: impl FnOnce(&mut Self) -> Result<Plan>) -> Result<Plan> {
    if !self.store.conn().is_autocommit() {
      return plan(self);
    }
    let batch = |m: &Self, sql| m.store.conn().execute_batch(sql).map_err(|e| m.fail(e));
    batch(self, "BEGIN")?;
    let planned = plan(self);
    batch(self, "COMMIT")?;
    planned
  }
}

mod commit;
mod grams;
mod health;
mod history;
mod plan;
mod read;
mod records;
mod revert;
mod similar;

#[cfg(test)]
mod tests;
