//! The only code that names napi: the `MemoryProvider` JS class over [`Memory`], and the rule
//! functions the JS layer calls instead of keeping its own copy.
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

use crate::engine::{Memory, Plan, ProposalInput, QueryOptions};
use crate::error::{MemoryError, StoreReason};
use crate::protocol::model::Writer;
use crate::protocol::snapshot::Labels;
use crate::protocol::{config, inputs, keys, pending};
use crate::store::{Store, Visibility};

mod gate;
mod js;

use js::{data, field, settled, text, throw, to_js};

/// A JS function held across calls, called with raw values.
type Held<A> = FunctionRef<FnArgs<A>, Unknown<'static>>;
type Raw = sys::napi_value;

/// What a write's promise and every read share: the engine and the JS functions given at
/// construction (held until the last pending write is done with them).
struct Core {
  memory: RefCell<Option<Memory>>,
  gate: Held<(Raw, Raw)>,
  audit_label: Option<Held<(Raw, Raw, Raw)>>,
  path: String,
}

impl Core {
  /// Run `f` on the open engine. No JS runs while it holds the engine, so a re-entrant call
  /// (a gate or getter calling back into the provider) always finds it free.
  fn run<T>(&self, f: impl FnOnce(&mut Memory) -> crate::Result<T>) -> crate::Result<T> {
    let fail = |reason, what: String| MemoryError::store(&self.path, reason, &what, None);
    let busy = || {
      fail(
        StoreReason::Busy,
        "memory store is busy in a re-entrant call".into(),
      )
    };
    let mut memory = self.memory.try_borrow_mut().map_err(|_| busy())?;
    let closed = || {
      fail(
        StoreReason::Closed,
        format!("memory store at {} is closed", self.path),
      )
    };
    f(memory.as_mut().ok_or_else(closed)?)
  }
}

/// Keep a JS function for later calls.
fn held<A>(f: Unknown) -> Result<Held<A>>
where
  FnArgs<A>: JsValuesTupleIntoVec,
{
  Function::from_unknown(f)?.create_ref()
}

/// Caller data for a sync method (a coded error is thrown).
fn arg(env: &Env, what: &str, value: Option<Unknown>) -> Result<Value> {
  data(env, what, value.as_ref()).map_err(|e| throw(env, e))
}

/// The writer of a write context `{agent: {session: {id, header: {cwd, agentPreset}}}}`.
fn writer_of(env: &Env, write: Option<&Unknown<'_>>) -> crate::Result<Writer> {
  let session = field(env, field(env, write.copied(), "agent"), "session");
  let header = field(env, session, "header");
  let text_at = |v, key| field(env, v, key).and_then(|s| text(&s));
  let (cwd, preset) = (text_at(header, "cwd"), text_at(header, "agentPreset"));
  Writer::new(
    text_at(session, "id").as_deref(),
    cwd.as_deref(),
    preset.as_deref(),
  )
}

/// `opts[key]` when it is a string.
fn string_of(opts: &Value, key: &str) -> Option<String> {
  opts.get(key).and_then(Value::as_str).map(str::to_string)
}

/// The `{agentKey, workspaceKey}` of an options object (absent or not a string: no filter).
fn visibility_of(opts: &Value) -> Visibility {
  let (agent_key, workspace_key) = (string_of(opts, "agentKey"), string_of(opts, "workspaceKey"));
  Visibility {
    agent_key,
    workspace_key,
  }
}

