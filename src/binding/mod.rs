//! The only file that names napi: the `MemoryProvider` JS class over [`Memory`].
//!
//! Every method converts its arguments (rejecting BigInt, Symbol, functions and lone surrogates
//! with `INVALID_INPUT` instead of crashing), calls the core, and maps [`MemoryError`] to a JS
//! `Error` with `.code` and `.details`. Writes call the provider's own approval callback on the
//! main thread, await its answer ([`gate`]), and finish in one synchronous core call.
#![allow(unsafe_code)] // napi-derive expands to unsafe glue; `Unknown::cast` after a type check.

use std::cell::RefCell;
use std::rc::Rc;

use napi::bindgen_prelude::*;
use napi::{Env, JsString, ValueType};
use napi_derive::napi;
use serde_json::{Map, Value};

use crate::engine::{
  Config, Finished, GateAnswer, Memory, Plan, ProposalInput, QueryOptions, SecretPolicy,
  WritePolicy,
};
use crate::error::{MemoryError, StoreReason};
use crate::protocol::keys;
use crate::protocol::model::{Budgets, Writer};
use crate::protocol::snapshot::Labels;
use crate::store::{Store, Visibility};

mod gate;

type Shared = Rc<RefCell<Option<Memory>>>;
/// A held JS function (released by napi when the class is collected).
type HeldFn = FunctionRef<FnArgs<(Unknown<'static>,)>, Unknown<'static>>;
/// A JS function taking `A` (an `FnArgs` tuple) and returning anything.
type JsFn<'e, A> = Function<'e, FnArgs<A>, Unknown<'e>>;

/// Deepest nesting accepted in caller data.
const MAX_DEPTH: u32 = 64;
/// Longest array accepted in caller data (a sparse `length = 1e9` must not be walked).
const MAX_ARRAY: u32 = 1_000_000;

/// A JS `Error` carrying the protocol `code` and `details`.
fn error_object<'e>(env: &'e Env, e: &MemoryError) -> Result<Unknown<'e>> {
  let mut obj = env.create_error(Error::new(Status::GenericFailure, e.to_string()))?;
  obj.set_named_property("code", e.code())?;
  obj.set_named_property("details", env.to_js_value(&e.details())?)?;
  if let Some(cause) = e.cause() {
    obj.set_named_property(
      "cause",
      env.create_error(Error::new(Status::GenericFailure, cause))?,
    )?;
  }
  Ok(obj.to_unknown())
}

/// What a failed write rejects with: the coded error, or — when building it fails (a hostile
/// setter on `Error.prototype`, a pending exception) — its code and message as a string, so
/// the caller's promise still settles.
fn error_value<'e>(env: &'e Env, e: &MemoryError) -> Result<Unknown<'e>> {
  error_object(env, e).or_else(|_| {
    take_exception(env.raw());
    Ok(
      env
        .create_string(format!("{}: {e}", e.code()))?
        .to_unknown(),
    )
  })
}

/// For sync methods: the thrown value.
fn throw(env: &Env, e: MemoryError) -> Error {
  match error_object(env, &e) {
    Ok(obj) => Error::from(obj),
    Err(napi_err) => napi_err,
  }
}

fn rejected<'e>(env: &Env, value: Unknown<'_>) -> Result<PromiseRaw<'e, Unknown<'e>>> {
  let p = PromiseRaw::<Unknown>::reject(env, value)?;
  Ok(PromiseRaw::new(env.raw(), p.raw()))
}

fn reject_with<'e>(env: &Env, e: &MemoryError) -> Result<PromiseRaw<'e, Unknown<'e>>> {
  rejected(env, error_value(env, e)?)
}

fn resolved<'e>(env: &Env, value: Value) -> Result<PromiseRaw<'e, Unknown<'e>>> {
  let p = PromiseRaw::resolve(env, Json::of(&value).map_err(|e| throw(env, e))?)?;
  Ok(PromiseRaw::new(env.raw(), p.raw()))
}

/// Data crossing to JS as JSON text, parsed by the engine's own `JSON.parse`: an order of
/// magnitude faster than building objects property by property through Node-API.
pub struct Json(String);

impl Json {
  fn of<T: serde::Serialize>(value: &T) -> crate::Result<Self> {
    serde_json::to_string(value)
      .map(Json)
      .map_err(|e| MemoryError::invalid(format!("result is not serializable: {e}")))
  }
}

impl TypeName for Json {
  fn type_name() -> &'static str {
    "JSON"
  }
  fn value_type() -> ValueType {
    ValueType::Object
  }
}

impl Json {
  /// The value in JS (one `JSON.parse`).
  fn into_js(self, env: &Env) -> Result<Unknown<'_>> {
    let raw = unsafe { Json::to_napi_value(env.raw(), self) }?;
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), raw) })
  }
}

