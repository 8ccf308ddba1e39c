//! Credentials recognised as single tokens: well-known prefixes, JSON web tokens and long
//! high-entropy strings — less the random-looking strings that are public by design (ssh public
//! keys, SRI hashes, data URIs, identifiers).
#![forbid(unsafe_code)]

use std::ops::Range;

use super::{alnum_or, ends_with_ci, floor, has, host_name, only, plain_word, words};

/// What a Mailgun private API key (`key-` and 32 lowercase letters and digits) is called.
const MAILGUN: &str = "a Mailgun API key";

/// What is trimmed off a random-looking token's ends (punctuation, base64 padding).
const ENDS: [char; 6] = ['.', '=', '-', '_', '/', '+'];

/// A lowercase hex digit.
fn lower_hex(b: u8) -> bool {
  b.is_ascii_digit() || (b'a'..=b'f').contains(&b)
}

/// Whether `s` mixes lowercase, uppercase and digits.
fn three_classes(s: &str) -> bool {
  has(s, u8::is_ascii_lowercase) && has(s, u8::is_ascii_uppercase) && has(s, u8::is_ascii_digit)
}

/// What `token` is by its prefix, if its length and body fit the format: the credential formats
/// of list `prefixes` of `words.txt` (`prefixes = minimum length = body = what it is`). The body
/// after the prefix is `mixed`: `[A-Za-z0-9_-]` with a digit or both cases (so
/// `sk-some-long-kebab-name` is no key); `dotted` or `padded`: the same plus dots, or plus `=`
/// (a padded base64 part); `upper`: `[A-Z0-9]` with a digit unless the token is exactly 20
/// characters long (an AWS key id's length, whose digits are optional; longer uppercase words
/// are not ids); `lower n`: exactly `n` of `[a-z0-9]` with a digit and a letter past `f` (a hex
/// body, `key-` and an MD5 as cache keys are written, is judged by [`find`] on its context);
/// `hex n`: exactly `n` lowercase hex digits and an optional `-<digit>` (Databricks).
fn prefixed(token: &str) -> Option<&'static str> {
  words::table("prefixes").find_map(|[prefixes, min, body, what]| {
    let (body, n) = body.split_once(' ').unwrap_or((body, "0"));
    let (min, n): (usize, usize) = (min.parse().ok()?, n.parse().ok()?);
    let rest = prefixes.split(' ').find_map(|p| token.strip_prefix(p))?;
    let digit = has(rest, u8::is_ascii_digit);
    let random = digit || (has(rest, u8::is_ascii_lowercase) && has(rest, u8::is_ascii_uppercase));
    let fits = match body {
      "mixed" => alnum_or(rest, b"-_") && random,
      "dotted" => alnum_or(rest, b"-_.") && !rest.contains("..") && random,
      "padded" => alnum_or(rest, b"-_=") && random,
      "upper" => {
        alnum_or(rest, b"") && !has(rest, u8::is_ascii_lowercase) && (digit || token.len() == 20)
      }
      "lower" => {
        let lower = alnum_or(rest, b"") && !has(rest, u8::is_ascii_uppercase);
        let past_f = rest.bytes().any(|b| b.is_ascii_lowercase() && b > b'f');
        rest.len() == n && lower && digit && past_f
      }
      "hex" => {
        let (hex, suffix) = rest.split_at(rest.len().min(n));
        let suffix_ok = matches!(suffix.as_bytes(), [] | [b'-', b'0'..=b'9']);
        hex.len() == n && hex.bytes().all(lower_hex) && digit && suffix_ok
      }
      _ => return None,
    };
    (token.len() >= min && fits).then_some(what)
  })
}

/// A JSON web token: three base64url parts of 8+ characters, the header starting `eyJ` (`{"`).
fn jwt(token: &str) -> bool {
  let parts = || token.split('.');
  let base64url = |p: &str| p.len() >= 8 && alnum_or(p, b"-_");
  token.starts_with("eyJ") && parts().count() == 3 && parts().all(base64url)
}

/// Shannon entropy of `s`'s ASCII characters, in bits per character.
fn entropy(s: &str) -> f64 {
  let mut counts = [0u32; 128];
  s.bytes()
    .filter(|b| *b < 128)
    .for_each(|b| counts[b as usize] += 1);
  let n = f64::from(counts.iter().sum::<u32>());
  let p = counts.iter().filter(|c| **c > 0).map(|c| f64::from(*c) / n);
  p.map(|p| -p * p.log2()).sum()
}

