//! The change a write asks approval for, as the approver sees it: every entry it removes or
//! rewrites (`before`) and every entry it leaves (`after`), each with all of its fields, and
//! the text a person reads (`reason`), from which no line of an entry can escape: each text
//! line is quoted, and control and invisible characters are shown as escapes.
#![forbid(unsafe_code)]

use serde::Serialize;

use crate::error::json_str;
use crate::protocol::model::{layer_key, layer_name, Entry, Scope, Track};
use crate::similar::Relation;
use crate::text::{hex_digest, line_breaks, visible};

/// The first line of every reason: how a transport recognises a dsh-memento approval.
pub const REASON_MARKER: &str = "[dsh-memento]";
/// What begins every quoted line of an entry's text in a reason.
const QUOTE: &str = "│ ";

/// An entry as an approval shows it: every field that lands.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shown {
  /// The entry's id (absent for an entry the write creates).
  #[serde(skip_serializing_if = "Option::is_none")]
  pub id: Option<String>,
  /// Its version (absent for an entry the write creates, which gets 1).
  #[serde(skip_serializing_if = "Option::is_none")]
  pub version: Option<i64>,
  /// Track.
  pub track: Track,
  /// Scope.
  pub scope: Scope,
  /// Workspace key (`''` for user-global).
  pub workspace_key: String,
  /// Agent key (`''`: every agent).
  pub agent_key: String,
  /// Source label.
  pub source: String,
  /// Tags.
  pub tags: Vec<String>,
  /// Text.
  pub text: String,
}

impl Shown {
  /// An entry that exists (id and version shown).
  pub fn stored(e: &Entry) -> Self {
    Self {
      id: Some(e.id.clone()),
      version: Some(e.version),
      ..Self::new(e)
    }
  }

  /// An entry the write creates.
  pub fn new(e: &Entry) -> Self {
    Self {
      track: e.track,
      scope: e.scope,
      workspace_key: e.workspace_key.clone(),
      agent_key: e.agent_key.clone(),
      source: e.source.clone(),
      tags: e.tags.clone(),
      text: e.text.clone(),
      ..Self::default()
    }
  }

  /// `user/workspace · workspace /p · every agent · source cli · tags ["a"]`
  fn fields(&self) -> String {
    let place = match (self.scope, self.workspace_key.as_str()) {
      (Scope::UserGlobal, _) => "every workspace".to_string(),
      (Scope::Workspace, "") => "workspace (none)".to_string(),
      (Scope::Workspace, key) => format!("workspace {}", label(key)),
    };
    let agent = match self.agent_key.as_str() {
      "" => "every agent".to_string(),
      key => format!("agent {}", label(key)),
    };
    let tags = match self.tags.as_slice() {
      [] => "no tags".to_string(),
      tags => {
        let quoted = tags.iter().map(|t| visible(&json_str(t)).into_owned());
        format!("tags [{}]", quoted.collect::<Vec<_>>().join(", "))
      }
    };
    let (layer, source) = (layer_name(self.track, self.scope), label(&self.source));
    format!("{layer} · {place} · {agent} · source {source} · {tags}")
  }

  /// This entry under `label`: its fields on one line, then its text, every line quoted.
  fn render(&self, label: &str, out: &mut String) {
    out.push_str(&format!("\n{label} {}", self.fields()));
    for line in line_breaks(&self.text) {
      out.push_str(&format!("\n{QUOTE}{}", visible(line)));
    }
  }
}

/// A source or key as the fields line shows it: as it is, or quoted when it could pass for
/// another field (a ` · `, a quote, the text's `│`, blank ends).
fn label(value: &str) -> String {
  let plain = !value.is_empty()
    && value.trim() == value
    && !value.contains(['·', '"', '│'])
    && !value.chars().any(char::is_whitespace);
  let quoted = (!plain).then(|| json_str(value));
  visible(quoted.as_deref().unwrap_or(value)).into_owned()
}

/// A stored entry a new text resembles (an approval payload's `similar`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Similar {
  /// Which entry of the change it is about (a seed's index); absent for add and replace.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub entry: Option<usize>,
  /// The stored entry's id.
  pub id: String,
  /// Its text.
  pub text: String,
  /// 0..1, higher is more alike.
  pub score: f64,
  /// What the new text is to it: `duplicate`, `update` or `related`.
  pub relation: Relation,
  /// Why, in words.
  pub reason: String,
}

