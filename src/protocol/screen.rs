//! Screening of text before it is asked about: secrets (refused by default — memory is injected
//! into every future prompt and is no place for credentials), instruction-like text and
//! invisible Unicode (flagged in the approval payload so the approver sees them).
//!
//! Heuristics, deliberately conservative: a token prefix list for well-known credential formats,
//! private-key armour, `key = value` assignments of password/token names with a credential-like
//! value, credentials in URLs, and long high-entropy tokens. An environment variable's name or a
//! visibly redacted value (`845120...HFXI`, `sk-****`, `<redacted>`) is not a credential.
//! Fixture corpus: `tests/screen_corpus.rs`.
#![forbid(unsafe_code)]

use std::ops::Range;

use crate::protocol::text::{excerpt, units};

/// Credential formats recognised by prefix: (prefixes, minimum total length, what it is).
const PREFIXES: &[(&[&str], usize, &str)] = &[
  (&["sk-ant-"], 30, "an Anthropic API key"),
  (&["sk-proj-"], 30, "an OpenAI API key"),
  (&["sk-"], 24, "an API key (sk-…)"),
  (&["sk_live_", "sk_test_"], 20, "a Stripe secret key"),
  (&["rk_live_"], 20, "a Stripe restricted key"),
  (
    &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
    36,
    "a GitHub token",
  ),
  (&["github_pat_"], 40, "a GitHub token"),
  (&["glpat-"], 24, "a GitLab token"),
  (
    &["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-"],
    20,
    "a Slack token",
  ),
  (&["AIza"], 39, "a Google API key"),
  (&["npm_"], 40, "an npm token"),
  (&["hf_"], 34, "a Hugging Face token"),
  (&["AKIA", "ASIA"], 20, "an AWS access key id"),
];

/// What replaces a credential in an excerpt.
const REDACTED: &str = "<redacted>";

/// Names whose `name = value` assignment carries a secret.
const SECRET_NAMES: &[&str] = &[
  "password",
  "passwd",
  "passphrase",
  "pwd",
  "secret",
  "client_secret",
  "api_key",
  "apikey",
  "api-key",
  "access_token",
  "auth_token",
  "refresh_token",
  "token",
  "private_key",
  "密码",
];

/// Phrases that read as instructions to a future model rather than facts.
const INSTRUCTION_PHRASES: &[&str] = &[
  "ignore previous instructions",
  "ignore all previous",
  "ignore the above",
  "ignore prior instructions",
  "disregard previous",
  "disregard all prior",
  "disregard the above",
  "forget your instructions",
  "forget all previous",
  "new instructions:",
  "system prompt",
  "<system>",
  "</system>",
  "[system]",
  "you are now",
  "developer mode",
  "do not tell the user",
  "don't tell the user",
  "without asking the user",
  "always approve",
  "auto-approve",
  "忽略之前的指令",
  "忽略以上",
];

/// Where `part`, a subslice of `text`, lies in it.
fn span(text: &str, part: &str) -> Range<usize> {
  let start = part.as_ptr() as usize - text.as_ptr() as usize;
  start..start + part.len()
}

fn entropy(s: &str) -> f64 {
  let mut counts = [0u32; 128];
  s.bytes()
    .filter(|b| *b < 128)
    .for_each(|b| counts[b as usize] += 1);
  let n = f64::from(counts.iter().sum::<u32>());
  let p = counts.iter().filter(|c| **c > 0).map(|c| f64::from(*c) / n);
  p.map(|p| -p * p.log2()).sum()
}

/// A character of an API key's body or a JWT part.
fn key_char(c: char) -> bool {
  c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

fn prefixed(token: &str) -> Option<&'static str> {
  PREFIXES.iter().find_map(|(prefixes, min, what)| {
    let rest = prefixes.iter().find_map(|p| token.strip_prefix(p))?;
    let has_digit = rest.chars().any(|c| c.is_ascii_digit());
    (token.len() >= *min && rest.chars().all(key_char) && has_digit).then_some(*what)
  })
}

fn jwt(token: &str) -> bool {
  let parts: Vec<&str> = token.split('.').collect();
  parts.len() == 3
    && parts[0].starts_with("eyJ")
    && parts
      .iter()
      .all(|p| p.len() >= 8 && p.chars().all(key_char))
}

