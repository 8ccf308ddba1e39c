//! Values across the boundary: caller data in (as JSON, refusing what JSON cannot carry), results
//! out (as JSON, parsed by the engine's own `JSON.parse`), and protocol errors as JS `Error`s.
#![allow(unsafe_code)] // `clear_exception`: napi-rs 3 has no safe API for a pending exception.

use std::cell::RefCell;
use std::rc::Rc;

use napi::bindgen_prelude::*;
use napi::{Env, JsString, ValueType};
use serde::Serialize;
use serde_json::Value;

use crate::error::MemoryError;

/// Longest array accepted in caller data (a sparse `length = 2**32 - 1` must not be walked).
const MAX_ARRAY: u32 = 1_000_000;

type Stringify<'e> = Function<'e, FnArgs<(Unknown<'e>, Unknown<'e>)>, Unknown<'e>>;

/// Drop the exception a failed JS call may have left pending (a hostile `toString` of a thrown
/// value, a throwing getter), so it never escapes past our own coded error.
pub(super) fn clear_exception(env: &Env) {
  let mut thrown = std::ptr::null_mut();
  // SAFETY: `env` is the live env of the current native call, and the out-pointer is a local;
  // the call only takes (and clears) the env's pending exception, `undefined` when none.
  unsafe { napi::sys::napi_get_and_clear_last_exception(env.raw(), &mut thrown) };
}

/// What a failed JS call threw, as text; nothing is left pending.
pub(super) fn failure(env: &Env, e: &Error) -> String {
  clear_exception(env);
  if e.reason.is_empty() {
    "an exception".into()
  } else {
    e.reason.clone()
  }
}

/// A JS string as Rust text; `None` for anything else, and for a lone surrogate (not Unicode).
pub(super) fn text(value: &Unknown<'_>) -> Option<String> {
  if value.get_type().ok()? != ValueType::String {
    return None;
  }
  JsString::from_unknown(*value)
    .ok()?
    .into_utf16()
    .ok()?
    .as_str()
    .ok()
}

/// `obj[name]` when `obj` is an object and reading it does not throw.
pub(super) fn field<'e>(env: &Env, obj: Option<Unknown<'e>>, name: &str) -> Option<Unknown<'e>> {
  let obj = obj.filter(|o| matches!(o.get_type(), Ok(ValueType::Object | ValueType::Function)))?;
  let got = Object::from_unknown(obj).and_then(|o| o.get_named_property::<Unknown>(name));
  got.map_err(|e| failure(env, &e)).ok()
}

/// Caller data as JSON: `JSON.stringify` with a replacer that refuses BigInt, Symbol, functions
/// and huge arrays, then serde_json, which refuses lone surrogates and nesting deeper than 128.
/// Cycles and throwing getters fail inside `JSON.stringify`. `undefined` object fields drop.
pub(super) fn data(env: &Env, what: &str, value: Option<&Unknown<'_>>) -> crate::Result<Value> {
  let bad = |e: String| MemoryError::invalid(format!("{what} must be plain JSON-like data: {e}"));
  let Some(value) = value.filter(|v| !matches!(v.get_type(), Ok(ValueType::Undefined))) else {
    return Ok(Value::Null);
  };
  let refused = Rc::new(RefCell::new(None::<String>));
  let note = refused.clone();
  let json = (|| -> Result<Unknown> {
    let replacer = env.create_function_from_closure::<FnArgs<(Unknown, Unknown)>, _, _>(
      "memoryData",
      move |ctx| {
        let (key, value) = (
          ctx.get::<Unknown<'static>>(0)?,
          ctx.get::<Unknown<'static>>(1)?,
        );
        let kind = match value.get_type()? {
          ValueType::BigInt => Some("a BigInt".to_string()),
          ValueType::Symbol => Some("a Symbol".into()),
          ValueType::Function => Some("a function".into()),
          ValueType::Object => Object::from_unknown(value)?
            .get_array_length()
            .ok()
            .filter(|n| *n > MAX_ARRAY)
            .map(|n| format!("an array of {n} elements (at most {MAX_ARRAY})")),
          _ => None,
        };
        match kind {
          None => Ok(value.raw()),
          Some(kind) => {
            let at = text(&key).filter(|k| !k.is_empty());
            let at = at.map_or("the value".into(), |k| format!("{k}"));
            *note.borrow_mut() = Some(format!("{at} is {kind}"));
            Err(Error::from_reason("refused"))
          }
        }
      },
    )?;
    let json: Object = env.get_global()?.get_named_property("JSON")?;
    let stringify: Stringify = json.get_named_property("stringify")?;
    stringify.call(FnArgs::from((*value, replacer.to_unknown())))
  })();
  let json = json.map_err(|e| {
    bad(
      refused
        .borrow_mut()
        .take()
        .unwrap_or_else(|| failure(env, &e)),
    )
  })?;
  match text(&json) {
    None => Ok(Value::Null), // `JSON.stringify` gave `undefined`
    Some(s) => serde_json::from_str(&s).map_err(|e| bad(format!("{e}"))),
  }
}

/// A Rust value in JS: serialized once, then one `JSON.parse` (far cheaper than building the
/// objects property by property through Node-API).
pub(super) fn to_js<'e, T: Serialize>(env: &'e Env, value: &T) -> Result<Unknown<'e>> {
  let s = serde_json::to_string(value).map_err(|e| Error::from_reason(e.to_string()))?;
  let json: Object = env.get_global()?.get_named_property("JSON")?;
  let parse: Function<String, Unknown> = json.get_named_property("parse")?;
  parse.call(s)
}

/// A JS `Error` carrying the protocol `code`, `details` and `cause`.
fn error_object<'e>(env: &'e Env, e: &MemoryError) -> Result<Unknown<'e>> {
  let mut obj = env.create_error(Error::new(Status::GenericFailure, e.to_string()))?;
  obj.set_named_property("code", e.code())?;
  obj.set_named_property("details", to_js(env, &e.details())?)?;
  if let Some(cause) = e.cause() {
    obj.set_named_property("cause", env.create_error(Error::from_reason(cause))?)?;
  }
  Ok(obj.to_unknown())
}

/// What a failed write rejects with: the coded error, or — when building it fails (a hostile
/// setter on `Error.prototype`) — `CODE: message` as a string, so the promise still settles.
pub(super) fn error_value<'e>(env: &'e Env, e: &MemoryError) -> Result<Unknown<'e>> {
  error_object(env, e).or_else(|err| {
    failure(env, &err);
    Ok(
      env
        .create_string(&format!("{}: {e}", e.code()))?
        .to_unknown(),
    )
  })
}

/// For sync methods: the error to throw.
pub(super) fn throw(env: &Env, e: MemoryError) -> Error {
  match error_object(env, &e) {
    Ok(obj) => Error::from(obj),
    Err(err) => Error::from_reason(failure(env, &err)),
  }
}

/// A promise settled with `result` (resolved) or its coded error (rejected).
pub(super) fn settled<'e, T: Serialize>(
  env: &'e Env,
  result: crate::Result<T>,
) -> Result<Unknown<'e>> {
  let value = result.and_then(|v| to_js(env, &v).map_err(|e| MemoryError::invalid(e.reason)));
  match value {
    Ok(v) => Ok(PromiseRaw::resolve(env, v)?.to_unknown()),
    Err(e) => rejected(env, error_value(env, &e)?),
  }
}

/// A promise rejected with `reason`.
pub(super) fn rejected<'e>(env: &'e Env, reason: Unknown<'_>) -> Result<Unknown<'e>> {
  Ok(PromiseRaw::<Unknown>::reject(env, reason)?.to_unknown())
}
