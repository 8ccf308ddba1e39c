//! Values across the boundary: caller data in (as JSON, refusing what JSON cannot carry), results
//! out (as JSON, parsed by the engine's own `JSON.parse`), and protocol errors as JS `Error`s.
#![allow(unsafe_code)] // `clear_exception`: napi-rs 3 has no safe API for a pending exception.

use napi::bindgen_prelude::*;
use napi::{Env, JsString, ValueType};
use serde::Serialize;
use serde_json::Value;

use super::{Js, Raw};
use crate::error::MemoryError;

/// Longest array accepted in caller data (a sparse `length = 2**32 - 1` must not be walked).
const MAX_ARRAY: u32 = 1_000_000;

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
  let reason = Some(e.reason.clone()).filter(|r| !r.is_empty());
  reason.unwrap_or_else(|| "an exception".into())
}

/// A JS string as Rust text; `None` for anything else, and for a lone surrogate (not Unicode).
pub(super) fn text(value: &Unknown<'_>) -> Option<String> {
  // Anything but a string fails `into_utf16` with a status (no exception).
  let s = JsString::from_unknown(*value).ok()?;
  s.into_utf16().ok()?.as_str().ok()
}

/// A JS string as Rust text with every lone surrogate written as its escape (`\u{d83d}`): for
/// what is kept whatever a caller says (an audit label), never refused and never dropped.
pub(super) fn text_escaped(value: &Unknown<'_>) -> Option<String> {
  let s = JsString::from_unknown(*value).ok()?.into_utf16().ok()?;
  // The buffer ends with the NUL napi writes after the string.
  let units = s.as_slice().split_last().map_or(&[][..], |(_, u)| u);
  let chars = char::decode_utf16(units.iter().copied());
  let escape = |e: std::char::DecodeUtf16Error| format!("\\u{{{:x}}}", e.unpaired_surrogate());
  Some(chars.map(|c| c.map_or_else(escape, String::from)).collect())
}

/// `undefined` or `null`: an absent argument, option or field.
pub(super) fn absent(value: &Unknown) -> bool {
  matches!(value.get_type(), Ok(ValueType::Undefined | ValueType::Null))
}

/// `obj[name]` when `obj` is an object and reading it does not throw.
pub(super) fn field<'e>(env: &Env, obj: Option<Unknown<'e>>, name: &str) -> Option<Unknown<'e>> {
  let obj = obj.filter(|o| matches!(o.get_type(), Ok(ValueType::Object | ValueType::Function)))?;
  let got = Object::from_unknown(obj).and_then(|o| o.get_named_property::<Unknown>(name));
  got.map_err(|e| failure(env, &e)).ok()
}

/// `JSON.stringify`'s replacer: refuses what JSON would drop (BigInt, Symbol, functions) or
/// walk for ever (a huge sparse array).
fn refuse(ctx: FunctionCallContext) -> Result<Raw> {
  let (key, value) = ctx.args::<(Unknown<'static>, Unknown<'static>)>()?;
  let kind = value.get_type()?;
  let array = Object::from_unknown(value).and_then(|o| o.get_array_length());
  let what = match (kind, array.ok().filter(|n| *n > MAX_ARRAY)) {
    (_, Some(n)) => format!("an array of {n} elements (at most {MAX_ARRAY})"),
    (ValueType::BigInt | ValueType::Symbol | ValueType::Function, _) => format!("a {kind:?}"),
    _ => return Ok(value.raw()),
  };
  let (key, what) = (text(&key).filter(|k| !k.is_empty()), what.to_lowercase());
  let key = key.unwrap_or_else(|| "the value".into());
  Err(Error::from_reason(format!("{key} is {what}")))
}

/// The refusing replacer, made once per env (it is a native function with a finalizer).
fn replacer(env: &Env) -> Result<Raw> {
  if let Some(f) = env.get_instance_data::<FunctionRef<FnArgs<(Raw, Raw)>, Raw>>()? {
    return Ok(f.borrow_back(env)?.raw());
  }
  let f = env.create_function_from_closure::<FnArgs<(Raw, Raw)>, _, _>("refuse", refuse)?;
  env.set_instance_data(f.create_ref()?, (), |_| {})?;
  Ok(f.raw())
}