impl ToNapiValue for Json {
  unsafe fn to_napi_value(raw: napi::sys::napi_env, value: Self) -> Result<napi::sys::napi_value> {
    let env = Env::from_raw(raw);
    let json: Object = env.get_global()?.get_named_property("JSON")?;
    let parse: Function<String, Unknown> = json.get_named_property("parse")?;
    Ok(parse.call(value.0)?.raw())
  }
}

fn closed(path: &str) -> MemoryError {
  MemoryError::store(
    path,
    StoreReason::Closed,
    &format!("memory store at {path} is closed"),
    None,
  )
}

/// Take the JS exception a failed Node-API call left pending (a throwing getter, a Proxy trap, a
/// throwing gate), so it never escapes past our coded error. Returns what it said.
fn take_exception(env: napi::sys::napi_env) -> Option<String> {
  let mut pending = false;
  if unsafe { napi::sys::napi_is_exception_pending(env, &mut pending) }
    != napi::sys::Status::napi_ok
    || !pending
  {
    return None;
  }
  let mut raw = std::ptr::null_mut();
  if unsafe { napi::sys::napi_get_and_clear_last_exception(env, &mut raw) }
    != napi::sys::Status::napi_ok
    || raw.is_null()
  {
    return None;
  }
  let thrown = unsafe { Unknown::from_raw_unchecked(env, raw) };
  Some(match thrown.get_type() {
    Ok(ValueType::String) => {
      unsafe { thrown.cast::<String>() }.unwrap_or_else(|_| "a string".into())
    }
    Ok(ValueType::Object) => {
      let message = unsafe { thrown.cast::<Object>() }
        .and_then(|o| o.get_named_property::<Unknown>("message"))
        .ok()
        .filter(|m| m.get_type().ok() == Some(ValueType::String))
        .and_then(|m| unsafe { m.cast::<String>() }.ok());
      // A hostile `message` getter may have thrown in turn: drop that one too.
      let mut again = std::ptr::null_mut();
      unsafe { napi::sys::napi_get_and_clear_last_exception(env, &mut again) };
      message.unwrap_or_else(|| "an exception object".into())
    }
    Ok(other) => format!("a thrown {other:?}").to_lowercase(),
    Err(_) => "an exception".into(),
  })
}

/// Caller data as JSON, refusing what JSON cannot carry. `undefined` object fields are dropped.
fn to_json(value: &Unknown<'_>, depth: u32) -> std::result::Result<Value, String> {
  if depth > MAX_DEPTH {
    return Err(format!("nests deeper than {MAX_DEPTH} levels"));
  }
  let env = value.value().env;
  let fail = |e: Error| take_exception(env).unwrap_or_else(|| e.reason.clone());
  match value.get_type().map_err(fail)? {
    ValueType::Undefined | ValueType::Null => Ok(Value::Null),
    ValueType::Boolean => Ok(Value::Bool(unsafe { value.cast::<bool>() }.map_err(fail)?)),
    ValueType::Number => {
      let n = unsafe { value.cast::<f64>() }.map_err(fail)?;
      if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 {
        Ok(Value::from(n as i64))
      } else {
        Ok(
          serde_json::Number::from_f64(n)
            .map(Value::Number)
            .unwrap_or(Value::Null),
        )
      }
    }
    ValueType::String => {
      let s = unsafe { value.cast::<JsString>() }.map_err(fail)?;
      let utf16 = s.into_utf16().map_err(fail)?;
      utf16
        .as_str()
        .map(Value::String)
        .map_err(|_| "contains a lone surrogate (not valid Unicode text)".to_string())
    }
    ValueType::Object => {
      let obj = unsafe { value.cast::<Object>() }.map_err(fail)?;
      if obj.is_array().map_err(fail)? {
        let len = obj.get_array_length().map_err(fail)?;
        if len > MAX_ARRAY {
          return Err(format!(
            "is an array of {len} elements; at most {MAX_ARRAY} are accepted"
          ));
        }
        let mut items = Vec::with_capacity(len.min(1 << 16) as usize);
        for i in 0..len {
          let item: Unknown = obj.get_element(i).map_err(fail)?;
          items.push(to_json(&item, depth + 1)?);
        }
        return Ok(Value::Array(items));
      }
      // Each property is read by the key value the engine listed (no key string is re-made).
      let raw = value.value().env;
      let status = |s: napi::sys::napi_status| {
        if s == napi::sys::Status::napi_ok {
          Ok(())
        } else {
          Err(take_exception(raw).unwrap_or_else(|| "cannot be read".into()))
        }
      };
      let mut names = std::ptr::null_mut();
      status(unsafe { napi::sys::napi_get_property_names(raw, obj.raw(), &mut names) })?;
      let mut len = 0u32;
      status(unsafe { napi::sys::napi_get_array_length(raw, names, &mut len) })?;
      let mut map = Map::new();
      for i in 0..len {
        let (mut key, mut item) = (std::ptr::null_mut(), std::ptr::null_mut());
        status(unsafe { napi::sys::napi_get_element(raw, names, i, &mut key) })?;
        status(unsafe { napi::sys::napi_get_property(raw, obj.raw(), key, &mut item) })?;
        let item = unsafe { Unknown::from_raw_unchecked(raw, item) };
        if item.get_type().map_err(fail)? == ValueType::Undefined {
          continue;
        }
        let key = match to_json(&unsafe { Unknown::from_raw_unchecked(raw, key) }, depth + 1)? {
          Value::String(k) => k,
          other => other.to_string(),
        };
        let item = to_json(&item, depth + 1).map_err(|e| format!("{key}: {e}"))?;
        map.insert(key, item);
      }
      Ok(Value::Object(map))
    }
    ValueType::BigInt => Err("is a BigInt".into()),
    ValueType::Symbol => Err("is a Symbol".into()),
    ValueType::Function => Err("is a function".into()),
    ValueType::External | ValueType::Unknown => Err("is not plain data".into()),
  }
}

