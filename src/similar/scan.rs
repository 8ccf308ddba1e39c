//! The pieces of a text, in one linear pass: ASCII runs (words, numbers, identifiers, paths,
//! URLs), runs of CJK characters, and the spans inside backticks or quotes.
#![forbid(unsafe_code)]

use std::ops::Range;

use crate::text::floor;

/// The script of a character, as far as tokens care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Script {
  /// Chinese characters (also the kanji of Japanese).
  Han,
  Hiragana,
  Katakana,
  Hangul,
}

/// The script of `c`, when it is one whose words are not separated by spaces.
pub(super) fn script(c: char) -> Option<Script> {
  match c {
    '\u{4E00}'..='\u{9FFF}'
    | '\u{3400}'..='\u{4DBF}'
    | '\u{F900}'..='\u{FAFF}'
    | '\u{20000}'..='\u{2FFFF}'
    | '\u{3005}'
    | '\u{3006}' => Some(Script::Han),
    '\u{3041}'..='\u{309F}' => Some(Script::Hiragana),
    '\u{30A1}'..='\u{30FA}' | '\u{30FC}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' => {
      Some(Script::Katakana)
    }
    '\u{AC00}'..='\u{D7AF}' | '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}' => {
      Some(Script::Hangul)
    }
    _ => None,
  }
}

/// What a piece is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
  /// A run of ASCII letters, digits and the joiners of identifiers, paths and versions
  /// (`pnpm`, `node20`, `src/main.rs`, `1.2.3`, `https://x.dev/a`), trimmed of trailing
  /// punctuation.
  Ascii,
  /// A run of CJK characters (any mix of Han, kana and Hangul).
  Cjk,
  /// The inside of a backtick span: a command, a name, a snippet.
  Code,
  /// The inside of a quotation ("…", “…”, 「…」, 『…』).
  Quoted,
}

/// A piece of a text: what it is and where (a byte range of the text).
#[derive(Debug, Clone)]
pub(super) struct Piece {
  pub(super) kind: Kind,
  pub(super) span: Range<usize>,
}

/// The longest span taken as one code or quoted value: longer is prose, not a name.
const MAX_SPAN: usize = 80;

/// Whether `c` may continue an ASCII run after a letter or digit.
fn joiner(c: char) -> bool {
  "._-/:@~+#\\%=".contains(c)
}

/// The pieces of `text`, in order of their start (a code or quoted span comes before the
/// pieces inside it).
pub(super) fn pieces(text: &str) -> Vec<Piece> {
  let mut out = Vec::new();
  let mut spans = spans(text).into_iter().peekable();
  let mut at = 0;
  while let Some(c) = text[at..].chars().next() {
    while let Some(s) = spans.next_if(|s| s.span.start <= at) {
      out.push(s);
    }
    let (kind, end, len) = if c.is_ascii_alphanumeric() || (joiner(c) && starts_run(text, at)) {
      // Letters, digits and joiners: `://` is kept.
      let end = run_end(text, at, |c| c.is_ascii_alphanumeric() || joiner(c));
      (Kind::Ascii, end, trim_run(&text[at..end]))
    } else if script(c).is_some() {
      let end = run_end(text, at, |c| script(c).is_some());
      (Kind::Cjk, end, end - at)
    } else {
      at += c.len_utf8();
      continue;
    };
    if len > 0 {
      out.push(Piece {
        kind,
        span: at..at + len,
      });
    }
    at = end;
  }
  out.extend(spans);
  out
}

/// Whether a joiner at `at` starts a run: a path (`/etc`, `~/x`, `./x`, `.env`), a flag
/// (`--force`), a handle or tag (`@types/node`, `#123`) — a joiner followed by a letter or
/// digit, or by another joiner and then one.
fn starts_run(text: &str, at: usize) -> bool {
  let rest = &text.as_bytes()[at..];
  let before_ok = at == 0 || !text.as_bytes()[at - 1].is_ascii_alphanumeric();
  let leads = rest.first().is_some_and(|b| b"/~.-@#\\".contains(b));
  let next = rest.iter().skip(1).take(3).find(|b| !b"/.-~\\".contains(b));
  let then_alnum = next.is_some_and(u8::is_ascii_alphanumeric);
  before_ok && leads && then_alnum
}

