//! Asking the approval gate and finishing the write with its answer.
//!
//! The gate may return anything: a string, a promise, a thenable, a Proxy, or throw. What it
//! returns is adopted by `Promise.resolve` (so a thenable that answers twice is heard once), and
//! whichever of the two handlers given to `Promise.prototype.then` runs first finishes the plan
//! in one synchronous core call and settles the caller's promise. Every path settles: a throwing
//! gate or `then`, or a garbage answer, is a denial with its row, and a failure to finish rejects.

use std::cell::RefCell;
use std::rc::Rc;

use napi::bindgen_prelude::*;
use napi::Env;

use super::js::{error_object, failure, field, rejected, settled, text, text_escaped, to_js};
use super::{Core, Js, Raw};
use crate::engine::{Finished, GateAnswer, Plan, Via};
use crate::error::MemoryError;

/// Ask the gate about the planned write (unless its policy answered): the write's promise.
pub(super) fn ask<'e>(env: &'e Env, core: Rc<Core>, plan: Plan, write: Unknown) -> Js<'e> {
  if let Some(outcome) = plan.policy_answer() {
    let answer = GateAnswer::Outcome(outcome.into());
    return finish(env, &core, plan, answer, (None, write));
  }
  // The payload crosses once: the gate and the caller's labeller get the same object.
  let payload = to_js(env, plan.payload())?;
  let gate = core.gate.borrow_back(env)?;
  // What the gate returns is adopted by `Promise.resolve` and awaited with
  // `Promise.prototype.then` itself, so a thenable whose `then` getter throws, a Proxy or an own
  // `then`/`catch` property can only reject (a denial), never throw past us or leave a rejection
  // unhandled. A throw of the gate, or of adopting its answer, is a denial too.
  let returned = gate.call(FnArgs::from((payload.raw(), write.raw())));
  let (adopted, then) = match returned.and_then(|answer| adopt(env, answer)) {
    Ok(adopted) => adopted,
    Err(e) => {
      let answer = GateAnswer::Failed(failure(env, &e));
      return finish(env, &core, plan, answer, (Some(payload), write));
    }
  };
  // The write context and payload outlive this call: the gate may take any time to answer.
  let held = Object::from_unknown(write)?.create_ref::<false>()?;
  let shown = Object::from_unknown(payload)?.create_ref::<false>()?;
  let waiting = Rc::new(RefCell::new(Some((plan, held, shown))));
  let settle = |rejected: bool| {
    let (core, waiting) = (core.clone(), waiting.clone());
    move |ctx: FunctionCallContext| -> Result<Raw> {
      let value = ctx.first_arg::<Unknown>()?;
      let Some((plan, held, shown)) = waiting.borrow_mut().take() else {
        return Ok(value.raw()); // the promise settles once; nothing is left to finish
      };
      let answer = match (rejected, text(&value)) {
        (true, _) => GateAnswer::Failed(describe_thrown(ctx.env, &value)),
        (false, Some(outcome)) => GateAnswer::Outcome(outcome),
        (false, None) => GateAnswer::NotAString(describe_type(&value)),
      };
      finish_held(ctx.env, &core, (plan, held, shown), answer).map(|p| p.raw())
    }
  };
  let approved = env.create_function_from_closure::<Unknown, Raw, _>("answered", settle(false))?;
  let refused = env.create_function_from_closure::<Unknown, Raw, _>("failed", settle(true))?;
  let handlers = FnArgs::from((approved.raw(), refused.raw()));
  then.apply(adopted, handlers).or_else(|e| {
    // `then` threw (a hostile species constructor) before it registered anything.
    let why = GateAnswer::Failed(failure(env, &e));
    let waited = waiting.borrow_mut().take();
    waited.map_or(Err(e), |waited| finish_held(env, &core, waited, why))
  })
}

/// A plan, and the write context and payload held for it while the gate answered.
type Held = (Plan, ObjectRef<false>, ObjectRef<false>);

/// Finish a held plan with the gate's answer, and let go of what was held for it.
fn finish_held<'e>(env: &'e Env, core: &Core, waited: Held, answer: GateAnswer) -> Js<'e> {
  let (plan, held, shown) = waited;
  let payload = shown.get_value(env)?.to_unknown();
  let sent = (Some(payload), held.get_value(env)?.to_unknown());
  let settled = finish(env, core, plan, answer, sent);
  held.unref(env)?;
  shown.unref(env)?;
  settled
}

/// `Promise.prototype.then`, called with the adopted answer as `this`.
type Then<'e> = Function<'e, FnArgs<(Raw, Raw)>, Unknown<'e>>;

/// `Promise.resolve(value)` and `Promise.prototype.then`, or what adopting `value` threw.
fn adopt<'e>(env: &'e Env, value: Unknown<'e>) -> Result<(Unknown<'e>, Then<'e>)> {
  let promise = Object::from_unknown(env.get_global()?.get_named_property::<Unknown>("Promise")?)?;
  let resolve: Function<Unknown, Unknown> = promise.get_named_property("resolve")?;
  let prototype = Object::from_unknown(promise.get_named_property::<Unknown>("prototype")?)?;
  let then = prototype.get_named_property("then")?;
  Ok((resolve.apply(promise, value)?, then))
}

/// The payload as the gate got it (none when the policy answered) and the write context.
type Sent<'a> = (Option<Unknown<'a>>, Unknown<'a>);

/// Finish `plan` with the gate's `answer`: the write's promise, settled.
fn finish<'e>(env: &'e Env, core: &Core, plan: Plan, answer: GateAnswer, sent: Sent) -> Js<'e> {
  let (payload, write) = sent;
  let outcome = match &answer {
    GateAnswer::Outcome(o) => o.as_str(),
    GateAnswer::NotAString(_) | GateAnswer::Failed(_) => "unavailable",
  };
  let via = via(env, core, outcome, (payload, &plan), write);
  let signal = field(env, Some(write), "signal");
  let aborted =
    field(env, signal, "aborted").is_some_and(|a| bool::from_unknown(a).unwrap_or(false));
  let failed = match core.run(|m| m.finish(plan, answer, via, aborted)) {
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
  rejected(env, error_object(env, &failed)?)
}

/// Who carried the approval, as the caller's `auditVia` says: a string (the transport) or
/// `{via, decider, detail}`; anything else, or a throw, leaves the defaults. It gets the payload
/// the gate got, or (when the policy answered) the plan's, made only then.
fn via(
  env: &Env,
  core: &Core,
  outcome: &str,
  shown: (Option<Unknown>, &Plan),
  write: Unknown,
) -> Via {
  let said = || {
    let f = core.audit_via.as_ref()?.borrow_back(env).ok()?;
    let payload = match shown {
      (Some(payload), _) => payload,
      (None, plan) => to_js(env, plan.payload()).ok()?,
    };
    let outcome = env.create_string(outcome).ok()?;
    let said = f.call(FnArgs::from((outcome.raw(), payload.raw(), write.raw())));
    said.map_err(|e| failure(env, &e)).ok()
  };
  let Some(said) = said() else {
    return Via::default();
  };
  // A label holding half a surrogate pair is kept with the half escaped: who carried an
  // approval is evidence, and is never replaced by the default.
  let escaped = |v: Unknown| text_escaped(&v).filter(|s| !s.is_empty());
  let part = |name: &str| field(env, Some(said), name).and_then(escaped);
  match text_escaped(&said) {
    Some(via) => Via {
      via: Some(via).filter(|s| !s.is_empty()),
      ..Via::default()
    },
    None => Via {
      via: part("via"),
      decider: part("decider"),
      detail: part("detail"),
    },
  }
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