fn high_entropy(token: &str) -> bool {
  let t = token.trim_matches(|c: char| matches!(c, '.' | '=' | '-' | '_' | '/'));
  let paths = t.contains('/') && t.split('/').filter(|s| !s.is_empty()).count() > 2;
  // Commit hashes, UUIDs and digests are common, legitimate memory.
  let hex = t.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
  let classes: [fn(&char) -> bool; 3] = [
    char::is_ascii_lowercase,
    char::is_ascii_uppercase,
    char::is_ascii_digit,
  ];
  t.len() >= 24
    && !(t.contains("...") || t.contains("://") || paths || hex)
    && classes.iter().all(|class| t.chars().any(|c| class(&c)))
    && entropy(t) >= 4.2
}

/// A value someone visibly redacted (`845120...HFXI`, `sk-****`, `<redacted>`, `[REDACTED]`):
/// what is left shows which credential is meant, not the credential.
fn redacted(v: &str) -> bool {
  v.contains("...")
    || v.contains('…')
    || v.contains("***")
    || v.starts_with('<')
    || v.to_ascii_lowercase().contains("redacted")
}

/// An environment variable's name (`TELEGRAM_BOT_TOKEN`, `process.env.DB_PASSWORD`): it says
/// where a credential lives, not what it is.
fn env_name(v: &str) -> bool {
  let name = v.rsplit('.').next().unwrap_or(v);
  name.contains('_')
    && name.starts_with(|c: char| c.is_ascii_uppercase())
    && name
      .chars()
      .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    && v
      .chars()
      .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

fn credential_like(value: &str) -> bool {
  let v = value.trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | ',' | ';' | ')' | '('));
  let placeholder =
    v.starts_with('$') || v.eq_ignore_ascii_case("xxx") || redacted(v) || env_name(v);
  let lower = v.to_ascii_lowercase();
  let prose = [
    "required", "optional", "rotated", "stored", "managed", "expired", "changed", "env", "none",
    "null", "redacted",
  ]
  .iter()
  .any(|w| lower == *w);
  v.chars().count() >= 6
    && !placeholder
    && !prose
    && (v.chars().any(|c| c.is_ascii_digit())
      || v.chars().any(|c| !c.is_alphanumeric())
      || (v.chars().any(char::is_uppercase) && v.chars().any(char::is_lowercase)))
}

/// Where an assignment marker starts in `lower` (`:`, `=`, `：` or `is `) and its length.
fn markers(lower: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
  lower.char_indices().filter_map(|(at, c)| match c {
    ':' | '=' | '：' => Some((at, c.len_utf8())),
    'i' if lower[at..].starts_with("is ") => Some((at, 3)),
    _ => None,
  })
}

/// A `name = value` (or `name: value`, `name is value`) assignment of a secret name with a
/// credential-like value: where the value is. One pass: each marker is checked for a secret name
/// just before it (past spaces and quotes), rather than each name searched for through the text.
fn assignment(text: &str) -> Option<Range<usize>> {
  let lower = text.to_lowercase();
  let found = markers(&lower).find_map(|(at, len)| {
    let head = lower[..at].trim_end_matches([' ', '"', '\'']);
    let named = SECRET_NAMES.iter().any(|name| {
      let before = head.strip_suffix(name).map(|b| b.chars().next_back());
      // A CJK name needs no word boundary before it.
      before.is_some_and(|c| !name.is_ascii() || c.is_none_or(|c| !c.is_alphanumeric() && c != '_'))
    });
    if !named {
      return None;
    }
    // `lower` may be longer than `text` (`İ` lowercases to two characters): no value then.
    let rest = text.len().checked_sub(lower.len() - at - len);
    let rest = rest.and_then(|at| text.get(at..)).unwrap_or("");
    let value = rest.split_whitespace().next().unwrap_or("");
    credential_like(value).then(|| span(text, value))
  });
  found
}

/// The password of a URL's userinfo (`scheme://user:password@host`).
fn url_credentials(text: &str) -> Option<&str> {
  text.split_whitespace().find_map(|word| {
    let (_, rest) = word.split_once("://")?;
    let authority = rest.split('/').next().unwrap_or("");
    let (userinfo, _) = authority.split_once('@')?;
    let (_, pass) = userinfo.split_once(':')?;
    (!pass.is_empty() && !pass.starts_with('$') && !redacted(pass)).then_some(pass)
  })
}

