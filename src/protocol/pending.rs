//! The pending-proposals section the snapshot ends with: the proposals a session can see,
//! listed for the user to approve or dismiss.
#![forbid(unsafe_code)]

use serde_json::Value;

use crate::engine::Memory;
use crate::error::Result;
use crate::protocol::model::Proposal;
use crate::protocol::snapshot::Labels;
use crate::protocol::text::{self, excerpt, line_breaks, units};
use crate::store::Visibility;

/// How many pending proposals are scanned for a session's visible ones.
pub const SCAN: u64 = 1000;

/// The snapshot of a session's visible set (`labels`: the plugin's words, `proposalsHeader`
/// included), followed by up to `max` of the pending proposals it sees.
///
/// # Errors
/// `INVALID_INPUT` for a label that is not a string; the store's errors.
pub fn snapshot(m: &mut Memory, vis: &Visibility, labels: &Value, max: u64) -> Result<String> {
  let labels = Labels::from_json(labels)?;
  let text = m.snapshot(vis, &labels)?;
  let pending = match max {
    0 => Vec::new(),
    _ => m.proposal_list(Some("pending"), SCAN)?,
  };
  Ok(append(text, &pending, vis, max, &labels))
}

/// Whether `vis` sees proposal `p`: shared or own agent; user-global or own workspace.
fn visible(p: &Proposal, vis: &Visibility) -> bool {
  let agent = vis.agent_key.as_ref();
  let workspace = vis.workspace_key.as_ref();
  agent.is_none_or(|a| p.agent_key.is_empty() || p.agent_key == *a)
    && (p.scope != "workspace" || workspace.is_none_or(|w| p.workspace_key == *w))
}

/// Most UTF-16 units the notice of pending proposals takes, its heading included: they are
/// not approved, so they get a bounded mention, never their full text.
pub const NOTICE_MAX: usize = 600;
/// Longest excerpt of one proposal in the notice.
const EXCERPT: usize = 100;

/// `text` followed by a notice of the pending proposals `vis` sees: their count under
/// `labels.proposals_header`, then one-line excerpts of up to `max` of them (oldest first) as
/// long as the notice stays within [`NOTICE_MAX`]; `text` alone when there are none. An empty
/// `text` gets the snapshot header first.
fn append(
  text: String,
  proposals: &[Proposal],
  vis: &Visibility,
  max: u64,
  labels: &Labels,
) -> String {
  let seen: Vec<&Proposal> = proposals.iter().filter(|p| visible(p, vis)).collect();
  if seen.is_empty() || max == 0 {
    return text;
  }
  let mut out = if text.is_empty() {
    labels.header.clone()
  } else {
    text
  };
  let mut notice = format!("\n\n## {} ({})", labels.proposals_header, seen.len());
  let mut listed = 0;
  for p in seen.iter().take(max as usize) {
    let one_line: Vec<std::borrow::Cow<'_, str>> =
      line_breaks(&p.text).map(text::visible).collect();
    let line = format!(
      "\n- {}/{}: {}",
      p.track,
      p.scope,
      excerpt(&one_line.join(" "), EXCERPT)
    );
    if units(&notice) + units(&line) > NOTICE_MAX as u64 {
      break;
    }
    notice.push_str(&line);
    listed += 1;
  }
  let more = format!("\n- … +{}", seen.len() - listed);
  if listed < seen.len() && units(&notice) + units(&more) <= NOTICE_MAX as u64 {
    notice.push_str(&more);
  }
  out.push_str(&notice);
  out
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  #[test]
  fn lists_only_visible_proposals_up_to_max() {
    let vis = Visibility {
      agent_key: Some("coder".into()),
      workspace_key: Some("/ws".into()),
    };
    let p = |id: &str, scope: &str, ws: &str, agent: &str| Proposal {
      id: id.into(),
      kind: "k".into(),
      track: "user".into(),
      scope: scope.into(),
      workspace_key: ws.into(),
      agent_key: agent.into(),
      text: format!("t{id}"),
      source: String::new(),
      session_id: None,
      status: "pending".into(),
      created_at: 0,
      decided_at: None,
    };
    let all = [
      p("1", "workspace", "/other", ""),
      p("2", "user-global", "", "reviewer"),
      p("3", "workspace", "/ws", "coder"),
      p("4", "user-global", "", ""),
      p("5", "user-global", "", ""),
    ];
    let labels = |v: Value| Labels::from_json(&v).unwrap_or_default();
    let text = append(
      "SNAP".into(),
      &all,
      &vis,
      2,
      &labels(json!({ "proposalsHeader": "P" })),
    );
    assert_eq!(
      text,
      "SNAP\n\n## P (3)\n- user/workspace: t3\n- user/user-global: t4\n- … +1"
    );
    assert_eq!(
      append("SNAP".into(), &all, &vis, 0, &labels(Value::Null)),
      "SNAP"
    );
    let empty = append(String::new(), &all, &vis, 1, &labels(Value::Null));
    let default_header = Labels::default().proposals_header;
    assert!(
      empty.starts_with(&Labels::default().header)
        && empty.ends_with(&format!(
          "## {default_header} (3)\n- user/workspace: t3\n- … +2"
        ))
    );
  }
}
