//! Screening of text before it is asked about: secrets (refused by default — memory is injected
//! into every future prompt and is no place for credentials), instruction-like text and
//! invisible Unicode (flagged in the approval payload so the approver sees them).
//!
//! ## The credential screen
//!
//! The text is first **normalised** (`screen/normal.rs`): NFKC (fullwidth `ｇｈｐ＿…` is
//! `ghp_…`), without default-ignorable characters (zero-width spaces and joiners, bidi controls,
//! soft hyphens, BOMs, tag characters, variation selectors), and with a token wrapped at a line
//! end (optionally indented) joined to its continuation. A match is reported as a byte range of the
//! original text. The rules run in this order; the first that finds something names it:
//!
//! 1. **Private-key armour** (`-----BEGIN … PRIVATE KEY-----` with a body).
//! 2. **A URL's password** (`scheme://user:password@host`), also without a scheme
//!    (`app:S3cretPa55@db.internal:5432`, `root:Tr0ub4dor@10.0.3.7`).
//! 3. **Webhook URLs**: Slack (`hooks.slack.com/services|workflows|triggers/…`), Discord
//!    (`discord.com/api/webhooks/<id>/<token>`, also `discordapp.com`, `ptb.`, `canary.`) and
//!    Microsoft Teams (`….webhook.office.com/webhookb2/…`, `outlook.office.com/webhook/…`).
//! 4. **Named values** (`screen/assign.rs`): `name = value`, `name: value`, `name is value`,
//!    `Password:` with the value alone on the next line, `密码 value`. Strong names
//!    (`password`, `passphrase`, `client_secret`, `PW`, `SSHPASS`, `密码`, `パスワード`, and
//!    the word in other languages: `Passwort`, `Kennwort`, `wachtwoord`, `lösenord`,
//!    `salasana`, `contraseña`, `senha`, `mot de passe`, `пароль`, `hasło`, `heslo`, `şifre`,
//!    `비밀번호`, …) hold a secret whatever the value looks like, lowercase passphrases
//!    included; weak names (`secret`, `token`, `pwd`, `api_key`) only a random-looking value,
//!    not a name, path or word. An AWS
//!    secret access key (`aws_secret_access_key`, `SecretAccessKey` with a 40-character value)
//!    and a connection string's `AccountKey=` / `SharedAccessKey=` / `Password=` / `Pwd=` (the
//!    value stops at `;`) are named as such.
//! 5. **Named values without a marker** (`screen/formats.rs`): `--password value`,
//!    `-u user:password`, the short password flags of tools (`mysql -p<password>`, `sshpass -p
//!    <password>`, `redis-cli -a`, `sqlcmd -P`, `ldapsearch -w`, `zip -P`, `keytool -storepass`,
//!    …), `.netrc` and `.pgpass` lines, `<password>…</password>`.
//! 6. **`Bearer <token>`** and **`Authorization: Basic <base64>`**.
//! 7. **Tokens** (`screen/tokens.rs`): well-known prefixes (AWS, GitHub, GitLab, Slack, Stripe,
//!    OpenAI, Anthropic, Google API keys and OAuth refresh and access tokens, npm, PyPI, Hugging
//!    Face, Mailgun, Databricks, Atlassian, Linear, Notion, Supabase, Doppler, Grafana, New Relic,
//!    Sentry, Postman, Fly.io, Pulumi, HashiCorp Vault, Groq, Replicate, Figma, Alibaba and
//!    Tencent Cloud, …), JSON web tokens, base64 of private-key armour, and long high-entropy
//!    strings. A token with slashes is a path only when it reads as one: a URL, or segments
//!    that are names (no empty segment, no run of random-looking pieces).
//!
//! Not credentials, whatever rule they come near: an environment variable's name
//! (`TELEGRAM_BOT_TOKEN`), a visibly redacted value (`845120...HFXI`, `sk-****`, `<redacted>`),
//! a placeholder or reference (`${DB_PASSWORD}`, `os.getenv(…)`, `getpass.getpass()`; an
//! example's stand-in: `USER:PASSWORD@HOST`, `your-password-here`, `YOUR_API_KEY`, `changeme`,
//! `replace-me`, `<token>`, `xxxx…`), prose
//! (`password: required`, `password is stored in 1Password`, `Passwort: erforderlich`), paths
//! (where a secret lives), resource names (`my-app-tls-2024`), hex digests and UUIDs, labelled
//! digests (`SHA256:…` fingerprints, `h1:`, bcrypt), ids with a type label (`req_01HQ…`,
//! `cus_…`) or under an id-named field (`?sessionId=…`, `x-request-id:`), ssh public keys and
//! hashed `known_hosts` names, SRI hashes (`sha512-…`), media data URIs, Stripe publishable
//! keys, Mailgun public keys (`pubkey-…`), a GCP service account's `private_key_id`, and the
//! bodies of certificates and other public armour; near a `user:password@host`, scp and git
//! addresses (`git@github.com:org/repo.git`), email addresses (also after a label,
//! `contact:ana@example.com`), image digests (`node:20@sha256:…`) and package versions.
//!
//! Heuristics, measured on a labelled corpus, the credential families it lacked and three
//! hold-out sets (`tests/screen_corpus.rs`, `tests/screen/`), which print their precision and
//! recall and hold each set above its floors.
#![forbid(unsafe_code)]