/// Private-key armour: from `-----BEGIN` to the end of its `-----END` line (or of the text).
fn private_key(text: &str) -> Option<Range<usize>> {
  let start = text
    .find("-----BEGIN")
    .filter(|_| text.contains("PRIVATE KEY"))?;
  let end = text[start..].find("-----END").map_or(text.len(), |at| {
    let from = start + at;
    text[from..].find('\n').map_or(text.len(), |n| from + n)
  });
  Some(start..end)
}

/// What kind of secret `text` seems to contain and where it is, if any.
pub fn secret_match(text: &str) -> Option<(&'static str, Range<usize>)> {
  let bearer = || {
    let at = text.to_ascii_lowercase().find("bearer ")?;
    let token = text[at + 7..].split_whitespace().next()?;
    (token.len() >= 20 && !redacted(token)).then(|| ("a bearer token", span(text, token)))
  };
  let apart = |c: char| !c.is_ascii_alphanumeric() && !matches!(c, '-' | '_' | '+' | '/' | '.');
  let token = |token: &str| {
    let kind = prefixed(token)
      .or_else(|| jwt(token).then_some("a JSON web token"))
      .or_else(|| high_entropy(token).then_some("a high-entropy token"));
    Some((kind?, span(text, token)))
  };
  let url = |pass| ("a password in a URL", span(text, pass));
  private_key(text)
    .map(|at| ("a private key", at))
    .or_else(|| url_credentials(text).map(url))
    .or_else(|| assignment(text).map(|at| ("a password or token assignment", at)))
    .or_else(bearer)
    // Every token format is at least 20 characters long: most words skip them all.
    .or_else(|| text.split(apart).filter(|t| t.len() >= 20).find_map(token))
}

/// What kind of secret `text` seems to contain, if any.
pub fn secret_kind(text: &str) -> Option<&'static str> {
  secret_match(text).map(|(kind, _)| kind)
}

/// The kind of `text`'s credential and the line it is on, with every credential in the line
/// replaced by `<redacted>` and cut to 120 UTF-16 units; `None` when `text` passes the screen.
pub fn redacted_line(text: &str) -> Option<(&'static str, String)> {
  let (kind, at) = secret_match(text)?;
  let start = text[..at.start].rfind('\n').map_or(0, |n| n + 1);
  let end = text[at.start..]
    .find('\n')
    .map_or(text.len(), |n| at.start + n);
  let mut line = text[start..end].to_string();
  let mut at = Some(at.start - start..at.end.min(end) - start);
  // A line holds few credentials; one that is still flagged after a few is shown as none of it.
  for _ in 0..8 {
    let Some(range) = at else {
      let cut = units(&line) > 120;
      return Some((kind, if cut { excerpt(&line, 117) } else { line }));
    };
    line.replace_range(range, REDACTED);
    at = secret_match(&line).map(|(_, next)| next);
  }
  Some((kind, REDACTED.into()))
}

/// Every caller-chosen string of a new entry, named by its field: what a write screens.
pub fn entry_fields<'a>(
  text: &'a str,
  source: Option<&'a str>,
  tags: &'a [String],
) -> impl Iterator<Item = (&'static str, &'a str)> {
  let source = source.map(|s| ("source", s));
  let tags = tags.iter().map(|t| ("tags", t.as_str()));
  std::iter::once(("text", text)).chain(source).chain(tags)
}

fn invisible(c: char) -> bool {
  matches!(c,
    '\u{00AD}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}'
    | '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{E0000}'..='\u{E007F}')
    || (c.is_control() && !matches!(c, '\n' | '\t' | '\r'))
}

/// Things the approver should see flagged: instruction-like phrases and invisible characters.
pub fn warnings(text: &str) -> Vec<String> {
  let lower = text.to_lowercase();
  let phrase = INSTRUCTION_PHRASES.iter().find(|p| lower.contains(*p));
  let instruction =
    |p| format!("instruction-like text (\"{p}\"): memory is injected into future prompts");
  let mut out: Vec<String> = phrase.map(instruction).into_iter().collect();
  let hidden = text.chars().filter(|c| invisible(*c));
  let hidden: Vec<String> = hidden.map(|c| format!("U+{:04X}", c as u32)).collect();
  let mut kinds = hidden.clone();
  kinds.dedup();
  kinds.truncate(5);
  if !hidden.is_empty() {
    let (n, kinds) = (hidden.len(), kinds.join(", "));
    out.push(format!("{n} invisible or control character(s) ({kinds})"));
  }
  out
}

