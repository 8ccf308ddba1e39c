//! Asking the approval gate and finishing the write with its answer.
//!
//! The gate may return anything: a string, a promise, a thenable, or throw. What it returns is
//! adopted into a native promise (so a thenable that answers twice is heard once); a rejection
//! is noted by a `catch`, and the `then` after it finishes the plan in one synchronous core call
//! and settles the caller's promise. Every path settles: a throwing gate or a garbage answer is
//! a denial, and a failure to finish rejects.

use std::cell::RefCell;
use std::rc::Rc;

use napi::bindgen_prelude::*;
use napi::Env;

use super::js::{error_value, failure, field, rejected, settled, text, to_js};
use super::{Core, Js};
use crate::engine::{Finished, GateAnswer, Plan};
use crate::error::MemoryError;

/// A checked write and the policy's own answer, when it gives one (`off` refuses unasked).
pub(super) type Planned = (Plan, Option<&'static str>);

/// Ask the gate about the planned write (unless the policy answered): the write's promise.
pub(super) fn ask<'e>(env: &'e Env, core: Rc<Core>, planned: Planned, write: Unknown) -> Js<'e> {
  let (plan, policy) = planned;
  if let Some(outcome) = policy {
    return finish(env, &core, plan, GateAnswer::Outcome(outcome.into()), write);
  }
  let payload = to_js(env, plan.payload())?;
  let gate = core.gate.borrow_back(env)?;
  let returned = gate.call(FnArgs::from((payload.raw(), write.raw())));
  let returned = match returned.map_err(|e| GateAnswer::Failed(failure(env, &e))) {
    Ok(v) => v,
    Err(answer) => return finish(env, &core, plan, answer, write),
  };
  // The write context outlives this call: the gate may take any time to answer.
  let held = Object::from_unknown(write)?.create_ref::<false>()?;
  let thrown = Rc::new(RefCell::new(None));
  let note = thrown.clone();
  let adopted = PromiseRaw::<Unknown>::resolve(env, returned)?;
  let caught = adopted.catch(move |ctx: CallbackContext<Unknown>| {
    *note.borrow_mut() = Some(describe_thrown(&ctx.env, &ctx.value));
    Ok(())
  })?;
  let done = PromiseRaw::<Unknown>::new(env.raw(), caught.raw()).then(move |ctx| {
    let answer = match (thrown.borrow_mut().take(), text(&ctx.value)) {
      (Some(thrown), _) => GateAnswer::Failed(thrown),
      (None, Some(outcome)) => GateAnswer::Outcome(outcome),
      (None, None) => GateAnswer::NotAString(describe_type(&ctx.value)),
    };
    let write = held.get_value(&ctx.env)?.to_unknown();
    let settled = finish(&ctx.env, &core, plan, answer, write).map(|p| p.raw());
    held.unref(&ctx.env)?;
    settled
  })?;
  Ok(done.to_unknown())
}

/// Finish `plan` with the gate's `answer`: the write's promise, settled.
fn finish<'e>(env: &'e Env, core: &Core, plan: Plan, answer: GateAnswer, write: Unknown) -> Js<'e> {
  let outcome = match &answer {
    GateAnswer::Outcome(o) => o.as_str(),
    GateAnswer::NotAString(_) | GateAnswer::Failed(_) => "unavailable",
  };
  let label = label(env, core, outcome, &plan, write);
  let signal = field(env, Some(write), "signal");
  let aborted =
    field(env, signal, "aborted").is_some_and(|a| bool::from_unknown(a).unwrap_or(false));
  let failed = match core.run(|m| m.finish(plan, answer, label, aborted)) {
    Ok(Finished::Written(value)) => return settled(env, Ok(value)),
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
fn label(env: &Env, core: &Core, outcome: &str, plan: &Plan, write: Unknown) -> Option<String> {
  let f = core.audit_label.as_ref()?.borrow_back(env).ok()?;
  let payload = to_js(env, plan.payload()).ok()?;
  let outcome = env.create_string(outcome).ok()?;
  let label = f.call(FnArgs::from((outcome.raw(), payload.raw(), write.raw())));
  text(&label.map_err(|e| failure(env, &e)).ok()?).filter(|s| !s.is_empty())
}

fn describe_thrown(env: &Env, value: &Unknown) -> String {
  let message = || field(env, Some(*value), "message").and_then(|m| text(&m));
  let thrown = text(value).or_else(message);
  thrown.unwrap_or_else(|| format!("a thrown {}", describe_type(value)))
}

fn describe_type(value: &Unknown) -> String {
  let kind = value.get_type();
  kind.map_or("unknown".into(), |t| format!("{t:?}").to_lowercase())
}
