//! The writes by name, as the binding hands them over: each one's planner, which checks the
//! input and builds the approve-what-you-see payload (the engine's `plan_*`).
#![forbid(unsafe_code)]

use serde_json::Value;

use super::calls;
use crate::engine::{Memory, Plan};
use crate::error::{MemoryError, Result};
use crate::protocol::model::Writer;

/// A write's planner: its input (JSON) and writer in, a checked write out.
pub type Planner = fn(&mut Memory, &Value, Writer) -> Result<Plan>;

/// Every write, by name: the protocol's five, a proposal's approval (its input is the proposal
/// id) and a revert (an audit seq).
pub const WRITES: [(&str, Planner); 7] = [
  ("add", Memory::plan_add),
  ("replace", Memory::plan_replace),
  ("remove", Memory::plan_remove),
  ("consolidate", Memory::plan_consolidate),
  ("seed", Memory::plan_seed),
  ("approve", |m, id, w| {
    m.plan_approve(calls::proposal_id(id)?, w)
  }),
  ("revert", |m, seq, w| m.plan_revert(calls::seq(seq)?, w)),
];

/// Dismiss pending proposal `id` (no memory changes, so no gate): the dismissed proposal.
///
/// # Errors
/// `INVALID_INPUT` for an id that is no string; `PROPOSAL_NOT_FOUND`; store failures.
pub fn dismiss(m: &mut Memory, id: &Value, writer: &Writer) -> Result<Value> {
  let proposal = m.proposal_dismiss(calls::proposal_id(id)?, writer)?;
  Ok(serde_json::json!({ "proposal": proposal }))
}

/// The write named `kind`, and its planner.
///
/// # Errors
/// `INVALID_INPUT` for a name that is none of [`WRITES`].
pub fn planner(kind: Option<&str>) -> Result<(&'static str, Planner)> {
  let found = kind.and_then(|k| WRITES.into_iter().find(|(name, _)| *name == k));
  found.ok_or_else(|| {
    let names = WRITES.map(|(name, _)| name).join(", ");
    MemoryError::invalid(format!("a write is one of {names}"))
  })
}
