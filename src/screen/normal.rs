//! The text the credential rules read, and the way back to the text they were given.
//!
//! Normalising defeats the cheap disguises of a key: NFKC folds fullwidth and other
//! compatibility forms (`ｇｈｐ＿…`, `ＡＫＩＡ…`) to ASCII, default-ignorable characters (zero-width
//! spaces and joiners, bidi controls, soft hyphens, BOMs, tag characters, variation selectors) are
//! dropped, and a token wrapped at a line end is joined to its continuation. Every byte of the
//! result comes from a known place in the original, so a match can be reported (and redacted) in
//! the text the caller holds.
//!
//! One pass, linear in the text: NFKC is applied per cluster (a character and the combining marks
//! after it), which is all the composition that matters for ASCII credentials, and the look-ahead
//! of a line join is bounded.
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::ops::Range;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// A character that renders as nothing: what a disguised key is padded with.
use crate::text::hidden::is_hidden as ignorable;

/// The shortest run before a line end that may be the first half of a wrapped token: shorter
/// runs are words, and a short first half leaves a long second half that is caught on its own.
const WRAPPED_HEAD: usize = 16;
/// How far a line join looks into the next line's run (a run this long is no ordinary word).
const LOOK_AHEAD: usize = 64;

/// A stretch of the normalised text and where it came from.
#[derive(Clone, Copy, Debug, Default)]
struct Piece {
  /// Where it starts in the normalised text.
  norm: usize,
  /// Where it starts in the original text.
  orig: usize,
  /// `0` for a copied stretch (same bytes, same length); else the original length of the one
  /// unit that was replaced by its NFKC form.
  replaced: usize,
}

/// A text as the rules read it, with the map back to the original.
#[derive(Debug)]
pub(super) struct Normal<'a> {
  text: Cow<'a, str>,
  /// Empty when the text is unchanged; else sorted by `norm` (strictly increasing).
  pieces: Vec<Piece>,
  /// Where in the normalised text a line split was joined.
  joins: Vec<usize>,
}

impl Normal<'_> {
  /// The normalised text.
  pub(super) fn text(&self) -> &str {
    &self.text
  }

  /// Where a line split was joined, in normalised offsets, ascending.
  pub(super) fn joins(&self) -> &[usize] {
    &self.joins
  }

  /// The original byte range of a range of the normalised text (both on character boundaries).
  /// A range that starts or ends inside a replaced unit grows to the whole unit; characters that
  /// were dropped between its ends are inside it.
  pub(super) fn original(&self, at: Range<usize>) -> Range<usize> {
    if self.pieces.is_empty() || at.is_empty() {
      return at;
    }
    let piece = |i: usize| self.pieces.get(i.saturating_sub(1)).copied();
    let first = piece(self.pieces.partition_point(|p| p.norm <= at.start));
    let last = piece(self.pieces.partition_point(|p| p.norm < at.end));
    let start = first.map_or(at.start, |p| match p.replaced {
      0 => p.orig + (at.start - p.norm),
      _ => p.orig,
    });
    let end = last.map_or(at.end, |p| match p.replaced {
      0 => p.orig + (at.end - p.norm),
      n => p.orig + n,
    });
    start..end.max(start)
  }
}

/// A character of a token as a line join sees it.
fn run_char(c: char) -> bool {
  c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '/' | '=' | '.')
}

#[derive(Default)]
struct Builder<'a> {
  text: &'a str,
  /// `None` while the normalised text is still the original's prefix.
  out: Option<String>,
  pieces: Vec<Piece>,
  joins: Vec<usize>,
  /// The run of token characters at the end of the output so far: its length and whether it has
  /// a digit and a letter.
  run: usize,
  run_digit: bool,
  run_alpha: bool,
  last: char,
}

