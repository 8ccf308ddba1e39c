//! Text rules: lengths in UTF-16 code units, excerpts, ASCII-only case folding, the characters a
//! text may not hold or that are shown as escapes ([`hidden`]), and tag normalization
//! (protocol-behaviour §0, §4.2, §4.4).
#![forbid(unsafe_code)]

pub mod hidden;

use crate::error::{json_str, MemoryError, Result};

/// Most tags one entry may carry (after dedupe).
pub const MAX_TAGS_PER_ENTRY: usize = 16;
/// Most tags an input may list (duplicates included) before any is looked at.
const MAX_TAGS_GIVEN: usize = 256;
/// Longest tag, in UTF-16 units.
pub const MAX_TAG_LENGTH: usize = 32;

/// Length as JavaScript counts it: UTF-16 code units (a CJK ideograph is 1, an astral emoji 2).
pub fn units(text: &str) -> u64 {
  text.encode_utf16().count() as u64
}

/// The first `max` UTF-16 units of `text`, plus `…` when anything was cut. A cut never splits a
/// surrogate pair (the reference can; a lone surrogate cannot be stored as UTF-8).
pub fn excerpt(text: &str, max: usize) -> String {
  let mut taken = 0;
  let cut = text.char_indices().find(|(_, ch)| {
    taken += ch.len_utf16();
    taken > max
  });
  cut.map_or_else(|| text.to_string(), |(at, _)| format!("{}…", &text[..at]))
}

/// The largest character boundary of `t` at or below `at`.
pub(crate) fn floor(t: &str, at: usize) -> usize {
  let at = at.min(t.len());
  (0..=at).rev().find(|i| t.is_char_boundary(*i)).unwrap_or(0)
}

/// ASCII-only lowercase, the folding SQLite's `lower()` does.
pub fn fold(text: &str) -> String {
  text.to_ascii_lowercase()
}

/// The SHA-256 digest of `data` as 64 lowercase hex characters (the `sha2` crate; checked
/// against the FIPS 180-4 vectors in the audit tests).
pub fn hex_digest(data: &[u8]) -> String {
  use sha2::{Digest, Sha256};
  format!("{:x}", Sha256::digest(data))
}

/// Where `text` holds a character it may not, and its 1-based position: any control character
/// (C0, DEL, C1) but, in a multi-line text, newline and tab; in a one-line field (a source, a
/// key), also the Unicode line separators. A carriage return, an escape sequence or a backspace
/// can repaint what a terminal shows around it.
pub fn forbidden_control(text: &str, multiline: bool) -> Option<(usize, char)> {
  let allowed = |c: char| multiline && (c == '\n' || c == '\t');
  let bad = |c: char| (c.is_control() && !allowed(c)) || (!multiline && breaks_line(c));
  let found = text.chars().enumerate().find(|(_, c)| bad(*c));
  found.map(|(i, c)| (i + 1, c))
}

/// `INVALID_INPUT` for `what` (e.g. `entry text`) when it holds a character
/// [`forbidden_control`] names, or more hidden code points than a stray one or two
/// ([`hidden::too_many`]): text a person cannot see, which only a hidden message needs.
///
/// # Errors
/// `INVALID_INPUT` naming the characters, their position and what to do; a hidden run has
/// `details.reason` `hidden`.
pub fn refuse_unseen(what: &str, text: &str, multiline: bool) -> Result<()> {
  if let Some((at, c)) = forbidden_control(text, multiline) {
    let name = match c {
      '\r' => " (carriage return: use \\n line endings)",
      '\u{1b}' => " (escape: a terminal sequence)",
      _ => "",
    };
    let rule = match multiline {
      true => "only newline and tab are allowed, because a control character can change what a terminal shows around it",
      false => "it is one line: no control or line-breaking character is allowed",
    };
    return Err(MemoryError::invalid(format!(
      "{what} contains control character U+{:04X}{name} at character {at}; {rule}",
      c as u32
    )));
  }
  let Some(found) = hidden::too_many(text) else {
    return Ok(());
  };
  let names = hidden::names(found.iter().map(|(_, c)| *c), 3);
  let (count, first) = (found.len(), found[0].0 + 1);
  let message = format!(
    "{what} holds {count} invisible characters, the first at character {first} ({names}): they show nothing a person can read and are how hidden text is spelled, so nothing was written; remove them (an emoji's own selector or joiner is fine)"
  );
  Err(MemoryError::refused(message, Some("hidden")))
}

/// Whether `c` breaks a line for a reader: newline, carriage return, vertical tab, form feed,
/// NEL and the Unicode line and paragraph separators.
fn breaks_line(c: char) -> bool {
  matches!(
    c,
    '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{85}' | '\u{2028}' | '\u{2029}'
  )
}