fn json_arg(what: &str, value: Option<&Unknown<'_>>) -> crate::Result<Value> {
  match value {
    None => Ok(Value::Null),
    Some(v) => to_json(v, 0)
      .map_err(|e| MemoryError::invalid(format!("{what} must be plain JSON-like data: {e}"))),
  }
}

/// `opts[key]` when it is a string.
fn json_string(opts: &Value, key: &str) -> Option<String> {
  opts.get(key).and_then(Value::as_str).map(str::to_string)
}

/// The `{agentKey, workspaceKey}` of an options object (absent or not a string: no filter).
fn visibility_of(opts: &Value) -> Visibility {
  Visibility {
    agent_key: json_string(opts, "agentKey"),
    workspace_key: json_string(opts, "workspaceKey"),
  }
}

/// `obj[a][b]…`, or `None` as soon as a step is not an object.
fn path<'e>(value: &Unknown<'e>, steps: &[&str]) -> Option<Unknown<'e>> {
  let mut current = *value;
  for step in steps {
    if current.get_type().ok()? != ValueType::Object {
      return None;
    }
    let obj = unsafe { current.cast::<Object>() }.ok()?;
    match obj.get_named_property::<Unknown>(step) {
      Ok(next) => current = next,
      Err(_) => {
        take_exception(current.value().env);
        return None;
      }
    }
  }
  Some(current)
}

fn string_at(value: &Unknown<'_>, steps: &[&str]) -> Option<String> {
  let v = path(value, steps)?;
  if v.get_type().ok()? != ValueType::String {
    return None;
  }
  match to_json(&v, 0).ok()? {
    Value::String(s) => Some(s),
    _ => None,
  }
}

/// The writer of a write context `{agent: {session: {id, header: {cwd, agentPreset}}}}`.
fn writer_of(write: Option<&Unknown<'_>>) -> crate::Result<Writer> {
  let Some(write) = write else {
    return Err(MemoryError::WriteRequiresAgent);
  };
  let session = path(write, &["agent", "session"]);
  let header = session.as_ref().and_then(|s| path(s, &["header"]));
  let at = |from: &Option<Unknown<'_>>, key: &str| from.as_ref().and_then(|v| string_at(v, &[key]));
  Writer::new(
    at(&session, "id").as_deref(),
    at(&header, "cwd").as_deref(),
    at(&header, "agentPreset").as_deref(),
  )
}

fn function_of<'e, A>(value: &Unknown<'e>) -> Option<JsFn<'e, A>>
where
  FnArgs<A>: JsValuesTupleIntoVec,
{
  if value.get_type().ok()? != ValueType::Function {
    return None;
  }
  unsafe { value.cast::<JsFn<A>>() }.ok()
}

/// Keep a JS function alive across calls.
fn hold(f: &Unknown<'_>) -> Result<HeldFn> {
  let f = unsafe { f.cast::<Function<FnArgs<(Unknown<'static>,)>, Unknown<'static>>>() }?;
  f.create_ref()
}

/// The held function as a value of this scope.
fn held<'e>(env: &'e Env, f: &HeldFn) -> Result<Unknown<'e>> {
  let f = f.borrow_back(env)?;
  Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), f.raw()) })
}

fn is_function(value: &Unknown<'_>) -> bool {
  value.get_type().ok() == Some(ValueType::Function)
}

fn describe_thrown(value: &Unknown<'_>) -> String {
  string_at(value, &["message"])
    .or_else(|| match to_json(value, 0) {
      Ok(Value::String(s)) => Some(s),
      Ok(other) => Some(other.to_string()),
      Err(e) => Some(format!("a value that {e}")),
    })
    .unwrap_or_else(|| "unknown error".into())
}