impl Builder<'_> {
  /// Follow the run of token characters at the end of the output past `s`: only the run at the
  /// end of `s` counts, and whether it continues the one before.
  fn track(&mut self, s: &str) {
    let head = s.trim_end_matches(run_char);
    let run = &s[head.len()..];
    if !head.is_empty() {
      (self.run, self.run_digit, self.run_alpha) = (0, false, false);
    }
    self.run += run.len();
    self.run_digit |= run.bytes().any(|b| b.is_ascii_digit());
    self.run_alpha |= run.bytes().any(|b| b.is_ascii_alphabetic());
    self.last = s.chars().next_back().unwrap_or(self.last);
  }

  /// Copy `text[at..at + s.len()]` (which is `s`) unchanged.
  fn copy(&mut self, at: usize, s: &str) {
    self.track(s);
    let Some(out) = &mut self.out else { return };
    let last = self.pieces.last();
    let contiguous = last.is_some_and(|p| p.replaced == 0 && p.orig + (out.len() - p.norm) == at);
    if !contiguous {
      self.pieces.push(Piece {
        norm: out.len(),
        orig: at,
        replaced: 0,
      });
    }
    out.push_str(s);
  }

  /// Drop the original text from `at` on (the caller says how much): the next copy starts a
  /// new piece. The output, which everything before `at` starts unchanged the first time.
  fn skip(&mut self, at: usize) -> &mut String {
    if self.out.is_none() {
      self.out = Some(String::with_capacity(self.text.len()) + &self.text[..at]);
      self.pieces.push(Piece::default());
    }
    self.out.get_or_insert_default()
  }

  /// Write `s` for the unit `text[at..end]`.
  fn replace(&mut self, at: usize, end: usize, s: &str) {
    self.track(s);
    let out = self.skip(at);
    let norm = out.len();
    out.push_str(s);
    self.pieces.push(Piece {
      norm,
      orig: at,
      replaced: end - at,
    });
  }

  /// The length of the line break and indentation at `at` to drop, when they split a token: the
  /// output ends in a run long enough to be a wrapped token's head (with a digit and a letter, not
  /// ending a sentence or base64 padding) and the next line goes on with more token characters
  /// that are not an ordinary word.
  fn wrapped(&self, at: usize) -> Option<usize> {
    let rest = &self.text[at..];
    let after_break = rest.strip_prefix('\r').unwrap_or(rest).strip_prefix('\n')?;
    let tail_ok = self.run >= WRAPPED_HEAD && self.run_digit && self.run_alpha;
    if !tail_ok || matches!(self.last, '.' | '=' | ',') {
      return None;
    }
    let next = after_break.trim_start_matches([' ', '\t']);
    let window = &next[..super::floor(next, LOOK_AHEAD)];
    let run = &window[..window.find(|c| !run_char(c)).unwrap_or(window.len())];
    let starts = run.starts_with(|c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '/'));
    // A line that starts with an ordinary word goes on with prose, not with the rest of a token.
    (starts && run.len() >= 4 && !super::plain_word(run)).then(|| rest.len() - next.len())
  }
}

