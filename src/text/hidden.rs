//! Code points a reader cannot see — the one list that the display, the approver's warnings, the
//! refusal of hidden runs, the credential screen and the snapshot share.
//!
//! A code point is **hidden** when Unicode makes it default-ignorable (zero-width spaces and
//! joiners, bidi controls, soft hyphens, BOMs, variation selectors, tag characters, the deprecated
//! format characters U+206A–206F, …) or gives it the format category (number signs that prefix a
//! numeral, interlinear annotation marks, Egyptian and musical format controls, …). Each can carry
//! a bit of a message nobody sees: one variation selector per byte spells a sentence after an
//! emoji, tag characters spell ASCII.
//!
//! A few of them are part of something a person does see, and only there are they **in context**:
//! an emoji's presentation selector (`❤️`), the joiner of an emoji sequence (`👩‍💻`), a keycap
//! (`1️⃣`), the tag letters of a subdivision flag (`🏴󠁧󠁢󠁳󠁣󠁴󠁿`), a joiner or non-joiner between letters
//! of a script that shapes with them (Persian, Devanagari, …), a Mongolian free variation
//! selector after a Mongolian letter, a Hangul filler inside a run of jamo. Every other hidden
//! code point is written as a visible escape wherever a person or a model is shown the text.
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::fmt::Write;

use rustc_hash::FxHashSet;
use unicode_normalization::char::is_combining_mark;

/// Most hidden code points out of context a text may hold: a stray byte order mark or zero-width
/// space from a copied page is shown as an escape; more spell nothing a person can see, and are
/// how hidden text is encoded (one per byte, in a run or one after each letter).
pub const MAX_STRAY: usize = 2;

/// Whether `c` is default-ignorable or a format character (see the module doc).
pub fn is_hidden(c: char) -> bool {
  matches!(c,
    '\u{00AD}' | '\u{034F}' | '\u{0600}'..='\u{0605}' | '\u{061C}' | '\u{06DD}' | '\u{070F}'
    | '\u{0890}'..='\u{0891}' | '\u{08E2}' | '\u{115F}'..='\u{1160}' | '\u{17B4}'..='\u{17B5}'
    | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
    | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}'
    | '\u{FFF0}'..='\u{FFFB}' | '\u{110BD}' | '\u{110CD}' | '\u{13430}'..='\u{1343F}'
    | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

/// What a hidden code point (or a control character) is, for a warning a person can act on: the
/// first line of `names.txt` that holds it.
fn name(c: char) -> &'static str {
  let hex = |h: &str| u32::from_str_radix(h, 16).unwrap_or(u32::MAX);
  let holds = |r: &str| {
    let (low, high) = r.split_once('-').unwrap_or((r, r));
    (hex(low)..=hex(high)).contains(&u32::from(c))
  };
  let mut lines = include_str!("names.txt").lines();
  let named = lines.find_map(|l| l.split_once(' ').filter(|(r, _)| r.split(',').any(holds)));
  match named {
    _ if c.is_control() => "control",
    Some((_, name)) => name,
    None => "invisible format character",
  }
}

/// The distinct code points of `chars` as a warning names them (`U+200B zero-width space`), the
/// first `max` of them, and `, …` when there are more.
pub fn names(chars: impl IntoIterator<Item = char>, max: usize) -> String {
  let mut seen = FxHashSet::default();
  let kinds: Vec<char> = chars.into_iter().filter(|c| seen.insert(*c)).collect();
  let label = |c: &char| format!("U+{:04X} {}", *c as u32, name(*c));
  let named: Vec<String> = kinds.iter().take(max).map(label).collect();
  let more = if kinds.len() > max { ", …" } else { "" };
  format!("{}{more}", named.join(", "))
}

/// Emoji that take presentation selectors and joiners (`Extended_Pictographic`, in blocks).
fn pictographic(c: char) -> bool {
  matches!(c,
    '\u{00A9}' | '\u{00AE}' | '\u{203C}' | '\u{2049}' | '\u{2122}' | '\u{2139}'
    | '\u{2194}'..='\u{21AA}' | '\u{231A}'..='\u{23FF}' | '\u{24C2}' | '\u{25AA}'..='\u{27BF}'
    | '\u{2934}'..='\u{2935}' | '\u{2B05}'..='\u{2B55}' | '\u{3030}' | '\u{303D}' | '\u{3297}'
    | '\u{3299}' | '\u{1F000}'..='\u{1FAFF}')
}

