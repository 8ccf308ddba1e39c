//! Text rules of the protocol: lengths in UTF-16 code units, excerpts, ASCII-only case folding
//! and tag normalization (protocol-behaviour §0, §4.2, §4.4).
#![forbid(unsafe_code)]

use crate::error::{json_str, MemoryError, Result};

/// Most tags one entry may carry (after dedupe).
pub const MAX_TAGS_PER_ENTRY: usize = 16;
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
  let mut widths = text.char_indices().map(|(at, ch)| (at, ch.len_utf16()));
  let cut = widths.find(|(_, width)| {
    taken += width;
    taken > max
  });
  cut.map_or_else(|| text.to_string(), |(at, _)| format!("{}…", &text[..at]))
}

/// ASCII-only lowercase, the folding SQLite's `lower()` does.
pub fn fold(text: &str) -> String {
  text.to_ascii_lowercase()
}

/// Normalize a tag list: trim, reject empty / control characters / over-long tags, dedupe keeping
/// the first occurrence, then cap the count.
///
/// # Errors
/// `INVALID_INPUT` with the protocol's exact message for the first offending tag.
pub fn normalize_tags(tags: &[String]) -> Result<Vec<String>> {
  let mut out: Vec<String> = Vec::new();
  for raw in tags {
    let tag = raw.trim();
    if tag.is_empty() {
      return Err(MemoryError::invalid("entry tags must be non-empty strings"));
    }
    if tag.chars().any(|c| c <= '\u{1f}' || c == '\u{7f}') {
      return Err(MemoryError::invalid(format!(
        "entry tag {} contains control characters",
        json_str(tag)
      )));
    }
    if units(tag) as usize > MAX_TAG_LENGTH {
      let head = excerpt(tag, 20);
      let head = head.strip_suffix('…').unwrap_or(&head);
      return Err(MemoryError::invalid(format!(
        "entry tag {}… exceeds {MAX_TAG_LENGTH} chars",
        json_str(head)
      )));
    }
    if !out.iter().any(|t| t == tag) {
      out.push(tag.to_string());
    }
  }
  if out.len() > MAX_TAGS_PER_ENTRY {
    return Err(MemoryError::invalid(format!(
      "entry has {} tags; at most {MAX_TAGS_PER_ENTRY} are allowed",
      out.len()
    )));
  }
  Ok(out)
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
}