fn describe_type(value: &Unknown<'_>) -> String {
  match value.get_type() {
    Ok(ValueType::Undefined) => "undefined".into(),
    Ok(ValueType::Null) => "null".into(),
    Ok(ValueType::Boolean) => "a boolean".into(),
    Ok(ValueType::Number) => "a number".into(),
    Ok(ValueType::Object) => "an object".into(),
    Ok(ValueType::Function) => "a function".into(),
    Ok(ValueType::BigInt) => "a BigInt".into(),
    Ok(ValueType::Symbol) => "a Symbol".into(),
    _ => "a non-string value".into(),
  }
}

/// The native memory provider. Writes are async and gated by the `gate` given at construction;
/// reads are synchronous.
#[napi]
pub struct MemoryProvider {
  inner: Shared,
  gate: Rc<HeldFn>,
  audit_label: Option<Rc<HeldFn>>,
  /// The native answer callback and `Function.prototype.bind`, taken at construction.
  answer: Rc<gate::Answer>,
  path: String,
}

fn option_field<'e>(options: &Unknown<'e>, name: &str) -> Option<Unknown<'e>> {
  path(options, &[name])
    .filter(|v| !matches!(v.get_type(), Ok(ValueType::Undefined) | Ok(ValueType::Null)))
}

fn config_of(options: &Unknown<'_>) -> crate::Result<(Config, String, u64)> {
  let field =
    |name: &str| -> crate::Result<Value> { json_arg(name, option_field(options, name).as_ref()) };
  let budgets = Budgets::from_config(Some(&field("budgets")?))?;
  let write_policy = match field("writePolicy")? {
    Value::Null => WritePolicy::Ask,
    Value::String(s) => WritePolicy::parse(&s)?,
    other => WritePolicy::parse(&other.to_string())?,
  };
  let positive = |name: &str, default: u64, allow_zero: bool| -> crate::Result<u64> {
    match field(name)? {
      Value::Null => Ok(default),
      v => v.as_u64().filter(|n| allow_zero || *n > 0).ok_or_else(|| {
        MemoryError::invalid(format!(
          "{name} must be a {} integer",
          if allow_zero {
            "non-negative"
          } else {
            "positive"
          }
        ))
      }),
    }
  };
  let secret_policy = match field("secretPolicy")? {
    Value::Null => SecretPolicy::Refuse,
    Value::String(s) => SecretPolicy::parse(&s)?,
    other => SecretPolicy::parse(&other.to_string())?,
  };
  let default_query_limit = positive("defaultQueryLimit", 20, false)?;
  let retention = positive("auditRetentionDays", 0, true)?;
  let source_label = match field("sourceLabel")? {
    Value::Null => crate::protocol::model::DEFAULT_SOURCE.to_string(),
    Value::String(s) if !s.is_empty() => s,
    _ => {
      return Err(MemoryError::invalid(
        "sourceLabel must be a non-empty string",
      ))
    }
  };
  let db_path = match field("dbPath")? {
    Value::Null => String::new(),
    Value::String(s) => s,
    _ => return Err(MemoryError::invalid("dbPath must be a string")),
  };
  let db_path = keys::store_path(&db_path);
  Ok((
    Config {
      budgets,
      write_policy,
      default_query_limit,
      source_label,
      secret_policy,
    },
    db_path,
    retention,
  ))
}

