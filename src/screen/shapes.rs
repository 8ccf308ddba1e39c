//! Credentials recognised by their surroundings: private-key armour, a URL's password (with a
//! scheme or without one, `user:password@host:port`), Slack and Discord webhook URLs, and
//! `Authorization:` headers.
#![forbid(unsafe_code)]

use std::ops::Range;

use super::assign::{judge, placeholder, redacted, Strength};
use super::{alnum_or, ends_with_ci, floor, has, host_name, only, words};

/// What armour blocks a text holds: the first private key, and every public block
/// (certificates, public keys, signatures), whose base64 body is no secret.
#[derive(Debug, Default)]
pub(super) struct Armour {
  /// From `-----BEGIN … PRIVATE KEY` to the end of its `-----END` line (or of the text).
  pub(super) private: Option<Range<usize>>,
  /// The other blocks, in order.
  pub(super) public: Vec<Range<usize>>,
}

/// Find the armour blocks of `t`. A private-key block with nothing in it (a file's first line
/// quoted in prose) is not a key.
pub(super) fn armour(t: &str) -> Armour {
  let mut found = Armour::default();
  // Every `-----END`, in order, passed once (so many BEGINs without an END stay linear).
  let mut ends = t.match_indices("-----END").map(|(e, _)| e).peekable();
  let mut from = 0;
  while let Some(at) = t[from..].find("-----BEGIN").map(|i| from + i) {
    let label_end = at + 10;
    let line_end = t[label_end..].find('\n').map_or(t.len(), |n| label_end + n);
    let label = &t[label_end..floor(t, line_end.min(label_end + 64))];
    let label = label.split("-----").next().unwrap_or("");
    // The first `-----END` after the label.
    while ends.next_if(|e| *e < label_end).is_some() {}
    let end_at = ends.peek().copied();
    let block_end = end_at.map_or(t.len(), |e| t[e..].find('\n').map_or(t.len(), |n| e + n));
    let body_start = (label_end + label.len() + 5).min(block_end);
    let body_end = end_at.unwrap_or(t.len()).max(body_start);
    let body = t.get(body_start..body_end).unwrap_or("");
    let body = body.trim_matches(|c: char| c.is_whitespace() || c == '-');
    if !label.contains("PRIVATE KEY") {
      found.public.push(at..block_end);
    } else if !body.is_empty() && !redacted(body) {
      found.private = Some(at..block_end);
      break;
    }
    from = block_end.max(label_end);
  }
  found
}

/// The password of a URL's userinfo (`scheme://user:password@host`).
pub(super) fn url_password(t: &str) -> Option<Range<usize>> {
  let found = t.match_indices("://").find_map(|(at, _)| {
    let rest = &t[at + 3..];
    let end = rest.find(|c: char| matches!(c, '/' | '?' | '#') || c.is_whitespace());
    let (userinfo, host) = rest[..end.unwrap_or(rest.len())].rsplit_once('@')?;
    let (user, pass) = userinfo.split_once(':')?;
    // A service's default account on this machine (`guest:guest@localhost`) is no secret.
    let host = host.rsplit_once(':').map_or(host, |(h, _)| h);
    let local = words::list("local-hosts").contains(&host) || host.ends_with(".local");
    let start = at + 3 + userinfo.len() - pass.len();
    let secret = !(pass.is_empty() || placeholder(pass) || (local && pass == user));
    secret.then_some(start..start + pass.len())
  });
  found.or_else(|| bare_userinfo(t))
}

