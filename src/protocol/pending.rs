//! The pending-proposals section the snapshot ends with: the proposals a session can see,
//! listed for the user to approve or dismiss.
#![forbid(unsafe_code)]

use serde_json::Value;

use crate::engine::Memory;
use crate::error::Result;
use crate::protocol::snapshot::Labels;
use crate::store::Visibility;

/// How many pending proposals are scanned for a session's visible ones.
pub const SCAN: u64 = 1000;

const DEFAULT_HEADER: &str =
  "Pending memory proposals (reviewed by the user; approve or dismiss via the /memory proposals command)";

/// The snapshot of a session's visible set (`labels`: the plugin's words, `proposalsHeader`
/// included), followed by up to `max` of the pending proposals it sees.
///
/// # Errors
/// `INVALID_INPUT` for a label that is not a string; the store's errors.
pub fn snapshot(m: &mut Memory, vis: &Visibility, labels: &Value, max: u64) -> Result<String> {
  let text = m.snapshot(vis, &Labels::from_json(labels)?)?;
  let pending = match max {
    0 => Vec::new(),
    _ => m.proposal_list(Some("pending"), SCAN)?,
  };
  append(
    text,
    &serde_json::to_value(pending).unwrap_or_default(),
    vis,
    max,
    labels,
  )
}

/// Whether `vis` sees proposal `p` (its JSON): shared or own agent; user-global or own workspace.
fn visible(p: &Value, vis: &Visibility) -> bool {
  let key = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or_default();
  let agent = vis
    .agent_key
    .as_deref()
    .is_none_or(|a| key("agentKey").is_empty() || key("agentKey") == a);
  let workspace = key("scope") != "workspace"
    || vis
      .workspace_key
      .as_deref()
      .is_none_or(|w| key("workspaceKey") == w);
  agent && workspace
}

/// `text` followed by up to `max` of the `proposals` (a JSON array, oldest first) `vis` sees, under
/// `labels.proposalsHeader`; `text` alone when there are none. An empty `text` gets the
/// snapshot header first.
///
/// # Errors
/// `INVALID_INPUT` when a label is not a string.
fn append(
  text: String,
  proposals: &Value,
  vis: &Visibility,
  max: u64,
  labels: &Value,
) -> Result<String> {
  let shown: Vec<&Value> = proposals
    .as_array()
    .map(|all| {
      all
        .iter()
        .filter(|p| visible(p, vis))
        .take(max as usize)
        .collect()
    })
    .unwrap_or_default();
  if shown.is_empty() {
    return Ok(text);
  }
  let header = match labels.get("proposalsHeader") {
    Some(Value::String(h)) => h.clone(),
    _ => DEFAULT_HEADER.to_string(),
  };
  let mut out = if text.is_empty() {
    Labels::from_json(labels)?.header
  } else {
    text
  };
  out.push_str(&format!("\n\n## {header}"));
  for p in shown {
    let s = |k: &str| {
      p.get(k)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
    };
    out.push_str(&format!(
      "\n- [{}] {}/{}: {}",
      s("id"),
      s("track"),
      s("scope"),
      s("text")
    ));
  }
  Ok(out)
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  #[test]
  fn lists_only_visible_proposals_up_to_max() -> Result<()> {
    let vis = Visibility {
      agent_key: Some("coder".into()),
      workspace_key: Some("/ws".into()),
    };
    let p = |id: &str, scope: &str, ws: &str, agent: &str| json!({ "id": id, "track": "user", "scope": scope, "workspaceKey": ws, "agentKey": agent, "text": format!("t{id}") });
    let all = json!([
      p("1", "workspace", "/other", ""),
      p("2", "user-global", "", "reviewer"),
      p("3", "workspace", "/ws", "coder"),
      p("4", "user-global", "", ""),
      p("5", "user-global", "", "")
    ]);
    let text = append(
      "SNAP".into(),
      &all,
      &vis,
      2,
      &json!({ "proposalsHeader": "P" }),
    )?;
    assert_eq!(
      text,
      "SNAP\n\n## P\n- [3] user/workspace: t3\n- [4] user/user-global: t4"
    );
    assert_eq!(append("SNAP".into(), &all, &vis, 0, &Value::Null)?, "SNAP");
    let empty = append(String::new(), &all, &vis, 1, &Value::Null)?;
    assert!(
      empty.starts_with(&Labels::default().header)
        && empty.ends_with(&format!("## {DEFAULT_HEADER}\n- [3] user/workspace: t3"))
    );
    Ok(())
  }
}
