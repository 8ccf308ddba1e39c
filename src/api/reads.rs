//! The provider's synchronous calls by name, as the binding hands them over: every read, and the
//! records that are no memory and need no approval (a pending proposal, the snapshot a session
//! was given). Each one's arguments (JSON values, `null` where the caller gave none) are read,
//! the engine asked, the answer returned as JSON text.
#![forbid(unsafe_code)]

use serde_json::Value;

use super::calls::{self, count, visibility};
use super::{to_json, unknown};
use crate::engine::Memory;
use crate::error::{MemoryError, Result};
use crate::store::now_ms;

/// The synchronous calls, in the order index.d.ts lists them (space-separated).
pub const READS: &str = "query similar listEntries entry auditList snapshot snapshotRecord \
  history sessions health auditVerify proposalAdd proposalList";

/// The read `name` with `args`, answered as JSON.
///
/// # Errors
/// `INVALID_INPUT` for an unknown read or a bad argument; each read's own codes.
pub fn read(m: &mut Memory, name: &str, args: &[Value]) -> Result<String> {
  let arg = |i: usize| args.get(i).unwrap_or(&Value::Null);
  match name {
    "query" => to_json(&m.query(arg(0), &calls::query_options(arg(1)))?),
    "similar" => to_json(&m.similar(arg(0))?),
    "listEntries" => to_json(&m.list(Some(&visibility(arg(0))), &calls::only(arg(0)))?),
    "entry" => {
      let id = arg(0).as_str();
      to_json(&m.entry(id.ok_or_else(|| MemoryError::invalid("entry takes an id (string)"))?)?)
    }
    "auditList" => to_json(&m.audit_list(count(arg(0), 100))?),
    "auditVerify" => to_json(&m.audit_verify()?),
    "snapshot" => {
      to_json(&m.snapshot_with_proposals(&visibility(arg(0)), arg(1), count(arg(2), 0))?)
    }
    "snapshotRecord" => {
      let (Some(session), Some(text)) = (arg(0).as_str(), arg(1).as_str()) else {
        let usage = "snapshotRecord takes (sessionId: string, text: string, keys?)";
        return Err(MemoryError::invalid(usage));
      };
      to_json(&m.snapshot_record(session, text, &visibility(arg(2)))?)
    }
    "history" => to_json(&m.history(&calls::history_target(arg(0))?, &visibility(arg(1)))?),
    "sessions" => {
      let (id, limit) = (arg(0)["sessionId"].as_str(), count(&arg(0)["limit"], 0));
      let sessions = m.sessions(id, limit, &visibility(arg(0)))?;
      to_json(&serde_json::json!({ "sessions": sessions }))
    }
    "health" => to_json(&m.health(&calls::health_options(arg(0), now_ms())?)?),
    "proposalAdd" => to_json(&m.proposal_add(calls::proposal_input(arg(0).clone()))?),
    "proposalList" => {
      let status = super::values::opt_string(arg(0), "proposal status")?;
      to_json(&m.proposal_list(status, count(arg(1), 100))?)
    }
    _ => Err(unknown("read", name, READS)),
  }
}
