//! The provider's synchronous calls by name, as the binding hands them over: every read, and the
//! records that are no memory and need no approval (a pending proposal, the snapshot a session
//! was given). Each one's arguments (JSON values, `null` where the caller gave none) are read,
//! the engine asked, the answer returned as JSON text.
#![forbid(unsafe_code)]

use serde::Serialize;
use serde_json::Value;

use super::calls::{self, count, visibility};
use crate::engine::Memory;
use crate::error::{MemoryError, Result};
use crate::store::now_ms;

/// The synchronous calls, in the order index.d.ts lists them.
pub const READS: [&str; 13] = [
  "query",
  "similar",
  "listEntries",
  "entry",
  "auditList",
  "snapshot",
  "snapshotRecord",
  "history",
  "sessions",
  "health",
  "auditVerify",
  "proposalAdd",
  "proposalList",
];

fn json(value: &impl Serialize) -> Result<String> {
  serde_json::to_string(value).map_err(|e| MemoryError::invalid(e.to_string()))
}

/// An optional string argument: absent (`null`), else a string, else `INVALID_INPUT`.
fn opt_string<'a>(value: &'a Value, what: &str) -> Result<Option<&'a str>> {
  match value {
    Value::Null => Ok(None),
    Value::String(s) => Ok(Some(s)),
    _ => Err(MemoryError::invalid(format!("{what} must be a string"))),
  }
}

/// The read `name` with `args`, answered as JSON.
///
/// # Errors
/// `INVALID_INPUT` for an unknown read or a bad argument; each read's own codes.
pub fn read(m: &mut Memory, name: &str, args: &[Value]) -> Result<String> {
  let arg = |i: usize| args.get(i).unwrap_or(&Value::Null);
  match name {
    "query" => json(&m.query(arg(0), &calls::query_options(arg(1)))?),
    "similar" => json(&m.similar(arg(0))?),
    "listEntries" => json(&m.list(Some(&visibility(arg(0))), &calls::only(arg(0)))?),
    "entry" => {
      let id = arg(0).as_str();
      json(&m.entry(id.ok_or_else(|| MemoryError::invalid("entry takes an id (string)"))?)?)
    }
    "auditList" => json(&m.audit_list(count(arg(0), 100))?),
    "auditVerify" => json(&m.audit_verify()?),
    "snapshot" => {
      json(&m.snapshot_with_proposals(&visibility(arg(0)), arg(1), count(arg(2), 0))?)
    }
    "snapshotRecord" => {
      let (Some(session), Some(text)) = (arg(0).as_str(), arg(1).as_str()) else {
        let usage = "snapshotRecord takes (sessionId: string, text: string, keys?)";
        return Err(MemoryError::invalid(usage));
      };
      json(&m.snapshot_record(session, text, &visibility(arg(2)))?)
    }
    "history" => json(&m.history(&calls::history_target(arg(0))?, &visibility(arg(1)))?),
    "sessions" => {
      let (id, limit) = (arg(0)["sessionId"].as_str(), count(&arg(0)["limit"], 0));
      let sessions = m.sessions(id, limit, &visibility(arg(0)))?;
      json(&serde_json::json!({ "sessions": sessions }))
    }
    "health" => json(&m.health(&calls::health_options(arg(0), now_ms())?)?),
    "proposalAdd" => json(&m.proposal_add(calls::proposal_input(arg(0).clone()))?),
    "proposalList" => {
      let status = opt_string(arg(0), "proposal status")?;
      json(&m.proposal_list(status, count(arg(1), 100))?)
    }
    _ => Err(MemoryError::invalid(format!(
      "no read is named {}; the reads are {}",
      crate::error::json_str(name),
      READS.join(", ")
    ))),
  }
}