/// The password of `user:password@host` written without a scheme (`app:S3cretPa55@db.internal:5432`,
/// `root:Tr0ub4dor@10.0.3.7`). The host is `localhost`, an IPv4 address or a dotted name ending
/// in letters, or any name with a port; the password is judged as a strong name's value, and
/// without a port it must have a letter and a digit, a capital or a symbol other than `._-+`,
/// under a user that is no address label: an email address after a label
/// (`contact:ana.bertrand@example.com`) has neither a port nor such a password. Not a password:
/// `git@github.com:org/repo.git` and `user@host:path` (no colon before the `@`), image digests
/// (`node:20-alpine@sha256:…`), package versions (`npm:lodash-es@4.17.21`), times
/// (`12:30@home`) and ratios (`a:b@c`).
fn bare_userinfo(t: &str) -> Option<Range<usize>> {
  t.match_indices('@').find_map(|(at, _)| {
    // Back to the start of the userinfo, within 128 bytes.
    let from = floor(t, at.saturating_sub(128));
    let boundary = |c: char| c.is_whitespace() || "@/\"'`([{<>,;=|".contains(c);
    // Past the boundary character, which may be wider than a byte (U+2028, U+0085).
    let start = match t[from..at].char_indices().rev().find(|&(_, c)| boundary(c)) {
      Some((i, c)) => from + i + c.len_utf8(),
      None if from == 0 => 0,
      None => return None,
    };
    let (user, pass) = t[start..at].split_once(':')?;
    let user_ok = !user.is_empty() && user.len() <= 64 && alnum_or(user, b"._-");
    if !user_ok || pass.contains(':') || pass.bytes().any(|b| b.is_ascii_control()) {
      return None;
    }
    let (dotted, port) = host_at(t, at + 1)?;
    judge(pass, Strength::Strong, false, "")?;
    let letter = has(pass, u8::is_ascii_alphabetic);
    let shaped = !only(pass, u8::is_ascii_lowercase, b".-_+");
    let label = words::in_list("address-labels", user);
    let real = port || (dotted && letter && shaped && !label);
    real.then(|| at - pass.len()..at)
  })
}

/// The host at `at` (`db.internal`, `10.0.3.7`, `localhost`, `db`), within 256 bytes: whether
/// it is a host without a port (`localhost`, an IPv4 address or a dotted name whose last label
/// is letters) and whether a port follows it. `None` for neither.
fn host_at(t: &str, at: usize) -> Option<(bool, bool)> {
  let rest = &t[at..floor(t, t.len().min(at + 264))];
  let len = run(rest, |b| b.is_ascii_alphanumeric() || b".-".contains(b));
  if len == 0 || len > 253 {
    return None;
  }
  let host = rest[..len].trim_end_matches('.');
  let after = &rest[host.len()..];
  let digits = run(after.strip_prefix(':').unwrap_or(""), u8::is_ascii_digit);
  // A port ends the address: what follows is not more of a name, a version or a time.
  let port = (1..=5).contains(&digits) && {
    let next = after.as_bytes().get(1 + digits..).unwrap_or(&[]);
    match next {
      [b'.', b, ..] => !b.is_ascii_alphanumeric(),
      [b, ..] => !(b.is_ascii_alphanumeric() || matches!(b, b':' | b'@')),
      [] => true,
    }
  };
  let octet = |l: &str| (1..=3).contains(&l.len()) && l.bytes().all(|b| b.is_ascii_digit());
  let ipv4 = host.split('.').count() == 4 && host.split('.').all(octet);
  let dotted = host.eq_ignore_ascii_case("localhost") || ipv4 || host_name(host);
  let single = host.starts_with(|c: char| c.is_ascii_alphanumeric());
  (dotted || (port && single)).then_some((dotted, port))
}

/// The length of the run of `t` from its start whose characters `keep` accepts.
fn run(t: &str, keep: impl Fn(&u8) -> bool) -> usize {
  t.bytes().position(|b| !keep(&b)).unwrap_or(t.len())
}