/// Whether the pieces of a path (between `/`, `-`, `_`, `.` and the like) read as random rather
/// than as names: 24+ characters outside hashes (all-hex pieces are names), one piece at least
/// mixing lowercase, uppercase and digits, and the class changing between 35% or more of
/// neighbouring characters (random base64 changes at about two in three; words and CamelCase
/// at word boundaries only).
fn random_pieces<'a>(pieces: impl Iterator<Item = &'a str>) -> bool {
  // The class of an ASCII character: lowercase, uppercase, digit or other.
  let class = |b: u8| match b {
    b'a'..=b'z' => 0,
    b'A'..=b'Z' => 1,
    b'0'..=b'9' => 2,
    _ => 3,
  };
  let (mut chars, mut pairs, mut changes, mut mixed) = (0, 0, 0, false);
  for p in pieces.filter(|p| !p.bytes().all(|b| b.is_ascii_hexdigit())) {
    let b = p.as_bytes();
    mixed |= three_classes(p);
    chars += b.len();
    pairs += b.len().saturating_sub(1);
    changes += b.windows(2).filter(|w| class(w[0]) != class(w[1])).count();
  }
  chars >= 24 && mixed && changes * 20 >= pairs * 7
}

/// A path or URL, not a token that happens to hold slashes. A URL is a URL (its secrets are the
/// URL rules': a password, a webhook, a named query value). A path has no empty segment between
/// two slashes, and its segments are names: split at `-`, `_`, `.` and the like, no piece of them
/// looks random; and one without any of those separators is words, as standard base64 (an AWS
/// secret key, say) is not.
pub(super) fn path(token: &str) -> bool {
  if !token.contains('/') {
    return false;
  }
  // A URL (the scan splits a scheme's `:` off, leaving `//host/…`), or one written without its
  // scheme: its first segment a host name.
  let host = token.split('/').next().is_some_and(host_name);
  if token.contains("://") || token.starts_with("//") || host {
    return true;
  }
  let body = token.trim_start_matches(['.', '~', '/']);
  let body = body.trim_end_matches('/');
  let pieces = || body.split(['/', '-', '_', '.', '~', '@', '+', ':', ',', '=']);
  let named = !body.contains("//") && !random_pieces(pieces());
  // Without separators, standard base64 is told by its mixed case: a segment is a word, or
  // holds no capital (a folder named by a lowercase hash or id).
  let lowercase = |s: &str| !has(s, u8::is_ascii_uppercase);
  // A segment of a path: short, a word (capitalised at most) or a number.
  let wordish = |s: &str| s.len() <= 3 || plain_word(s) || s.bytes().all(|b| b.is_ascii_digit());
  named
    && (token.contains(['.', '-', '_', '~']) || body.split('/').all(|s| wordish(s) || lowercase(s)))
}

/// A long token with all three character classes and high entropy: a random secret. Commit
/// hashes, UUIDs and digests (hex) are common, legitimate memory; so are ids with a lowercase
/// type label (`req_01HQ…`, `cus_…`, `chatcmpl-…`): up to 32 characters after the label make
/// an id (Stripe, Anthropic and OpenAI object ids), more are judged like any token.
fn high_entropy(token: &str) -> bool {
  let t = token.trim_matches(ENDS);
  let lower = |at: &usize| (2..=10).contains(at) && only(&t[..*at], u8::is_ascii_lowercase, b"");
  let label = t.find(['_', '-']).filter(lower);
  let body = label.map_or(t, |at| &t[at + 1..]);
  let secret = |at: usize| words::list("secret-labels").contains(&&t[..at]);
  let typed_id = label.is_some_and(|at| body.len() <= 32 && !secret(at));
  let hex = body.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
  !typed_id
    && body.len() >= 24
    && !(t.contains("..") || path(t) || hex)
    && three_classes(body)
    && entropy(body) >= 4.2
}

/// The bytes the first `chars` characters (a multiple of 4) of standard base64 `token` decode
/// to, if they are base64.
fn decoded_head(token: &str, chars: usize) -> Option<Vec<u8>> {
  const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let sextet = |b: &u8| BASE64.iter().position(|c| c == b).map(|v| v as u32);
  let head = token.as_bytes().get(..chars)?;
  let mut bytes = Vec::with_capacity(chars / 4 * 3);
  for quad in head.chunks(4) {
    let push = |n: u32, b: &u8| Some(n << 6 | sextet(b)?);
    let n = quad.iter().try_fold(0, push)?;
    bytes.extend_from_slice(&n.to_be_bytes()[1..]);
  }
  Some(bytes)
}

