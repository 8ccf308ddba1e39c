//! Asking the approval gate and finishing the write with its answer.
//!
//! The gate may return anything: a string, a promise, a thenable, or throw. What it returns is
//! adopted into a native promise (so a thenable that answers twice is heard once), and that
//! promise's `then` gets two native callbacks, bound to the write context; whichever runs
//! finishes the plan in one synchronous core call and settles the caller's promise. Every path
//! settles: a throwing gate, a garbage answer and a failure to finish all reject with a value.

use std::cell::RefCell;
use std::rc::Rc;

use napi::bindgen_prelude::*;
use napi::{sys, Env, ValueType};

use super::js::{error_value, failure, field, rejected, text, to_js};
use super::Core;
use crate::engine::{Finished, GateAnswer, Plan};
use crate::error::{MemoryError, StoreReason};

type Waiting = Rc<RefCell<Option<(Rc<Core>, Plan)>>>;
type Callbacks = FnArgs<(sys::napi_value, sys::napi_value)>;

/// Ask the gate about `plan` (or answer with the policy's `outcome`) and return the promise
/// of the write.
pub(super) fn ask<'e>(
  env: &'e Env,
  core: Rc<Core>,
  plan: Plan,
  policy: Option<&str>,
  write: Unknown<'_>,
) -> Result<Unknown<'e>> {
  if let Some(outcome) = policy {
    return finish(env, &core, plan, GateAnswer::Outcome(outcome.into()), write);
  }
  let payload = to_js(env, &plan.payload().to_json())?;
  let gate = core.gate.borrow_back(env)?;
  let returned = match gate.call(FnArgs::from((payload.raw(), write.raw()))) {
    Ok(v) => v,
    Err(e) => {
      return finish(
        env,
        &core,
        plan,
        GateAnswer::Failed(failure(env, &e)),
        write,
      )
    }
  };
  let adopted = PromiseRaw::<Unknown>::resolve(env, returned)?;
  let waiting: Waiting = Rc::new(RefCell::new(Some((core, plan))));
  let on = |fulfilled: bool| {
    let waiting = waiting.clone();
    env
      .create_function_from_closure::<FnArgs<(Unknown,)>, _, _>("memoryGateAnswer", move |ctx| {
        answered(ctx, &waiting, fulfilled)
      })
      .and_then(|f| Function::<FnArgs<(Unknown,)>, Unknown>::from_unknown(f.to_unknown()))
      .and_then(|f| Ok(f.bind(write)?.raw()))
  };
  let chained = (|| {
    let then: Function<Callbacks, Unknown> = adopted.get_named_property("then")?;
    then.apply(adopted, FnArgs::from((on(true)?, on(false)?)))
  })();
  match chained {
    Ok(p) => Ok(p),
    Err(e) => {
      let reason = format!("cannot await the gate: {}", failure(env, &e));
      match waiting.borrow_mut().take() {
        Some((core, plan)) => finish(env, &core, plan, GateAnswer::Failed(reason), write),
        None => Err(e),
      }
    }
  }
}

/// A `then` callback: `(value)` with the write context as `this`.
fn answered(
  ctx: FunctionCallContext,
  waiting: &Waiting,
  fulfilled: bool,
) -> Result<sys::napi_value> {
  let env: &Env = ctx.env;
  let value = ctx.get::<Unknown>(0)?;
  let Some((core, plan)) = waiting.borrow_mut().take() else {
    return Ok(value.raw()); // never: a native promise runs one of its callbacks, once
  };
  let write = ctx.this::<Unknown>()?;
  let answer = match (fulfilled, text(&value)) {
    (true, Some(outcome)) => GateAnswer::Outcome(outcome),
    (true, None) => GateAnswer::NotAString(describe_type(&value)),
    (false, _) => GateAnswer::Failed(describe_thrown(env, &value)),
  };
  let path = core.path.clone();
  let done = finish(env, &core, plan, answer, write).or_else(|e| {
    let cause = failure(env, &e);
    let failed = MemoryError::store(
      &path,
      StoreReason::Io,
      "memory write could not finish",
      Some(cause),
    );
    rejected(env, error_value(env, &failed)?)
  })?;
  Ok(done.raw())
}

/// Finish `plan` with the gate's `answer`: the write's promise, settled.
fn finish<'e>(
  env: &'e Env,
  core: &Core,
  plan: Plan,
  answer: GateAnswer,
  write: Unknown<'_>,
) -> Result<Unknown<'e>> {
  let outcome = match &answer {
    GateAnswer::Outcome(o) => o.as_str(),
    GateAnswer::NotAString(_) | GateAnswer::Failed(_) => "unavailable",
  };
  let label = label(env, core, outcome, &plan, write);
  let signal = field(env, Some(write), "signal");
  let aborted = field(env, signal, "aborted");
  let aborted = aborted.is_some_and(|a| {
    a.get_type().ok() == Some(ValueType::Boolean) && bool::from_unknown(a).unwrap_or(false)
  });
  let failed = match core.run(|m| m.finish(&plan, answer, label, aborted)) {
    Ok(Finished::Written(value)) => {
      return Ok(PromiseRaw::resolve(env, to_js(env, &value)?)?.to_unknown())
    }
    Ok(Finished::Aborted) => match field(env, signal, "reason") {
      Some(reason) => return rejected(env, reason),
      None => MemoryError::WriteDenied {
        outcome: "aborted".into(),
        detail: None,
      },
    },
    Err(e) => e,
  };
  rejected(env, error_value(env, &failed)?)
}

/// The caller's audit label for this outcome, if it gave a labeller that returns a string.
fn label(env: &Env, core: &Core, outcome: &str, plan: &Plan, write: Unknown<'_>) -> Option<String> {
  let f = core.audit_label.as_ref()?.borrow_back(env).ok()?;
  let payload = to_js(env, &plan.payload().to_json()).ok()?;
  let outcome = env.create_string(outcome).ok()?;
  match f.call(FnArgs::from((outcome.raw(), payload.raw(), write.raw()))) {
    Ok(label) => text(&label).filter(|s| !s.is_empty()),
    Err(e) => {
      failure(env, &e);
      None
    }
  }
}

fn describe_thrown(env: &Env, value: &Unknown<'_>) -> String {
  text(value)
    .or_else(|| field(env, Some(*value), "message").and_then(|m| text(&m)))
    .unwrap_or_else(|| format!("a thrown {}", describe_type(value)))
}

fn describe_type(value: &Unknown<'_>) -> String {
  value
    .get_type()
    .map_or("unknown".into(), |t| format!("{t:?}").to_lowercase())
}