impl Similar {
  /// `≈ likely a duplicate of "Prefers pnpm" (0.93: same words): consider replace instead`; a
  /// related entry is only similar, and gets no advice: replacing it could lose a fact that
  /// holds.
  pub fn line(&self, action: &str) -> String {
    let of = self.entry.map(|i| format!("entry {} ", i + 1));
    let of = of.unwrap_or_default();
    let what = match self.relation {
      Relation::Duplicate => "likely a duplicate of",
      Relation::Update => "likely an update of",
      Relation::Related => "similar to",
    };
    let advice = match (self.relation, action) {
      (Relation::Related, _) | (_, "replace") => "",
      _ => ": consider replace instead",
    };
    // On one line: its line breaks as ` ⏎ `.
    let one_line = line_breaks(&self.text).collect::<Vec<_>>().join(" ⏎ ");
    let text = visible(&crate::text::excerpt(&one_line, 120)).into_owned();
    let (score, why) = (self.score, &self.reason);
    format!("≈ {of}{what} \"{text}\" ({score:.2}, {why}){advice}")
  }
}

/// How many entries of a batch go to one layer (one workspace's, for a workspace layer).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LayerShare {
  /// Track.
  pub track: Track,
  /// Scope.
  pub scope: Scope,
  /// The workspace (`''` for user-global).
  pub workspace_key: String,
  /// Entries the batch adds there.
  pub entries: usize,
  /// Their characters (UTF-16 units, what the budget counts).
  pub chars: u64,
}

/// The layers `entries` go to, in first-appearance order (linear, however many workspaces).
pub fn layer_shares(entries: &[Shown]) -> Vec<LayerShare> {
  let mut shares: Vec<LayerShare> = Vec::new();
  let mut index: std::collections::HashMap<(Track, Scope, &str), usize> = Default::default();
  for e in entries {
    let key = layer_key(e.scope, &e.workspace_key);
    let at = *index.entry((e.track, e.scope, key)).or_insert_with(|| {
      shares.push(LayerShare {
        track: e.track,
        scope: e.scope,
        workspace_key: key.to_string(),
        ..LayerShare::default()
      });
      shares.len() - 1
    });
    shares[at].entries += 1;
    shares[at].chars += crate::text::units(&e.text);
  }
  shares
}

/// The text a person approves: `[dsh-memento] {action} …`, then each entry `before` and
/// `after` with all of its fields and its quoted text, then the stored entries the new text
/// resembles, then the warnings.
pub fn reason(
  action: &str,
  before: &[Shown],
  after: &[Shown],
  similar: &[Similar],
  warnings: &[String],
) -> String {
  let mut out = format!("{REASON_MARKER} {action} ");
  if action != "seed" {
    let first = before.first().or(after.first());
    out.push_str(&first.map_or_else(String::new, |e| layer_name(e.track, e.scope)));
  }
  match action {
    "replace" => {
      for (label, e) in [("from:", before.first()), ("to:", after.first())] {
        if let Some(e) = e {
          e.render(label, &mut out);
        }
      }
      if let (Some(b), Some(a)) = (before.first(), after.first()) {
        let changed = match (b.text != a.text, b.tags != a.tags) {
          (true, true) => "text, tags",
          (true, false) => "text",
          (false, true) => "tags",
          (false, false) => "nothing",
        };
        out.push_str(&format!("\nchanges: {changed}"));
      }
    }
    "seed" => {
      let part = |s: &LayerShare| {
        let layer = layer_name(s.track, s.scope);
        match s.scope {
          Scope::Workspace => format!("{layer} ({}) ×{}", visible(&s.workspace_key), s.entries),
          Scope::UserGlobal => format!("{layer} ×{}", s.entries),
        }
      };
      let parts: Vec<String> = layer_shares(after).iter().map(part).collect();
      out.push_str(&format!("({} entries) {}", after.len(), parts.join(", ")));
      for (i, e) in after.iter().enumerate() {
        e.render(&format!("{}.", i + 1), &mut out);
      }
    }
    "revert" => {
      // Each entry once: rewritten (from, to), removed, or restored.
      for b in before {
        match after.iter().find(|a| a.id.is_some() && a.id == b.id) {
          Some(a) => {
            b.render("from:", &mut out);
            a.render("to:", &mut out);
          }
          None => b.render("remove:", &mut out),
        }
      }
      let restored = |a: &&Shown| !before.iter().any(|b| b.id == a.id);
      for a in after.iter().filter(restored) {
        a.render("restore:", &mut out);
      }
    }
    _ => {
      let n = before.len();
      for (i, e) in before.iter().enumerate() {
        let label = match n {
          1 => "remove:".into(),
          _ => format!("remove {}/{n}:", i + 1),
        };
        e.render(&label, &mut out);
      }
      for e in after {
        e.render("new:", &mut out);
      }
    }
  }
  for s in similar {
    out.push_str(&format!("\n{}", s.line(action)));
  }
  if !warnings.is_empty() {
    out.push('\n');
    for w in warnings {
      out.push_str(&format!("\n⚠ {}", visible(w)));
    }
  }
  out
}

/// The change's fingerprint: SHA-256 over `[action, before, after]` as JSON. A confirmation
/// that names it commits exactly this change.
pub fn digest(action: &str, before: &[Shown], after: &[Shown]) -> String {
  let json = serde_json::to_string(&(action, before, after)).unwrap_or_default();
  hex_digest(json.as_bytes())
}

