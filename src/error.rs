//! The one error type of the crate. Each variant is exactly one protocol error code; its named
//! fields are the code's `details`, and its `Display` is the English message of the protocol's
//! audit contract (protocol-behaviour §3).
#![forbid(unsafe_code)]

use serde_json::{json, Value};

/// Every failure the memory store reports.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
  /// A malformed track, scope, text, tag list, match, option or envelope.
  #[error("{message}")]
  InvalidInput {
    /// The exact protocol message.
    message: String,
    /// Machine-readable reason, when the caller can act on it (e.g. `secret`).
    reason: Option<String>,
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
    /// The target as it is now, when it changed after the approver saw it.
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
    detail: Option<String>,
  },
  /// A decision on a proposal that is not pending.
  #[error("proposal {} is not a pending proposal{}; nothing was changed", json_str(.id), detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
  ProposalNotFound {
    /// The proposal id.
    id: String,
    /// `already approved` / `already dismissed`, when known.
    detail: Option<String>,
  },
  /// The store cannot be opened, read or written.
  #[error("{message}")]
  StoreCorrupt {
    /// The exact message.
    message: String,
    /// The store file.
    path: String,
  },
  /// The store was written by a newer dsh-memento.
  #[error("memory database at {path} has schema_version {version} > supported {supported}; upgrade dsh-memento instead of downgrading")]
  StoreUnsupportedVersion {
    /// The store file.
    path: String,
    /// The version found.
    version: i64,
    /// The newest version this build understands.
    supported: i64,
  },
  /// No adapter is registered under this id.
  #[error("no memory adapter registered with id {}; check /memory adapters for the registered list", json_str(.adapter_id))]
  AdapterNotFound {
    /// The unknown id.
    adapter_id: String,
  },
  /// An adapter could not convert its payload.
  #[error("adapter {}: {message}", json_str(.adapter_id))]
  AdapterPayload {
    /// The adapter id.
    adapter_id: String,
    /// What was wrong, with a location when there is one.
    message: String,
  },
}

/// The crate's result type.
pub type Result<T, E = MemoryError> = std::result::Result<T, E>;

impl MemoryError {
  /// The stable protocol code (`BUDGET_EXCEEDED`, …).
  pub fn code(&self) -> &'static str {
    match self {
      Self::InvalidInput { .. } => "INVALID_INPUT",
      Self::WriteRequiresAgent => "WRITE_REQUIRES_AGENT",
      Self::BudgetExceeded { .. } => "BUDGET_EXCEEDED",
      Self::EntryNotFound { .. } => "ENTRY_NOT_FOUND",
      Self::AmbiguousMatch { .. } => "AMBIGUOUS_MATCH",
      Self::WriteDenied { .. } => "WRITE_DENIED",
      Self::ProposalNotFound { .. } => "PROPOSAL_NOT_FOUND",
      Self::StoreCorrupt { .. } => "STORE_CORRUPT",
      Self::StoreUnsupportedVersion { .. } => "STORE_UNSUPPORTED_VERSION",
      Self::AdapterNotFound { .. } => "ADAPTER_NOT_FOUND",
      Self::AdapterPayload { .. } => "ADAPTER_PAYLOAD",
    }
  }

  /// The JSON-safe `details` object of the protocol (§3): the variant's fields.
  pub fn details(&self) -> Value {
    match self {
      Self::InvalidInput { reason, .. } => match reason {
        Some(r) => json!({ "reason": r }),
        None => json!({}),
      },
      Self::WriteRequiresAgent => json!({}),
      Self::BudgetExceeded {
        track,
        scope,
        used,
        limit,
        needed,
      } => {
        json!({ "track": track, "scope": scope, "used": used, "limit": limit, "needed": needed })
      }
      Self::EntryNotFound {
        track,
        scope,
        r#match,
        changed,
      } => {
        let mut d = json!({ "track": track, "scope": scope, "match": r#match });
        if let Some(c) = changed {
          d["reason"] = json!("changed");
          d["approvedVersion"] = json!(c.approved_version);
          d["current"] = json!({ "id": c.id, "version": c.version, "text": c.text });
        }
        d
      }
      Self::AmbiguousMatch {
        track,
        scope,
        r#match,
        candidates,
        sample,
      } => json!({
        "track": track, "scope": scope, "match": r#match, "candidates": candidates, "sample": sample
      }),
      Self::WriteDenied { outcome, .. } => json!({ "outcome": outcome }),
      Self::ProposalNotFound { id, .. } => json!({ "id": id }),
      Self::StoreCorrupt { path, .. } => json!({ "path": path }),
      Self::StoreUnsupportedVersion { path, .. } => json!({ "path": path }),
      Self::AdapterNotFound { adapter_id } | Self::AdapterPayload { adapter_id, .. } => {
        json!({ "adapterId": adapter_id })
      }
    }
  }

  /// Shorthand for [`MemoryError::InvalidInput`] without a reason.
  pub fn invalid(message: impl Into<String>) -> Self {
    Self::InvalidInput {
      message: message.into(),
      reason: None,
    }
  }

  /// A `STORE_CORRUPT` for a failure of the store at `path`.
  pub fn store(path: &str, message: impl Into<String>) -> Self {
    Self::StoreCorrupt {
      message: message.into(),
      path: path.to_string(),
    }
  }
}

/// A write's target as it is at commit time, after it changed under a pending approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
  /// The entry's id (unchanged).
  pub id: String,
  /// The version the approver saw.
  pub approved_version: i64,
  /// The version now stored.
  pub version: i64,
  /// The text now stored.
  pub text: String,
}

fn not_found_message(track: &str, scope: &str, needle: &str, changed: Option<&Changed>) -> String {
  match changed {
    None => format!(
      "no entry in {track}/{scope} contains {}; nothing was changed",
      json_str(needle)
    ),
    Some(c) => format!(
      "entry {} in {track}/{scope} (matched by {}) changed while its approval was pending (version {} was approved, version {} is stored); nothing was changed: plan the write again against its current text",
      c.id,
      json_str(needle),
      c.approved_version,
      c.version
    ),
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
      MemoryError::store("/x", "boom"),
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
        message: "line 3: bad".into(),
      },
    ]
  }

  #[test]
  fn codes_are_unique_screaming_snake() {
    let codes: Vec<_> = all().iter().map(|e| e.code()).collect();
    let mut sorted = codes.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), codes.len());
    for c in codes {
      assert!(
        c.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_'),
        "{c}"
      );
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