/// A positive count argument, else `default`.
fn count_of(value: &Value, default: u64) -> u64 {
  value.as_u64().filter(|n| *n > 0).unwrap_or(default)
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
    let given = |name| {
      field(&env, Some(options), name)
        .filter(|f| !matches!(f.get_type(), Ok(ValueType::Undefined | ValueType::Null)))
    };
    let is_fn = |f: &Unknown| f.get_type().ok() == Some(ValueType::Function);
    let gate = given("gate").filter(is_fn).ok_or_else(|| {
      bad("MemoryProvider requires options.gate: the async approval callback (payload, write) => outcome")
    })?;
    let audit_label = given("auditLabel");
    if audit_label.as_ref().is_some_and(|f| !is_fn(f)) {
      return Err(bad(
        "auditLabel must be a function (outcome, payload, write) => string",
      ));
    }
    let mut opts = serde_json::Map::new();
    for name in config::PROVIDER_OPTIONS {
      opts.insert(
        name.into(),
        arg(&env, name, field(&env, Some(options), name))?,
      );
    }
    let opts = config::provider(&Value::Object(opts)).map_err(|e| throw(&env, e))?;
    let store = Store::open(
      std::path::Path::new(&opts.db_path),
      opts.audit_retention_days,
    );
    let memory = Memory::new(store.map_err(|e| throw(&env, e))?, opts.config);
    let (gate, audit_label) = (held(gate)?, audit_label.map(held).transpose()?);
    let core = Core {
      memory: RefCell::new(Some(memory)),
      gate,
      audit_label,
      path: opts.db_path,
    };
    Ok(Self {
      core: Rc::new(core),
    })
  }

  /// Absolute path of the store file.
  #[napi(getter)]
  pub fn path(&self) -> String {
    self.core.path.clone()
  }

  fn read<'e, T: serde::Serialize>(
    &self,
    env: &'e Env,
    f: impl FnOnce(&mut Memory) -> crate::Result<T>,
  ) -> Result<Unknown<'e>> {
    to_js(env, &self.core.run(f).map_err(|e| throw(env, e))?)
  }

  /// The shared write path: writer check, input, plan, gate, finish.
  fn gated<'e>(
    &self,
    env: &'e Env,
    what: &str,
    input: Option<Unknown>,
    write: Option<Unknown>,
    plan: impl FnOnce(&mut Memory, &Value, Writer) -> crate::Result<Plan>,
  ) -> Result<Unknown<'e>> {
    let planned = writer_of(env, write.as_ref()).and_then(|writer| {
      let input = data(env, what, input.as_ref())?;
      self
        .core
        .run(|m| Ok((m.planned(|m| plan(m, &input, writer))?, m.policy_answer())))
    });
    match (planned, write) {
      (Ok((plan, policy)), Some(write)) => gate::ask(env, self.core.clone(), plan, policy, write),
      (Err(e), _) => settled::<()>(env, Err(e)),
      (Ok(_), None) => settled::<()>(env, Err(MemoryError::WriteRequiresAgent)),
    }
  }

  /// Insert a new entry (fresh id, version 1) after approval.
  #[napi]
  pub fn add<'e>(
    &self,
    env: &'e Env,
    input: Option<Unknown>,
    write: Option<Unknown>,
  ) -> Result<Unknown<'e>> {
    self.gated(env, "add input", input, write, |m, input, w| {
      m.plan_add(input, w)
    })
  }

  /// Rewrite exactly one entry located by a unique substring; id stable, version + 1.
  #[napi]
  pub fn replace<'e>(
    &self,
    env: &'e Env,
    input: Option<Unknown>,
    write: Option<Unknown>,
  ) -> Result<Unknown<'e>> {
    self.gated(env, "replace input", input, write, |m, input, w| {
      m.plan_replace(input, w)
    })
  }

  /// Delete exactly one entry located by a unique substring.
  #[napi]
  pub fn remove<'e>(
    &self,
    env: &'e Env,
    input: Option<Unknown>,
    write: Option<Unknown>,
  ) -> Result<Unknown<'e>> {
    self.gated(env, "remove input", input, write, |m, input, w| {
      m.plan_remove(input, w)
    })
  }

  /// Atomically replace 1..20 entries with one new entry: one approval, one transaction.
  #[napi]
  pub fn consolidate<'e>(
    &self,
    env: &'e Env,
    input: Option<Unknown>,
    write: Option<Unknown>,
  ) -> Result<Unknown<'e>> {
    self.gated(env, "consolidate input", input, write, |m, input, w| {
      m.plan_consolidate(input, w)
    })
  }

  /// Insert a batch under one approval; all or nothing, budgets checked before asking.
  #[napi]
  pub fn seed<'e>(
    &self,
    env: &'e Env,
    inputs: Option<Unknown>,
    write: Option<Unknown>,
  ) -> Result<Unknown<'e>> {
    self.gated(env, "seed inputs", inputs, write, |m, inputs, w| {
      m.plan_seed(inputs, w)
    })
  }

  /// Decide a pending proposal: `approved` is a gated add committed with the decision.
  #[napi]
  pub fn proposal_decide<'e>(
    &self,
    env: &'e Env,
    id: Option<Unknown>,
    decision: Option<Unknown>,
    write: Option<Unknown>,
  ) -> Result<Unknown<'e>> {
    let Some(id) = id.and_then(|id| text(&id)).filter(|id| !id.is_empty()) else {
      return settled::<()>(
        env,
        Err(MemoryError::invalid(
          "proposal id must be a non-empty string",
        )),
      );
    };
    match decision.and_then(|d| text(&d)).as_deref() {
      Some("approved") => self.gated(env, "", None, write, |m, _, w| m.plan_approve(&id, w)),
      Some("dismissed") => {
        let dismissed = writer_of(env, write.as_ref())
          .and_then(|w| self.core.run(|m| m.proposal_dismiss(&id, &w)));
        settled(env, dismissed.map(|p| serde_json::json!({ "proposal": p })))
      }
      _ => settled::<()>(
        env,
        Err(MemoryError::invalid(
          "proposal decision must be approved or dismissed",
        )),
      ),
    }
  }

  /// Substring search ranked by recall count then recency; bumps recall counters.
  #[napi]
  pub fn query<'e>(
    &self,
    env: &'e Env,
    filter: Option<Unknown>,
    opts: Option<Unknown>,
  ) -> Result<Unknown<'e>> {
    let (filter, opts) = (
      arg(env, "query filter", filter)?,
      arg(env, "query options", opts)?,
    );
    let count_recall = opts
      .get("countRecall")
      .and_then(Value::as_bool)
      .unwrap_or(true);
    let (session_id, visibility) = (string_of(&opts, "sessionId"), visibility_of(&opts));
    let options = QueryOptions {
      session_id,
      visibility,
      count_recall,
    };
    self.read(env, |m| m.query(&filter, &options))
  }

  /// Usage per layer (4 rows). `{workspaceKey}` reports that workspace's layers.
  #[napi]
  pub fn budgets<'e>(&self, env: &'e Env, opts: Option<Unknown>) -> Result<Unknown<'e>> {
    let ws = string_of(&arg(env, "budgets options", opts)?, "workspaceKey");
    self.read(env, |m| m.budgets(ws.as_deref()))
  }

  /// Every entry, oldest first; `{agentKey, workspaceKey}` narrows it to a session's visible set.
  #[napi]
  pub fn list_entries<'e>(&self, env: &'e Env, opts: Option<Unknown>) -> Result<Unknown<'e>> {
    let vis = visibility_of(&arg(env, "listEntries options", opts)?);
    let narrowed = vis.agent_key.is_some() || vis.workspace_key.is_some();
    self.read(env, |m| m.list_entries(narrowed.then_some(&vis)))
  }

  /// Newest audit rows first (default 100).
  #[napi]
  pub fn audit_list<'e>(&self, env: &'e Env, limit: Option<Unknown>) -> Result<Unknown<'e>> {
    let limit = count_of(&arg(env, "audit limit", limit)?, 100);
    self.read(env, |m| m.audit_list(limit))
  }

  /// The snapshot text of a session's visible set (`labels`: the plugin's words; English by
  /// default), then up to `maxProposals` of the pending proposals it sees. Reads only;
  /// [`MemoryProvider::snapshot_record`] freezes it.
  #[napi]
  pub fn snapshot(
    &self,
    env: Env,
    keys: Option<Unknown>,
    labels: Option<Unknown>,
    max_proposals: Option<Unknown>,
  ) -> Result<String> {
    let vis = visibility_of(&arg(&env, "snapshot keys", keys)?);
    let labels = arg(&env, "snapshot labels", labels)?;
    let max = count_of(&arg(&env, "maxProposals", max_proposals)?, 0);
    let rendered = self.core.run(|m| {
      let text = m.snapshot(&vis, &Labels::from_json(&labels)?)?;
      let pending = if max == 0 {
        Vec::new()
      } else {
        m.proposal_list(Some("pending"), pending::SCAN)?
      };
      pending::append(
        text,
        &serde_json::to_value(pending).unwrap_or_default(),
        &vis,
        max,
        &labels,
      )
    });
    rendered.map_err(|e| throw(&env, e))
  }

  /// Freeze a session's snapshot: the first text recorded for the session id wins and is audited
  /// once; later calls (any process, any reload) return that text.
  #[napi]
  pub fn snapshot_record(
    &self,
    env: Env,
    session_id: Option<Unknown>,
    text: Option<Unknown>,
  ) -> Result<String> {
    let (Some(session), Some(text)) = (
      session_id.and_then(|s| js::text(&s)),
      text.and_then(|t| js::text(&t)),
    ) else {
      return Err(throw(
        &env,
        MemoryError::invalid("snapshotRecord takes (sessionId: string, text: string)"),
      ));
    };
    self
      .core
      .run(|m| m.snapshot_record(&session, &text))
      .map_err(|e| throw(&env, e))
  }

  /// Walk the audit hash chain: `{ok, checked, head, firstBroken}`.
  #[napi]
  pub fn audit_verify<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
    self.read(env, |m| m.audit_verify())
  }

  /// Record a pending proposal; `null` when this session already has one of this kind pending.
  #[napi]
  pub fn proposal_add<'e>(&self, env: &'e Env, input: Option<Unknown>) -> Result<Unknown<'e>> {
    let input = arg(env, "proposal input", input)?;
    let (kind, session_id) = (
      string_of(&input, "kind").unwrap_or_default(),
      string_of(&input, "sessionId"),
    );
    self.read(env, |m| {
      m.proposal_add(ProposalInput {
        kind,
        input,
        session_id,
      })
    })
  }

  /// Proposals, optionally of one status, oldest first (default limit 100).
  #[napi]
  pub fn proposal_list<'e>(
    &self,
    env: &'e Env,
    status: Option<Unknown>,
    limit: Option<Unknown>,
  ) -> Result<Unknown<'e>> {
    let status = match arg(env, "proposal status", status)? {
      Value::Null => None,
      Value::String(s) => Some(s),
      other => {
        return Err(throw(
          env,
          MemoryError::invalid(format!("proposal status must be a string, got {other}")),
        ))
      }
    };
    let limit = count_of(&arg(env, "proposal limit", limit)?, 100);
    self.read(env, |m| m.proposal_list(status.as_deref(), limit))
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
pub fn resolve_db_path(env: Env, db_path: Option<Unknown>) -> Result<String> {
  match arg(&env, "dbPath", db_path)? {
    Value::Null => Ok(keys::store_path("")),
    Value::String(s) => Ok(keys::store_path(&s)),
    _ => Err(throw(&env, MemoryError::invalid("dbPath must be a string"))),
  }
}