/// A Slack, Discord or Microsoft Teams webhook URL's secret path: anyone holding it can post to
/// the channel.
pub(super) fn webhook(t: &str) -> Option<(&'static str, Range<usize>)> {
  // Every such URL holds `hook`: one search spares most texts the three below.
  if !t.contains("hook") {
    return None;
  }
  let path_char = |b: &u8| b.is_ascii_alphanumeric() || matches!(*b, b'/' | b'_' | b'-');
  let slack = t.match_indices("hooks.slack.com/").find_map(|(at, host)| {
    let from = at + host.len();
    let path = &t[from..from + run(&t[from..], path_char)];
    let (kind, secret) = path.split_once('/')?;
    let mut parts = secret.split('/');
    let team = parts.next().is_some_and(|t| t.starts_with('T'));
    let last = parts.next_back().unwrap_or("");
    let real = last.len() >= 16 && !placeholder(last);
    let shaped = team && matches!(kind, "services" | "workflows" | "triggers");
    let secret = from + kind.len() + 1..from + path.len();
    (shaped && real).then_some(("a Slack webhook URL", secret))
  });
  let discord = || {
    t.match_indices("/webhooks/").find_map(|(at, hooks)| {
      let head = &t[floor(t, at.saturating_sub(40))..at];
      let host = head.rsplit("//").next().unwrap_or(head);
      let host = host.split('/').next().unwrap_or("");
      let version = |(_, v): (&str, &str)| v.bytes().all(|b| b.is_ascii_digit());
      let api = head.ends_with("/api") || head.rsplit_once("/api/v").is_some_and(version);
      let sub = |s: &str| s.is_empty() || s.ends_with('.');
      let hosts = ["discord.com", "discordapp.com"];
      let discord = hosts.iter().any(|d| host.strip_suffix(d).is_some_and(sub));
      let from = at + hooks.len();
      let id = run(&t[from..], u8::is_ascii_digit);
      let token_from = from + id + 1;
      let key = |b: &u8| b.is_ascii_alphanumeric() || matches!(*b, b'_' | b'-');
      let token = t.get(token_from..).map_or(0, |r| run(r, key));
      let shaped = id >= 15 && t[from + id..].starts_with('/') && token >= 30;
      (api && discord && shaped).then(|| ("a Discord webhook URL", from..token_from + token))
    })
  };
  slack.or_else(discord).or_else(|| teams(t))
}

/// A Teams (Office 365) incoming webhook: `https://<tenant>.webhook.office.com/webhookb2/<group
/// id>@<tenant id>/IncomingWebhook/<id>/<owner id>[/V2<key>]`, or the older
/// `outlook.office.com/webhook/…`: its path is the secret.
fn teams(t: &str) -> Option<(&'static str, Range<usize>)> {
  let path_char = |b: &u8| b.is_ascii_alphanumeric() || matches!(*b, b'/' | b'_' | b'-' | b'@');
  [
    "webhook.office.com/webhookb2/",
    "outlook.office.com/webhook/",
  ]
  .iter()
  .flat_map(|host| t.match_indices(host))
  .find_map(|(at, host)| {
    let from = at + host.len();
    let path = &t[from..from + run(&t[from..], path_char)];
    let shaped = path.contains('@') && path.contains("/IncomingWebhook/") && path.len() >= 60;
    shaped.then(|| ("a Microsoft Teams webhook URL", from..from + path.len()))
  })
}

