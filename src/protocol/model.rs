//! Plain data of the protocol: vocabulary, entries, audit rows, proposals, budgets, and the
//! parsing of caller input (JSON values) into validated structs with the protocol's messages.
#![forbid(unsafe_code)]

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::error::{MemoryError, Result};
use crate::text::{normalize_tags, refuse_unseen};

/// Most matches one consolidate may name.
pub const MAX_CONSOLIDATE_MATCHES: usize = 20;
/// Hard cap on one query page.
pub const MAX_QUERY_LIMIT: u64 = 1000;
/// The protocol this crate implements.
pub const PROTOCOL: &str = "dsh-memory-protocol/v1";
/// The layer a surface writes to when the caller names none (the memory tool, the CLI).
pub const DEFAULT_LAYER: (Track, Scope) = (Track::User, Scope::Workspace);
/// Default source of entries whose input names none.
pub const DEFAULT_SOURCE: &str = "dsh-memento";

/// Which kind of fact an entry holds (the default: [`DEFAULT_LAYER`]'s, what `Entry::default()`
/// holds until its caller sets it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Track {
  /// Facts about the user.
  #[default]
  User,
  /// Environment facts, conventions, lessons.
  Agent,
}

/// Where an entry applies (the default: [`DEFAULT_LAYER`]'s).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
  /// Every workspace.
  UserGlobal,
  /// One normalized cwd.
  #[default]
  Workspace,
}

/// A wire enum's names: `ALL` in protocol order, `as_str` and `parse`.
macro_rules! wire_names {
  ($ty:ident { $($variant:ident => $name:literal),+ }) => {
    impl $ty {
      /// All values in protocol order.
      pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];
      /// The wire name.
      pub fn as_str(self) -> &'static str {
        match self {
          $($ty::$variant => $name),+
        }
      }
      /// Parse a wire name.
      pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
      }
    }
  };
}

pub(crate) use wire_names;

wire_names!(Track { User => "user", Agent => "agent" });
wire_names!(Scope { UserGlobal => "user-global", Workspace => "workspace" });

/// The workspace a layer of `scope` holding `workspace_key` belongs to: that key for a workspace
/// layer, none (`''`) for a user-global one.
pub fn layer_key(scope: Scope, workspace_key: &str) -> &str {
  match scope {
    Scope::Workspace => workspace_key,
    Scope::UserGlobal => "",
  }
}

/// A layer's name, `track/scope` (`user/workspace`).
pub fn layer_name(track: Track, scope: Scope) -> String {
  format!("{}/{}", track.as_str(), scope.as_str())
}

/// A memory entry as the protocol emits it (key order matters for byte compatibility).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
  /// UUID v4, stable across `replace`.
  pub id: String,
  /// The entry's track.
  pub track: Track,
  /// The entry's scope.
  pub scope: Scope,
  /// Normalized cwd key (`''` for user-global entries we write).
  pub workspace_key: String,
  /// Agent preset key (`''` = shared layer).
  pub agent_key: String,
  /// The memory text.
  pub text: String,
  /// Provenance label.
  pub source: String,
  /// Normalized tags.
  pub tags: Vec<String>,
  /// 1 on insert, +1 per replace.
  pub version: i64,
  /// Epoch ms.
  pub created_at: i64,
  /// Epoch ms, ≥ created_at.
  pub updated_at: i64,
  /// Epoch ms of the last query hit.
  pub last_recalled: Option<i64>,
  /// Query hit count.
  pub recall_count: i64,
  /// Session that last wrote the entry.
  pub session_id: Option<String>,
}

impl Entry {
  /// The fields of an entry as the protocol emits them, in order (what an export writes).
  pub const KEYS: [&str; 14] = [
    "id",
    "track",
    "scope",
    "workspaceKey",
    "agentKey",
    "text",
    "source",
    "tags",
    "version",
    "createdAt",
    "updatedAt",
    "lastRecalled",
    "recallCount",
    "sessionId",
  ];
}

