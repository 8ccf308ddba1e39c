//! The one error type of the crate. Each variant is exactly one protocol error code; its named
//! fields are the code's `details`, and its `Display` is the English message of the protocol's
//! audit contract (protocol-behaviour §3).
#![forbid(unsafe_code)]

use serde::Serialize;
use serde_json::{json, Value};

/// Every failure the memory store reports; its serialization (the fields not skipped) is the
/// code's `details`.
#[derive(Debug, thiserror::Error, Serialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
#[non_exhaustive]
pub enum MemoryError {
  /// A malformed track, scope, text, tag list, match, option or envelope.
  #[error("{message}")]
  InvalidInput {
    /// The exact protocol message.
    #[serde(skip)]
    message: String,
    /// Machine-readable reason, when the caller can act on it (e.g. `secret`).
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// The entry of a batch (`seed`) that was refused: its position, which an import names
    /// by its own location (a file's line, `entries[i]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<usize>,
  },
  /// A write without an owning agent session to route approval through.
  #[error("memory write requires an owning agent session to route approval through; refuse rather than write unapproved")]
  WriteRequiresAgent,
  /// The write would take a layer past its character budget.
  #[error("memory budget exceeded: {track}/{scope} at {used}/{limit} chars, this write needs {needed} chars; consolidate or remove entries, then retry")]
  BudgetExceeded {
    /// Track of the layer.
    track: String,
    /// Scope of the layer.
    scope: String,
    /// UTF-16 units already used in the layer.
    used: u64,
    /// The layer's limit.
    limit: u64,
    /// The would-be total: `used + delta`.
    needed: u64,
    /// Ways to make room: near-duplicates to consolidate, then the entries least worth keeping,
    /// until they free `needed - limit` (when the layer holds that much).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suggestions: Vec<Suggestion>,
  },
  /// No visible entry contains the match, or (`changed`) the approved target was rewritten
  /// while its approval was pending.
  #[error("{}", not_found_message(track, scope, r#match, changed.as_deref()))]
  EntryNotFound {
    /// Track searched.
    track: String,
    /// Scope searched.
    scope: String,
    /// The substring that matched nothing, or that found the changed target.
    r#match: String,
    /// The target as it is now, when it changed after the approver saw it (details `reason:
    /// "changed"`, `approvedVersion`, `current`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    changed: Option<Box<Changed>>,
  },
  /// More than one visible entry contains the match.
  #[error("match {} is ambiguous in {track}/{scope}: {candidates} entries contain it; use a longer, unique substring", json_str(.r#match))]
  AmbiguousMatch {
    /// Track searched.
    track: String,
    /// Scope searched.
    scope: String,
    /// The ambiguous substring.
    r#match: String,
    /// How many entries contain it.
    candidates: u64,
    /// Every candidate's text in creation order, cut to 200 UTF-16 units plus `…`.
    sample: Vec<String>,
  },
  /// The approval transport did not answer `allowed-once`.
  #[error("memory write not approved (approval outcome: {outcome}{}); nothing was written", detail.as_deref().map(|d| format!("; {d}")).unwrap_or_default())]
  WriteDenied {
    /// The outcome the gate produced (or `unavailable` when it failed).
    outcome: String,
    /// Why, when the gate itself failed.
    #[serde(skip)]
    detail: Option<String>,
  },
  /// A decision on a proposal that is not pending.
  #[error("proposal {} is not a pending proposal{}; nothing was changed", json_str(.id), detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
  ProposalNotFound {
    /// The proposal id.
    id: String,
    /// `already approved` / `already dismissed`, when known.
    #[serde(skip)]
    detail: Option<String>,
  },
  /// The store cannot be opened, read or written (`STORE_CORRUPT`, the protocol's one code for
  /// it): `reason` says why — corrupt, busy, closed, read-only, full, other I/O — and whether to
  /// retry, free space, fix permissions or restore.
  #[error("{message}")]
  StoreFailed {
    /// The exact message, ending with what to do.
    #[serde(skip)]
    message: String,
    /// The store file.
    path: String,
    /// Why, for a caller that decides what to do (details `reason` and `retryable`).
    #[serde(flatten, serialize_with = "StoreReason::details")]
    reason: StoreReason,
    /// The SQLite (or file system) error underneath, when there is one.
    #[serde(skip)]
    #[source]
    cause: Option<Cause>,
  },
  /// The store was written by a newer dsh-memento.
  #[error("memory database at {path} has schema_version {version} > supported {supported}; upgrade dsh-memento instead of downgrading")]
  StoreUnsupportedVersion {
    /// The store file.
    path: String,
    /// The version found.
    #[serde(skip)]
    version: i64,
    /// The newest version this build understands.
    #[serde(skip)]
    supported: i64,
  },
  /// No adapter is registered under this id.
  #[error("no memory adapter registered with id {}; check /memory adapters for the registered list", json_str(.adapter_id))]
  AdapterNotFound {
    /// The unknown id.
    adapter_id: String,
  },
  /// An adapter could not convert its payload.
  #[error("adapter {}: {}{message}", json_str(.adapter_id), located(file.as_deref(), *line, path.as_deref()))]
  AdapterPayload {
    /// The adapter id.
    adapter_id: String,
    /// What was wrong.
    #[serde(skip)]
    message: String,
    /// The file of the payload it is in, when the payload is a set of files.
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    /// Its line (1-based), for a text payload.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    /// Its JSON pointer, for a structured payload without lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
  },
}