#[cfg(test)]
mod tests {
  use super::*;

  /// Names of environment variables, where a memory says where a credential lives.
  #[test]
  fn an_environment_variable_name_is_not_a_credential() {
    for text in [
      "Bot token: TELEGRAM_BOT_TOKEN in .env",
      "token is TELEGRAM_BOT_TOKEN (set in .env)",
      "api_key = OPENAI_API_KEY",
      "password: process.env.DB_PASSWORD",
      "the client_secret comes from os.environ.GOOGLE_CLIENT_SECRET",
    ] {
      assert_eq!(secret_kind(text), None, "{text}");
    }
  }

  /// Values someone already redacted: cut with an ellipsis, starred out, or labelled so.
  #[test]
  fn a_visibly_redacted_value_is_not_a_credential() {
    for text in [
      "bot token: 845120...HFXI",
      "bot token: 845120…HFXI",
      "token: [REDACTED]",
      "api_key: sk-****",
      "password: <redacted>",
      "connect to postgres://admin:****@db.internal:5432/app",
      "connect to postgres://admin:<password>@db.internal:5432/app",
      "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9...redacted",
      "key sk-proj-4f9Qm2Lx8Vb1...Pa was rotated",
      "random blob kT9fQ2xLmZ8pW4...D5gA0e was revoked",
    ] {
      assert_eq!(secret_kind(text), None, "{text}");
    }
  }

  /// The exceptions stay narrow: a real value next to those words is still refused.
  #[test]
  fn real_values_are_still_credentials() {
    for text in [
      "token: 845120HFXIab93kd",
      "TELEGRAM_BOT_TOKEN=845120345:AAHfXiQ2xLmZ8pW4vR7nB3cY6hJ1sD5gA0e",
      "password: Tr0ub4dor&3 (not redacted)",
      "api_key = OPENAI_API_KEY_9f8e7d6c5b4a",
      "postgres://admin:s3cretPa55@db.internal:5432/app",
    ] {
      assert!(secret_kind(text).is_some(), "{text}");
    }
  }

  /// The assignment check as first written: every secret name searched through the whole text.
  fn assignment_by_search(text: &str) -> bool {
    let lower = text.to_lowercase();
    SECRET_NAMES.iter().any(|name| {
      lower.match_indices(name).any(|(start, _)| {
        let end = start + name.len();
        let before_ok = !name.is_ascii()
          || lower[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric() && c != '_');
        let rest = lower[end..].trim_start_matches([' ', '"', '\'']);
        let after = rest
          .strip_prefix([':', '=', '：'])
          .or_else(|| rest.strip_prefix("is "));
        after.is_some_and(|after| {
          let value = text[text.len() - after.len()..]
            .split_whitespace()
            .next()
            .unwrap_or("");
          before_ok && credential_like(value)
        })
      })
    })
  }

  #[test]
  fn the_one_pass_assignment_scan_finds_what_a_search_per_name_finds() {
    const PARTS: &[&str] = &[
      "password",
      "token",
      "access_token",
      "my_token",
      "密码",
      "pwd",
      "api-key",
      "secret",
      " ",
      "  ",
      "\"",
      "'",
      ":",
      "=",
      "：",
      "is ",
      "Is ",
      "this ",
      "hunter2!",
      "Tr0ub4dor&3",
      "required",
      "abc",
      "xyzzy123",
      "${X}",
      "。",
      "\n",
      "a",
      "_",
      "ok",
    ];
    let mut seed = 0x2545_f491_u64;
    let mut next = || {
      seed ^= seed << 13;
      seed ^= seed >> 7;
      seed ^= seed << 17;
      seed
    };
    let mut found = 0;
    for _ in 0..20_000 {
      let len = 1 + next() % 8;
      let text: String = (0..len)
        .map(|_| PARTS[(next() % PARTS.len() as u64) as usize])
        .collect();
      let expected = assignment_by_search(&text);
      assert_eq!(assignment(&text).is_some(), expected, "{text:?}");
      found += usize::from(expected);
    }
    assert!(
      found > 500,
      "the generator must produce assignments ({found})"
    );
  }