/// One audit ledger row.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditRow {
  /// Autoincrement sequence.
  pub seq: i64,
  /// Epoch ms.
  pub ts: i64,
  /// Action from the catalogue (`add`, `replace-denied`, `recalled`, …).
  pub action: String,
  /// Track, when the action has one.
  pub track: Option<String>,
  /// Scope, when the action has one.
  pub scope: Option<String>,
  /// Entry (or proposal) id, when the action has one.
  pub entry_id: Option<String>,
  /// Text as approved, removed, recalled or injected.
  pub text: Option<String>,
  /// Outcome label naming the real decision source.
  pub outcome: Option<String>,
  /// Source label.
  pub source: Option<String>,
  /// Session id.
  pub session_id: Option<String>,
  /// An entry's (or a proposal's) keys and tags as the row approved them (JSON, see
  /// [`approved_fields`]); part of the row's hash, not of its listing.
  #[serde(skip)]
  pub fields: Option<String>,
}

/// The fields of an entry an audit row records besides its layer, text and source:
/// `{"workspaceKey", "agentKey", "tags"}` as canonical JSON.
pub fn approved_fields(workspace_key: &str, agent_key: &str, tags: &[String]) -> String {
  json!({ "workspaceKey": workspace_key, "agentKey": agent_key, "tags": tags }).to_string()
}

/// The fields a row of a landed change records of its entry: [`approved_fields`] and the
/// entry's version, and on a row of a revert the `seq` it reverts.
pub fn row_fields(e: &Entry, reverts: Option<i64>) -> String {
  let mut fields = json!({
    "workspaceKey": e.workspace_key, "agentKey": e.agent_key, "tags": e.tags, "version": e.version,
  });
  if let (Some(seq), Some(map)) = (reverts, fields.as_object_mut()) {
    map.insert("reverts".into(), seq.into());
  }
  fields.to_string()
}

/// A row's fields read back: the keys and tags as [`approved_fields`] writes them (what the
/// ledger compares), and the version and reverted `seq` when the row recorded them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowFields {
  /// Workspace key.
  pub workspace_key: String,
  /// Agent key.
  pub agent_key: String,
  /// Tags.
  pub tags: Vec<String>,
  /// The entry's version (rows written before versions were recorded have none).
  pub version: Option<i64>,
  /// The `seq` this row's change reverts.
  pub reverts: Option<i64>,
}

impl RowFields {
  /// The fields of a row's `fields` JSON (`None`: the row has none, or they do not parse).
  pub fn parse(fields: Option<&str>) -> Option<RowFields> {
    let v: Value = serde_json::from_str(fields?).ok()?;
    let string = |s: &Value| s.as_str().map(str::to_string);
    let text = |k: &str| string(&v[k]);
    let tags = v["tags"].as_array().map(|t| t.iter().filter_map(string));
    Some(RowFields {
      workspace_key: text("workspaceKey")?,
      agent_key: text("agentKey")?,
      tags: tags?.collect(),
      version: v["version"].as_i64(),
      reverts: v["reverts"].as_i64(),
    })
  }

  /// The keys and tags as [`approved_fields`] writes them.
  pub fn approved(&self) -> String {
    approved_fields(&self.workspace_key, &self.agent_key, &self.tags)
  }
}

/// A pending or decided auto-capture proposal.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Proposal {
  /// UUID v4.
  pub id: String,
  /// e.g. `compaction-summary`.
  pub kind: String,
  /// Track the entry would get.
  pub track: String,
  /// Scope the entry would get.
  pub scope: String,
  /// Workspace key the entry would get.
  pub workspace_key: String,
  /// Agent key the entry would get.
  pub agent_key: String,
  /// Proposed text.
  pub text: String,
  /// Provenance.
  pub source: String,
  /// Session that proposed it.
  pub session_id: Option<String>,
  /// `pending`, `approved` or `dismissed`.
  pub status: String,
  /// Epoch ms.
  pub created_at: i64,
  /// Epoch ms of the decision.
  pub decided_at: Option<i64>,
}

/// Usage of one layer (`budgets()` row, and the `usage` of write results).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Usage {
  /// Track.
  pub track: Track,
  /// Scope.
  pub scope: Scope,
  /// UTF-16 units used.
  pub used: u64,
  /// Limit.
  pub limit: u64,
}

/// Character budget per track × scope.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budgets {
  limits: [[u64; 2]; 2],
}

impl Default for Budgets {
  fn default() -> Self {
    Self {
      limits: [[2000, 2000], [4000, 4000]],
    }
  }
}