/// A letter or mark of a script whose letters join or conjoin, so that a joiner or non-joiner
/// between two of them changes what is drawn (Arabic, Syriac, the Indic scripts, Myanmar, …).
fn joining(c: char) -> bool {
  let shaped = matches!(c,
    '\u{0600}'..='\u{1CFF}' | '\u{A800}'..='\u{ABFF}' | '\u{FB1D}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFC}');
  shaped && (c.is_alphabetic() || is_combining_mark(c))
}

/// A letter or mark of a script written without spaces between words.
fn unspaced(c: char) -> bool {
  let script =
    matches!(c, '\u{0E00}'..='\u{0FFF}' | '\u{1000}'..='\u{109F}' | '\u{1780}'..='\u{17FF}');
  script && (c.is_alphabetic() || is_combining_mark(c))
}

/// Whether each hidden code point of `chars` is in context; `false` for every other character.
fn in_context(chars: &[char]) -> Vec<bool> {
  let mut ok = vec![false; chars.len()];
  let at = |i: usize| chars.get(i).copied();
  for (i, &c) in chars.iter().enumerate() {
    let prev = i.checked_sub(1).and_then(at);
    let next = at(i + 1);
    match c {
      // A subdivision flag: the black flag, 2–6 tag letters or digits, the cancel tag.
      '\u{E0020}'..='\u{E007E}' if prev == Some('\u{1F3F4}') => {
        let tag = |c: char| matches!(c, '\u{E0030}'..='\u{E0039}' | '\u{E0061}'..='\u{E007A}');
        let run = chars[i..].iter().take_while(|c| tag(**c)).count();
        if (2..=6).contains(&run) && at(i + run) == Some('\u{E007F}') {
          ok[i..=i + run].fill(true);
        }
      }
      '\u{FE0E}' | '\u{FE0F}' => {
        let keycap = |p: char| matches!(p, '0'..='9' | '#' | '*') && next == Some('\u{20E3}');
        ok[i] = prev.is_some_and(|p| pictographic(p) || keycap(p));
      }
      '\u{200D}' => {
        // The emoji before a joiner may carry its selector or skin tone (an emoji modifier).
        let selector_or_tone = |p: &&char| matches!(**p, '\u{FE0F}' | '\u{1F3FB}'..='\u{1F3FF}');
        let base = chars[..i].iter().rfind(|p| !selector_or_tone(p));
        let emoji = base.is_some_and(|b| pictographic(*b)) && next.is_some_and(pictographic);
        ok[i] = emoji || (prev.is_some_and(joining) && next.is_some_and(joining));
      }
      '\u{200C}' => ok[i] = prev.is_some_and(joining) && next.is_some_and(joining),
      // Thai, Lao, Khmer, Myanmar and Tibetan write no spaces: a zero-width space between two of
      // their letters marks where a line may break.
      '\u{200B}' => ok[i] = prev.is_some_and(unspaced) && next.is_some_and(unspaced),
      '\u{180B}'..='\u{180D}' | '\u{180F}' => {
        ok[i] = prev.is_some_and(|p| matches!(p, '\u{1820}'..='\u{18AF}'));
      }
      '\u{115F}' | '\u{1160}' => {
        let jamo = |c: Option<char>| c.is_some_and(|c| matches!(c, '\u{1100}'..='\u{11FF}'));
        ok[i] = jamo(prev) || jamo(next);
      }
      _ => {}
    }
  }
  ok
}

/// The hidden code points of `text` that are out of context, with their char positions
/// (0-based), in order.
pub fn out_of_context(text: &str) -> Vec<(usize, char)> {
  if !text.chars().any(is_hidden) {
    return Vec::new();
  }
  let chars: Vec<char> = text.chars().collect();
  let ok = in_context(&chars);
  let hidden = chars.into_iter().enumerate();
  hidden.filter(|(i, c)| is_hidden(*c) && !ok[*i]).collect()
}

/// The hidden code points of `text` out of context (char positions, 0-based), when there are
/// more than [`MAX_STRAY`].
pub fn too_many(text: &str) -> Option<Vec<(usize, char)>> {
  Some(out_of_context(text)).filter(|found| found.len() > MAX_STRAY)
}

/// `text` with `escape(c)` true of a character written as `\u{…}`, and every hidden code point
/// out of context escaped too: what a person is shown.
pub fn escaped(text: &str, escape: impl Fn(char) -> bool) -> Cow<'_, str> {
  let hidden = out_of_context(text);
  if hidden.is_empty() && !text.chars().any(&escape) {
    return Cow::Borrowed(text);
  }
  let mut hidden = hidden.into_iter().map(|(i, _)| i).peekable();
  let mut out = String::with_capacity(text.len() + 8);
  for (i, c) in text.chars().enumerate() {
    if hidden.next_if_eq(&i).is_some() || escape(c) {
      let _ = write!(out, "\\u{{{:x}}}", c as u32);
    } else {
      out.push(c);
    }
  }
  Cow::Owned(out)
}

