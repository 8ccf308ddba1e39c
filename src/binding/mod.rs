//! The only code that names napi: the `MemoryProvider` JS class over [`Memory`], and the rule
//! functions the JS layer calls instead of keeping its own copy. The types users code to are
//! index.d.ts; arguments arrive as `unknown`.
//!
//! Every method converts its arguments ([`js::data`]: JSON, refusing what JSON cannot carry),
//! calls the core, and maps [`MemoryError`] to a JS `Error` with `.code` and `.details`. Writes
//! ask the provider's own approval callback and finish in one synchronous core call ([`gate`]).
#![allow(unsafe_code)] // napi-derive expands to unsafe glue.

use std::cell::RefCell;
use std::rc::Rc;

use napi::bindgen_prelude::*;
use napi::{sys, Env, ValueType};
use napi_derive::napi;
use serde_json::Value;

use crate::api::calls::{self, count, visibility};
use crate::api::{config, inputs, open};
use crate::engine::{Memory, Plan};
use crate::error::{MemoryError, StoreReason};
use crate::protocol::keys;
use crate::protocol::model::{self, Scope, Track, Writer};
use crate::protocol::policy::WritePolicy;

mod gate;
mod js;

use js::{absent, data, field, settled, text, throw, to_js};

/// A JS function held across calls, called with raw values.
type Held<A> = FunctionRef<FnArgs<A>, Unknown<'static>>;
type Raw = sys::napi_value;
/// What internal helpers hand back: a JS value (a promise, for writes), or an exception.
type Js<'e> = Result<Unknown<'e>>;
/// A kind of write: its name (for messages) and how it turns its input into a plan.
type WriteKind = (&'static str, Planner);
type Planner = fn(&mut Memory, &Value, Writer) -> crate::Result<Plan>;

const BUSY: &str = "memory store is busy in a re-entrant call";

const ADD: WriteKind = ("add", Memory::plan_add);
const REPLACE: WriteKind = ("replace", Memory::plan_replace);
const REMOVE: WriteKind = ("remove", Memory::plan_remove);
const CONSOLIDATE: WriteKind = ("consolidate", Memory::plan_consolidate);
const SEED: WriteKind = ("seed", Memory::plan_seed);
/// Approving a proposal: a gated add of its text (the input is the proposal id).
const APPROVE: WriteKind = ("approve", |m, id, w| {
  m.plan_approve(id.as_str().unwrap_or_default(), w)
});
/// Reverting a landed change (the input is an audit seq).
const REVERT: WriteKind = ("revert", |m, seq, w| m.plan_revert(calls::seq(seq)?, w));
/// Every write, by name (what `preview` accepts).
const OPS: [WriteKind; 7] = [ADD, REPLACE, REMOVE, CONSOLIDATE, SEED, APPROVE, REVERT];

/// What a write's promise and every read share: the engine and the JS functions given at
/// construction (held until the last pending write is done with them).
struct Core {
  memory: RefCell<Option<Memory>>,
  gate: Held<(Raw, Raw)>,
  audit_via: Option<Held<(Raw, Raw, Raw)>>,
  path: String,
}

impl Core {
  /// Run `f` on the open engine. No JS runs while it holds the engine, so a re-entrant call
  /// (a gate or getter calling back into the provider) always finds it free.
  fn run<T>(&self, f: impl FnOnce(&mut Memory) -> crate::Result<T>) -> crate::Result<T> {
    let fail = |reason, what: &str| Err(MemoryError::store(&self.path, reason, what, None));
    let closed = || format!("memory store at {} is closed", self.path);
    match self.memory.try_borrow_mut().as_deref_mut() {
      Err(_) => fail(StoreReason::Busy, BUSY),
      Ok(None) => fail(StoreReason::Closed, &closed()),
      Ok(Some(m)) => f(m),
    }
  }
}

/// A callback option, held for later calls: `None` when absent, `Err` when not a function.
fn callback<A>(env: &Env, options: Unknown, name: &str) -> Result<Option<Held<A>>>
where
  FnArgs<A>: JsValuesTupleIntoVec,
{
  match field(env, Some(options), name) {
    Some(f) if matches!(f.get_type(), Ok(ValueType::Function)) => {
      Ok(Some(Function::from_unknown(f)?.create_ref()?))
    }
    Some(f) if !absent(&f) => Err(Error::from_reason(name)),
    _ => Ok(None),
  }
}

/// Caller data for a sync method (a coded error is thrown).
fn arg(env: &Env, what: &str, value: Unknown) -> Result<Value> {
  data(env, what, value).map_err(|e| throw(env, e))
}

/// An optional string argument: `None` for undefined or null, else a string or `INVALID_INPUT`.
fn opt_text(env: &Env, what: &str, value: Unknown) -> Result<Option<String>> {
  let bad = || MemoryError::invalid(format!("{what} must be a string"));
  if absent(&value) {
    return Ok(None);
  }
  text(&value).map(Some).ok_or_else(|| throw(env, bad()))
}

/// A read's answer in JS, or its error thrown.
fn read<'e, T: serde::Serialize>(env: &'e Env, result: crate::Result<T>) -> Js<'e> {
  to_js(env, &result.map_err(|e| throw(env, e))?)
}

