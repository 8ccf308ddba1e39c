//! Whether a pair is an update, and why: the values that changed between the stored text and
//! the new one.
#![forbid(unsafe_code)]

use super::overlap::{Overlap, Top};
use super::profile::{Profile, Value};
use super::slots::{Diff, Subject};

/// The most values of each side looked at for a changed pair: enough for any entry, and it
/// keeps a huge text's comparison linear.
const MAX_VALUES: usize = 24;

/// A value of the stored text replaced by one of the new text: each is absent from the other
/// text; same label first (then `true`), else the first pair of compatible kinds.
fn changed_value<'a>(new: &'a Profile, old: &'a Profile) -> Option<(&'a Value, &'a Value, bool)> {
  let only = |a: &'a Profile, b: &'a Profile| -> Vec<&'a Value> {
    let vals = a.values.iter().filter(|v| !b.holds(v.key));
    vals.take(MAX_VALUES).collect()
  };
  let (gone, came) = (only(old, new), only(new, old));
  let label = |v: &Value| v.label.as_ref().map(|l| l.0);
  let pair = |same_label: bool| {
    gone.iter().find_map(|g| {
      let labelled = |c: &Value| !same_label || (label(c).is_some() && label(c) == label(g));
      let fits = |c: &&Value| labelled(c) && c.kind.group() == g.kind.group();
      Some((*g, came.iter().copied().find(fits)?, same_label))
    })
  };
  pair(true).or_else(|| pair(false))
}

/// Why a pair is an update.
pub(super) struct Update {
  pub(super) reason: String,
  /// A value with the same label changed, or the new text says it changed: named from
  /// [`super::UPDATE_MIN`]. Else (values of compatible kinds with different labels) only the
  /// relation is an update, named from [`super::NAME_MIN`] like any other pair.
  pub(super) strong: bool,
}

/// Why the pair is an update, when it is one. The texts must speak of one subject and attribute
/// (no word of each qualifies a noun both share: "the EU cluster" / "the US cluster"), and what
/// differs must be a value: values alone (one on each side, of compatible kinds), a word in the
/// value slot after a copula ("is called trunk" / "… master"), or anything the new text says it
/// changed ("now", "moved to", `改为`, `に変更`) — naming the old value, then the new one, or
/// swapping a content word of a pair scored [`super::CHANGE_MIN`] or more.
pub(super) fn update_reason(
  new: &Profile,
  old: &Profile,
  o: &Overlap<'_>,
  d: &Diff,
  score: f64,
) -> Option<Update> {
  // Two things of one kind: another subject never, another attribute or member unless the new
  // text says it changed (in `由小李审查` / `由小王负责审查` the new name qualifies the verb).
  match d.qualified {
    Some(leading) if leading || !new.transition => return None,
    _ if (d.head_swap || d.member_swap) && !new.transition => return None,
    _ => {}
  }
  // "Switched from CircleCI to …" names the stored value it leaves: evidence enough, whatever
  // the subject says.
  let moved = || {
    let (kept, came) = moved_value(new, old).filter(|_| new.transition)?;
    Some(Update {
      reason: value_reason(o, kept, came, false),
      strong: true,
    })
  };
  if d.subject == Subject::Other {
    return moved();
  }
  // One shared word (`Python`, `管理`) makes one fact only when it is the subject of both.
  let fact = o.shared_words >= 2 || d.subject == Subject::Shared;
  if let Some((gone, came, same_label)) = changed_value(new, old) {
    if !(d.values_only() || new.transition || d.copula_value()) {
      // Words differ as well as values: another attribute ("times out after 45 minutes" /
      // "retries up to 3 times"), or another member of a set.
      return None;
    }
    let explained = explains(o, new, old);
    let reason = value_reason(o, gone, came, explained);
    // In "X is A" / "X is B" the value is all that differs; in "X is written in A" / "X is
    // deployed on B" it is not, and the word before the value may only be their subject.
    let strong = fact && (new.transition || explained || (same_label && !o.subject_only()));
    return Some(Update { reason, strong });
  }
  // The heaviest word of each side's own, the one replacing the other.
  let swapped = || {
    let (gone, came) = (o.old.top.0[0]?, o.new.top.0[0]?);
    Some(Update {
      reason: subject(o, &format!("{} → {}", gone.shown, came.shown)),
      strong: fact,
    })
  };
  // A word in the value slot of "X is Y", or values that are no value of their own (the name
  // that opens "Noor is the release manager …").
  if d.copula_value() || (d.subject == Subject::Inverted && d.values_only()) {
    return swapped();
  }
  if !new.transition {
    return None;
  }
  moved().or_else(|| (score >= super::CHANGE_MIN).then(swapped).flatten())
}

/// The values of `a` (of its first [`MAX_VALUES`]) that `b` lacks.
fn lacked<'a>(a: &'a Profile, b: &'a Profile) -> impl Iterator<Item = &'a Value> {
  a.values.iter().take(MAX_VALUES).filter(|v| !b.holds(v.key))
}

/// In a text that says it changed: a value of the stored text the new one still names (`jest`
/// in "moved from jest to vitest"), before a new value of the same kind that follows it.
fn moved_value<'a>(new: &'a Profile, old: &'a Profile) -> Option<(&'a Value, &'a Value)> {
  let came = lacked(new, old).next()?;
  let kept = old.values.iter().take(MAX_VALUES).find(|v| {
    let named_before = new.values.iter().find(|n| n.key == v.key);
    v.kind.group() == came.kind.group() && named_before.is_some_and(|n| n.at < came.at)
  })?;
  Some((kept, came))
}

/// Whether changed values are all that differs: every content word only one text has is part
/// of a value of that text the other lacks ("Grafana Loki" → "Datadog"; not "written in Rust"
/// → "deployed on Fly.io", where the verbs differ too).
fn explains(o: &Overlap<'_>, new: &Profile, old: &Profile) -> bool {
  let within = |top: &Top<'_>, a: &Profile, b: &Profile| {
    let values: Vec<_> = lacked(a, b).map(|v| v.shown.to_ascii_lowercase()).collect();
    let mut words = top.0.iter().flatten();
    words.all(|t| {
      let word = t.shown.to_ascii_lowercase();
      values.iter().any(|v| v.contains(word.as_str()))
    })
  };
  within(&o.new.top, new, old) && within(&o.old.top, old, new)
}

/// "same words but Node 18 → 20 (a version)" when nothing else differs, else "same subject
/// (api, node) but …".
fn value_reason(o: &Overlap<'_>, gone: &Value, came: &Value, explained: bool) -> String {
  // A number is read with the word before it (`Node 18`); a path or a name is read alone.
  let label = match (&gone.label, &came.label) {
    (Some(g), Some(c)) if g.0 == c.0 && gone.kind.group() == 0 => format!("{} ", c.1),
    _ => String::new(),
  };
  let kind = gone.kind.describe();
  let change = format!("{label}{} → {} ({kind})", gone.shown, came.shown);
  match explained {
    true => format!("same words but {change}"),
    false => subject(o, &change),
  }
}

/// "same subject (api, node) but {change}", or "… but {change}" without a subject to name.
pub(super) fn subject(o: &Overlap<'_>, change: &str) -> String {
  match o.top_shared.is_empty() {
    true => format!("some words in common but {change}"),
    false => format!("same subject ({}) but {change}", o.top_shared.words()),
  }
}
