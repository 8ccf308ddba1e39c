//! Awaiting the approval gate's answer without a closure per write.
//!
//! A write's gate may return anything: a string, a promise, a thenable, or throw. The binding
//! awaits what it returns as a native promise (adopting a value or thenable into one) with one
//! native answer callback, bound to a token that names the waiting write. The write (its plan, its context and the deferred
//! promise given to the caller) waits in a per-thread table under that token and is taken out
//! exactly once, by the first answer; the caller's promise is settled directly with the result.
//!
//! Per write this costs one or two promises and two bound functions, where closures cost a
//! native function (with a finalizer) per callback and two more promises chained behind them.
//! A native promise (what an async gate returns) is awaited directly: its `then` is the one
//! adoption would call anyway.
#![allow(unsafe_code)]

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ptr;

use napi::bindgen_prelude::*;
use napi::sys;
use napi::Env;

use super::{describe_thrown, describe_type, held, hold, take_exception, to_json, HeldFn};
use super::{outcome_of, MemoryProvider};
use crate::engine::{GateAnswer, Plan};
use crate::error::{MemoryError, StoreReason};
use serde_json::Value;

/// A write whose gate was asked and has not answered.
struct Waiting {
  provider: MemoryProvider,
  plan: Plan,
  /// The write context (a reference: the gate may take any time to answer).
  write: sys::napi_ref,
  /// The promise the caller holds.
  deferred: sys::napi_deferred,
}

thread_local! {
  /// Writes waiting for their gate, by token (one table per JS thread; a token is never reused).
  static WAITING: RefCell<HashMap<u64, Waiting>> = RefCell::new(HashMap::new());
  static NEXT: Cell<u64> = const { Cell::new(0) };
}

/// The provider's answer callback, and `Function.prototype.bind` as it was at construction.
pub(super) struct Answer {
  callback: HeldFn,
  bind: HeldFn,
}

impl Answer {
  /// Create the answer callback of a provider.
  pub(super) fn new(env: &Env) -> Result<Self> {
    let mut f = ptr::null_mut();
    check(unsafe {
      sys::napi_create_function(
        env.raw(),
        c"memoryGateAnswer".as_ptr(),
        16,
        Some(answered),
        ptr::null_mut(),
        &mut f,
      )
    })?;
    let mut bind = ptr::null_mut();
    check(unsafe { sys::napi_get_named_property(env.raw(), f, c"bind".as_ptr(), &mut bind) })?;
    let callback = unsafe { Unknown::from_raw_unchecked(env.raw(), f) };
    let bind = Some(unsafe { Unknown::from_raw_unchecked(env.raw(), bind) })
      .filter(super::is_function)
      .ok_or_else(|| Error::from_reason("Function.prototype.bind is not a function"))?;
    Ok(Self {
      callback: hold(&callback)?,
      bind: hold(&bind)?,
    })
  }

  /// `callback.bind(undefined, token, fulfilled)`.
  fn bound(&self, env: &Env, token: u64, fulfilled: bool) -> Result<sys::napi_value> {
    let raw = env.raw();
    let (mut undefined, mut t, mut ok, mut out) = (
      ptr::null_mut(),
      ptr::null_mut(),
      ptr::null_mut(),
      ptr::null_mut(),
    );
    check(unsafe { sys::napi_get_undefined(raw, &mut undefined) })?;
    check(unsafe { sys::napi_create_double(raw, token as f64, &mut t) })?;
    check(unsafe { sys::napi_get_boolean(raw, fulfilled, &mut ok) })?;
    let callback = held(env, &self.callback)?;
    let bind = held(env, &self.bind)?;
    check(unsafe {
      sys::napi_call_function(
        raw,
        callback.raw(),
        bind.raw(),
        3,
        [undefined, t, ok].as_ptr(),
        &mut out,
      )
    })?;
    Ok(out)
  }
}

fn check(status: sys::napi_status) -> Result<()> {
  if status == sys::Status::napi_ok {
    Ok(())
  } else {
    Err(Error::from_reason(format!(
      "Node-API call failed ({status})"
    )))
  }
}

