//! Words that mean the same thing in memory entries, across English, Chinese and Japanese
//! (`brief`, `concise`, `简洁`, `簡潔`; `PR`, `pull request`, `プルリク`), so a fact reworded, or
//! written in another of the three languages, still shares its tokens. Each group is one token.
//!
//! The groups are data, `synonyms.txt` beside this file, and so are the two-word phrases folded
//! into one of their words (`phrases.txt`). Some groups are **siblings** of others (`frontend` and
//! `backend`, `staging` and `production`, `unit` and `e2e`, `logs` and `metrics`): two entries
//! that differ by swapping siblings say two facts of the same kind, both true at once, not one
//! fact and its update.
#![forbid(unsafe_code)]

use rustc_hash::FxHashMap as HashMap;
use std::sync::OnceLock;

/// A group of words with one meaning.
pub(super) struct Group {
  /// The token the group's words share (never a word of a text: it starts with `§`).
  pub(super) key: &'static str,
  pub(super) weight: f32,
  /// Groups of one sibling class (not 0) are different things of one kind.
  pub(super) sibling: u8,
}

/// Two-word English phrases that are one word of a group, and hyphenated spellings, in order
/// (`phrases.txt` beside this file): folded into that word before anything else reads the text.
pub(super) fn phrases() -> &'static [(&'static str, &'static str)] {
  static PHRASES: OnceLock<Vec<(&str, &str)>> = OnceLock::new();
  let lines = include_str!("phrases.txt").lines();
  PHRASES.get_or_init(|| lines.filter_map(|l| l.split_once(" = ")).collect())
}

#[derive(Default)]
struct Index {
  ascii: HashMap<&'static str, usize>,
  /// CJK words by their first character, longest first.
  cjk: HashMap<char, Vec<(&'static str, usize)>>,
  groups: Vec<Group>,
}

/// The groups of `synonyms.txt`, and each one's words (a line that does not parse is a defect
/// the tests catch: it is left out here, never a panic).
fn parse() -> Vec<(Group, Vec<&'static str>)> {
  let mut classes: Vec<&str> = Vec::new();
  let lines = include_str!("synonyms.txt").lines();
  let groups = lines.filter(|l| !l.starts_with('#') && !l.trim().is_empty());
  let group = |line: &'static str| {
    let mut fields = line.split_whitespace();
    let (key, weight, class) = (fields.next()?, fields.next()?, fields.next()?);
    if class != "-" && !classes.contains(&class) {
      classes.push(class);
    }
    // Class numbers start at 1: 0 is none.
    let sibling = classes.iter().position(|c| *c == class).map(|i| i + 1);
    let group = Group {
      key,
      weight: weight.parse().ok()?,
      sibling: u8::try_from(sibling.unwrap_or(0)).ok()?,
    };
    Some((group, fields.collect()))
  };
  groups.filter_map(group).collect()
}

fn index() -> &'static Index {
  static INDEX: OnceLock<Index> = OnceLock::new();
  INDEX.get_or_init(|| {
    let mut index = Index::default();
    for (i, (group, words)) in parse().into_iter().enumerate() {
      for word in words {
        // A word of the file is never empty.
        match word.chars().next().filter(|c| !c.is_ascii()) {
          Some(first) => index.cjk.entry(first).or_default().push((word, i)),
          None => _ = index.ascii.insert(word, i),
        }
      }
      index.groups.push(group);
    }
    for words in index.cjk.values_mut() {
      words.sort_by_key(|(w, _)| std::cmp::Reverse(w.len()));
    }
    index
  })
}

/// The group of an ASCII word (lowercase).
pub(super) fn of_word(word: &str) -> Option<&'static Group> {
  let index = index();
  index.ascii.get(word).map(|&i| &index.groups[i])
}

/// The longest CJK group word at the start of `run`, and its length in characters.
pub(super) fn cjk_at(run: &str) -> Option<(&'static Group, usize)> {
  let index = index();
  let words = index.cjk.get(&run.chars().next()?)?;
  let (word, i) = words.iter().find(|(w, _)| run.starts_with(w))?;
  Some((&index.groups[*i], word.chars().count()))
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn each_line_is_a_group_and_each_word_is_in_one() {
    let lines = include_str!("synonyms.txt").lines();
    let lines = lines.filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    let groups = parse();
    assert_eq!(groups.len(), lines.count(), "every line parses");
    let mut seen = std::collections::HashSet::new();
    for (group, words) in &groups {
      assert!(group.key.starts_with('§') && group.weight > 0.0);
      for word in words {
        assert!(seen.insert(word), "{word} is in two groups");
        assert!(
          !word.is_ascii() || *word == word.to_ascii_lowercase(),
          "{word}"
        );
      }
    }
  }

  #[test]
  fn words_of_three_languages_meet() {
    let key = |w: &str| of_word(w).map(|g| g.key);
    assert_eq!(key("concise"), Some("§short"));
    assert_eq!(
      cjk_at("简洁的回答").map(|(g, n)| (g.key, n)),
      Some(("§short", 2))
    );
    assert_eq!(
      cjk_at("簡潔に").map(|(g, n)| (g.key, n)),
      Some(("§short", 2))
    );
    assert_eq!(
      cjk_at("依存関係を").map(|(g, n)| (g.key, n)),
      Some(("§deps", 4))
    );
    assert_eq!(
      of_word("backend").map(|g| g.sibling),
      of_word("frontend").map(|g| g.sibling)
    );
  }
}