/// The crate's result type.
pub type Result<T, E = MemoryError> = std::result::Result<T, E>;

/// [`MemoryError::CODES`] and [`MemoryError::code`] from one list: each variant's code, in the
/// protocol's order.
macro_rules! codes {
  ($($variant:ident => $code:literal,)+) => {
    impl MemoryError {
      /// Every protocol code, in the protocol's order: what [`MemoryError::code`] can return.
      pub const CODES: [&'static str; 11] = [$($code),+];

      /// The stable protocol code (`BUDGET_EXCEEDED`, …).
      pub fn code(&self) -> &'static str {
        match self {
          $(Self::$variant { .. } => $code,)+
        }
      }
    }
  };
}

codes! {
  InvalidInput => "INVALID_INPUT",
  WriteRequiresAgent => "WRITE_REQUIRES_AGENT",
  BudgetExceeded => "BUDGET_EXCEEDED",
  EntryNotFound => "ENTRY_NOT_FOUND",
  AmbiguousMatch => "AMBIGUOUS_MATCH",
  WriteDenied => "WRITE_DENIED",
  ProposalNotFound => "PROPOSAL_NOT_FOUND",
  StoreFailed => "STORE_CORRUPT",
  StoreUnsupportedVersion => "STORE_UNSUPPORTED_VERSION",
  AdapterNotFound => "ADAPTER_NOT_FOUND",
  AdapterPayload => "ADAPTER_PAYLOAD",
}

impl MemoryError {
  /// The JSON-safe `details` object of the protocol (§3): the variant's serialized fields.
  pub fn details(&self) -> Value {
    match serde_json::to_value(self) {
      Ok(d @ Value::Object(_)) => d,
      _ => json!({}),
    }
  }

  /// Shorthand for [`MemoryError::InvalidInput`] without a reason.
  pub fn invalid(message: impl Into<String>) -> Self {
    Self::refused(message.into(), None)
  }

  /// [`MemoryError::InvalidInput`] with its machine-readable `reason` (`secret`, …), if any.
  pub fn refused(message: String, reason: Option<&str>) -> Self {
    Self::InvalidInput {
      message,
      reason: reason.map(str::to_string),
      index: None,
    }
  }

  /// This refusal as one of entry `at` of a batch: `entry {at}: {message}`, with the index in
  /// its details (other errors unchanged).
  pub fn at_entry(mut self, at: usize) -> Self {
    if let Self::InvalidInput { message, index, .. } = &mut self {
      *message = format!("entry {at}: {message}");
      *index = Some(at);
    }
    self
  }

  /// A `STORE_CORRUPT` for a failure of the store at `path`: `what` happened, `cause` is the
  /// error underneath (its `source()`); the message ends with the reason's advice.
  pub fn store(path: &str, reason: StoreReason, what: &str, cause: Option<Cause>) -> Self {
    let under = cause.as_ref().map_or(String::new(), |c| format!(": {c}"));
    let message = format!("{what}{under}; nothing was changed; {}", reason.advice());
    Self::StoreFailed {
      message,
      path: path.to_string(),
      reason,
      cause,
    }
  }

  /// The store failure's reason, if this is one.
  pub fn store_reason(&self) -> Option<StoreReason> {
    match self {
      Self::StoreFailed { reason, .. } => Some(*reason),
      _ => None,
    }
  }
}

/// The error underneath a store failure: SQLite's or the file system's.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Why a store operation failed (`STORE_CORRUPT`'s `details.reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StoreReason {
  /// Not a dsh-memento store, or damaged.
  Corrupt,
  /// Another process held the store's lock past the wait.
  Busy,
  /// The provider was closed.
  Closed,
  /// The file or its folder cannot be written.
  Readonly,
  /// The disk (or a file-size limit) is full.
  Full,
  /// Any other input/output failure.
  Io,
}