impl Budgets {
  /// The limit of one layer.
  pub fn limit(&self, track: Track, scope: Scope) -> u64 {
    self.limits[track as usize][scope as usize]
  }

  /// Budgets from the config shape `{user:{userGlobal,workspace}, agent:{…}}`; missing keys keep
  /// their defaults.
  ///
  /// # Errors
  /// `INVALID_INPUT` when a limit is not a positive integer.
  pub fn from_config(value: Option<&Value>) -> Result<Self> {
    let mut budgets = Self::default();
    let value = value.unwrap_or(&Value::Null);
    if !value.is_null() && !value.is_object() {
      return Err(MemoryError::invalid("budgets must be an object like {user:{userGlobal,workspace}, agent:{userGlobal,workspace}}"));
    }
    for track in Track::ALL {
      let t = track.as_str();
      let per = &value[t];
      if !per.is_null() && !per.is_object() {
        let message = format!("budgets.{t} must be an object");
        return Err(MemoryError::invalid(message));
      }
      for (scope, key) in Scope::ALL.into_iter().zip(["userGlobal", "workspace"]) {
        let bad = || MemoryError::invalid(format!("budgets.{t}.{key} must be a positive integer"));
        if !per[key].is_null() {
          budgets.limits[track as usize][scope as usize] =
            per[key].as_u64().filter(|n| *n > 0).ok_or_else(bad)?;
        }
      }
    }
    Ok(budgets)
  }
}

/// The session that owns a write: where approval is routed and whose keys default the entry's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Writer {
  /// The session id (required: a write must be reconstructable from its session log).
  pub session_id: String,
  /// Normalized cwd key of the session (`''` without a cwd).
  pub workspace_key: String,
  /// Normalized agent preset key (`''` without a preset).
  pub agent_key: String,
  /// Who writes (`command`, `panel`, `cli`, `memory-tool`): what `writePolicies["source:…"]`
  /// keys on when given, whatever source the entries themselves carry (an import's do).
  pub source: Option<String>,
}

impl Writer {
  /// The writer of a write context: its session id (required), cwd and agent preset.
  ///
  /// # Errors
  /// `WRITE_REQUIRES_AGENT` without a non-empty session id.
  pub fn new(
    session_id: Option<&str>,
    cwd: Option<&str>,
    agent_preset: Option<&str>,
  ) -> Result<Self> {
    let id = session_id.filter(|id| !id.is_empty());
    Ok(Self {
      session_id: id.ok_or(MemoryError::WriteRequiresAgent)?.to_string(),
      workspace_key: crate::protocol::keys::Paths::HOST.workspace_key_of(cwd),
      agent_key: crate::protocol::keys::Paths::HOST.agent_key_of(agent_preset),
      source: None,
    })
  }

  /// This writer, writing as `source` (the write context's `source`; `None` leaves it unnamed).
  ///
  /// # Errors
  /// `INVALID_INPUT` for an empty source or one that is not one line.
  pub fn writing_as(mut self, source: Option<String>) -> Result<Self> {
    if let Some(s) = &source {
      non_empty(Some(s), "write source")?;
      refuse_unseen("write source", s, false)?;
    }
    self.source = source;
    Ok(self)
  }
}

/// A validated `add`/`seed` input.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryInput {
  /// Track.
  pub track: Track,
  /// Scope.
  pub scope: Scope,
  /// Text (not trimmed; whitespace is the user's).
  pub text: String,
  /// Explicit source.
  pub source: Option<String>,
  /// Normalized tags; `None` when the input gave none.
  pub tags: Option<Vec<String>>,
  /// Explicit workspace key (an explicit `''` counts).
  pub workspace_key: Option<String>,
  /// Explicit agent key (an explicit `''` counts).
  pub agent_key: Option<String>,
}

/// Reads a JSON value as an object; anything else reads as an empty object so that the field
/// checks report the first missing field, as the reference does.
pub fn as_object(value: &Value) -> Cow<'_, Map<String, Value>> {
  value.as_object().map_or_else(Cow::default, Cow::Borrowed)
}