mod assign;
mod formats;
mod normal;
mod shapes;
mod tokens;
mod words;

use std::ops::Range;

use crate::text::{excerpt, floor, hidden, units};

/// What replaces a credential in an excerpt.
const REDACTED: &str = "<redacted>";

/// Whether `s` holds only bytes of a class (`u8::is_ascii_digit`, …) and the bytes of `extra`.
fn only(s: &str, class: fn(&u8) -> bool, extra: &[u8]) -> bool {
  s.bytes().all(|b| class(&b) || extra.contains(&b))
}

/// Whether `s` holds only ASCII alphanumerics and the bytes of `extra`.
fn alnum_or(s: &str, extra: &[u8]) -> bool {
  only(s, u8::is_ascii_alphanumeric, extra)
}

/// Whether `s` ends with `end`, ASCII case ignored.
fn ends_with_ci(s: &[u8], end: &str) -> bool {
  s.len() >= end.len() && s[s.len() - end.len()..].eq_ignore_ascii_case(end.as_bytes())
}

/// Whether `s` holds a byte of a class (`u8::is_ascii_digit`, …).
fn has(s: &str, class: fn(&u8) -> bool) -> bool {
  s.as_bytes().iter().any(class)
}

/// An ordinary word: ASCII letters only, capitalised at most.
fn plain_word(w: &str) -> bool {
  let mut chars = w.chars();
  chars.next().is_some_and(|c| c.is_ascii_alphabetic()) && chars.all(|c| c.is_ascii_lowercase())
}

/// A dotted host name (`db.internal`, `example.com`): two or more labels of ASCII letters,
/// digits and `-`, the last of 2+ letters.
fn host_name(h: &str) -> bool {
  let tld = h.rsplit('.').next().unwrap_or("");
  let labels = h.split('.').all(|l| !l.is_empty() && alnum_or(l, b"-"));
  h.contains('.') && labels && tld.len() >= 2 && tld.bytes().all(|b| b.is_ascii_alphabetic())
}