impl StoreReason {
  /// The reason's details: `{reason, retryable}`.
  fn details<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
    json!({ "reason": self, "retryable": self.retryable() }).serialize(s)
  }

  /// Whether the same call may succeed if simply tried again.
  pub fn retryable(self) -> bool {
    self == Self::Busy
  }

  /// What a person can do about it (nothing was changed).
  fn advice(self) -> &'static str {
    match self {
      Self::Corrupt => "restore the file from a backup or move it aside to start a new store",
      Self::Busy => "another process holds the store, retry",
      Self::Closed => "open a new provider",
      Self::Readonly => "make the file and its folder writable",
      Self::Full => "free disk space, then retry",
      Self::Io => "check the disk and the file's permissions, then retry",
    }
  }
}

/// One way to make room in a full layer (a `BUDGET_EXCEEDED`'s `suggestions`): the write to
/// ask for, which still goes through the gate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suggestion {
  /// `consolidate` (several entries into one) or `remove`.
  pub action: &'static str,
  /// Why these entries: near-duplicates, updates of one fact, never recalled, …
  pub why: String,
  /// UTF-16 units the write frees.
  pub frees: u64,
  /// The entries it changes, `{id, text}`.
  pub entries: Vec<Value>,
  /// The input of that write, as the provider method `action` takes it.
  pub input: Value,
}

/// A write's target as it is now, after it changed: under a pending approval, or (a revert)
/// after the change being reverted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
  /// The entry's id (unchanged).
  pub id: String,
  /// The version the approver saw, or the one the reverted change left (0: it left none, the
  /// entry was removed).
  pub approved_version: i64,
  /// The version now stored.
  pub version: i64,
  /// The text now stored.
  pub text: String,
  /// The `seq` of the change a revert would undo.
  pub reverting: Option<i64>,
}

/// Details `{reason: "changed", approvedVersion, current: {id, version, text}, reverts?}`.
impl Serialize for Changed {
  fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
    let current = json!({ "id": self.id, "version": self.version, "text": self.text });
    let mut details =
      json!({ "reason": "changed", "approvedVersion": self.approved_version, "current": current });
    if let (Some(seq), Some(map)) = (self.reverting, details.as_object_mut()) {
      map.insert("reverts".into(), seq.into());
    }
    details.serialize(s)
  }
}

fn not_found_message(track: &str, scope: &str, needle: &str, changed: Option<&Changed>) -> String {
  let Some(c) = changed else {
    let needle = json_str(needle);
    return format!("no entry in {track}/{scope} contains {needle}; nothing was changed");
  };
  let (id, approved, version) = (&c.id, c.approved_version, c.version);
  let Some(seq) = c.reverting else {
    return format!(
      "entry {id} in {track}/{scope} (matched by {}) changed while its approval was pending (version {approved} was approved, version {version} is stored); nothing was changed: plan the write again against its current text",
      json_str(needle)
    );
  };
  let left = match approved {
    0 => "which removed it".to_string(),
    v => format!("which left version {v}"),
  };
  format!(
    "entry {id} in {track}/{scope} changed after change #{seq} ({left}, version {version} is stored); nothing was changed: a revert never overwrites a later change, so revert that one first or edit the entry"
  )
}

/// Where in an adapter's payload a fault is: `{file}: `, then `line {n}: `, else `at {path}: `.
fn located(file: Option<&str>, line: Option<u64>, path: Option<&str>) -> String {
  let file = file.map(|f| format!("{f}: ")).unwrap_or_default();
  match (line, path) {
    (Some(n), _) => format!("{file}line {n}: "),
    (None, Some(p)) => format!("{file}at {p}: "),
    (None, None) => file,
  }
}

/// `value` as a JSON string literal, the protocol's `{JSON(x)}`.
pub fn json_str(value: &str) -> String {
  Value::String(value.to_string()).to_string()
}

#[cfg(test)]
mod tests {
  use super::*;

