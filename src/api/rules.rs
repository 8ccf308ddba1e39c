//! The core's rules the JS layer asks for by name instead of keeping a copy (lib/native.mjs
//! names each): the protocol's enums and limits, the plugin config with its defaults, the
//! credential screen of an import, the keys and store path of a session.
#![forbid(unsafe_code)]

use serde_json::{json, Value};

use super::{config, inputs, to_json, unknown};
use crate::error::{MemoryError, Result};
use crate::protocol::model::{self, Scope, Track};
use crate::protocol::policy::WritePolicy;
use crate::protocol::{keys, snapshot};

/// The rules, by name (space-separated).
pub const RULES: &str =
  "rules resolveConfig screenEntries resolveDbPath dshHome workspaceKeyOf agentKeyOf";

/// The protocol's enums and limits, for every JS surface that needs them.
fn protocol() -> Value {
  json!({
    "tracks": Track::ALL.map(Track::as_str),
    "scopes": Scope::ALL.map(Scope::as_str),
    "writePolicies": WritePolicy::ALL.map(WritePolicy::as_str),
    "maxConsolidateMatches": model::MAX_CONSOLIDATE_MATCHES,
    "maxQueryLimit": model::MAX_QUERY_LIMIT,
    "errorCodes": MemoryError::CODES,
    "snapshotLabels": snapshot::Labels::default(),
    "protocol": model::PROTOCOL,
    "defaultLayer": { "track": model::DEFAULT_LAYER.0.as_str(), "scope": model::DEFAULT_LAYER.1.as_str() },
    "maxTagsPerEntry": crate::text::MAX_TAGS_PER_ENTRY,
    "maxTagLength": crate::text::MAX_TAG_LENGTH,
    "entryKeys": model::Entry::KEYS,
  })
}

/// The rule `name` applied to `input`, as JSON.
///
/// # Errors
/// `INVALID_INPUT` for an unknown rule or a bad input; `resolveConfig` refuses a bad config with
/// the reference's messages, `screenEntries` a bad batch.
pub fn rule(name: &str, input: &Value) -> Result<String> {
  match name {
    "rules" => to_json(&protocol()),
    "resolveConfig" => to_json(&config::resolve(input)?),
    "screenEntries" => to_json(&inputs::screen(input)?),
    "resolveDbPath" => {
      let path = super::values::opt_string(input, "dbPath")?;
      to_json(&keys::store_path(path.unwrap_or_default()))
    }
    "dshHome" => to_json(&keys::host_dsh_home()),
    "workspaceKeyOf" => to_json(&keys::Paths::HOST.workspace_key_of(input.as_str())),
    "agentKeyOf" => to_json(&keys::Paths::HOST.agent_key_of(input.as_str())),
    _ => Err(unknown("rule", name, RULES)),
  }
}