/// The lines of `text` as any reader (a terminal, a model) may break them; `\r\n` is one break.
pub fn line_breaks(text: &str) -> impl Iterator<Item = &str> {
  let mut rest = Some(text);
  std::iter::from_fn(move || {
    let s = rest.take()?;
    let at = s.find(breaks_line).unwrap_or(s.len());
    let (line, after) = s.split_at(at);
    let crlf = after.strip_prefix("\r\n");
    rest = crlf.or(after.strip_prefix(breaks_line));
    Some(line)
  })
}

/// `text` with every control character but tab, every line break and every hidden code point out
/// of context ([`hidden`]) written as an escape (`\u{1b}`), so what a terminal, a page or a
/// model is shown is what the text holds.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
  hidden::escaped(text, |c| (c.is_control() && c != '\t') || breaks_line(c))
}

/// Normalize a tag list: trim, reject empty / control characters / over-long tags, dedupe keeping
/// the first occurrence, then cap the count.
///
/// # Errors
/// `INVALID_INPUT` with the protocol's exact message for the first offending tag.
pub fn normalize_tags(tags: &[String]) -> Result<Vec<String>> {
  // Far more tags than any entry may keep: refused before the quadratic dedupe below.
  if tags.len() > MAX_TAGS_GIVEN {
    return Err(too_many_tags(tags.len()));
  }
  let mut out: Vec<String> = Vec::new();
  for raw in tags {
    let tag = raw.trim();
    if tag.is_empty() {
      return Err(MemoryError::invalid("entry tags must be non-empty strings"));
    }
    let what = format!("entry tag {}", visible(&json_str(tag)));
    if tag.chars().any(|c| c.is_control()) {
      let message = format!("{what} contains control characters");
      return Err(MemoryError::invalid(message));
    }
    refuse_unseen(&what, tag, true)?;
    if units(tag) as usize > MAX_TAG_LENGTH {
      let head = excerpt(tag, 20);
      let head = json_str(head.strip_suffix('…').unwrap_or(&head));
      let message = format!("entry tag {head}… exceeds {MAX_TAG_LENGTH} chars");
      return Err(MemoryError::invalid(message));
    }
    if !out.iter().any(|t| t == tag) {
      out.push(tag.to_string());
    }
  }
  if out.len() > MAX_TAGS_PER_ENTRY {
    return Err(too_many_tags(out.len()));
  }
  Ok(out)
}

fn too_many_tags(n: usize) -> MemoryError {
  let message = format!("entry has {n} tags; at most {MAX_TAGS_PER_ENTRY} are allowed");
  MemoryError::invalid(message)
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn counts_utf16_units() {
    assert_eq!(units("abc"), 3);
    assert_eq!(units("记住"), 2);
    assert_eq!(units("😀"), 2);
  }

  #[test]
  fn excerpts_cut_at_units_with_ellipsis() {
    assert_eq!(excerpt("abcdef", 3), "abc…");
    assert_eq!(excerpt("abc", 3), "abc");
    assert_eq!(excerpt("a😀b", 2), "a…");
  }

  #[test]
  fn folding_is_ascii_only() {
    assert!(fold("Use PNPM here").contains("pnpm"));
    assert!(!fold("Äpfel").contains("ä"));
    assert!(fold("记住用 pnpm").contains("记住"));
  }

  #[test]
  fn tags_are_trimmed_deduped_and_checked() -> Result<()> {
    let t = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(normalize_tags(&t(&["a ", "a", "b"]))?, t(&["a", "b"]));
    assert_eq!(
      normalize_tags(&t(&[" "]))
        .map_err(|e| e.to_string())
        .err()
        .as_deref(),
      Some("entry tags must be non-empty strings")
    );
    let long = "x".repeat(33);
    assert_eq!(
      normalize_tags(&[long])
        .map_err(|e| e.to_string())
        .err()
        .as_deref(),
      Some("entry tag \"xxxxxxxxxxxxxxxxxxxx\"… exceeds 32 chars")
    );
    assert!(normalize_tags(&t(&["a\u{7}"])).is_err());
    let many: Vec<String> = (0..17).map(|i| format!("t{i}")).collect();
    assert_eq!(
      normalize_tags(&many)
        .map_err(|e| e.to_string())
        .err()
        .as_deref(),
      Some("entry has 17 tags; at most 16 are allowed")
    );
    let dup: Vec<String> = (0..17).map(|i| format!("t{}", i % 16)).collect();
    assert_eq!(normalize_tags(&dup)?.len(), 16);
    Ok(())
  }

  #[test]
  fn sha256_matches_the_standard_vectors() {
    assert_eq!(
      hex_digest(b""),
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
      hex_digest(b"abc"),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
      hex_digest(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
    assert_eq!(
      hex_digest(&[b'a'; 1_000_000]),
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    );
    assert_eq!(hex_digest(&[0u8; 55]).len(), 64);
    assert_eq!(
      hex_digest(&[0u8; 56]),
      "d4817aa5497628e7c77e6b606107042bbba3130888c5f47a375e6179be789fbb"
    );
  }
}