#[napi]
impl MemoryProvider {
  /// Open (creating if needed) the store and bind the approval gate.
  ///
  /// Errors: `INVALID_INPUT` (bad options, missing gate), `STORE_CORRUPT`,
  /// `STORE_UNSUPPORTED_VERSION`.
  #[napi(
    constructor,
    ts_args_type = "options: import('./index').ProviderOptions"
  )]
  pub fn new(env: Env, options: Unknown) -> Result<Self> {
    let bad = |m: &str| throw(&env, MemoryError::invalid(m));
    if options.get_type()? != ValueType::Object {
      return Err(bad("MemoryProvider options must be an object"));
    }
    let gate = option_field(&options, "gate")
      .filter(is_function)
      .ok_or_else(|| bad("MemoryProvider requires options.gate: the async approval callback (payload, write) => outcome"))?;
    let audit_label = match option_field(&options, "auditLabel") {
      None => None,
      Some(f) if is_function(&f) => Some(Rc::new(hold(&f)?)),
      Some(_) => {
        return Err(bad(
          "auditLabel must be a function (outcome, payload, write) => string",
        ))
      }
    };
    let (config, db_path, retention) = config_of(&options).map_err(|e| throw(&env, e))?;
    let store =
      Store::open(std::path::Path::new(&db_path), retention).map_err(|e| throw(&env, e))?;
    Ok(Self {
      inner: Rc::new(RefCell::new(Some(Memory::new(store, config)))),
      gate: Rc::new(hold(&gate)?),
      audit_label,
      answer: Rc::new(gate::Answer::new(&env)?),
      path: db_path,
    })
  }

  /// Absolute path of the store file.
  #[napi(getter)]
  pub fn path(&self) -> String {
    self.path.clone()
  }

  /// Run `f` on the open engine. No JS runs while it holds the engine, so a re-entrant call
  /// (a gate or getter calling back into the provider) always finds it free.
  fn run<T>(&self, f: impl FnOnce(&mut Memory) -> crate::Result<T>) -> crate::Result<T> {
    let mut guard = self.inner.try_borrow_mut().map_err(|_| {
      MemoryError::store(
        &self.path,
        StoreReason::Busy,
        "memory store is busy in a re-entrant call",
        None,
      )
    })?;
    f(guard.as_mut().ok_or_else(|| closed(&self.path))?)
  }

  fn with<T>(&self, env: &Env, f: impl FnOnce(&mut Memory) -> crate::Result<T>) -> Result<T> {
    self.run(f).map_err(|e| throw(env, e))
  }

  /// The shared write path: writer check, plan, gate, finish.
  fn gated<'e>(
    &self,
    env: &'e Env,
    write: Option<Unknown<'e>>,
    plan: impl FnOnce(&mut Memory, Writer) -> crate::Result<Plan>,
  ) -> Result<PromiseRaw<'e, Unknown<'e>>> {
    let planned = writer_of(write.as_ref()).and_then(|writer| {
      self.run(|memory| Ok((memory.planned(|m| plan(m, writer))?, memory.policy_answer())))
    });
    let (plan, policy_answer) = match planned {
      Ok(p) => p,
      Err(e) => return reject_with(env, &e),
    };
    let write = match write {
      Some(w) => w,
      None => return reject_with(env, &MemoryError::WriteRequiresAgent),
    };
    let payload = Json::of(&plan.payload().to_json())
      .map_err(|e| throw(env, e))?
      .into_js(env)?;
    if let Some(outcome) = policy_answer {
      let label = self.label(env, outcome, &plan, &write);
      return self.settle(
        env,
        plan,
        GateAnswer::Outcome(outcome.into()),
        label,
        &write,
      );
    }
    let gate_value = held(env, &self.gate)?;
    let Some(gate) = function_of::<(Unknown, Unknown)>(&gate_value) else {
      return self.settle(
        env,
        plan,
        GateAnswer::NotAString("no gate".into()),
        None,
        &write,
      );
    };
    let returned = match gate.call(FnArgs::from((payload, write))) {
      Ok(v) => v,
      Err(e) => {
        let answer =
          GateAnswer::Failed(take_exception(env.raw()).unwrap_or_else(|| e.reason.clone()));
        let label = self.label(env, "unavailable", &plan, &write);
        return self.settle(env, plan, answer, label, &write);
      }
    };
    gate::await_answer(env, self.clone_handles(), plan, write, returned)
  }

  fn clone_handles(&self) -> Self {
    Self {
      inner: self.inner.clone(),
      gate: self.gate.clone(),
      audit_label: self.audit_label.clone(),
      answer: self.answer.clone(),
      path: self.path.clone(),
    }
  }

  /// The caller's audit label for this outcome, if it gave a labeller that returns a string.
  fn label(&self, env: &Env, outcome: &str, plan: &Plan, write: &Unknown<'_>) -> Option<String> {
    let labeller = held(env, self.audit_label.as_ref()?).ok()?;
    let f = function_of::<(Unknown, Unknown, Unknown)>(&labeller)?;
    let payload = Json::of(&plan.payload().to_json())
      .ok()?
      .into_js(env)
      .ok()?;
    let outcome = env.to_js_value(&Value::String(outcome.into())).ok()?;
    let label = match f.call(FnArgs::from((outcome, payload, *write))) {
      Ok(label) => label,
      Err(_) => {
        take_exception(env.raw());
        return None;
      }
    };
    match to_json(&label, 0).ok()? {
      Value::String(s) if !s.is_empty() => Some(s),
      _ => None,
    }
  }

  /// Finish `plan` with the gate's `answer`, as a settled promise.
  fn settle<'e>(
    &self,
    env: &Env,
    plan: Plan,
    answer: GateAnswer,
    label: Option<String>,
    write: &Unknown<'_>,
  ) -> Result<PromiseRaw<'e, Unknown<'e>>> {
    match self.conclude(env, plan, answer, label, write)? {
      Ok(value) => {
        let p = PromiseRaw::<Unknown>::resolve(env, value)?;
        Ok(PromiseRaw::new(env.raw(), p.raw()))
      }
      Err(reason) => rejected(env, reason),
    }
  }

  /// Finish `plan` with the gate's `answer`: `Ok(result)` to resolve the write's promise with,
  /// or `Err(reason)` to reject it with (a coded error, or the caller's abort reason).
  fn conclude<'e>(
    &self,
    env: &'e Env,
    plan: Plan,
    answer: GateAnswer,
    label: Option<String>,
    write: &Unknown<'_>,
  ) -> Result<std::result::Result<Unknown<'e>, Unknown<'e>>> {
    let signal = path(write, &["signal"]);
    let aborted = signal
      .as_ref()
      .and_then(|s| path(s, &["aborted"]))
      .and_then(|a| {
        unsafe { a.cast::<bool>() }
          .ok()
          .filter(|_| a.get_type().ok() == Some(ValueType::Boolean))
      })
      .unwrap_or(false);
    let result = self.run(|memory| memory.finish(plan, answer, label, aborted));
    let denied = |e: &MemoryError| -> Result<std::result::Result<Unknown<'e>, Unknown<'e>>> {
      Ok(Err(error_value(env, e)?))
    };
    match result {
      Ok(Finished::Written(value)) => Ok(Ok(
        Json::of(&value).map_err(|e| throw(env, e))?.into_js(env)?,
      )),
      Ok(Finished::Aborted) => match signal.as_ref().and_then(|s| path(s, &["reason"])) {
        Some(reason) => Ok(Err(unsafe {
          Unknown::from_raw_unchecked(env.raw(), reason.raw())
        })),
        None => denied(&MemoryError::WriteDenied {
          outcome: "aborted".into(),
          detail: None,
        }),
      },
      Err(e) => denied(&e),
    }
  }

  /// Insert a new entry (fresh id, version 1) after approval.
  #[napi(
    ts_args_type = "input: import('./index').EntryInput, write: import('./index').WriteContext"
  )]
  pub fn add<'e>(
    &self,
    env: &'e Env,
    input: Option<Unknown<'e>>,
    write: Option<Unknown<'e>>,
  ) -> Result<PromiseRaw<'e, Unknown<'e>>> {
    let input = json_arg("add input", input.as_ref());
    self.gated(env, write, |m, w| m.plan_add(&input?, w))
  }

  /// Rewrite exactly one entry located by a unique substring; id stable, version + 1.
  #[napi(
    ts_args_type = "input: import('./index').ReplaceInput, write: import('./index').WriteContext"
  )]
  pub fn replace<'e>(
    &self,
    env: &'e Env,
    input: Option<Unknown<'e>>,
    write: Option<Unknown<'e>>,
  ) -> Result<PromiseRaw<'e, Unknown<'e>>> {
    let input = json_arg("replace input", input.as_ref());
    self.gated(env, write, |m, w| m.plan_replace(&input?, w))
  }

  /// Delete exactly one entry located by a unique substring.
  #[napi(
    ts_args_type = "input: import('./index').RemoveInput, write: import('./index').WriteContext"
  )]
  pub fn remove<'e>(
    &self,
    env: &'e Env,
    input: Option<Unknown<'e>>,
    write: Option<Unknown<'e>>,
  ) -> Result<PromiseRaw<'e, Unknown<'e>>> {
    let input = json_arg("remove input", input.as_ref());
    self.gated(env, write, |m, w| m.plan_remove(&input?, w))
  }

  /// Atomically replace 1..20 entries with one new entry: one approval, one transaction.
  #[napi(
    ts_args_type = "input: import('./index').ConsolidateInput, write: import('./index').WriteContext"
  )]
  pub fn consolidate<'e>(
    &self,
    env: &'e Env,
    input: Option<Unknown<'e>>,
    write: Option<Unknown<'e>>,
  ) -> Result<PromiseRaw<'e, Unknown<'e>>> {
    let input = json_arg("consolidate input", input.as_ref());
    self.gated(env, write, |m, w| m.plan_consolidate(&input?, w))
  }

  /// Insert a batch under one approval; all or nothing, budgets checked before asking.
  #[napi(
    ts_args_type = "inputs: import('./index').EntryInput[], write: import('./index').WriteContext"
  )]
  pub fn seed<'e>(
    &self,
    env: &'e Env,
    inputs: Option<Unknown<'e>>,
    write: Option<Unknown<'e>>,
  ) -> Result<PromiseRaw<'e, Unknown<'e>>> {
    let inputs = json_arg("seed inputs", inputs.as_ref());
    self.gated(env, write, |m, w| m.plan_seed(&inputs?, w))
  }

  /// Decide a pending proposal: `approved` is a gated add committed with the decision.
  #[napi(
    ts_args_type = "id: string, decision: 'approved' | 'dismissed', write: import('./index').WriteContext"
  )]
  pub fn proposal_decide<'e>(
    &self,
    env: &'e Env,
    id: Option<Unknown<'e>>,
    decision: Option<Unknown<'e>>,
    write: Option<Unknown<'e>>,
  ) -> Result<PromiseRaw<'e, Unknown<'e>>> {
    let id = match json_arg("proposal id", id.as_ref()) {
      Ok(Value::String(s)) if !s.is_empty() => s,
      Ok(_) => {
        return reject_with(
          env,
          &MemoryError::invalid("proposal id must be a non-empty string"),
        )
      }
      Err(e) => return reject_with(env, &e),
    };
    match json_arg("proposal decision", decision.as_ref()) {
      Ok(Value::String(d)) if d == "approved" => {
        self.gated(env, write, |m, w| m.plan_approve(&id, w))
      }
      Ok(Value::String(d)) if d == "dismissed" => {
        let dismissed = writer_of(write.as_ref())
          .and_then(|w| self.run(|memory| memory.proposal_dismiss(&id, &w)));
        match dismissed {
          Ok(p) => resolved(env, serde_json::json!({ "proposal": p })),
          Err(e) => reject_with(env, &e),
        }
      }
      Ok(other) => reject_with(
        env,
        &MemoryError::invalid(format!(
          "proposal decision must be approved or dismissed, got {other}"
        )),
      ),
      Err(e) => reject_with(env, &e),
    }
  }

  /// Substring search ranked by recall count then recency; bumps recall counters.
  #[napi(
    ts_args_type = "filter?: import('./index').QueryFilter, opts?: import('./index').QueryOptions",
    ts_return_type = "import('./index').QueryResult"
  )]
  pub fn query(&self, env: Env, filter: Option<Unknown>, opts: Option<Unknown>) -> Result<Json> {
    let filter = json_arg("query filter", filter.as_ref()).map_err(|e| throw(&env, e))?;
    let opts = json_arg("query options", opts.as_ref()).map_err(|e| throw(&env, e))?;
    let options = QueryOptions {
      session_id: json_string(&opts, "sessionId"),
      visibility: visibility_of(&opts),
      count_recall: opts
        .get("countRecall")
        .and_then(Value::as_bool)
        .unwrap_or(true),
    };
    self.with(&env, |m| Json::of(&m.query(&filter, &options)?))
  }

  /// Usage per layer (4 rows). `{workspaceKey}` reports that workspace's layers.
  #[napi(
    ts_args_type = "opts?: { workspaceKey?: string }",
    ts_return_type = "import('./index').BudgetRow[]"
  )]
  pub fn budgets(&self, env: Env, opts: Option<Unknown>) -> Result<Json> {
    let opts = json_arg("budgets options", opts.as_ref()).map_err(|e| throw(&env, e))?;
    let ws = json_string(&opts, "workspaceKey");
    self.with(&env, |m| Json::of(&m.budgets(ws.as_deref())?))
  }

  /// Every entry, oldest first; `{agentKey, workspaceKey}` narrows it to a session's visible set.
  #[napi(
    ts_args_type = "opts?: { agentKey?: string; workspaceKey?: string }",
    ts_return_type = "import('./index').MemoryEntry[]"
  )]
  pub fn list_entries(&self, env: Env, opts: Option<Unknown>) -> Result<Json> {
    let opts = json_arg("listEntries options", opts.as_ref()).map_err(|e| throw(&env, e))?;
    let visibility = visibility_of(&opts);
    let narrowed = visibility.agent_key.is_some() || visibility.workspace_key.is_some();
    self.with(&env, |m| {
      Json::of(&m.list_entries(narrowed.then_some(&visibility))?)
    })
  }

  /// Newest audit rows first (default 100).
  #[napi(
    ts_args_type = "limit?: number",
    ts_return_type = "import('./index').AuditRow[]"
  )]
  pub fn audit_list(&self, env: Env, limit: Option<Unknown>) -> Result<Json> {
    let limit = json_arg("audit limit", limit.as_ref())
      .map_err(|e| throw(&env, e))?
      .as_u64()
      .filter(|n| *n > 0)
      .unwrap_or(100);
    self.with(&env, |m| Json::of(&m.audit_list(limit)?))
  }

  /// The snapshot text of a session's visible set (`labels`: the plugin's words; English by
  /// default). Reads only; [`MemoryProvider::snapshot_record`] freezes it.
  #[napi(
    ts_args_type = "keys?: { agentKey?: string; workspaceKey?: string }, labels?: import('./index').SnapshotLabels"
  )]
  pub fn snapshot(
    &self,
    env: Env,
    keys: Option<Unknown>,
    labels: Option<Unknown>,
  ) -> Result<String> {
    let keys = json_arg("snapshot keys", keys.as_ref()).map_err(|e| throw(&env, e))?;
    let labels = json_arg("snapshot labels", labels.as_ref())
      .and_then(|l| Labels::from_json(&l))
      .map_err(|e| throw(&env, e))?;
    let visibility = visibility_of(&keys);
    self.with(&env, |m| m.snapshot(&visibility, &labels))
  }

  /// Freeze a session's snapshot: the first text recorded for the session id wins and is audited
  /// once; later calls (any process, any reload) return that text.
  #[napi(ts_args_type = "sessionId: string, text: string")]
  pub fn snapshot_record(
    &self,
    env: Env,
    session_id: Option<Unknown>,
    text: Option<Unknown>,
  ) -> Result<String> {
    let session =
      json_arg("snapshot session id", session_id.as_ref()).map_err(|e| throw(&env, e))?;
    let text = json_arg("snapshot text", text.as_ref()).map_err(|e| throw(&env, e))?;
    let (Value::String(session), Value::String(text)) = (session, text) else {
      return Err(throw(
        &env,
        MemoryError::invalid("snapshotRecord takes (sessionId: string, text: string)"),
      ));
    };
    self.with(&env, |m| m.snapshot_record(&session, &text))
  }

  /// Walk the audit hash chain: `{ok, checked, head, firstBroken}`.
  #[napi(ts_return_type = "import('./index').AuditVerification")]
  pub fn audit_verify(&self, env: Env) -> Result<Json> {
    self.with(&env, |m| Json::of(&m.audit_verify()?))
  }

  /// Record a pending proposal; `null` when this session already has one of this kind pending.
  #[napi(
    ts_args_type = "input: import('./index').ProposalInput",
    ts_return_type = "import('./index').Proposal | null"
  )]
  pub fn proposal_add(&self, env: Env, input: Option<Unknown>) -> Result<Json> {
    let input = json_arg("proposal input", input.as_ref()).map_err(|e| throw(&env, e))?;
    let kind = input
      .get("kind")
      .and_then(Value::as_str)
      .unwrap_or_default()
      .to_string();
    let session_id = input
      .get("sessionId")
      .and_then(Value::as_str)
      .map(str::to_string);
    let proposal = ProposalInput {
      kind,
      input,
      session_id,
    };
    self.with(&env, |m| Json::of(&m.proposal_add(proposal)?))
  }

  /// Proposals, optionally of one status, oldest first (default limit 100).
  #[napi(
    ts_args_type = "status?: import('./index').ProposalStatus, limit?: number",
    ts_return_type = "import('./index').Proposal[]"
  )]
  pub fn proposal_list(
    &self,
    env: Env,
    status: Option<Unknown>,
    limit: Option<Unknown>,
  ) -> Result<Json> {
    let status = json_arg("proposal status", status.as_ref()).map_err(|e| throw(&env, e))?;
    let limit = json_arg("proposal limit", limit.as_ref())
      .map_err(|e| throw(&env, e))?
      .as_u64()
      .filter(|n| *n > 0)
      .unwrap_or(100);
    let status = match status {
      Value::Null => None,
      Value::String(s) => Some(s),
      other => {
        return Err(throw(
          &env,
          MemoryError::invalid(format!("proposal status must be a string, got {other}")),
        ))
      }
    };
    self.with(&env, |m| {
      Json::of(&m.proposal_list(status.as_deref(), limit)?)
    })
  }

  /// Close the store. Idempotent; later calls fail with `STORE_CORRUPT` ("closed").
  #[napi]
  pub fn close(&self) {
    if let Ok(mut guard) = self.inner.try_borrow_mut() {
      guard.take();
    }
  }
}