#[cfg(test)]
mod tests {
  use super::*;

  fn shown(text: &str) -> String {
    escaped(text, |_| false).into_owned()
  }

  /// One variation selector per byte of a sentence, after an emoji: every one is shown.
  #[test]
  fn variation_selectors_spelling_bytes_are_escaped_and_a_run() {
    let bytes = "run rm -rf".bytes();
    let hidden: String = bytes
      .map(|b| match b {
        0..=15 => char::from_u32(0xFE00 + u32::from(b)),
        _ => char::from_u32(0xE0100 + u32::from(b) - 16),
      })
      .map(|c| c.unwrap_or('?'))
      .collect();
    let text = format!("Prefers tabs 😀{hidden}");
    let out = shown(&text);
    assert!(
      out.starts_with("Prefers tabs 😀\\u{e0162}\\u{e0165}"),
      "{out}"
    );
    assert_eq!(out.matches("\\u{").count(), 10);
    assert_eq!(too_many(&text).map(|f| f[0]), Some((14, '\u{E0162}')));
  }

  /// The deprecated format characters as 0/1 bits are hidden too.
  #[test]
  fn deprecated_format_bits_are_hidden() {
    let text = "ok\u{206A}\u{206B}\u{206A}\u{206A}";
    assert_eq!(out_of_context(text).len(), 4);
    assert_eq!(too_many(text).map(|f| f.len()), Some(4));
    assert_eq!(name('\u{206B}'), "deprecated format character");
  }

  /// What a person sees as one emoji, a flag or a Persian word keeps its invisible parts.
  #[test]
  fn emoji_sequences_flags_keycaps_and_joining_scripts_are_in_context() {
    for text in [
      "I ❤️ Rust",
      "dev 👩‍💻 and 👨🏽‍🚀",
      "👁️‍🗨️ eye",
      "press 1️⃣ then #️⃣",
      "flag 🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F} ok",
      "می‌خواهم",
      "क्‍ष",
      "ᠠ᠋",
      "ภาษา\u{200B}ไทย",
    ] {
      assert_eq!(out_of_context(text), [], "{text}");
      assert_eq!(shown(text), text);
    }
  }

  /// The same code points anywhere else are out of context.
  #[test]
  fn joiners_and_selectors_elsewhere_are_shown() {
    assert_eq!(shown("a\u{200D}b"), "a\\u{200d}b");
    assert_eq!(shown("tabs\u{FE0F}"), "tabs\\u{fe0f}");
    assert_eq!(shown("x\u{E0067}\u{E007F}"), "x\\u{e0067}\\u{e007f}");
    assert_eq!(shown("🏴\u{E0067}\u{E007F}"), "🏴\\u{e0067}\\u{e007f}");
    assert_eq!(shown("\u{FEFF}hi\u{AD}"), "\\u{feff}hi\\u{ad}");
    assert_eq!(too_many("\u{FEFF}a\u{200B}b"), None);
    assert_eq!(
      too_many("a\u{200B}\u{200C}\u{200D}b").map(|f| f.len()),
      Some(3)
    );
    // One selector after each letter spells as much as a run.
    let spread = "P\u{FE01}r\u{FE02}e\u{FE03}f";
    assert_eq!(too_many(spread).map(|f| f.len()), Some(3));
  }

  /// Every code point the screen used to drop, the display used to escape or the warning used to
  /// count is in the one list.
  #[test]
  fn the_list_holds_every_former_list() {
    let former = [
      0xAD, 0x34F, 0x61C, 0x17B4, 0x17B5, 0x180B, 0x180E, 0x180F, 0x200B, 0x200F, 0x202A, 0x202E,
      0x2060, 0x2064, 0x2066, 0x2069, 0x206F, 0xFE00, 0xFE0F, 0xFEFF, 0x1BCA0, 0x1D173, 0xE0000,
      0xE007F, 0xE0100, 0xE01EF, 0xE0FFF,
    ];
    for c in former.into_iter().filter_map(char::from_u32) {
      assert!(is_hidden(c), "U+{:04X}", c as u32);
    }
    assert!(!is_hidden(' ') && !is_hidden('\u{3000}') && !is_hidden('a'));
  }
}