  fn all() -> Vec<MemoryError> {
    vec![
      MemoryError::invalid("x"),
      MemoryError::WriteRequiresAgent,
      MemoryError::BudgetExceeded {
        track: "user".into(),
        scope: "workspace".into(),
        used: 12,
        limit: 12,
        needed: 16,
        suggestions: Vec::new(),
      },
      MemoryError::EntryNotFound {
        track: "user".into(),
        scope: "workspace".into(),
        r#match: "a\"b".into(),
        changed: None,
      },
      MemoryError::AmbiguousMatch {
        track: "user".into(),
        scope: "workspace".into(),
        r#match: "pnpm".into(),
        candidates: 2,
        sample: vec!["a".into(), "b".into()],
      },
      MemoryError::WriteDenied {
        outcome: "rejected".into(),
        detail: None,
      },
      MemoryError::ProposalNotFound {
        id: "p".into(),
        detail: Some("already approved".into()),
      },
      MemoryError::store("/x", StoreReason::Io, "boom", None),
      MemoryError::StoreUnsupportedVersion {
        path: "/x".into(),
        version: 9,
        supported: 5,
      },
      MemoryError::AdapterNotFound {
        adapter_id: "zz".into(),
      },
      MemoryError::AdapterPayload {
        adapter_id: "mem0".into(),
        message: "bad".into(),
        file: Some("MEMORY.md".into()),
        line: Some(3),
        path: None,
      },
    ]
  }

  /// `e`'s place in [`all`]: a match without a wildcard, so a new variant does not compile until
  /// it has a place here, and the test below then fails until [`all`] lists it.
  fn place(e: &MemoryError) -> usize {
    match e {
      MemoryError::InvalidInput { .. } => 0,
      MemoryError::WriteRequiresAgent => 1,
      MemoryError::BudgetExceeded { .. } => 2,
      MemoryError::EntryNotFound { .. } => 3,
      MemoryError::AmbiguousMatch { .. } => 4,
      MemoryError::WriteDenied { .. } => 5,
      MemoryError::ProposalNotFound { .. } => 6,
      MemoryError::StoreFailed { .. } => 7,
      MemoryError::StoreUnsupportedVersion { .. } => 8,
      MemoryError::AdapterNotFound { .. } => 9,
      MemoryError::AdapterPayload { .. } => 10,
    }
  }

  #[test]
  fn every_variant_is_listed_once_in_order() {
    let places: Vec<usize> = all().iter().map(place).collect();
    assert_eq!(places, (0..MemoryError::CODES.len()).collect::<Vec<_>>());
  }

  #[test]
  fn the_listed_codes_are_the_variants_codes() {
    let codes: Vec<&str> = all().iter().map(MemoryError::code).collect();
    assert_eq!(codes, MemoryError::CODES);
  }

  #[test]
  fn every_variant_s_code_message_and_details() {
    // A snapshot: a change to any message or detail shows up here, variant by variant.
    let snapshot: Vec<Value> = all()
      .iter()
      .map(|e| json!([e.code(), e.to_string(), e.details()]))
      .collect();
    let expected = json!([
      ["INVALID_INPUT", "x", {}],
      ["WRITE_REQUIRES_AGENT", "memory write requires an owning agent session to route approval through; refuse rather than write unapproved", {}],
      ["BUDGET_EXCEEDED", "memory budget exceeded: user/workspace at 12/12 chars, this write needs 16 chars; consolidate or remove entries, then retry", {"track": "user", "scope": "workspace", "used": 12, "limit": 12, "needed": 16}],
      ["ENTRY_NOT_FOUND", "no entry in user/workspace contains \"a\\\"b\"; nothing was changed", {"track": "user", "scope": "workspace", "match": "a\"b"}],
      ["AMBIGUOUS_MATCH", "match \"pnpm\" is ambiguous in user/workspace: 2 entries contain it; use a longer, unique substring", {"track": "user", "scope": "workspace", "match": "pnpm", "candidates": 2, "sample": ["a", "b"]}],
      ["WRITE_DENIED", "memory write not approved (approval outcome: rejected); nothing was written", {"outcome": "rejected"}],
      ["PROPOSAL_NOT_FOUND", "proposal \"p\" is not a pending proposal (already approved); nothing was changed", {"id": "p"}],
      ["STORE_CORRUPT", "boom; nothing was changed; check the disk and the file's permissions, then retry", {"path": "/x", "reason": "io", "retryable": false}],
      ["STORE_UNSUPPORTED_VERSION", "memory database at /x has schema_version 9 > supported 5; upgrade dsh-memento instead of downgrading", {"path": "/x"}],
      ["ADAPTER_NOT_FOUND", "no memory adapter registered with id \"zz\"; check /memory adapters for the registered list", {"adapterId": "zz"}],
      ["ADAPTER_PAYLOAD", "adapter \"mem0\": MEMORY.md: line 3: bad", {"adapterId": "mem0", "file": "MEMORY.md", "line": 3}]
    ]);
    assert_eq!(Value::Array(snapshot), expected);
  }