/// Parse and check `track` + `scope`.
///
/// # Errors
/// `INVALID_INPUT` (`invalid memory scope: …`).
pub fn parse_layer(obj: &Map<String, Value>) -> Result<(Track, Scope)> {
  let name = |key| obj.get(key).and_then(Value::as_str);
  let track = name("track").and_then(Track::parse);
  track.zip(name("scope").and_then(Scope::parse)).ok_or_else(|| {
    // `JSON.stringify` of a field, `undefined` when absent (as the reference prints it).
    let js = |key| obj.get(key).map_or_else(|| "undefined".to_string(), Value::to_string);
    let (track, scope) = (js("track"), js("scope"));
    MemoryError::invalid(format!(
      "invalid memory scope: track={track} scope={scope} (track ∈ user|agent, scope ∈ user-global|workspace)"
    ))
  })
}

/// `s` when it is a non-empty string.
///
/// # Errors
/// `INVALID_INPUT` (`{what} must be a non-empty string`) for anything else.
pub fn non_empty<'s>(s: Option<&'s str>, what: &str) -> Result<&'s str> {
  let bad = || MemoryError::invalid(format!("{what} must be a non-empty string"));
  s.filter(|s| !s.is_empty()).ok_or_else(bad)
}

/// The non-empty string at `key`.
///
/// # Errors
/// `INVALID_INPUT` (`{what} must be a non-empty string`) when absent, empty or not a string.
pub fn required(obj: &Map<String, Value>, key: &str, what: &str) -> Result<String> {
  non_empty(obj.get(key).and_then(Value::as_str), what).map(str::to_string)
}

// Tags: `undefined`/`null` → `None`; otherwise an array of strings, normalized.
fn parse_tags(obj: &Map<String, Value>) -> Result<Option<Vec<String>>> {
  let tags = match obj.get("tags") {
    None | Some(Value::Null) => return Ok(None),
    Some(v) => Vec::<String>::deserialize(v).ok(),
  };
  let tags = tags.ok_or_else(|| MemoryError::invalid("entry tags must be an array of strings"))?;
  normalize_tags(&tags).map(Some)
}

fn optional_string(obj: &Map<String, Value>, key: &str, non_empty: bool) -> Result<Option<String>> {
  match obj.get(key) {
    None | Some(Value::Null) => Ok(None),
    Some(Value::String(s)) if !(non_empty && s.is_empty()) => {
      refuse_unseen(&format!("entry {key}"), s, false)?;
      Ok(Some(s.clone()))
    }
    Some(_) => {
      let kind = if non_empty { "a non-empty " } else { "a " };
      Err(MemoryError::invalid(format!(
        "entry {key} must be {kind}string"
      )))
    }
  }
}

/// Parse a whole entry input: layer, text, tags, then the optional source and keys.
///
/// # Errors
/// `INVALID_INPUT` for the first failing check, in the protocol's order.
pub fn parse_entry_input(value: &Value) -> Result<EntryInput> {
  parse_change(value, |_| Ok(())).map(|(input, ())| input)
}

/// Parse an entry-shaped change: layer, text, tags, then what it targets (`target`: the match
/// of replace, the matches of consolidate), then the optional source and keys.
///
/// # Errors
/// `INVALID_INPUT` for the first failing check, in the protocol's order.
pub fn parse_change<T>(
  value: &Value,
  target: impl FnOnce(&Map<String, Value>) -> Result<T>,
) -> Result<(EntryInput, T)> {
  let obj = as_object(value);
  let (track, scope) = parse_layer(&obj)?;
  let text = required(&obj, "text", "entry text")?;
  if text.trim().is_empty() {
    let blank = "entry text must be a non-empty string (it is only white space)";
    return Err(MemoryError::invalid(blank));
  }
  refuse_unseen("entry text", &text, true)?;
  let tags = parse_tags(&obj)?;
  let target = target(&obj)?;
  let source = parse_source(&obj)?;
  let (workspace_key, agent_key) = parse_keys(&obj)?;
  let input = EntryInput {
    track,
    scope,
    text,
    tags,
    source,
    workspace_key,
    agent_key,
  };
  Ok((input, target))
}

/// Parse the `match` of replace/remove.
///
/// # Errors
/// `INVALID_INPUT` (`replace/remove match must be a non-empty string`).
pub fn parse_match(obj: &Map<String, Value>) -> Result<String> {
  required(obj, "match", "replace/remove match")
}