/// An ssh public key's body: base64 of a length-prefixed key type (`ssh-ed25519`, `ssh-rsa`,
/// `ecdsa-sha2-…`, `sk-ssh-…`). Public keys are meant to be shared.
fn ssh_public(token: &str) -> bool {
  decoded_head(token, 12).is_some_and(|b| {
    let kind = &b[4..];
    b[..3] == [0, 0, 0]
      && (kind.starts_with(b"ssh-") || kind.starts_with(b"ecdsa") || kind.starts_with(b"sk-"))
  })
}

/// Base64 of PEM armour (kubeconfig's `client-key-data`, `certificate-authority-data`): whether
/// it is a private key, judged by the armour's label.
fn encoded_armour(token: &str) -> Option<bool> {
  // `LS0tLS1CRUdJTi` is base64 of `-----BEGIN`: most tokens are no armour.
  let armoured = token.starts_with("LS0tLS1CRUdJTi");
  let head = armoured.then(|| decoded_head(token, 64))??;
  let text = String::from_utf8_lossy(&head);
  let label = text.strip_prefix("-----BEGIN ")?;
  Some(label.contains("PRIVATE KEY"))
}

/// A Subresource Integrity hash (`sha512-<base64>`), as in lockfiles and `<script integrity>`.
fn integrity(token: &str) -> bool {
  let prefixes = ["sha1-", "sha256-", "sha384-", "sha512-"];
  let hash = prefixes.iter().find_map(|p| token.strip_prefix(p));
  hash.is_some_and(|h| alnum_or(h, b"+/"))
}

/// The payload of a media data URI (`data:image/png;base64,…`): an inlined picture or font.
fn data_uri(t: &str, start: usize) -> bool {
  let head = &t.as_bytes()[start.saturating_sub(80)..start];
  let Some(data) = head.windows(5).rposition(|w| w == b"data:") else {
    return false;
  };
  let uri = &head[data + 5..];
  let media = ["image/", "font/", "audio/", "video/"];
  uri.ends_with(b";base64,")
    && !uri.iter().any(u8::is_ascii_whitespace)
    && media.iter().any(|m| uri.starts_with(m.as_bytes()))
}

/// A digest or password hash by its label: `SHA256:<base64>` (ssh fingerprints),
/// `SHA-256=<base64>` (HTTP `Digest`), `h1:<base64>` (go.sum), `$2b$12$…` (bcrypt),
/// `$argon2id$…`.
fn digest(t: &str, start: usize) -> bool {
  let head = &t.as_bytes()[start.saturating_sub(48)..start];
  let from = head.iter().rposition(u8::is_ascii_whitespace);
  let word = &head[from.map_or(0, |i| i + 1)..];
  let labels = [
    "sha1", "sha-1", "sha256", "sha-256", "sha384", "sha-384", "sha512", "sha-512", "md5", "h1",
  ];
  let labelled = match word.split_last() {
    Some((b':' | b'=', name)) => labels.iter().any(|a| ends_with_ci(name, a)),
    _ => false,
  };
  let crypt = ["$2a$", "$2b$", "$2y$", "$argon2"];
  let contains = |p: &&str| word.windows(p.len()).any(|w| w == p.as_bytes());
  labelled || (word.ends_with(b"$") && crypt.iter().any(contains))
}

/// A content id of IPFS (CIDv0: `Qm` and 44 base58 characters), a public hash.
fn cid(token: &str) -> bool {
  let base58 = |b: u8| b.is_ascii_alphanumeric() && !matches!(b, b'0' | b'O' | b'I' | b'l');
  token.len() == 46 && token.starts_with("Qm") && token.bytes().all(base58)
}

