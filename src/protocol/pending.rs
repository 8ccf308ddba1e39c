//! The pending-proposals notice the snapshot ends with: the proposals a session can see, listed
//! for the user to approve or dismiss, in a bounded mention.
#![forbid(unsafe_code)]

use crate::protocol::model::Proposal;
use crate::protocol::snapshot::Labels;
use crate::protocol::text::{self, excerpt, line_breaks, units};

/// Most UTF-16 units the notice of pending proposals takes, its heading included: they are
/// not approved, so they get a bounded mention, never their full text.
pub const NOTICE_MAX: usize = 600;
/// Longest excerpt of one proposal in the notice.
const EXCERPT: usize = 100;

/// `text` followed by a notice of the pending proposals a session sees (`seen`): their count
/// under `labels.proposals_header`, then one-line excerpts of up to `max` of them (oldest first)
/// as long as the notice stays within [`NOTICE_MAX`]; `text` alone when there are none. An
/// empty `text` gets the snapshot header first.
pub fn append(text: String, seen: &[&Proposal], max: u64, labels: &Labels) -> String {
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
  use serde_json::{json, Value};

  #[test]
  fn lists_proposals_up_to_max_within_the_notice() {
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
    let seen = [
      p("3", "workspace", "/ws", "coder"),
      p("4", "user-global", "", ""),
      p("5", "user-global", "", ""),
    ];
    let all: Vec<&Proposal> = seen.iter().collect();
    let labels = |v: Value| Labels::from_json(&v).unwrap_or_default();
    let text = append(
      "SNAP".into(),
      &all,
      2,
      &labels(json!({ "proposalsHeader": "P" })),
    );
    assert_eq!(
      text,
      "SNAP\n\n## P (3)\n- user/workspace: t3\n- user/user-global: t4\n- … +1"
    );
    assert_eq!(append("SNAP".into(), &all, 0, &labels(Value::Null)), "SNAP");
    let empty = append(String::new(), &all, 1, &labels(Value::Null));
    let default_header = Labels::default().proposals_header;
    assert!(
      empty.starts_with(&Labels::default().header)
        && empty.ends_with(&format!(
          "## {default_header} (3)\n- user/workspace: t3\n- … +2"
        ))
    );
  }
}