/// Parse the `matches` of consolidate (1..20 non-empty strings).
///
/// # Errors
/// `INVALID_INPUT` (`consolidate matches must be an array of 1..20 non-empty strings`).
pub fn parse_matches(obj: &Map<String, Value>) -> Result<Vec<String>> {
  let bad =
    || MemoryError::invalid("consolidate matches must be an array of 1..20 non-empty strings");
  let matches: Option<Vec<String>> = obj.get("matches").and_then(|m| Vec::deserialize(m).ok());
  let named = |m: &Vec<String>| m.iter().all(|s| !s.is_empty());
  let bounded = |m: &Vec<String>| (1..=MAX_CONSOLIDATE_MATCHES).contains(&m.len());
  matches.filter(|m| bounded(m) && named(m)).ok_or_else(bad)
}

/// Parse the keys a targeting input may carry to pick the visible set.
///
/// # Errors
/// `INVALID_INPUT` when a key is not a string.
pub fn parse_keys(obj: &Map<String, Value>) -> Result<(Option<String>, Option<String>)> {
  Ok((
    optional_string(obj, "workspaceKey", false)?,
    optional_string(obj, "agentKey", false)?,
  ))
}

/// Parse an explicit source (`None` when absent).
///
/// # Errors
/// `INVALID_INPUT` when present but not a non-empty string.
pub fn parse_source(obj: &Map<String, Value>) -> Result<Option<String>> {
  optional_string(obj, "source", true)
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  #[test]
  fn an_entry_serializes_as_its_keys_say() -> Result<()> {
    let e = Entry {
      id: "i".into(),
      track: Track::User,
      scope: Scope::Workspace,
      workspace_key: "/w".into(),
      agent_key: String::new(),
      text: "t".into(),
      source: "s".into(),
      tags: Vec::new(),
      version: 1,
      created_at: 1,
      updated_at: 1,
      last_recalled: None,
      recall_count: 0,
      session_id: None,
    };
    let value = serde_json::to_value(&e).map_err(|e| MemoryError::invalid(e.to_string()))?;
    let keys: Vec<&str> = value
      .as_object()
      .into_iter()
      .flatten()
      .map(|(k, _)| k.as_str())
      .collect();
    assert_eq!(keys, Entry::KEYS);
    Ok(())
  }

  #[test]
  fn layer_errors_name_both_values_like_js() {
    let e = parse_entry_input(&json!({"track": "bogus", "text": "x"}))
      .err()
      .map(|e| e.to_string());
    assert_eq!(
      e.as_deref(),
      Some("invalid memory scope: track=\"bogus\" scope=undefined (track ∈ user|agent, scope ∈ user-global|workspace)")
    );
  }

  #[test]
  fn validation_order_is_layer_text_tags() {
    let e = parse_entry_input(&json!({"track": "user", "scope": "workspace", "tags": 3}))
      .err()
      .map(|e| e.to_string());
    assert_eq!(e.as_deref(), Some("entry text must be a non-empty string"));
    let e =
      parse_entry_input(&json!({"track": "user", "scope": "workspace", "text": "t", "tags": [1]}))
        .err()
        .map(|e| e.to_string());
    assert_eq!(e.as_deref(), Some("entry tags must be an array of strings"));
  }

  #[test]
  fn budgets_merge_over_defaults_and_reject_non_positive() -> Result<()> {
    let b = Budgets::from_config(Some(&json!({"user": {"userGlobal": 100}})))?;
    assert_eq!(b.limit(Track::User, Scope::UserGlobal), 100);
    assert_eq!(b.limit(Track::Agent, Scope::Workspace), 4000);
    assert!(Budgets::from_config(Some(&json!({"agent": {"workspace": 0}}))).is_err());
    assert!(Budgets::from_config(Some(&json!({"agent": {"workspace": 1.5}}))).is_err());
    Ok(())
  }

  #[test]
  fn matches_are_bounded() {
    assert!(parse_matches(&as_object(&json!({"matches": []}))).is_err());
    assert!(parse_matches(&as_object(&json!({"matches": vec!["a"; 21]}))).is_err());
    assert!(parse_matches(&as_object(&json!({"matches": ["a", ""]}))).is_err());
    assert_eq!(
      parse_matches(&as_object(&json!({"matches": ["a", "b"]}))).ok(),
      Some(vec!["a".into(), "b".into()])
    );
  }
}