/// The value of an id-named field (`?sessionId=…`, `x-request-id: …`, `"traceId": "…"`): an
/// identifier, not a credential.
fn id_value(t: &str, start: usize) -> bool {
  let quote = ['"', '\'', ' '];
  let head = t[floor(t, start.saturating_sub(48))..start].trim_end_matches(quote);
  let Some(name) = head.strip_suffix(['=', ':']) else {
    return false;
  };
  let ident = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-');
  let name = name.trim_end_matches(quote);
  let name = name.rsplit(|c| !ident(c)).next().unwrap_or("");
  let last = words::last(name);
  // `id`, `ids`, `uuid`…, and three-letter names ending in `id` (`eid`, `uid`, `pid`).
  let short_id = last.len() <= 3 && last.to_ascii_lowercase().ends_with("id");
  let ids = ["ids", "uuid", "guid", "ulid", "ksuid"];
  short_id || ids.iter().any(|w| last.eq_ignore_ascii_case(w))
}

/// A token that goes on a URL after a percent escape (`…/19%3ameeting_…`): a piece of the URL,
/// which the scan splits at the `%`; the URL's secrets are the URL rules'.
fn url_encoded(t: &str, start: usize) -> bool {
  let head = &t[..start];
  let run = head.rsplit(char::is_whitespace).next().unwrap_or(head);
  head.ends_with('%') && run.contains("://")
}

/// A hashed host name of `known_hosts` (`|1|<salt>|<hash>`): public by design.
fn hashed_host(t: &str, start: usize) -> bool {
  let head = &t.as_bytes()[start.saturating_sub(40)..start];
  head.ends_with(b"|1|") || (head.ends_with(b"|") && head.windows(3).any(|w| w == b"|1|"))
}

/// The first credential-like token of `t`; inside `public` (sorted ranges of public armour)
/// only the prefixed formats and JSON web tokens count. A random-looking token is judged line
/// by line where a line split was joined (`joins`): joining serves the formats above, and two
/// ids on consecutive lines are no key.
pub(super) fn find(
  t: &str,
  public: &[Range<usize>],
  joins: &[usize],
) -> Option<(&'static str, Range<usize>)> {
  let mut public = public.iter().peekable();
  // Whether the text names Mailgun, looked up once, at the first `key-` and a hex body.
  let mut mailgun: Option<bool> = None;
  // A character of a token as the scan splits text (base64 and paths stay whole).
  let token_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '/' | '.');
  // Every token format is at least 20 characters long: most words skip them all.
  for raw in t.split(|c| !token_char(c)).filter(|raw| raw.len() >= 20) {
    let start = raw.as_ptr() as usize - t.as_ptr() as usize;
    let whole = trimmed(t, start..start + raw.len(), &['.', '/']);
    let token = &t[whole.clone()];
    if let Some(kind) = prefixed(token).or_else(|| jwt(token).then_some("a JSON web token")) {
      return Some((kind, whole));
    }
    // `key-` and 32 hex digits: a Mailgun key in a text that names Mailgun, else a key of a
    // cache or a store.
    let names_mailgun = || t.to_ascii_lowercase().contains("mailgun");
    let hex = |h: &str| h.len() == 32 && h.bytes().all(lower_hex);
    if token.strip_prefix("key-").is_some_and(hex) && *mailgun.get_or_insert_with(names_mailgun) {
      return Some((MAILGUN, whole));
    }
    match encoded_armour(token) {
      Some(true) => return Some(("a private key", whole)),
      Some(false) => continue,
      None => {}
    }
    // Judged line by line where a line split was joined.
    let first = joins.partition_point(|j| *j <= whole.start);
    let cuts = joins[first..].iter().take_while(|j| **j < whole.end);
    let starts = std::iter::once(&whole.start).chain(cuts.clone());
    let ends = cuts.chain([&whole.end]);
    let mut parts = starts.zip(ends).map(|(a, b)| trimmed(t, *a..*b, &ENDS));
    let Some(part) = parts.find(|p| high_entropy(&t[p.clone()])) else {
      continue;
    };
    // Random-looking but public: checked only for what would otherwise be flagged.
    while public.next_if(|r| r.end <= start).is_some() {}
    let armoured = public.peek().is_some_and(|r| r.start <= start);
    let contexts = [data_uri, id_value, digest, hashed_host, url_encoded];
    let context = |at| contexts.iter().any(|public| public(t, at));
    // A Stripe publishable key is meant for the browser.
    let publishable = token.starts_with("pk_live_") || token.starts_with("pk_test_");
    let public_shape = ssh_public(token) || integrity(token) || cid(token) || publishable;
    if !(armoured || public_shape || context(start) || context(whole.start)) {
      return Some(("a high-entropy token", part));
    }
  }
  None
}