/// Caller data as JSON: `JSON.stringify` with a replacer refusing what JSON cannot carry, then
/// serde_json, which refuses lone surrogates and nesting deeper than 128. Cycles and throwing
/// getters fail inside `JSON.stringify`; `undefined` object fields are dropped.
pub(super) fn data(env: &Env, what: &str, value: Unknown<'_>) -> crate::Result<Value> {
  let bad = |e: &str| {
    let e = e.strip_prefix("Error: ").unwrap_or(e);
    MemoryError::invalid(format!("{what} must be plain JSON-like data: {e}"))
  };
  // An absent value needs no `JSON.stringify`: an open passes twelve options, most of them absent.
  if absent(&value) {
    return Ok(Value::Null);
  }
  let json = (|| {
    let json: Object = env.get_global()?.get_named_property("JSON")?;
    let stringify: Function<FnArgs<(Raw, Raw)>, Unknown> = json.get_named_property("stringify")?;
    stringify.call(FnArgs::from((value.raw(), replacer(env)?)))
  })();
  match text(&json.map_err(|e| bad(&failure(env, &e)))?) {
    None => Ok(Value::Null), // `JSON.stringify` gave `undefined`
    // Our own JSON text fails to parse only on a lone surrogate's escape, or on depth.
    Some(s) => serde_json::from_str(&s).map_err(|e| match e.to_string().contains("recursion") {
      true => bad("nests deeper than 128 levels"),
      false => bad("contains a lone surrogate (not valid Unicode text)"),
    }),
  }
}

/// A Rust value in JS: serialized once, then one `JSON.parse` (far cheaper than building the
/// objects property by property through Node-API). The text is handed over in the form V8 keeps
/// it in, so it is not decoded from UTF-8 first: ASCII as Latin-1, anything else as UTF-16.
pub(super) fn to_js<'e, T: Serialize>(env: &'e Env, value: &T) -> Js<'e> {
  let s = serde_json::to_string(value).map_err(|e| Error::from_reason(e.to_string()))?;
  parsed(env, &s)
}

/// JSON text in JS (see [`to_js`]).
pub(super) fn parsed<'e>(env: &'e Env, s: &str) -> Js<'e> {
  let s = match s.is_ascii() {
    true => env.create_string_latin1(s.as_bytes())?,
    false => env.create_string_utf16(s.encode_utf16().collect::<Vec<u16>>())?,
  };
  let json: Object = env.get_global()?.get_named_property("JSON")?;
  let parse: Function<JsString, Unknown> = json.get_named_property("parse")?;
  parse.call(s)
}

/// A plain JS `Error` with `message` and no `code` yet.
fn plain_error<'e>(env: &'e Env, message: &str) -> Result<Object<'e>> {
  let message = env.create_string(message)?;
  let mut raw = std::ptr::null_mut();
  // SAFETY: `env` is the live env of the current native call, `message` a string value made in
  // it, a null `code` is allowed (none is set), and `raw` is a local out-pointer.
  let status = unsafe {
    napi::sys::napi_create_error(env.raw(), std::ptr::null_mut(), message.raw(), &mut raw)
  };
  match status {
    napi::sys::Status::napi_ok => Ok(Object::from_raw(env.raw(), raw)),
    _ => Err(Error::from_reason("cannot create an Error")),
  }
}

/// A JS `Error` carrying the protocol `code`, `details` and `cause`. They are defined as own
/// properties, so no setter on `Error.prototype` (a hostile one included) runs or can refuse.
pub(super) fn error_object<'e>(env: &'e Env, e: &MemoryError) -> Js<'e> {
  let mut obj = plain_error(env, &e.to_string())?;
  let own = |name: &str, value: Unknown| {
    Ok::<_, Error>(Property::new().with_utf8_name(name)?.with_value(&value))
  };
  let mut fields = vec![
    own("name", env.create_string("MemoryError")?.to_unknown())?,
    own("code", env.create_string(e.code())?.to_unknown())?,
  ];
  // Details fail only if `JSON.parse` itself was replaced; the coded error still goes out.
  match to_js(env, &e.details()) {
    Ok(details) => fields.push(own("details", details)?),
    Err(_) => clear_exception(env),
  }
  if let Some(cause) = std::error::Error::source(e) {
    let cause = plain_error(env, &cause.to_string())?.to_unknown();
    fields.push(own("cause", cause)?);
  }
  obj.define_properties(&fields)?;
  Ok(obj.to_unknown())
}

/// For sync methods: the error to throw.
pub(super) fn throw(env: &Env, e: MemoryError) -> Error {
  match error_object(env, &e) {
    Ok(obj) => Error::from(obj),
    Err(err) => Error::from_reason(failure(env, &err)),
  }
}

/// A promise settled with `result` (resolved) or its coded error (rejected).
pub(super) fn settled<'e, T: Serialize>(env: &'e Env, r: crate::Result<T>) -> Js<'e> {
  match r.map(|value| to_js(env, &value)) {
    Ok(Ok(v)) => Ok(PromiseRaw::resolve(env, v)?.to_unknown()),
    Err(e) => rejected(env, error_object(env, &e)?),
    // Only a replaced `JSON.parse` gets here: what was asked for is done, say so.
    Ok(Err(err)) => {
      let why = failure(env, &err);
      let why = format!("the call succeeded, but its result cannot be handed back: {why}");
      rejected(env, plain_error(env, &why)?.to_unknown())
    }
  }
}

/// A promise rejected with `reason`.
pub(super) fn rejected<'e>(env: &'e Env, reason: Unknown) -> Js<'e> {
  Ok(PromiseRaw::<Unknown>::reject(env, reason)?.to_unknown())
}