/// Normalise `text` for screening (see the module doc).
pub(super) fn normalise(text: &str) -> Normal<'_> {
  let mut b = Builder {
    text,
    ..Builder::default()
  };
  let bytes = text.as_bytes();
  let mut at = 0;
  while let Some(c) = text[at..].chars().next() {
    // Plain ASCII up to a line break or a non-ASCII character is copied in one go; the ASCII
    // character before a non-ASCII one is left to the cluster step (a combining mark may follow).
    let plain = |b: &&u8| b.is_ascii() && !matches!(b, b'\n' | b'\r');
    let stop = at + bytes[at..].iter().take_while(plain).count();
    let end = match bytes.get(stop) {
      Some(b) if !b.is_ascii() => stop.saturating_sub(1).max(at),
      _ => stop,
    };
    if end > at {
      b.copy(at, &text[at..end]);
      at = end;
      continue;
    }
    let len = c.len_utf8();
    // A line break that splits a token is dropped.
    if let Some(skip) = b.wrapped(at) {
      let norm = b.skip(at).len();
      b.joins.push(norm);
      at += skip;
      continue;
    }
    if ignorable(c) {
      b.skip(at);
      at += len;
      continue;
    }
    // A cluster: the character and the combining marks that compose with it. ASCII, CJK
    // ideographs and kana alone are their own NFKC form.
    let mark = |m: char| is_combining_mark(m) && !ignorable(m);
    let end = text.len() - text[at + len..].trim_start_matches(mark).len();
    let unit = &text[at..end];
    let own = c.is_ascii()
      || matches!(c, '\u{3041}'..='\u{3096}' | '\u{30A1}'..='\u{30FA}' | '\u{4E00}'..='\u{9FFF}');
    let quick = (own && end == at + len) || is_nfkc_quick(unit.chars()) == IsNormalized::Yes;
    let folded = (!quick).then(|| unit.nfkc().collect::<String>());
    match folded.filter(|f| f != unit) {
      Some(folded) => b.replace(at, end, &folded),
      None => b.copy(at, unit),
    }
    at = end;
  }
  Normal {
    text: b.out.map_or(Cow::Borrowed(text), Cow::Owned),
    pieces: b.pieces,
    joins: b.joins,
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  /// `original` normalises to `normalised`, and each character of the result maps back to an
  /// original stretch whose NFKC form (less ignorable characters) holds it.
  fn check(original: &str, normalised: &str) {
    let n = normalise(original);
    assert_eq!(n.text(), normalised, "{original:?}");
    for (at, c) in n.text().char_indices() {
      let back = &original[n.original(at..at + c.len_utf8())];
      let folded: String = back.chars().filter(|c| !ignorable(*c)).nfkc().collect();
      assert!(folded.contains(c), "{original:?}: {c:?} from {back:?}");
    }
  }

  #[test]
  fn an_unchanged_text_is_borrowed_and_maps_to_itself() {
    let n = normalise("plain ascii, 用户 text\nsecond line");
    assert!(matches!(n.text, Cow::Borrowed(_)));
    assert_eq!(n.original(3..9), 3..9);
  }

  #[test]
  fn fullwidth_zero_width_and_wrapped_tokens_come_out_plain() {
    check("ｇｈｐ＿ａＢ３", "ghp_aB3");
    check("g\u{200B}h\u{200C}p\u{FEFF}_x\u{2060}1\u{E0041}", "ghp_x1");
    check("a\u{00AD}b\u{202E}c\u{FE0F}", "abc");
    check(
      "key ghp_1A2b3C4d5E6f7G8h\n    9I0jK1lM2nO3pQ4rS5tU end",
      "key ghp_1A2b3C4d5E6f7G8h9I0jK1lM2nO3pQ4rS5tU end",
    );
    check(
      "sk-9aB3dE5fG7hJ1kL3\r\nmN5pQ7rS9tU1vW3x",
      "sk-9aB3dE5fG7hJ1kL3mN5pQ7rS9tU1vW3x",
    );
    check("数据库密码：Ａｂｃ１２", "数据库密码:Abc12");
    check("e\u{301}te\u{301}", "été");
  }

  #[test]
  fn a_range_maps_back_to_the_original_bytes() {
    let original = "id: ｇ\u{200B}ｈｐ＿ａＢ３ ok";
    let n = normalise(original);
    let at = n.text().find("ghp_aB3").unwrap_or_default();
    let back = n.original(at..at + "ghp_aB3".len());
    assert_eq!(&original[back], "ｇ\u{200B}ｈｐ＿ａＢ３");
    let joined = "t ghp_1A2b3C4d5E6f7G8h\n  9I0jK1lM2nO3pQ4rS5tU.";
    let n = normalise(joined);
    let at = n.text().find("ghp_").unwrap_or_default();
    let back = n.original(at..n.text().len() - 1);
    assert_eq!(
      &joined[back],
      "ghp_1A2b3C4d5E6f7G8h\n  9I0jK1lM2nO3pQ4rS5tU"
    );
    assert_eq!(n.joins(), &[at + 20]);
  }

  /// Prose lines, sentence ends, short words and list items are not joined.
  #[test]
  fn ordinary_line_ends_are_kept() {
    for text in [
      "commit 3f5e2a9c1b7d4e6f8a0b2c4d6e8f0a1b3c5d7e9f\nFixed the flaky test",
      "id 01HQ3K4Z8X9YV7C2B5N6M8P0QR.\nNext line",
      "hash 3f5e2a9c1b7d4e6f8a0b\n- item",
      "short line\nanother one",
      "padding dGhpcyBpcyBub3QgYSBrZXk=\nQUJD more",
      "/home/ana/src/project\n1. step",
    ] {
      assert_eq!(normalise(text).text(), text);
    }
  }

  /// Linear: a 5 MB text of every case the builder handles takes well under a second in release
  /// and a few in debug; quadratic work would take hours.
  #[test]
  fn a_large_adversarial_text_is_normalised_in_linear_time() {
    let unit = "ｇ\u{200B}e\u{301}ab12cd34ef56gh78\n  x9y8z7w6 ";
    let text = unit.repeat(5_000_000 / unit.len());
    let start = std::time::Instant::now();
    let n = normalise(&text);
    assert!(n.joins().len() > 100_000);
    assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
  }
}
