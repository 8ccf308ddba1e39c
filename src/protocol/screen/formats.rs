//! Named credentials without an assignment marker: command-line flags (`--password value`,
//! `-u user:password`, MySQL's `-p<password>`), `.netrc` and `.pgpass` lines, and XML elements
//! named like a secret. The names and values are judged as in [`super::assign`].
#![forbid(unsafe_code)]

use std::ops::Range;

use super::assign::{judge, strength, value_at, Strength::Strong};
use super::{floor, words};

/// The first such credential in `t`: its kind and where its value is.
pub(super) fn find(t: &str) -> Option<(&'static str, Range<usize>)> {
  flags(t).or_else(|| lines(t)).or_else(|| element(t))
}

/// Keyword-value formats without a marker: `.netrc` (`machine … login … password …`),
/// `.pgpass` (`host:port:database:user:password`) and MySQL's `-p<password>`.
fn lines(t: &str) -> Option<(&'static str, Range<usize>)> {
  // Cheap tests of the whole text first: most texts are none of these formats.
  let colons = t.bytes().filter(|b| *b == b':').count() >= 4;
  if !(colons || t.contains("password ") || t.contains("mysql") || t.contains("mariadb")) {
    return None;
  }
  t.lines().find_map(|line| {
    let offset = line.as_ptr() as usize - t.as_ptr() as usize;
    // Cheap tests first: most lines are none of these formats.
    let netrc = || line.contains("password ").then(|| netrc(line)).flatten();
    let pgpass = || {
      (line.bytes().filter(|b| *b == b':').count() >= 4)
        .then(|| pgpass(line))
        .flatten()
    };
    let found = netrc().or_else(pgpass).or_else(|| mysql(line))?;
    let kind = judge(&line[found.clone()], Strong, false, "")?;
    Some((kind, offset + found.start..offset + found.end))
  })
}

/// The password of a `.netrc` entry (`machine h login u password p`, or `login u password p`).
fn netrc(line: &str) -> Option<Range<usize>> {
  let words: Vec<&str> = line.split_whitespace().collect();
  let at = words.iter().position(|w| *w == "password")?;
  let value = words.get(at + 1)?;
  // `login <user> password <pass>`, or a `machine`/`default` entry.
  let login = at >= 2 && words[at - 2] == "login";
  let keyed = login
    || words[..at]
      .iter()
      .any(|w| matches!(*w, "machine" | "default"));
  let start = value.as_ptr() as usize - line.as_ptr() as usize;
  keyed.then_some(start..start + value.len())
}

/// The password of a `.pgpass` line (`host:port:database:user:password`).
fn pgpass(line: &str) -> Option<Range<usize>> {
  let line = line.trim_end();
  let fields: Vec<&str> = line.splitn(5, ':').collect();
  let [host, port, db, user, pass] = fields.as_slice() else {
    return None;
  };
  let plain = |f: &str| !f.is_empty() && !f.contains(char::is_whitespace);
  let port_ok = *port == "*" || (!port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()));
  let ok = [host, db, user, pass].iter().all(|f| plain(f)) && port_ok;
  ok.then(|| line.len() - pass.len()..line.len())
}

/// The password of MySQL's `-p<password>` (no space) in a `mysql`/`mariadb` command line.
fn mysql(line: &str) -> Option<Range<usize>> {
  if !["mysql", "mariadb"].iter().any(|c| line.contains(c)) {
    return None;
  }
  let word = line
    .split_whitespace()
    .find(|w| w.len() > 2 && w.starts_with("-p") && !w.starts_with("-p="))?;
  let start = word.as_ptr() as usize - line.as_ptr() as usize + 2;
  Some(start..start + word.len() - 2)
}

/// `--password hunter2`, `--token …`, and `-u user:password` / `--user user:password`.
fn flags(t: &str) -> Option<(&'static str, Range<usize>)> {
  let b = t.as_bytes();
  t.match_indices("-").find_map(|(at, _)| {
    let word_start = at
      .checked_sub(1)
      .is_none_or(|p| matches!(b[p], b' ' | b'\t' | b'\n' | b'"' | b'\''));
    if !word_start {
      return None;
    }
    let flag = &t[at..];
    let name_len = flag
      .bytes()
      .take(64)
      .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_')))?;
    let name = &flag[..name_len];
    let after = at + name_len;
    let sep = t[after..].chars().next()?;
    if !(sep == ' ' || sep == '=') {
      return None;
    }
    let (range, _) = value_at(t, after + 1, false)?;
    let value = &t[range.clone()];
    if name == "-u" || name == "--user" {
      let (_, pass) = value.split_once(':')?;
      let start = range.end - pass.len();
      return judge(pass, Strong, false, "").map(|k| (k, start..range.end));
    }
    let s = name
      .strip_prefix("--")
      .and_then(strength)
      .filter(|_| sep == ' ')?;
    let words = words::split(name);
    judge(value, s, false, words.last().copied().unwrap_or("")).map(|k| (k, range))
  })
}

/// An XML element named like a secret (`<password>…</password>`, `<apiKey>…</apiKey>`), as in
/// Maven's `settings.xml` and .NET configs.
fn element(t: &str) -> Option<(&'static str, Range<usize>)> {
  t.match_indices("</").find_map(|(close, _)| {
    let name_len = t[close + 2..].find('>')?;
    let name = &t[close + 2..close + 2 + name_len];
    let open = format!("<{name}>");
    let head = &t[floor(t, close.saturating_sub(256 + open.len()))..close];
    let start = close - head.len() + head.rfind(&open)? + open.len();
    let value = &t[start..close];
    let s = strength(name)?;
    let kind = judge(
      value,
      s,
      false,
      words::split(name).last().copied().unwrap_or(""),
    )?;
    Some((kind, start..close))
  })
}