/// The writer of a write context `{agent: {session: {id, header: {cwd, agentPreset}}}, source?}`.
fn writer_of(env: &Env, write: Unknown) -> crate::Result<Writer> {
  let session = field(env, field(env, Some(write), "agent"), "session");
  let header = field(env, session, "header");
  let text_at = |v, key| field(env, v, key).and_then(|s| text(&s));
  let (id, cwd) = (text_at(session, "id"), text_at(header, "cwd"));
  let preset = text_at(header, "agentPreset");
  let writer = Writer::new(id.as_deref(), cwd.as_deref(), preset.as_deref())?;
  writer.writing_as(text_at(Some(write), "source"))
}

/// The native memory provider. Writes are async and gated by the `gate` given at construction;
/// reads are synchronous.
#[napi]
pub struct MemoryProvider {
  core: Rc<Core>,
}

#[napi]
impl MemoryProvider {
  /// Open (creating if needed) the store and bind the approval gate.
  ///
  /// Errors: `INVALID_INPUT` (bad options, missing gate), `STORE_CORRUPT`,
  /// `STORE_UNSUPPORTED_VERSION`.
  #[napi(constructor)]
  pub fn new(env: Env, options: Unknown) -> Result<Self> {
    let bad = |m: &str| throw(&env, MemoryError::invalid(m));
    if options.get_type()? != ValueType::Object {
      return Err(bad("MemoryProvider options must be an object"));
    }
    let gate = callback(&env, options, "gate").ok().flatten().ok_or_else(|| {
      bad("MemoryProvider requires options.gate: the async approval callback (payload, write) => outcome")
    })?;
    let audit_via = callback(&env, options, "auditVia").map_err(|_| {
      bad("auditVia must be a function (outcome, payload, write) => string | {via, decider?, detail?}")
    })?;
    let mut given = serde_json::Map::new();
    for name in config::PROVIDER_OPTIONS {
      let value = field(&env, Some(options), name).map_or(Ok(Value::Null), |v| data(&env, name, v));
      given.insert(name.into(), value.map_err(|e| throw(&env, e))?);
    }
    let memory = open::open(&Value::Object(given)).map_err(|e| throw(&env, e))?;
    let path = memory.path().to_string();
    let memory = RefCell::new(Some(memory));
    let core = Rc::new(Core {
      memory,
      gate,
      audit_via,
      path,
    });
    Ok(Self { core })
  }

  /// Absolute path of the store file.
  #[napi(getter)]
  pub fn path(&self) -> String {
    self.core.path.clone()
  }

