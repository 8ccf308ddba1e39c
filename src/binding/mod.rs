//! The only code that names napi: the native core of the provider over [`Memory`] (the JS class
//! `MemoryProvider` of lib/provider.mjs names its methods and hands each call here by name), and
//! the core's rules the JS layer asks for by name instead of keeping its own copy. The types
//! users code to are index.d.ts; arguments arrive as `unknown`.
//!
//! Every call converts its arguments ([`js::data`]: JSON, refusing what JSON cannot carry),
//! calls the API ([`crate::api`]), and maps [`MemoryError`] to a JS `Error` with `.code` and
//! `.details`. Writes ask the provider's own approval callback and finish in one synchronous
//! core call ([`gate`]).
#![allow(unsafe_code)] // napi-derive expands to unsafe glue.

use std::cell::RefCell;
use std::rc::Rc;

use napi::bindgen_prelude::*;
use napi::{sys, Env, ValueType};
use napi_derive::napi;
use serde_json::Value;

use crate::api::{calls, config, open, reads, rules, writes};
use crate::engine::{Memory, Plan};
use crate::error::{MemoryError, StoreReason};
use crate::protocol::model::Writer;

mod gate;
mod js;

use js::{absent, data, field, parsed, settled, text, throw, to_js};

/// A JS function held across calls, called with raw values.
type Held<A> = FunctionRef<FnArgs<A>, Unknown<'static>>;
type Raw = sys::napi_value;
/// What internal helpers hand back: a JS value (a promise, for writes), or an exception.
type Js<'e> = Result<Unknown<'e>>;
const BUSY: &str = "memory store is busy in a re-entrant call";

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

/// A sync call's answer in JS, or its error thrown.
fn answer<'e, T: serde::Serialize>(env: &'e Env, result: crate::Result<T>) -> Js<'e> {
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

/// The native core of the provider. Writes are async and gated by the `gate` given at
/// construction; reads are synchronous.
#[napi]
pub struct Native {
  core: Rc<Core>,
}

#[napi]
impl Native {
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
    for name in config::PROVIDER_OPTIONS.split(' ') {
      let value = field(&env, Some(options), name).map_or(Ok(Value::Null), |v| data(&env, name, v));
      given.insert(name.into(), value.map_err(|e| throw(&env, e))?);
    }
    let memory = open::open(&Value::Object(given)).map_err(|e| throw(&env, e))?;
    let path = memory.path().to_string();
    let core = Rc::new(Core {
      memory: RefCell::new(Some(memory)),
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

  /// Writer check, input, plan: a checked write of `kind`, not yet asked about.
  fn plan(&self, env: &Env, kind: &Unknown, input: Unknown, write: Unknown) -> crate::Result<Plan> {
    let (what, plan) = writes::planner(text(kind).as_deref())?;
    let writer = writer_of(env, write)?;
    let input = data(env, &format!("{what} input"), input)?;
    self.core.run(|m| m.planned(|m| plan(m, &input, writer)))
  }

  /// A write of `kind` (add, replace, remove, consolidate, seed, approve with a proposal id,
  /// revert with an audit seq): planned, asked of the gate, finished. Its promise.
  #[napi]
  pub fn write<'e>(
    &self,
    env: &'e Env,
    kind: Unknown,
    input: Unknown,
    write: Unknown,
  ) -> Result<Unknown<'e>> {
    match self.plan(env, &kind, input, write) {
      Ok(plan) => gate::ask(env, self.core.clone(), plan, write),
      Err(e) => settled::<()>(env, Err(e)),
    }
  }

  /// The approval payload a write of `kind` would ask for, without asking or writing: what a
  /// confirmation shows before the user commits to it. Throws the write's planning errors.
  #[napi]
  pub fn preview<'e>(
    &self,
    env: &'e Env,
    kind: Unknown,
    input: Unknown,
    write: Unknown,
  ) -> Result<Unknown<'e>> {
    let plan = self.plan(env, &kind, input, write);
    to_js(env, plan.map_err(|e| throw(env, e))?.payload())
  }

  /// Decide a pending proposal: `approved` is a gated add committed with the decision.
  #[napi]
  pub fn decide<'e>(
    &self,
    env: &'e Env,
    id: Unknown,
    decision: Unknown,
    write: Unknown,
  ) -> Result<Unknown<'e>> {
    let dismiss = |id: Value| {
      writer_of(env, write).and_then(|w| self.core.run(|m| writes::dismiss(m, &id, &w)))
    };
    let unknown = "proposal decision must be approved or dismissed";
    match text(&decision).as_deref() {
      Some("approved") => self.write(env, env.create_string("approve")?.to_unknown(), id, write),
      Some("dismissed") => settled(env, data(env, "proposal id", id).and_then(dismiss)),
      _ => settled::<()>(env, Err(MemoryError::invalid(unknown))),
    }
  }

  /// Usage per layer (4 rows); `{workspaceKey}` reports that workspace's layers. Its one field
  /// is read as it is, so a value that is no string is refused as one.
  #[napi]
  pub fn budgets<'e>(&self, env: &'e Env, opts: Unknown) -> Result<Unknown<'e>> {
    let ws = field(env, Some(opts), "workspaceKey").filter(|w| !absent(w));
    let not_text = || MemoryError::invalid("budgets workspaceKey must be a string");
    let ws = ws.map(|w| text(&w).ok_or_else(not_text)).transpose();
    let usage = ws.and_then(|ws| self.core.run(|m| m.budgets(ws.as_deref())));
    answer(env, usage)
  }

  /// A synchronous call by name with its arguments (an array): a read, or an ungated record
  /// (see [`reads::READS`]).
  #[napi]
  pub fn read<'e>(&self, env: &'e Env, name: Unknown, args: Unknown) -> Result<Unknown<'e>> {
    let name = text(&name).unwrap_or_default();
    let args = arg(env, &format!("{name} arguments"), args)?;
    let args = args.as_array().map_or(&[][..], Vec::as_slice);
    let answer = self.core.run(|m| reads::read(m, &name, args));
    parsed(env, &answer.map_err(|e| throw(env, e))?)
  }

  /// Close the store. Idempotent; later calls fail with `STORE_CORRUPT` ("closed").
  #[napi]
  pub fn close(&self) {
    // A close from inside a gate or getter finds the engine in use: it stays open.
    if let Ok(mut memory) = self.core.memory.try_borrow_mut() {
      *memory = None;
    }
  }
}

/// A rule of the core by name (see [`rules::RULES`]), and three that read a JS value as it is:
/// `visibleLines` and `visibleText` (the text a terminal may show, half a surrogate pair
/// escaped) and `adapterError` (the coded error of an adapter's fault, made here so its words
/// are the core's).
#[napi]
pub fn rule<'e>(env: &'e Env, name: Unknown, input: Unknown) -> Result<Unknown<'e>> {
  let name = text(&name).unwrap_or_default();
  let shown = || js::text_escaped(&input).unwrap_or_default();
  match name.as_str() {
    "visibleLines" => {
      let shown = shown();
      let lines = crate::text::line_breaks(&shown).map(crate::text::visible);
      to_js(env, &lines.collect::<Vec<_>>())
    }
    "visibleText" => to_js(env, &crate::text::visible(&shown())),
    "adapterError" => {
      let fault = arg(env, "adapter fault", input)?;
      js::error_object(env, &calls::adapter_error(&fault))
    }
    _ => {
      let input = arg(env, &name, input)?;
      parsed(env, &rules::rule(&name, &input).map_err(|e| throw(env, e))?)
    }
  }
}