  /// The match is the credential itself, whatever the rule that found it: what an import's
  /// refusal hides and nothing around it.
  #[test]
  fn a_match_names_the_kind_and_spans_the_credential() {
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNz\n-----END OPENSSH PRIVATE KEY-----";
    let cases = [
      (
        format!("my key is {}", "sk-proj-4f9Qm2Lx8Vb1Nc7Tz3Rw6Yh0Kd5Js2Pa"),
        "an OpenAI API key",
        "sk-proj-4f9Qm2Lx8Vb1Nc7Tz3Rw6Yh0Kd5Js2Pa",
      ),
      (
        "db password: hunter2! (staging)".into(),
        "a password or token assignment",
        "hunter2!",
      ),
      (
        "数据库密码：Abc12345".into(),
        "a password or token assignment",
        "Abc12345",
      ),
      (
        "postgres://admin:s3cretPa55@db:5432/app".into(),
        "a password in a URL",
        "s3cretPa55",
      ),
      (
        format!("Authorization: Bearer {jwt}"),
        "a bearer token",
        jwt,
      ),
      (format!("jwt {jwt} ok"), "a JSON web token", jwt),
      (
        "blob kT9fQ2xLmZ8pW4vR7nB3cY6hJ1sD5gA0e here".into(),
        "a high-entropy token",
        "kT9fQ2xLmZ8pW4vR7nB3cY6hJ1sD5gA0e",
      ),
      (format!("deploy key:\n{key}\nend"), "a private key", key),
    ];
    for (text, kind, credential) in &cases {
      let (found, at) = secret_match(text).unwrap_or_else(|| panic!("missed {text}"));
      assert_eq!((found, &text[at]), (*kind, *credential), "{text}");
      assert_eq!(secret_kind(text), Some(*kind));
    }
  }

  /// An excerpt is the flagged line with every credential on it replaced, never the secret.
  #[test]
  fn the_redacted_line_keeps_the_words_and_hides_every_credential() {
    let line = |t: &str| redacted_line(t).map(|(_, l)| l);
    assert_eq!(
      line("- Staging database password: Tr0ub4dor&3x").as_deref(),
      Some("- Staging database password: <redacted>")
    );
    assert_eq!(
      line("intro\nUse sk-proj-4f9Qm2Lx8Vb1Nc7Tz3Rw6Yh0Kd5Js2Pa for the sandbox\nmore").as_deref(),
      Some("Use <redacted> for the sandbox")
    );
    assert_eq!(
      line("password=Tr0ub4dor&3 and ghp_1A2b3C4d5E6f7G8h9I0jK1lM2nO3pQ4rS5tU").as_deref(),
      Some("password=<redacted> and <redacted>")
    );
    let armour = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----";
    assert_eq!(line(armour).as_deref(), Some("<redacted>"));
    let long = format!("{} password: hunter2!", "word ".repeat(30));
    let cut = line(&long).unwrap_or_default();
    assert_eq!((cut.chars().count(), cut.ends_with('…')), (118, true));
    assert_eq!(line("Rotate keys every 90 days"), None);
  }

  /// Lowercasing can lengthen a text (`İ`): an assignment's value is then not looked for, and
  /// nothing panics.
  #[test]
  fn a_text_that_grows_when_lowercased_is_screened_without_panicking() {
    let text = format!("password: {}", "İ".repeat(20));
    assert_eq!(secret_kind(&text), None);
    assert!(secret_kind(&format!("{} token: Zq8Xw2Lm9Np4", "İ".repeat(20))).is_some());
  }

  /// The fields of a new entry, in the order a write screens them.
  #[test]
  fn an_entry_is_screened_in_its_text_source_and_tags() {
    let tags = ["a".to_string(), "b".to_string()];
    let fields: Vec<_> = entry_fields("t", Some("s"), &tags).collect();
    assert_eq!(
      fields,
      [("text", "t"), ("source", "s"), ("tags", "a"), ("tags", "b")]
    );
    assert_eq!(entry_fields("t", None, &[]).count(), 1);
  }
}