  /// Writer check, input, plan: a checked write, not yet asked about.
  fn plan(
    &self,
    env: &Env,
    (what, plan): WriteKind,
    input: Unknown,
    write: Unknown,
  ) -> crate::Result<Plan> {
    let writer = writer_of(env, write)?;
    let input = data(env, &format!("{what} input"), input)?;
    self.core.run(|m| m.planned(|m| plan(m, &input, writer)))
  }

  /// The shared write path: plan, gate, finish.
  fn gated<'e>(&self, env: &'e Env, op: WriteKind, input: Unknown, write: Unknown) -> Js<'e> {
    match self.plan(env, op, input, write) {
      Ok(plan) => gate::ask(env, self.core.clone(), plan, write),
      Err(e) => settled::<()>(env, Err(e)),
    }
  }

  /// The approval payload a write would ask for, without asking or writing: what a
  /// confirmation shows before the user commits to it (`action`: `add`, `replace`, `remove`,
  /// `consolidate`, `seed`, or `approve` with a proposal id as input). Throws the write's
  /// planning errors.
  #[napi]
  pub fn preview<'e>(
    &self,
    env: &'e Env,
    action: Unknown,
    input: Unknown,
    write: Unknown,
  ) -> Result<Unknown<'e>> {
    let op = text(&action).and_then(|a| OPS.into_iter().find(|(name, _)| *name == a));
    let Some(op) = op else {
      let names = OPS.map(|(name, _)| name).join(", ");
      let bad = MemoryError::invalid(format!("preview action must be one of {names}"));
      return Err(throw(env, bad));
    };
    let planned = self.plan(env, op, input, write);
    read(env, planned.map(|p| p.payload().clone()))
  }

  /// Insert a new entry (fresh id, version 1) after approval.
  #[napi]
  pub fn add<'e>(&self, env: &'e Env, input: Unknown, write: Unknown) -> Result<Unknown<'e>> {
    self.gated(env, ADD, input, write)
  }

  /// Rewrite exactly one entry located by a unique substring; id stable, version + 1.
  #[napi]
  pub fn replace<'e>(&self, env: &'e Env, input: Unknown, write: Unknown) -> Result<Unknown<'e>> {
    self.gated(env, REPLACE, input, write)
  }

  /// Delete exactly one entry located by a unique substring.
  #[napi]
  pub fn remove<'e>(&self, env: &'e Env, input: Unknown, write: Unknown) -> Result<Unknown<'e>> {
    self.gated(env, REMOVE, input, write)
  }

  /// Atomically replace 1..20 entries with one new entry: one approval, one transaction.
  #[napi]
  pub fn consolidate<'e>(
    &self,
    env: &'e Env,
    input: Unknown,
    write: Unknown,
  ) -> Result<Unknown<'e>> {
    self.gated(env, CONSOLIDATE, input, write)
  }

  /// Insert a batch under one approval; all or nothing, budgets checked before asking.
  #[napi]
  pub fn seed<'e>(&self, env: &'e Env, inputs: Unknown, write: Unknown) -> Result<Unknown<'e>> {
    self.gated(env, SEED, inputs, write)
  }

  /// Undo the landed change audit row `seq` belongs to, asked like any write.
  #[napi]
  pub fn revert<'e>(&self, env: &'e Env, seq: Unknown, write: Unknown) -> Result<Unknown<'e>> {
    self.gated(env, REVERT, seq, write)
  }

  /// Every version of an entry (an id, an audit seq or `{match, track, scope}`) the ledger
  /// holds; `{agentKey, workspaceKey}`: only of what that session sees.
  #[napi]
  pub fn history<'e>(&self, env: &'e Env, target: Unknown, opts: Unknown) -> Result<Unknown<'e>> {
    let target = calls::history_target(&arg(env, "history target", target)?);
    let vis = visibility(&arg(env, "history options", opts)?);
    read(
      env,
      target.and_then(|t| self.core.run(|m| m.history(&t, &vis))),
    )
  }

  /// Recorded sessions, newest first (`{limit, agentKey, workspaceKey}`), or (`{sessionId}`) the
  /// one with the exact snapshot text it was given: `{sessions: […]}`.
  #[napi]
  pub fn sessions<'e>(&self, env: &'e Env, opts: Unknown) -> Result<Unknown<'e>> {
    let opts = arg(env, "sessions options", opts)?;
    let (id, limit) = (opts["sessionId"].as_str(), count(&opts["limit"], 0));
    let found = self.core.run(|m| m.sessions(id, limit, &visibility(&opts)));
    read(
      env,
      found.map(|sessions| serde_json::json!({ "sessions": sessions })),
    )
  }

  /// Decide a pending proposal: `approved` is a gated add committed with the decision.
  #[napi]
  pub fn proposal_decide<'e>(
    &self,
    env: &'e Env,
    id: Unknown,
    decision: Unknown,
    write: Unknown,
  ) -> Result<Unknown<'e>> {
    let bad = |m: &str| settled::<()>(env, Err(MemoryError::invalid(m)));
    let Some(id_text) = text(&id).filter(|id| !id.is_empty()) else {
      return bad("proposal id must be a non-empty string");
    };
    match text(&decision).as_deref() {
      Some("approved") => self.gated(env, APPROVE, id, write),
      Some("dismissed") => {
        let dismiss = |m: &mut Memory, w: &Writer| m.proposal_dismiss(&id_text, w);
        let dismissed = writer_of(env, write).and_then(|w| self.core.run(|m| dismiss(m, &w)));
        settled(env, dismissed.map(|p| serde_json::json!({ "proposal": p })))
      }
      _ => bad("proposal decision must be approved or dismissed"),
    }
  }

  /// Substring search ranked by recall count then recency; bumps recall counters.
  #[napi]
  pub fn query<'e>(&self, env: &'e Env, filter: Unknown, opts: Unknown) -> Result<Unknown<'e>> {
    let filter = arg(env, "query filter", filter)?;
    let options = calls::query_options(&arg(env, "query options", opts)?);
    read(env, self.core.run(|m| m.query(&filter, &options)))
  }

  /// Usage per layer (4 rows). `{workspaceKey}` reports that workspace's layers.
  #[napi]
  pub fn budgets<'e>(&self, env: &'e Env, opts: Unknown) -> Result<Unknown<'e>> {
    // Its one field read as it is: no JSON round trip of the options object.
    let ws = field(env, Some(opts), "workspaceKey");
    let ws = ws.map_or(Ok(None), |w| opt_text(env, "budgets workspaceKey", w))?;
    read(env, self.core.run(|m| m.budgets(ws.as_deref())))
  }

  /// Every entry, oldest first; `{agentKey, workspaceKey}` narrows it to a session's visible set,
  /// `{only: {track, scope, workspaceKey, agentKey}}` to exact facets.
  #[napi]
  pub fn list_entries<'e>(&self, env: &'e Env, opts: Unknown) -> Result<Unknown<'e>> {
    let opts = arg(env, "listEntries options", opts)?;
    let (vis, only) = (visibility(&opts), calls::only(&opts));
    read(env, self.core.run(|m| m.list(Some(&vis), &only)))
  }

  /// The entry `id`, or `null` when there is none.
  #[napi]
  pub fn entry<'e>(&self, env: &'e Env, id: Unknown) -> Result<Unknown<'e>> {
    let Some(id) = js::text(&id) else {
      return Err(throw(
        env,
        MemoryError::invalid("entry takes an id (string)"),
      ));
    };
    read(env, self.core.run(|m| m.entry(&id)))
  }

  /// Newest audit rows first (default 100).
  #[napi]
  pub fn audit_list<'e>(&self, env: &'e Env, limit: Unknown) -> Result<Unknown<'e>> {
    let limit = count(&arg(env, "audit limit", limit)?, 100);
    read(env, self.core.run(|m| m.audit_list(limit)))
  }

  /// The snapshot text of a session's visible set (`labels`: the plugin's words; English by
  /// default), then, unless `maxProposals` is 0, how many pending proposals it sees and of which
  /// kinds (never their text). Reads only;
  /// [`MemoryProvider::snapshot_record`] freezes it.
  #[napi]
  pub fn snapshot(&self, env: Env, keys: Unknown, labels: Unknown, max: Unknown) -> Result<String> {
    let vis = visibility(&arg(&env, "snapshot keys", keys)?);
    let labels = arg(&env, "snapshot labels", labels)?;
    let max = count(&arg(&env, "maxProposals", max)?, 0);
    let rendered = self
      .core
      .run(|m| m.snapshot_with_proposals(&vis, &labels, max));
    rendered.map_err(|e| throw(&env, e))
  }

  /// Freeze a session's snapshot: the first text recorded for the session id wins and is audited
  /// once, with the keys of the visible set it shows (`{agentKey, workspaceKey}`); later calls
  /// (any process, any reload) return that text.
  #[napi]
  pub fn snapshot_record(
    &self,
    env: Env,
    session_id: Unknown,
    text: Unknown,
    keys: Unknown,
  ) -> Result<String> {
    let (Some(session), Some(text)) = (js::text(&session_id), js::text(&text)) else {
      let usage = "snapshotRecord takes (sessionId: string, text: string, keys?)";
      return Err(throw(&env, MemoryError::invalid(usage)));
    };
    let vis = visibility(&arg(&env, "snapshot keys", keys)?);
    let recorded = self.core.run(|m| m.snapshot_record(&session, &text, &vis));
    recorded.map_err(|e| throw(&env, e))
  }

  /// The health check: per layer, near-duplicates, updates of one fact, entries not recalled for
  /// `staleDays`, entries naming files that no longer exist, credentials, oversized entries —
  /// each with the gated write that fixes it. Reads only. `{agentKey, workspaceKey}` narrows it
  /// to a session's visible set.
  #[napi]
  pub fn health<'e>(&self, env: &'e Env, opts: Unknown) -> Result<Unknown<'e>> {
    let opts = calls::health_options(&arg(env, "health options", opts)?, crate::store::now_ms());
    read(env, opts.and_then(|o| self.core.run(|m| m.health(&o))))
  }

  /// Walk the audit hash chain: `{ok, checked, head, firstBroken}`.
  #[napi]
  pub fn audit_verify<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
    read(env, self.core.run(|m| m.audit_verify()))
  }

  /// Record a pending proposal; `null` when this session already has one of this kind pending.
  #[napi]
  pub fn proposal_add<'e>(&self, env: &'e Env, input: Unknown) -> Result<Unknown<'e>> {
    let proposal = calls::proposal_input(arg(env, "proposal input", input)?);
    read(env, self.core.run(|m| m.proposal_add(proposal)))
  }

  /// Proposals, optionally of one status, oldest first (default limit 100).
  #[napi]
  pub fn proposal_list<'e>(
    &self,
    env: &'e Env,
    status: Unknown,
    limit: Unknown,
  ) -> Result<Unknown<'e>> {
    let status = opt_text(env, "proposal status", status)?;
    let limit = count(&arg(env, "proposal limit", limit)?, 100);
    let listed = self.core.run(|m| m.proposal_list(status.as_deref(), limit));
    read(env, listed)
  }

  /// Close the store. Idempotent; later calls fail with `STORE_CORRUPT` ("closed").
  #[napi]
  pub fn close(&self) {
    if let Ok(mut memory) = self.core.memory.try_borrow_mut() {
      memory.take();
    }
  }
}