  #[test]
  fn the_codes_are_the_protocols_one_variant_each() {
    // The normative schema's list, not one kept by hand: a code missing, extra or shared by
    // two variants fails here.
    let schema: Value = serde_json::from_str(include_str!(
      "../schemas/dsh-memory-protocol-v1.schema.json"
    ))
    .expect("the protocol schema is JSON");
    let mut protocol: Vec<&str> = schema["$defs"]["errorCode"]["enum"]
      .as_array()
      .expect("the schema lists the error codes")
      .iter()
      .filter_map(Value::as_str)
      .collect();
    let mut ours: Vec<&str> = all().iter().map(|e| e.code()).collect();
    protocol.sort_unstable();
    ours.sort_unstable();
    assert_eq!(ours, protocol);
  }

  #[test]
  fn store_failures_say_why_whether_to_retry_and_what_to_do() {
    let reasons = [
      (
        StoreReason::Corrupt,
        "corrupt",
        false,
        "restore the file from a backup",
      ),
      (StoreReason::Busy, "busy", true, "retry"),
      (StoreReason::Closed, "closed", false, "open a new provider"),
      (
        StoreReason::Readonly,
        "readonly",
        false,
        "make the file and its folder writable",
      ),
      (StoreReason::Full, "full", false, "free disk space"),
      (StoreReason::Io, "io", false, "check the disk"),
    ];
    for (reason, name, retryable, advice) in reasons {
      let e = MemoryError::store("/s.db", reason, "it failed", Some("sqlite says".into()));
      assert_eq!(e.code(), "STORE_CORRUPT");
      assert_eq!(
        e.details(),
        json!({"path": "/s.db", "reason": name, "retryable": retryable})
      );
      assert!(e
        .to_string()
        .starts_with("it failed: sqlite says; nothing was changed; "));
      assert!(e.to_string().contains(advice), "{e}");
      let source = std::error::Error::source(&e).map(ToString::to_string);
      assert_eq!(source.as_deref(), Some("sqlite says"));
    }
  }

  #[test]
  fn messages_and_details_follow_the_protocol() {
    let e = MemoryError::BudgetExceeded {
      track: "user".into(),
      scope: "workspace".into(),
      used: 12,
      limit: 12,
      needed: 16,
      suggestions: Vec::new(),
    };
    assert_eq!(
      e.to_string(),
      "memory budget exceeded: user/workspace at 12/12 chars, this write needs 16 chars; consolidate or remove entries, then retry"
    );
    assert_eq!(
      e.details(),
      json!({"track":"user","scope":"workspace","used":12,"limit":12,"needed":16})
    );
    let e = MemoryError::EntryNotFound {
      track: "user".into(),
      scope: "workspace".into(),
      r#match: "a\"b".into(),
      changed: None,
    };
    assert_eq!(
      e.to_string(),
      "no entry in user/workspace contains \"a\\\"b\"; nothing was changed"
    );
    let e = MemoryError::EntryNotFound {
      track: "user".into(),
      scope: "workspace".into(),
      r#match: "pnpm".into(),
      changed: Some(Box::new(Changed {
        id: "i".into(),
        approved_version: 1,
        version: 2,
        text: "Prefers pnpm 9".into(),
        reverting: None,
      })),
    };
    assert_eq!(
      e.to_string(),
      "entry i in user/workspace (matched by \"pnpm\") changed while its approval was pending (version 1 was approved, version 2 is stored); nothing was changed: plan the write again against its current text"
    );
    assert_eq!(
      e.details(),
      json!({"track":"user","scope":"workspace","match":"pnpm","reason":"changed","approvedVersion":1,"current":{"id":"i","version":2,"text":"Prefers pnpm 9"}})
    );
    let e = MemoryError::WriteDenied {
      outcome: "unavailable".into(),
      detail: Some("approval ask failed: x".into()),
    };
    assert_eq!(
      e.to_string(),
      "memory write not approved (approval outcome: unavailable; approval ask failed: x); nothing was written"
    );
    let e = MemoryError::ProposalNotFound {
      id: "p".into(),
      detail: Some("already approved".into()),
    };
    assert_eq!(
      e.to_string(),
      "proposal \"p\" is not a pending proposal (already approved); nothing was changed"
    );
    assert_eq!(
      MemoryError::AdapterNotFound {
        adapter_id: "zz".into()
      }
      .details(),
      json!({"adapterId":"zz"})
    );
  }
}
