//! The words of an identifier (`AWS_SECRET_ACCESS_KEY`, `SecretAccessKey`, `x-request-id`), so
//! a name is judged by its words whatever the naming convention; and the screen's word lists
//! and rule tables, data in `words.txt` beside this file.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::OnceLock;

/// The lists of `words.txt` by name: each item one line, comments and blank lines left out.
fn lists() -> &'static HashMap<&'static str, Vec<&'static str>> {
  static LISTS: OnceLock<HashMap<&str, Vec<&str>>> = OnceLock::new();
  LISTS.get_or_init(|| {
    let item = |l: &&str| !l.is_empty() && !l.starts_with('#');
    let sections = include_str!("words.txt").split("\n@").skip(1);
    let list = |s: &'static str| {
      s.split_once('\n')
        .map(|(n, rest)| (n, rest.lines().filter(item).collect()))
    };
    sections.filter_map(list).collect()
  })
}

/// The items of list `name` (none for a name `words.txt` lacks: the tests check every name the
/// screen reads).
pub(super) fn list(name: &str) -> &'static [&'static str] {
  lists().get(name).map_or(&[], Vec::as_slice)
}

/// Whether list `name` holds `word`, ASCII case ignored.
pub(super) fn in_list(name: &str, word: &str) -> bool {
  list(name).iter().any(|w| word.eq_ignore_ascii_case(w))
}

/// The items of list `name` as their `N` fields, split at ` = ` (an item with more or fewer is
/// left out).
pub(super) fn table<const N: usize>(name: &str) -> impl Iterator<Item = [&'static str; N]> {
  let fields = |item: &&'static str| item.split(" = ").collect::<Vec<_>>().try_into().ok();
  list(name).iter().filter_map(fields)
}

/// The last of `ident`'s words ([`split`]), or `""`.
pub(super) fn last(ident: &str) -> &str {
  split(ident).last().copied().unwrap_or("")
}

/// `ident`'s ASCII words, split at `_`, `-`, `.`, any other non-alphanumeric character and
/// camel-case boundaries (`APIKey` is `API`, `Key`; `OAuth2Token` ends in `Token`).
pub(super) fn split(ident: &str) -> Vec<&str> {
  let mut out = Vec::new();
  for word in ident.split(|c: char| !c.is_ascii_alphanumeric()) {
    let b = word.as_bytes();
    // A capital starts a word after a lowercase letter or a digit, or ends a run of capitals.
    let boundary = |i: &usize| {
      let next_lower = b.get(i + 1).is_some_and(u8::is_ascii_lowercase);
      b[*i].is_ascii_uppercase() && (!b[i - 1].is_ascii_uppercase() || next_lower)
    };
    let mut start = 0;
    for i in (1..b.len()).filter(boundary) {
      out.push(&word[start..i]);
      start = i;
    }
    out.extend(Some(&word[start..]).filter(|w| !w.is_empty()));
  }
  out
}

#[cfg(test)]
mod tests {
  /// Every list a file of the screen reads (`list("…")`, `table("…")`, `named_by("…")`) is in
  /// `words.txt`, and holds items.
  #[test]
  fn every_list_the_screen_reads_is_in_the_data() {
    let files = [
      include_str!("assign.rs"),
      include_str!("formats.rs"),
      include_str!("tokens.rs"),
      include_str!("shapes.rs"),
      include_str!("mod.rs"),
    ];
    let mut names = Vec::new();
    for file in files {
      for call in ["list(\"", "table(\"", "named_by(\""] {
        names.extend(file.split(call).skip(1).filter_map(|r| r.split('"').next()));
      }
    }
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 18, "{names:?}");
    for name in names {
      assert!(
        !list(name).is_empty(),
        "@{name} is missing or empty in words.txt"
      );
    }
  }

  use super::*;

  /// `table` leaves out an item with the wrong number of fields, so a typo in `words.txt` would
  /// silently drop a rule: every item of every table has the width its reader takes.
  #[test]
  fn every_row_of_every_table_has_its_width() {
    let tables = [
      ("names", 2),
      ("endings", 2),
      ("cjk-names", 2),
      ("foreign-names", 2),
      ("tools", 3),
      ("prefixes", 4),
    ];
    for (name, width) in tables {
      let items = list(name);
      assert!(!items.is_empty(), "@{name}");
      for item in items {
        let fields = item.split(" = ").count();
        assert_eq!(fields, width, "@{name}: {item:?} has {fields} fields");
      }
    }
    assert_eq!(table::<4>("prefixes").count(), list("prefixes").len());
  }

  #[test]
  fn identifiers_split_into_their_words() {
    assert_eq!(
      split("AWS_SECRET_ACCESS_KEY"),
      ["AWS", "SECRET", "ACCESS", "KEY"]
    );
    assert_eq!(split("SecretAccessKey"), ["Secret", "Access", "Key"]);
    assert_eq!(split("APIKey"), ["API", "Key"]);
    assert_eq!(split("x-request-id"), ["x", "request", "id"]);
    assert_eq!(split("sessionId"), ["session", "Id"]);
    assert_eq!(split("OAuth2Token"), ["O", "Auth2", "Token"]);
    assert_eq!(split("db.password"), ["db", "password"]);
    assert_eq!(split("数据库password"), ["password"]);
    assert!(split("").is_empty());
  }
}