/// Where the store of `dbPath` lives (`$DSH_HOME`, fallback `~/.dsh`), as the provider resolves it.
#[napi]
pub fn resolve_db_path(env: Env, db_path: Unknown) -> Result<String> {
  let db_path = opt_text(&env, "dbPath", db_path)?;
  Ok(keys::store_path(&db_path.unwrap_or_default()))
}

/// The dsh home (`$DSH_HOME`, fallback `~/.dsh`): where the store and dsh's session logs live.
#[napi]
pub fn dsh_home() -> String {
  keys::host_dsh_home()
}

/// Normalized workspace key of a cwd (`''` when none).
#[napi]
pub fn workspace_key_of(cwd: Unknown) -> String {
  keys::workspace_key_of(text(&cwd).as_deref())
}

/// Normalized agent key of an agent preset (`''` when none).
#[napi]
pub fn agent_key_of(preset: Unknown) -> String {
  keys::agent_key_of(text(&preset).as_deref())
}

/// The lines of `text` as they may be shown on a terminal: split wherever a reader may break a
/// line (`\r` included), every control and invisible character, and half a surrogate pair, written
/// as an escape (`\u{1b}`).
#[napi]
pub fn visible_lines(text: Unknown) -> Vec<String> {
  let text = js::text_escaped(&text).unwrap_or_default();
  let lines = crate::text::line_breaks(&text);
  lines
    .map(|l| crate::text::visible(l).into_owned())
    .collect()
}

