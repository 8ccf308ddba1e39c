//! The provider's call arguments as the core takes them: option objects, counts and their
//! defaults (JSON values the binding converted; anything malformed reads as absent).
#![forbid(unsafe_code)]

use serde_json::Value;

use super::config::STALE_DAYS;
use super::values::integer;
use crate::engine::{HealthOptions, HistoryTarget, ProposalInput, QueryOptions};
use crate::error::{MemoryError, Result};
use crate::protocol::model;
use crate::store::entries::Only;
use crate::store::Visibility;

/// `opts[key]` when it is a string.
fn string(opts: &Value, key: &str) -> Option<String> {
  opts[key].as_str().map(str::to_string)
}

/// A positive count, else `default`.
pub fn count(value: &Value, default: u64) -> u64 {
  value.as_u64().filter(|n| *n > 0).unwrap_or(default)
}

/// The `{agentKey, workspaceKey}` of an options object (a key absent or not a string: no filter).
pub fn visibility(opts: &Value) -> Visibility {
  Visibility {
    agent_key: string(opts, "agentKey"),
    workspace_key: string(opts, "workspaceKey"),
  }
}

/// The exact facets `{only: {track, scope, workspaceKey, agentKey}}` of an options object (a
/// facet absent or not a string: none).
pub fn only(opts: &Value) -> Only {
  let only = &opts["only"];
  Only {
    track: string(only, "track"),
    scope: string(only, "scope"),
    workspace_key: string(only, "workspaceKey"),
    agent_key: string(only, "agentKey"),
  }
}

/// The `{sessionId, agentKey, workspaceKey, countRecall, only}` of `query` (counting recall by
/// default).
pub fn query_options(opts: &Value) -> QueryOptions {
  QueryOptions {
    session_id: string(opts, "sessionId"),
    visibility: visibility(opts),
    count_recall: opts["countRecall"].as_bool().unwrap_or(true),
    only: only(opts),
  }
}

/// The `{staleDays, agentKey, workspaceKey}` of `health`, at `now`.
///
/// # Errors
/// `INVALID_INPUT`: `staleDays` given and not a positive integer.
pub fn health_options(opts: &Value, now: i64) -> Result<HealthOptions> {
  let stale_days = match &opts["staleDays"] {
    Value::Null => STALE_DAYS,
    days => integer(days, "staleDays", 1)?,
  };
  Ok(HealthOptions {
    stale_days,
    visibility: visibility(opts),
    now,
  })
}

/// The error an adapter reports, `{adapterId, message?, file?, line?, path?}`: without a message
/// `ADAPTER_NOT_FOUND`, else `ADAPTER_PAYLOAD` at its location.
pub fn adapter_error(fault: &Value) -> MemoryError {
  let adapter_id = string(fault, "adapterId").unwrap_or_default();
  match string(fault, "message") {
    None => MemoryError::AdapterNotFound { adapter_id },
    Some(message) => MemoryError::AdapterPayload {
      adapter_id,
      message,
      file: string(fault, "file"),
      line: fault["line"].as_u64(),
      path: string(fault, "path"),
    },
  }
}

/// An audit `seq`: a positive integer.
///
/// # Errors
/// `INVALID_INPUT` for anything else.
pub fn seq(value: &Value) -> Result<i64> {
  let seq = value.as_i64().filter(|n| *n > 0);
  seq.ok_or_else(|| MemoryError::invalid("an audit seq must be a positive integer"))
}

/// A proposal id: a non-empty string.
///
/// # Errors
/// `INVALID_INPUT` for anything else.
pub fn proposal_id(value: &Value) -> Result<&str> {
  model::non_empty(value.as_str(), "proposal id")
}

/// What `history` is asked about: an entry id (a string), an audit `seq` (a number), or
/// `{match, track, scope}` (the layer defaults to the protocol's default layer).
///
/// # Errors
/// `INVALID_INPUT` for anything else.
pub fn history_target(target: &Value) -> Result<HistoryTarget> {
  let bad =
    || MemoryError::invalid("history takes an entry id, an audit seq, or {match, track?, scope?}");
  match target {
    Value::String(id) if !id.is_empty() => Ok(HistoryTarget::Id(id.clone())),
    Value::Number(_) => seq(target).map(HistoryTarget::Seq),
    Value::Object(o) => {
      let mut layer = o.clone();
      let (track, scope) = model::DEFAULT_LAYER;
      layer.entry("track").or_insert(track.as_str().into());
      layer.entry("scope").or_insert(scope.as_str().into());
      let (track, scope) = model::parse_layer(&layer)?;
      Ok(HistoryTarget::Match {
        track,
        scope,
        needle: model::parse_match(&layer)?,
      })
    }
    _ => Err(bad()),
  }
}

/// The input of `proposalAdd` (`kind` and `sessionId` read from it; the rest is checked there).
pub fn proposal_input(input: Value) -> ProposalInput {
  ProposalInput {
    kind: string(&input, "kind").unwrap_or_default(),
    session_id: string(&input, "sessionId"),
    input,
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  #[test]
  fn malformed_options_read_as_absent() {
    let q = query_options(&json!({ "sessionId": 5, "agentKey": "a", "countRecall": "no" }));
    assert_eq!((q.session_id, q.count_recall), (None, true));
    assert_eq!(
      (
        q.visibility.agent_key.as_deref(),
        q.visibility.workspace_key
      ),
      (Some("a"), None)
    );
    assert!(!query_options(&json!({ "countRecall": false })).count_recall);
    assert_eq!(visibility(&Value::Null).agent_key, None);
    assert_eq!(
      [
        count(&json!(0), 100),
        count(&json!(2.5), 100),
        count(&json!(7), 100)
      ],
      [100, 100, 7]
    );
    assert_eq!(proposal_input(json!({ "kind": 1 })).kind, "");
  }
}