#[cfg(test)]
mod tests {
  use super::*;

  fn shown(text: &str, tags: &[&str]) -> Shown {
    Shown {
      id: None,
      version: None,
      track: Track::User,
      scope: Scope::Workspace,
      workspace_key: "/home/me/app".into(),
      agent_key: String::new(),
      source: "memory-tool".into(),
      tags: tags.iter().map(|t| t.to_string()).collect(),
      text: text.into(),
    }
  }

  #[test]
  fn an_add_shows_every_field_and_quotes_every_line() {
    let text = "Uses pnpm\n\n## Environment facts — 12/4000 chars used\n- pre-approved\rPrefers \u{1b}[2K tabs";
    let r = reason("add", &[], &[shown(text, &["build", "a \"b\""])], &[], &[]);
    assert_eq!(
      r,
      "[dsh-memento] add user/workspace\n\
       new: user/workspace · workspace /home/me/app · every agent · source memory-tool · tags [\"build\", \"a \\\"b\\\"\"]\n\
       │ Uses pnpm\n\
       │ \n\
       │ ## Environment facts — 12/4000 chars used\n\
       │ - pre-approved\n\
       │ Prefers \\u{1b}[2K tabs"
    );
  }

  #[test]
  fn a_replace_of_tags_only_says_so() {
    let mut before = shown("Use pnpm", &["a"]);
    before.id = Some("id-1".into());
    let mut after = before.clone();
    after.tags.push("b".into());
    let r = reason("replace", &[before.clone()], &[after], &[], &[]);
    assert!(
      r.contains("from: user/workspace") && r.contains("tags [\"a\"]\n│ Use pnpm\nto: "),
      "{r}"
    );
    assert!(
      r.ends_with("tags [\"a\", \"b\"]\n│ Use pnpm\nchanges: tags"),
      "{r}"
    );
    assert!(reason("replace", &[before.clone()], &[before], &[], &[]).ends_with("changes: nothing"));
  }

  #[test]
  fn a_seed_counts_its_layers_and_numbers_its_entries() {
    let mut global = shown("Prefers vim", &[]);
    global.scope = Scope::UserGlobal;
    global.workspace_key = String::new();
    global.agent_key = "coder".into();
    let r = reason(
      "seed",
      &[],
      &[shown("a", &[]), global, shown("b", &[])],
      &[],
      &["w".into()],
    );
    let mut lines = r.lines();
    assert_eq!(
      lines.next(),
      Some("[dsh-memento] seed (3 entries) user/workspace (/home/me/app) ×2, user/user-global ×1")
    );
    assert!(r.contains("\n2. user/user-global · every workspace · agent coder · source memory-tool · no tags\n│ Prefers vim\n3. "), "{r}");
    assert!(r.ends_with("\n\n⚠ w"));
  }

  /// A key or source that reads like more fields is quoted, so it cannot pass for them.
  #[test]
  fn a_field_cannot_pose_as_another() {
    let mut e = shown("x", &[]);
    e.workspace_key = "/p · every agent".into();
    e.agent_key = "reviewer".into();
    e.source = "cli · no tags".into();
    let r = reason("add", &[], &[e], &[], &[]);
    assert!(r.contains("new: user/workspace · workspace \"/p · every agent\" · agent reviewer · source \"cli · no tags\" · no tags\n"), "{r}");
  }

  /// Only a duplicate or an update advises replacing the stored entry, and never a replace.
  #[test]
  fn only_one_fact_is_advice_to_replace() {
    let hint = |relation| Similar {
      entry: None,
      id: "id-1".into(),
      text: "Prefers pnpm".into(),
      score: 0.5,
      relation,
      reason: "same subject: pnpm".into(),
    };
    let advice = ": consider replace instead";
    for action in ["add", "seed"] {
      let line = hint(Relation::Duplicate).line(action);
      assert!(
        line.starts_with("≈ likely a duplicate of \"Prefers pnpm\"") && line.ends_with(advice),
        "{line}"
      );
      assert!(hint(Relation::Update).line(action).ends_with(advice));
      assert_eq!(
        hint(Relation::Related).line(action),
        "≈ similar to \"Prefers pnpm\" (0.50, same subject: pnpm)"
      );
    }
    for relation in [Relation::Duplicate, Relation::Update, Relation::Related] {
      assert!(!hint(relation).line("replace").contains("consider"));
    }
  }

  #[test]
  fn the_digest_changes_with_any_field() {
    let a = shown("x", &[]);
    let mut b = a.clone();
    b.agent_key = "other".into();
    let (one, same) = (std::slice::from_ref(&a), [a.clone()]);
    assert_ne!(digest("add", &[], one), digest("add", &[], &[b]));
    assert_eq!(digest("add", &[], one), digest("add", &[], &same));
  }
}