/// `text` on one line as it may be shown: every control, line-breaking and invisible character
/// written as an escape (`\u{a}`).
#[napi]
pub fn visible_text(text: Unknown) -> String {
  let text = js::text_escaped(&text).unwrap_or_default();
  crate::text::visible(&text).into_owned()
}

/// The protocol's enums and limits, for every JS surface that needs them (one source: the core).
#[napi]
pub fn rules<'e>(env: &'e Env) -> Result<Unknown<'e>> {
  let rules = serde_json::json!({
    "tracks": Track::ALL.map(Track::as_str),
    "scopes": Scope::ALL.map(Scope::as_str),
    "writePolicies": WritePolicy::ALL.map(WritePolicy::as_str),
    "maxConsolidateMatches": model::MAX_CONSOLIDATE_MATCHES,
    "maxQueryLimit": model::MAX_QUERY_LIMIT,
    "errorCodes": crate::error::MemoryError::CODES,
    "snapshotLabels": crate::protocol::snapshot::Labels::default().to_json(),
    "protocol": model::PROTOCOL,
    "defaultLayer": { "track": model::DEFAULT_LAYER.0.as_str(), "scope": model::DEFAULT_LAYER.1.as_str() },
    "maxTagsPerEntry": crate::text::MAX_TAGS_PER_ENTRY,
    "maxTagLength": crate::text::MAX_TAG_LENGTH,
  });
  to_js(env, &rules)
}

/// The coded error of an adapter's fault (`{adapterId, message?, file?, line?, path?}`; no
/// message: `ADAPTER_NOT_FOUND`), for the JS adapters to throw: its words are the core's.
#[napi]
pub fn adapter_error<'e>(env: &'e Env, fault: Unknown) -> Result<Unknown<'e>> {
  js::error_object(
    env,
    &calls::adapter_error(&arg(env, "adapter fault", fault)?),
  )
}

/// The plugin config with every default filled in, checked in the reference order (throws
/// `INVALID_INPUT` with the reference messages). `enabled: false` skips the checks.
#[napi]
pub fn resolve_config<'e>(env: &'e Env, raw: Unknown) -> Result<Unknown<'e>> {
  let resolved = config::resolve(&arg(env, "dsh-memento config", raw)?);
  to_js(env, &resolved.map_err(|e| throw(env, e))?)
}

/// The entry inputs a write refuses as credentials, in order: `[{index, kind, field, excerpt}]`.
#[napi]
pub fn screen_entries<'e>(env: &'e Env, inputs: Unknown) -> Result<Unknown<'e>> {
  read(env, inputs::screen(&arg(env, "entry inputs", inputs)?))
}
