//! Rendering the frozen system-prompt snapshot: the session's visible entries grouped by layer,
//! each group headed by its usage. The plugin's `renderSnapshot` (lib/plugin/snapshot.mjs)
//! renders the same text from JS; tests hold the two equal.
#![forbid(unsafe_code)]

use serde_json::Value;

use crate::error::{MemoryError, Result};
use crate::protocol::model::{Entry, Scope, Track, Usage};

/// The layers in snapshot order.
pub const ORDER: [(Track, Scope); 4] = [
  (Track::User, Scope::UserGlobal),
  (Track::User, Scope::Workspace),
  (Track::Agent, Scope::UserGlobal),
  (Track::Agent, Scope::Workspace),
];

/// The words of a snapshot (the plugin passes its language's; the default is English).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labels {
  /// The first line.
  pub header: String,
  /// Group titles, in [`ORDER`].
  pub groups: [String; 4],
  /// After `used/limit`.
  pub usage_suffix: String,
  /// Heads the pending proposals listed after the snapshot.
  pub proposals_header: String,
}

impl Default for Labels {
  fn default() -> Self {
    Labels {
      header: "[dsh-memento: frozen memory snapshot — captured at session start; memory changes during this session do not update this block. To change memory, use the memory tool.]".into(),
      groups: [
        "User profile (global preferences, communication style, landmines)".into(),
        "User preferences for this workspace".into(),
        "Environment facts and conventions (cross-workspace)".into(),
        "Workspace facts, conventions, and lessons".into(),
      ],
      usage_suffix: "chars used".into(),
      proposals_header: "Pending memory proposals (reviewed by the user; approve or dismiss via the /memory proposals command)".into(),
    }
  }
}

impl Labels {
  /// English, with the fields `value` gives replaced: `{header, groups: {'user/user-global',
  /// …}, usageSuffix, proposalsHeader}` (what `strings(language)` of the plugin holds; a
  /// `proposalsHeader` that is not a string reads as absent).
  ///
  /// # Errors
  /// `INVALID_INPUT` when a given field is not a string.
  pub fn from_json(value: &Value) -> Result<Labels> {
    let mut labels = Labels::default();
    let set = |slot: &mut String, v: Option<&Value>, name: &str| match v {
      None | Some(Value::Null) => Ok(()),
      Some(Value::String(s)) => {
        slot.clone_from(s);
        Ok(())
      }
      Some(_) => Err(MemoryError::invalid(format!(
        "snapshot labels: {name} must be a string"
      ))),
    };
    set(&mut labels.header, value.get("header"), "header")?;
    set(
      &mut labels.usage_suffix,
      value.get("usageSuffix"),
      "usageSuffix",
    )?;
    if let Some(Value::String(p)) = value.get("proposalsHeader") {
      labels.proposals_header = p.clone();
    }
    for ((track, scope), slot) in ORDER.iter().zip(labels.groups.iter_mut()) {
      let key = format!("{}/{}", track.as_str(), scope.as_str());
      set(slot, value.get("groups").and_then(|g| g.get(&key)), &key)?;
    }
    Ok(labels)
  }
}

/// The snapshot of `entries` (a session's visible set) with the usage enforced for its
/// workspace; `''` when there is nothing to show.
pub fn render(entries: &[Entry], usage: &[Usage], labels: &Labels) -> String {
  // Every entry is in one of the four layers: any entry makes a section.
  if entries.is_empty() {
    return String::new();
  }
  let mut out = labels.header.clone();
  for ((track, scope), title) in ORDER.iter().zip(&labels.groups) {
    let layer = |t: &Track, s: &Scope| t == track && s == scope;
    let mut group: Vec<&Entry> = entries
      .iter()
      .filter(|e| layer(&e.track, &e.scope))
      .collect();
    if group.is_empty() {
      continue;
    }
    group.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
    let found = usage.iter().find(|u| layer(&u.track, &u.scope));
    let (used, limit) = found.map_or((0, 0), |u| (u.used, u.limit));
    out.push_str(&format!(
      "\n\n## {title} — {used}/{limit} {}",
      labels.usage_suffix
    ));
    group
      .iter()
      .for_each(|e| out.push_str(&format!("\n- {}", e.text)));
  }
  out
}