/// Where the run starting at `at` of the characters `of` ends.
fn run_end(text: &str, at: usize, of: impl Fn(char) -> bool) -> usize {
  text[at..].find(|c| !of(c)).map_or(text.len(), |i| at + i)
}

/// The length of `run` without the punctuation that ends a sentence or a clause after it
/// (`v20.` → `v20`, `src/` stays); 0 when nothing is left.
fn trim_run(run: &str) -> usize {
  let trimmed = run.trim_end_matches(|c: char| ".:-=+_@#~%".contains(c));
  let cut = trimmed.strip_suffix('/').filter(|t| !t.is_empty());
  let trimmed = cut.unwrap_or(trimmed);
  match trimmed.bytes().any(|b| b.is_ascii_alphanumeric()) {
    true => trimmed.len(),
    false => 0,
  }
}

/// The closing mark of an opening quote or backtick.
fn closer(c: char) -> Option<char> {
  match c {
    '`' | '"' => Some(c),
    '“' => Some('”'),
    '「' => Some('」'),
    '『' => Some('』'),
    _ => None,
  }
}

/// The code and quoted spans of `text`, in order: each opening mark is closed by the nearest
/// closing mark within [`MAX_SPAN`] bytes on the same line, else it is no span. Linear: a span
/// never starts inside another.
fn spans(text: &str) -> Vec<Piece> {
  let mut out = Vec::new();
  let mut at = 0;
  let opens = |(_, c): &(usize, char)| closer(*c).is_some();
  while let Some((i, c)) = text[at..].char_indices().find(opens) {
    let open = at + i;
    let inner = open + c.len_utf8();
    let close = closer(c).and_then(|end| {
      let window = &text[inner..floor(text, inner + MAX_SPAN)];
      let line = window.split('\n').next().unwrap_or_default();
      line.find(end).map(|j| (inner + j, end.len_utf8()))
    });
    match close {
      Some((end, width)) if end > inner => {
        let kind = if c == '`' { Kind::Code } else { Kind::Quoted };
        out.push(Piece {
          kind,
          span: inner..end,
        });
        at = end + width;
      }
      _ => at = inner,
    }
  }
  out
}

#[cfg(test)]
mod tests {
  use super::*;

  fn texts(text: &str) -> Vec<(Kind, &str)> {
    pieces(text)
      .into_iter()
      .map(|p| (p.kind, &text[p.span]))
      .collect()
  }

  #[test]
  fn ascii_runs_keep_identifiers_paths_and_versions_whole() {
    let got = texts("Uses Node 20.11.1, config in ~/.config/dsh/ and src/main.rs.");
    let want = [
      "Uses",
      "Node",
      "20.11.1",
      "config",
      "in",
      "~/.config/dsh",
      "and",
      "src/main.rs",
    ];
    assert_eq!(got.iter().map(|p| p.1).collect::<Vec<_>>(), want);
  }

  #[test]
  fn cjk_runs_are_split_from_ascii() {
    let got = texts("テストはvitestで実行する。用户喜欢pnpm");
    assert_eq!(
      got,
      [
        (Kind::Cjk, "テストは"),
        (Kind::Ascii, "vitest"),
        (Kind::Cjk, "で実行する"),
        (Kind::Cjk, "用户喜欢"),
        (Kind::Ascii, "pnpm"),
      ]
    );
  }

  #[test]
  fn code_and_quotes_are_spans_with_their_insides_scanned_too() {
    let got = texts("Deploys go through `make ship`; say 「確認」 first");
    assert_eq!(
      got,
      [
        (Kind::Ascii, "Deploys"),
        (Kind::Ascii, "go"),
        (Kind::Ascii, "through"),
        (Kind::Code, "make ship"),
        (Kind::Ascii, "make"),
        (Kind::Ascii, "ship"),
        (Kind::Ascii, "say"),
        (Kind::Quoted, "確認"),
        (Kind::Cjk, "確認"),
        (Kind::Ascii, "first"),
      ]
    );
  }

  #[test]
  fn an_unclosed_mark_is_no_span() {
    let got = texts("it's a \"quote that never ends");
    assert!(got.iter().all(|p| p.0 == Kind::Ascii));
  }
}