/// Await what the gate `returned`, then finish `plan`: the caller's promise.
pub(super) fn await_answer<'e>(
  env: &'e Env,
  provider: MemoryProvider,
  plan: Plan,
  write: Unknown<'e>,
  returned: Unknown<'e>,
) -> Result<PromiseRaw<'e, Unknown<'e>>> {
  let raw = env.raw();
  // The answer as a native promise: the gate's own when it returned one (an async gate),
  // else a new one adopting the value or thenable it returned.
  let mut native = false;
  check(unsafe { sys::napi_is_promise(raw, returned.raw(), &mut native) })?;
  let adopted = if native {
    returned.raw()
  } else {
    let (mut adopt, mut adopted) = (ptr::null_mut(), ptr::null_mut());
    check(unsafe { sys::napi_create_promise(raw, &mut adopt, &mut adopted) })?;
    check(unsafe { sys::napi_resolve_deferred(raw, adopt, returned.raw()) })?;
    adopted
  };
  let (mut deferred, mut promise) = (ptr::null_mut(), ptr::null_mut());
  check(unsafe { sys::napi_create_promise(raw, &mut deferred, &mut promise) })?;
  let mut write_ref = ptr::null_mut();
  check(unsafe { sys::napi_create_reference(raw, write.raw(), 1, &mut write_ref) })?;
  let token = NEXT.with(|n| {
    let t = n.get();
    n.set(t + 1);
    t
  });
  let answer = provider.answer.clone();
  WAITING.with(|w| {
    w.borrow_mut().insert(
      token,
      Waiting {
        provider,
        plan,
        write: write_ref,
        deferred,
      },
    )
  });
  let attached = answer.bound(env, token, true).and_then(|on_ok| {
    let on_err = answer.bound(env, token, false)?;
    let mut then = ptr::null_mut();
    check(unsafe { sys::napi_get_named_property(raw, adopted, c"then".as_ptr(), &mut then) })?;
    let mut derived = ptr::null_mut();
    check(unsafe {
      sys::napi_call_function(
        raw,
        adopted,
        then,
        2,
        [on_ok, on_err].as_ptr(),
        &mut derived,
      )
    })
  });
  if let Err(e) = attached {
    // The answer can never arrive: the write is unavailable, and says so.
    let reason = take_exception(raw).unwrap_or(e.reason);
    settle(
      raw,
      token,
      Arrived::Failed(format!("cannot await the gate: {reason}")),
    );
  }
  Ok(PromiseRaw::new(raw, promise))
}

/// What arrived for a waiting write.
enum Arrived {
  /// The gate's promise fulfilled with this value.
  Value(sys::napi_value),
  /// It rejected, or could not be awaited.
  Failed(String),
}

/// The native answer callback: `(token, fulfilled, value)`.
unsafe extern "C" fn answered(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  let mut argc = 3usize;
  let mut argv = [ptr::null_mut(); 3];
  let got = unsafe {
    sys::napi_get_cb_info(
      env,
      info,
      &mut argc,
      argv.as_mut_ptr(),
      ptr::null_mut(),
      ptr::null_mut(),
    )
  };
  if got == sys::Status::napi_ok && argc >= 2 {
    let mut token = -1f64;
    let mut fulfilled = false;
    unsafe {
      sys::napi_get_value_double(env, argv[0], &mut token);
      sys::napi_get_value_bool(env, argv[1], &mut fulfilled);
    }
    let mut value = argv[2];
    if value.is_null() {
      unsafe { sys::napi_get_undefined(env, &mut value) };
    }
    let answer = if fulfilled {
      Arrived::Value(value)
    } else {
      Arrived::Failed(describe_thrown(&unsafe {
        Unknown::from_raw_unchecked(env, value)
      }))
    };
    if token >= 0.0 {
      settle(env, token as u64, answer);
    }
  }
  // Nothing may be left thrown: it would reject the promise `then` returned, which no one holds.
  take_exception(env);
  ptr::null_mut()
}

/// Finish the write waiting under `token` (if it still is) and settle the caller's promise.
fn settle(raw: sys::napi_env, token: u64, answer: Arrived) {
  let Some(w) = WAITING.with(|t| t.borrow_mut().remove(&token)) else {
    return;
  };
  let env = Env::from_raw(raw);
  let mut write = ptr::null_mut();
  unsafe {
    sys::napi_get_reference_value(raw, w.write, &mut write);
    sys::napi_delete_reference(raw, w.write);
  }
  let write = unsafe { Unknown::from_raw_unchecked(raw, write) };
  let answer = match answer {
    Arrived::Failed(message) => GateAnswer::Failed(message),
    Arrived::Value(v) => {
      let v = unsafe { Unknown::from_raw_unchecked(raw, v) };
      match to_json(&v, 0) {
        Ok(Value::String(s)) if v.get_type().ok() == Some(ValueType::String) => {
          GateAnswer::Outcome(s)
        }
        _ => GateAnswer::NotAString(describe_type(&v)),
      }
    }
  };
  let p = &w.provider;
  let label = p.label(&env, outcome_of(&answer), &w.plan, &write);
  let settled = match p.conclude(&env, w.plan, answer, label, &write) {
    Ok(settled) => settled,
    Err(e) => {
      let message = take_exception(raw).unwrap_or(e.reason);
      let failure = MemoryError::store(
        p.path.as_str(),
        StoreReason::Io,
        "memory write could not finish",
        Some(message),
      );
      match super::error_value(&env, &failure) {
        Ok(value) => Err(value),
        // Not even a string could be made: settle with `undefined` rather than never.
        Err(_) => {
          take_exception(raw);
          let mut undefined = ptr::null_mut();
          unsafe { sys::napi_get_undefined(raw, &mut undefined) };
          Err(unsafe { Unknown::from_raw_unchecked(raw, undefined) })
        }
      }
    }
  };
  unsafe {
    match settled {
      Ok(value) => sys::napi_resolve_deferred(raw, w.deferred, value.raw()),
      Err(reason) => sys::napi_reject_deferred(raw, w.deferred, reason.raw()),
    };
  }
}