/// Normalized workspace key of a cwd (`''` when none).
#[napi]
pub fn workspace_key_of(cwd: Option<Unknown>) -> String {
  keys::workspace_key_of(cwd.and_then(|c| text(&c)).as_deref())
}

/// Normalized agent key of an agent preset (`''` when none).
#[napi]
pub fn agent_key_of(preset: Option<Unknown>) -> String {
  keys::agent_key_of(preset.and_then(|p| text(&p)).as_deref())
}

/// The plugin config with every default filled in, checked in the reference order (throws
/// `INVALID_INPUT` with the reference messages). `enabled: false` skips the checks.
#[napi]
pub fn resolve_config<'e>(env: &'e Env, raw: Option<Unknown>) -> Result<Unknown<'e>> {
  to_js(
    env,
    &config::resolve(&arg(env, "dsh-memento config", raw)?).map_err(|e| throw(env, e))?,
  )
}

/// Check a batch of entry inputs as `add`/`seed` do: `{inputs}` (normalized copies) or the first
/// failure, `{index, message}`.
#[napi]
pub fn validate_entry_inputs<'e>(env: &'e Env, inputs: Option<Unknown>) -> Result<Unknown<'e>> {
  to_js(env, &inputs::check(&arg(env, "entry inputs", inputs)?))
}
