//! The terms that find a text's likely duplicates in a large layer's trigram index (ASCII case
//! folded, `engine/grams.rs`): substrings of the text as written, 3 characters or more, the most
//! distinctive first.
#![forbid(unsafe_code)]

use std::ops::Range;

use super::lexicon::{self, stem};
use super::profile::weak_mask;
use super::scan::{self, Kind};

/// The longest term: a longer one is a whole sentence, which a reworded duplicate never
/// repeats.
const MAX_TERM: usize = 40;

/// A candidate term: how distinctive it looks, where it starts (earlier wins a tie), the term.
type Candidate = (f32, usize, String);

/// Up to `max` terms to find candidates for `text` in a layer's trigram index,
/// the most distinctive first: code spans, identifiers and numbers (a short number with the
/// word or the two CJK characters before it, `node 20`, `上午 10`), long words (by their stem,
/// so `deploy` finds `deployed`), then 3-character windows of CJK runs with the most content
/// characters. Each term is ASCII-folded, at least 3 characters long, and occurs in `text` as
/// written.
pub fn search_terms(text: &str, max: usize) -> Vec<String> {
  let lower = text.to_ascii_lowercase();
  let mut found: Vec<Candidate> = Vec::new();
  // Where the last word (or the last two CJK characters) before a number starts and ends.
  let mut context: Option<(usize, usize)> = None;
  for piece in scan::pieces(&lower) {
    let s = &lower[piece.span.clone()];
    let at = piece.span.start;
    match piece.kind {
      Kind::Code | Kind::Quoted => push(&mut found, s.trim(), 3.0, at),
      Kind::Ascii => {
        let before = context.filter(|c| lower[c.1..at].chars().all(char::is_whitespace));
        ascii(&mut found, &lower, piece.span.clone(), before.map(|c| c.0));
        if s.bytes().any(|b| b.is_ascii_alphabetic()) && lexicon::word_weight(s) >= 0.5 {
          context = Some((at, piece.span.end));
        }
      }
      Kind::Cjk => {
        cjk(&mut found, s, at);
        let tail = s.char_indices().rev().nth(1).map_or(0, |(i, _)| i);
        context = Some((at + tail, piece.span.end));
      }
    }
  }
  found.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
  let mut out: Vec<String> = Vec::new();
  for (_, _, term) in found {
    if out.len() < max && !out.contains(&term) {
      out.push(term);
    }
  }
  out
}

fn push(found: &mut Vec<Candidate>, term: &str, rank: f32, at: usize) {
  let chars = term.chars().count();
  if (3..=MAX_TERM).contains(&chars) {
    found.push((rank, at, term.to_string()));
  }
}

/// An ASCII run: a word by its stem, a compound whole and by its parts, a short number with the
/// word before it.
fn ascii(found: &mut Vec<Candidate>, lower: &str, span: Range<usize>, context: Option<usize>) {
  let s = &lower[span.clone()];
  if s.bytes().all(|b| b.is_ascii_alphabetic()) {
    let weight = lexicon::word_weight(s);
    if weight >= 0.5 {
      let st = stem(s);
      let term = if st.len() >= 4 { st } else { s };
      let rank = weight + 0.02 * s.len().min(12) as f32;
      push(found, term, rank, span.start);
    }
    return;
  }
  if s.bytes().any(|b| b.is_ascii_digit()) && s.chars().count() < 3 {
    // `20` alone is too short for the index: `node 20` is what was written.
    if let Some(from) = context {
      push(found, &lower[from..span.end], 1.6, from);
    }
    return;
  }
  push(found, s, 2.0 + 0.02 * s.len().min(20) as f32, span.start);
  for part in s.split(|c: char| !c.is_ascii_alphanumeric()) {
    if part.bytes().all(|b| b.is_ascii_alphabetic()) && lexicon::word_weight(part) >= 0.8 {
      push(found, part, 1.0, span.start);
    }
  }
}

/// A CJK run: its 3-character windows, ranked by their content characters.
fn cjk(found: &mut Vec<Candidate>, run: &str, at: usize) {
  let chars: Vec<(usize, char)> = run.char_indices().collect();
  let weak = weak_mask(run);
  for i in 0..chars.len().saturating_sub(2) {
    let strong = weak[i..i + 3].iter().filter(|w| !**w).count();
    if strong < 2 {
      continue;
    }
    let end = chars.get(i + 3).map_or(run.len(), |c| c.0);
    let rank = if strong == 3 { 1.1 } else { 0.7 };
    push(found, &run[chars[i].0..end], rank, at + chars[i].0);
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn distinctive_terms_come_first() {
    let t = search_terms("Deploys go through `make ship`", 3);
    assert_eq!(t[0], "make ship");
    assert!(t.contains(&"deploy".to_string()), "{t:?}");
    let t = search_terms("The user prefers pnpm over npm", 2);
    assert_eq!(t, ["pnpm", "npm"]);
  }

  #[test]
  fn a_short_number_keeps_its_word() {
    let t = search_terms("Uses Node 20 for the API", 5);
    assert!(t.contains(&"node 20".to_string()), "{t:?}");
    let t = search_terms("周会在周二上午 10 点", 8);
    assert!(t.contains(&"上午 10".to_string()), "{t:?}");
    let t = search_terms("the 20 of them", 8);
    assert!(t.iter().all(|t| !t.contains("20")), "{t:?}");
  }

  #[test]
  fn cjk_terms_are_three_character_windows() {
    let t = search_terms("用户喜欢简洁的回答", 5);
    assert!(t.iter().all(|t| t.chars().count() == 3), "{t:?}");
    assert!(t.contains(&"简洁的".to_string()), "{t:?}");
    let t = search_terms("テストはvitestで実行する", 5);
    assert_eq!(t[0], "vitest");
  }

  #[test]
  fn terms_are_substrings_of_three_characters_or_more() {
    for text in [
      "say \"hello world\" twice",
      "a\"b\"c d\"e",
      "\"\"\"",
      "  ",
      "ab",
      "x\u{301}yz",
    ] {
      for t in search_terms(text, 10) {
        assert!(t.chars().count() >= 3, "{t:?}");
        assert!(text.to_ascii_lowercase().contains(&t), "{t:?} in {text:?}");
      }
    }
  }
}