/// `at` of `t` without the leading and trailing characters of `trim`.
fn trimmed(t: &str, at: Range<usize>, trim: &[char]) -> Range<usize> {
  let s = &t[at.clone()];
  let start = at.start + (s.len() - s.trim_start_matches(trim).len());
  start..start + s.trim_matches(trim).len()
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn public_random_looking_tokens_are_recognised() {
    assert!(ssh_public(
      "AAAAC3NzaC1lZDI1NTE5AAAAIGb9ZQ3xR7mT2kLp8vN4cW6yH1sD5fJ0qA3eU9iO7bX"
    ));
    assert!(ssh_public(
      "AAAAB3NzaC1yc2EAAAADAQABAAABgQC7xK9mP2qR4tV6wY8zA1bC3dE5fG7"
    ));
    assert!(ssh_public(
      "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBGx7K9mP2q"
    ));
    assert!(ssh_public("AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIA"));
    assert!(!ssh_public("AAAAkT9fQ2xLmZ8pW4vR7nB3cY6hJ1sD5gA0e"));
    assert!(!ssh_public("kT9fQ2xLmZ8pW4vR7nB3cY6hJ1sD5gA0e"));
    assert!(integrity(
      "sha512-Vx3nFq8kT2LmZp9Rw4Yb7Hc1Jd6Ke0Sg5Ua2Xi8Ot3Nv6Mr9Pl4Q"
    ));
    let uri = "src=data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB";
    assert!(data_uri(uri, uri.find("iVBOR").unwrap_or_default()));
    let text = "data:text/plain;base64,c2VjcmV0IHRva2VuIGhlcmU";
    assert!(!data_uri(text, text.find("c2Vj").unwrap_or_default()));
    for head in [
      "?sessionId=",
      "x-request-id: ",
      "\"traceId\": \"",
      "request_ID=",
    ] {
      assert!(id_value(&format!("{head}Zq8Xw2"), head.len()), "{head}");
    }
    assert!(id_value("?eid=Zq8Xw2", 5));
    let host = "|1|x9Xg1m1jQ1Q2fB/eNZpHWRJJUKw=|j6HeVyOpJN/Mk6eW1GXBXvL3ydc=";
    let second = host.rfind("|j6").unwrap_or_default() + 1;
    assert!(hashed_host(host, 3) && hashed_host(host, second));
    assert!(digest("SHA256:abc", 7) && digest("h1:abc", 3) && digest("$2b$12$abc", 7));
    assert!(cid("QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG"));
    for head in ["token=", "api_key: ", "idea: ", "paid="] {
      assert!(!id_value(&format!("{head}Zq8Xw2"), head.len()), "{head}");
    }
  }

  /// A Mailgun key is `key-` and 32 lowercase letters and digits; a hex body only where the
  /// text names Mailgun (else it is a cache key), and the public `pubkey-` not at all.
  #[test]
  fn mailgun_keys_are_told_from_cache_keys_and_public_keys() {
    fn kind(t: &str) -> Option<(&'static str, &str)> {
      find(t, &[], &[]).map(|(kind, at)| (kind, &t[at]))
    }
    let key = "key-3ax6xnjp29jd6fds4gc373sgvjxteol0";
    assert_eq!(kind(&format!("the key is {key}")), Some((MAILGUN, key)));
    let hex = "key-d41d8cd98f00b204e9800998ecf8427e";
    assert_eq!(kind(&format!("Mailgun: {hex}")), Some((MAILGUN, hex)));
    assert_eq!(kind(&format!("cache {hex} was evicted")), None);
    assert_eq!(kind("pubkey-5ogiflzbnjrljiky49qxsiozqef5jxp7"), None);
    assert_eq!(kind("the key-rotation-policy-for-2024 doc"), None);
  }

  #[test]
  fn paths_are_told_from_base64_with_slashes() {
    assert!(path("home/ana/src/dsh-memento/crates/core/src"));
    assert!(path("src/main/java/com/Example/App"));
    assert!(!path("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"));
    assert!(high_entropy("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"));
    assert!(!high_entropy("req_01HQ3K4Z8X9YV7C2B5N6M8P0QR"));
    assert!(high_entropy("kT9fQ2xLmZ8pW4vR7nB3cY6hJ1sD5gA0e"));
  }
}