fn outcome_of(answer: &GateAnswer) -> &str {
  match answer {
    GateAnswer::Outcome(o) => o,
    GateAnswer::NotAString(_) | GateAnswer::Failed(_) => "unavailable",
  }
}

/// Where the store of `dbPath` lives (`$DSH_HOME`, fallback `~/.dsh`), as the provider resolves it.
#[napi(ts_args_type = "dbPath?: string")]
pub fn resolve_db_path(env: Env, db_path: Option<Unknown>) -> Result<String> {
  let db_path = match json_arg("dbPath", db_path.as_ref()).map_err(|e| throw(&env, e))? {
    Value::Null => None,
    Value::String(s) => Some(s),
    _ => return Err(throw(&env, MemoryError::invalid("dbPath must be a string"))),
  };
  Ok(keys::store_path(db_path.as_deref().unwrap_or("")))
}

/// Normalized workspace key of a cwd (`''` when none).
#[napi(ts_args_type = "cwd: unknown")]
pub fn workspace_key_of(cwd: Option<Unknown>) -> String {
  keys::workspace_key_of(cwd.as_ref().and_then(|c| string_at(c, &[])).as_deref())
}

/// Normalized agent key of an agent preset (`''` when none).
#[napi(ts_args_type = "preset: unknown")]
pub fn agent_key_of(preset: Option<Unknown>) -> String {
  keys::agent_key_of(preset.as_ref().and_then(|p| string_at(p, &[])).as_deref())
}