/// What kind of secret `text` seems to contain and where it is (a byte range of `text`), if
/// any: the first rule's find in the normalised text (see the module doc for the order).
pub fn secret_match(text: &str) -> Option<(&'static str, Range<usize>)> {
  let normal = normal::normalise(text);
  let t = normal.text();
  let armour = shapes::armour(t);
  let key = armour.private.clone().map(|at| ("a private key", at));
  let (kind, at) = key
    .or_else(|| shapes::url_password(t).map(|at| ("a password in a URL", at)))
    .or_else(|| shapes::webhook(t))
    .or_else(|| assign::find(t))
    .or_else(|| formats::find(t))
    .or_else(|| shapes::auth_header(t))
    .or_else(|| tokens::find(t, &armour.public, normal.joins()))?;
  Some((kind, normal.original(at)))
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
  let end = at.start + text[at.start..].find('\n').unwrap_or(text.len() - at.start);
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

/// Things the approver should see flagged: instruction-like phrases, and every control
/// character and hidden code point out of context ([`hidden`]), each named (they are shown as
/// escapes).
pub fn warnings(text: &str) -> Vec<String> {
  let lower = text.to_lowercase();
  let phrases = words::list("instruction-phrases");
  let phrase = phrases.iter().find(|p| lower.contains(*p));
  let instruction =
    |p| format!("instruction-like text (\"{p}\"): memory is injected into future prompts");
  let mut out: Vec<String> = phrase.map(instruction).into_iter().collect();
  let control = |c: &char| c.is_control() && !matches!(c, '\n' | '\t' | '\r');
  let mut unseen: Vec<char> = text.chars().filter(control).collect();
  unseen.extend(hidden::out_of_context(text).into_iter().map(|(_, c)| c));
  if !unseen.is_empty() {
    out.push(format!(
      "{} invisible or control character(s) ({}): shown as \\u{{…}} escapes, here and in the prompt",
      unseen.len(),
      hidden::names(unseen, 5)
    ));
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

  /// Assignments built from parts whose verdict is known: the one-pass scan finds exactly the
  /// ones with a secret name, a marker and a credential value (this replaces the comparison with
  /// the old per-name search, whose value rule — a digit, symbol or mixed case for every name —
  /// this change replaces with strong and weak names).
  #[test]
  fn assignments_are_found_exactly_when_name_marker_and_value_say_so() {
    // (name, strong, weak)
    const NAMES: &[(&str, bool, bool)] = &[
      ("password", true, false),
      ("DB_PASSWORD", true, false),
      ("数据库密码", true, false),
      ("token", false, true),
      ("api_key", false, true),
      ("secret", false, true),
      ("pwd", false, true),
      ("note", false, false),
      ("max_tokens", false, false),
      ("password_file", false, false),
    ];
    // (marker, copular)
    const MARKERS: &[(&str, Option<bool>)] = &[
      (": ", Some(false)),
      ("=", Some(false)),
      (" = ", Some(false)),
      ("：", Some(false)),
      ("\": \"", Some(false)),
      (" is ", Some(true)),
      (" ", None),
      (" - ", None),
    ];
    // (value, for a strong name, for a copula, for a weak name)
    const VALUES: &[(&str, bool, bool, bool)] = &[
      ("correcthorsebatterystaple", true, false, false),
      ("Tr0ub4dor&3", true, true, true),
      ("9f8e7d6c5b4a39281706f5e4", true, true, true),
      ("required", false, false, false),
      ("${DB_PASSWORD}", false, false, false),
      ("TELEGRAM_BOT_TOKEN", false, false, false),
      ("/home/me/app", false, false, false),
      ("my-app-tls-2024", true, true, false),
      ("sk-****", false, false, false),
      ("abc", false, false, false),
    ];
    let mut seed = 0x2545_f491_u64;
    let mut next = |n: usize| {
      seed ^= seed << 13;
      seed ^= seed >> 7;
      seed ^= seed << 17;
      (seed % n as u64) as usize
    };
    let mut found = 0;
    for _ in 0..5_000 {
      let (name, strong, weak) = NAMES[next(NAMES.len())];
      let (marker, mut copular) = MARKERS[next(MARKERS.len())];
      // A space after a Chinese or Japanese name marks a label's value, as a copula does.
      if marker == " " && !name.is_ascii() {
        copular = Some(true);
      }
      let (value, for_strong, for_copula, for_weak) = VALUES[next(VALUES.len())];
      let close = if marker.ends_with('"') { "\"" } else { "" };
      let lead = ["", "the ", "staging ", "- "][next(4)];
      let text = format!("{lead}{name}{marker}{value}{close} (noted)");
      let expected = match copular {
        None => false,
        Some(true) if close.is_empty() => (strong && for_copula) || (weak && for_weak),
        Some(_) => (strong && for_strong) || (weak && for_weak),
      };
      let got = secret_match(&text).map(|(_, at)| &text[at]);
      assert_eq!(got, expected.then_some(value), "{text:?}");
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

  /// Path-shaped tokens are tokens: a Google refresh token holds `//`, `-` and `_`; a Teams
  /// webhook is a URL whose path is the secret; prefixed tokens of more providers.
  #[test]
  fn tokens_shaped_like_paths_and_more_providers_are_credentials() {
    let refresh = "1//0gLq3xYz9AbCdEf-Gh_IjKlMnOpQrStUvWxYz0123456789-AbCdEfGhIjKlMn_OpQrStUv";
    let teams = "https://acme.webhook.office.com/webhookb2/7b793203-0fa2-46d3-b0bd-8a8641fb1568@2a51e4c9-8685-41c1-9a0a-6ba849c8879b/IncomingWebhook/59357def8bd56bd3072e091512619543/1c7cceed-6bed-4514-ba4a-a092e8dec5a7";
    for text in [
      format!("GOOGLE_REFRESH_TOKEN={refresh}"),
      format!("{{\"refresh_token\": \"{refresh}\"}}"),
    ] {
      assert!(secret_kind(&text).is_some(), "{text}");
    }
    for (text, kind) in [
      (
        format!("the sync uses {refresh} daily"),
        "a Google OAuth refresh token",
      ),
      (
        format!("alerts go to {teams}"),
        "a Microsoft Teams webhook URL",
      ),
      (
        "databricks: dapi0123456789abcdef0123456789abcdef-2".into(),
        "a Databricks token",
      ),
      (
        "sbp_0123456789abcdef0123456789abcdef01234567".into(),
        "a Supabase access token",
      ),
      (
        "linear lin_api_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A7bC9".into(),
        "a Linear API key",
      ),
    ] {
      assert_eq!(secret_kind(&text), Some(kind), "{text}");
    }
  }

  /// A path with a random-looking segment is no path; real paths with hashes, names and
  /// versions still are.
  #[test]
  fn a_path_is_judged_by_its_segments_not_by_its_slash() {
    for text in [
      "session_token = ajltUIUeaGL0hxmhco/HdwiA7q53YJK-V_yy7D3-Ceal801mSem1",
      "client secret: qePvMsRyF3T5yn5o3o/T_qMJ6F4u53QqGXjDBd1-m70JGnfY1tDh",
    ] {
      assert!(secret_kind(text).is_some(), "{text}");
    }
    for text in [
      "token_file: /run/secrets/github_token",
      "the refresh token lives in ~/.config/acme/refresh_token",
      "src/test/java/com/acme/UTF8StringEncoderTest2024.java fails",
      "nix: /nix/store/9z0kkyyxjlpm4mmy6j3w7v7v7nw5x6qa-openssl-3.0.13/lib",
      "doc https://docs.google.com/document/d/1k6zCJy9i36vccMrZXfXQU5J_oY3Ye_jaGD1T8p8yUPo/edit",
    ] {
      assert_eq!(secret_kind(text), None, "{text}");
    }
  }

  /// What an example writes in place of a credential passes, and names no kind; a real value
  /// beside the same words does not.
  #[test]
  fn placeholders_are_accepted() {
    for text in [
      "postgres://USER:PASSWORD@HOST:5432/DB",
      "DATABASE_URL=postgres://user:password@localhost:5432/app in .env.example",
      "PASSWORD=your-password-here",
      "\"api_key\": \"YOUR_API_KEY_HERE\"",
      "in .env.example: DB_PASSWORD=changeme",
      "SECRET_KEY=replace-me",
      "token: <token>",
      "redis://:yourpassword@localhost:6379/0",
      "RabbitMQ's default is amqp://guest:guest@localhost:5672/",
      "join https://teams.microsoft.com/l/meetup-join/19%3ameeting_fxcrvFDhFZo8U9K6NMIpq4xtyfGRl1iFFiTxOzK6Loqx2YOy%40thread.v2/0",
    ] {
      assert_eq!(secret_kind(text), None, "{text}");
    }
    for text in [
      "PASSWORD=changeme-Q7x!2024",
      "postgres://app:Tr0ub4dor@HOST:5432/DB",
    ] {
      assert!(secret_kind(text).is_some(), "{text}");
    }
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