/// `Bearer <token>` anywhere, and `Authorization: Basic <base64>`.
pub(super) fn auth_header(t: &str) -> Option<(&'static str, Range<usize>)> {
  let bytes = t.as_bytes();
  t.match_indices(['b', 'B']).find_map(|(i, _)| {
    let scheme = |s: &str| {
      let word = bytes.get(i..i + s.len());
      word.is_some_and(|w| w.eq_ignore_ascii_case(s.as_bytes()))
    };
    let bearer = scheme("bearer ");
    if !(bearer || scheme("basic ")) || (i > 0 && bytes[i - 1].is_ascii_alphanumeric()) {
      return None;
    }
    let rest = &t[i + if bearer { 7 } else { 6 }..];
    let start = t.len() - rest.trim_start_matches([' ', '\t']).len();
    // Tokens are ASCII: a Japanese or Chinese word after `Bearer` is prose.
    let graphic = |b: &u8| b.is_ascii_graphic() && !matches!(*b, b'"' | b'\'' | b',' | b';');
    let token = start..start + run(&t[start..], graphic);
    let value = &t[token.clone()];
    if bearer {
      return (value.len() >= 20 && !placeholder(value)).then_some(("a bearer token", token));
    }
    let head = t[..i].trim_end_matches([' ', '\t']).as_bytes();
    let header = ends_with_ci(head, "authorization:");
    let base64 = value.len() >= 8 && alnum_or(value, b"+/=");
    (header && base64 && !placeholder(value)).then_some(("a basic-auth credential", token))
  })
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn a_password_after_a_wide_line_separator_is_found_without_a_panic() {
    for sep in ["\u{2028}", "\u{85}", "\u{1680}"] {
      let text = format!("x{sep}root:Tr0ub4dor@10.0.3.7");
      let found = bare_userinfo(&text).map(|r| &text[r]);
      assert!(
        found.is_some_and(|p| p.contains("Tr0ub4dor")),
        "{sep:?}: {found:?}"
      );
    }
  }

  #[test]
  fn armour_tells_private_keys_from_public_blocks() {
    let cert = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----";
    let key = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBd\n-----END EC PRIVATE KEY-----";
    let text = format!("{cert}\nand\n{key}\nend");
    let found = armour(&text);
    assert_eq!(found.public.first(), Some(&(0..cert.len())));
    assert_eq!(found.private.map(|r| &text[r]), Some(key));
    assert!(
      armour("the file starts with -----BEGIN OPENSSH PRIVATE KEY-----")
        .private
        .is_none()
    );
    assert!(armour("-----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA")
      .private
      .is_some());
    let many = "-----BEGIN X-----\n".repeat(200_000);
    assert_eq!(armour(&many).public.len(), 1);
  }

  /// `user:password@host` without a scheme, and the addresses, digests, versions, times and
  /// ratios that look like it.
  #[test]
  fn a_password_before_a_host_is_found_without_a_scheme() {
    for (text, want) in [
      ("app:S3cretPa55@db.internal:5432", "S3cretPa55"),
      ("DATABASE=app:S3cretPa55@db:5432/app", "S3cretPa55"),
      ("root:Tr0ub4dor@10.0.3.7", "Tr0ub4dor"),
      (
        "creds admin:hunter22pass@db.internal (staging)",
        "hunter22pass",
      ),
      ("app:S3cretPa55@db.internal:5432.", "S3cretPa55"),
      ("ana@example.com:Secret1x@imap.example.com:993", "Secret1x"),
    ] {
      assert_eq!(url_password(text).map(|r| &text[r]), Some(want), "{text}");
    }
    for text in [
      "git clone git@github.com:org/repo.git",
      "scp build.tar.gz deploy@web01:/srv/releases/",
      "ratio a:b@c means a to b at c",
      "lunch 12:30@home, meet 14:30@office.hq",
      "IPv6 [2001:db8::1]:8080 and fe80::1%eth0",
      "contact:ana.bertrand@example.com",
      "user:ana1987@example.com",
      "todo:Fix2bugs@home.example.org",
      "mailto:jsmith1987@gmail.com",
      "FROM node:20-alpine@sha256:3f5e2a9c1b7d4e6f8a0b2c4d6e8f0a1b3c5d7e9f",
      r#""lodash": "npm:lodash-es@4.17.21""#,
      "implementation 'com.android.support:appcompat-v7:28.0.0@aar'",
      "jdbc:oracle:thin:@db.internal:1521:orcl",
      "postgres://admin:${DB_PASSWORD}@db:5432/app",
      "user:<password>@host:5432",
      "2024-01-01T09:15:00.123@host.example.com",
      "matrix @alice:matrix.org and @bob:matrix.org",
    ] {
      assert_eq!(url_password(text), None, "{text}");
    }
  }

  #[test]
  fn webhooks_and_headers_are_found_with_their_secret_part() {
    let slack =
      "post to https://hooks.slack.com/services/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 daily";
    let at = webhook(slack).map(|(_, r)| &slack[r]);
    assert_eq!(at, Some("T0123ABCD/B0456EFGH/Zq8Xw2Lm9Np4Rt7Yv1Bc6Df3"));
    let discord = "https://canary.discord.com/api/v10/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_ab";
    assert!(webhook(discord).is_some());
    assert!(
      webhook("https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX").is_none()
    );
    assert!(webhook(
      "https://example.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
    )
    .is_none());
    let basic = "curl -H 'Authorization: Basic YWRtaW46aHVudGVyMg==' https://x";
    assert_eq!(
      auth_header(basic).map(|(_, r)| &basic[r]),
      Some("YWRtaW46aHVudGVyMg==")
    );
    assert!(auth_header("we use basic authentication and bearer tokens").is_none());
  }
}
