//! Named credentials without an assignment marker: command-line flags (`--password value`,
//! `-u user:password`, the short password flags of tools such as `mysql -p<password>` and
//! `sshpass -p <password>`), `.netrc` and `.pgpass` lines, and XML elements named like a secret.
//! The names and values are judged as in [`super::assign`].
#![forbid(unsafe_code)]

use std::ops::Range;

use super::assign::{judge, strength, value_at, Strength::Strong};
use super::{floor, words};

/// The first such credential in `t`: its kind and where its value is.
pub(super) fn find(t: &str) -> Option<(&'static str, Range<usize>)> {
  flags(t).or_else(|| lines(t)).or_else(|| element(t))
}

/// Keyword-value formats without a marker: `.netrc` (`machine … login … password …`),
/// `.pgpass` (`host:port:database:user:password`) and the short password flags of tools.
fn lines(t: &str) -> Option<(&'static str, Range<usize>)> {
  // Cheap tests of the whole text, then of each line, first: most are none of these formats.
  let colons = |l: &&str| l.bytes().filter(|b| *b == b':').count() >= 4;
  let flag = |l: &&str| l.contains(" -");
  if !(colons(&t) || flag(&t) || t.contains("password ")) {
    return None;
  }
  t.lines().find_map(|line| {
    let offset = line.as_ptr() as usize - t.as_ptr() as usize;
    let keyed = || {
      let found = netrc(line).or_else(|| Some(line).filter(colons).and_then(pgpass))?;
      Some((judge(&line[found.clone()], Strong, false, "")?, found))
    };
    let (kind, found) = keyed().or_else(|| Some(line).filter(flag).and_then(tool))?;
    Some((kind, offset + found.start..offset + found.end))
  })
}

/// The password of a `.netrc` entry (`machine h login u password p`, or `login u password p`).
fn netrc(line: &str) -> Option<Range<usize>> {
  // Most lines hold no `password `: they are not split into words.
  if !line.contains("password ") {
    return None;
  }
  let words: Vec<&str> = line.split_whitespace().collect();
  let at = words.iter().position(|w| *w == "password")?;
  let value = words.get(at + 1)?;
  // `login <user> password <pass>`, or a `machine`/`default` entry.
  let login = at >= 2 && words[at - 2] == "login";
  let keyed = login || words[..at].contains(&"machine") || words[..at].contains(&"default");
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

/// The password of a tool's short flag in a command line (`mysql -p<password>`, `sshpass -p
/// '<password>'`, `redis-cli -a <password>`): a flag after the tool's name, up to the next tool.
/// A password right after the flag is judged as a strong name's value; one in the next word
/// must also look like a password, unless it is quoted (`zip -P followed by the password` is
/// prose). The tools' password flags and how they take it are list `tools` of `words.txt`
/// (`commands = flags = attached|spaced|either`): `attached` right after the flag (`-pSecret`,
/// and a flag alone asks for it), `spaced` in the next word (`-a Secret`).
fn tool(line: &str) -> Option<(&'static str, Range<usize>)> {
  let mut current: Option<[&str; 3]> = None;
  line.split_whitespace().find_map(|word| {
    let at = word.as_ptr() as usize - line.as_ptr() as usize;
    if matches!(word, "|" | "||" | "&&" | ";") {
      current = None;
      return None;
    }
    let command = word.trim_start_matches(['"', '\'', '`', '(', '$']);
    let command = command.rsplit('/').next().unwrap_or(command);
    let named = |[names, ..]: &[&str; 3]| names.split(' ').any(|n| n == command);
    if let Some(found) = words::table("tools").find(named) {
      current = Some(found);
      return None;
    }
    let [_, flags, how] = current?;
    let flag = flags.split(' ').find(|f| word.starts_with(f))?;
    let spaced = word.len() == flag.len();
    let attached = !(word[flag.len()..].starts_with('=') || how == "spaced");
    if (spaced && how == "attached") || !(spaced || attached) {
      return None;
    }
    let (range, quoted) = value_at(line, at + flag.len(), false)?;
    let kind = judge(&line[range.clone()], Strong, spaced && !quoted, "")?;
    Some((kind, range))
  })
}

/// `--password hunter2`, `--token …`, and `-u user:password` / `--user user:password`.
fn flags(t: &str) -> Option<(&'static str, Range<usize>)> {
  let b = t.as_bytes();
  let flag_char = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_');
  t.match_indices('-').find_map(|(at, _)| {
    let word_start = at == 0 || matches!(b[at - 1], b' ' | b'\t' | b'\n' | b'"' | b'\'');
    let name_len = b[at..].iter().take(64).position(|c| !flag_char(c))?;
    let (name, sep) = (&t[at..at + name_len], b[at + name_len]);
    if !word_start || !matches!(sep, b' ' | b'=') {
      return None;
    }
    let (range, _) = value_at(t, at + name_len + 1, false)?;
    let value = &t[range.clone()];
    if name == "-u" || name == "--user" {
      let (_, pass) = value.split_once(':')?;
      let start = range.end - pass.len();
      return judge(pass, Strong, false, "").map(|k| (k, start..range.end));
    }
    let s = strength(name.strip_prefix("--").filter(|_| sep == b' ')?)?;
    judge(value, s, false, words::last(name)).map(|k| (k, range))
  })
}

/// An XML element named like a secret (`<password>…</password>`, `<apiKey>…</apiKey>`), as in
/// Maven's `settings.xml` and .NET configs.
fn element(t: &str) -> Option<(&'static str, Range<usize>)> {
  t.match_indices("</").find_map(|(close, _)| {
    let (name, _) = t[close + 2..].split_once('>')?;
    let open = format!("<{name}>");
    let head = &t[floor(t, close.saturating_sub(256 + open.len()))..close];
    let start = close - head.len() + head.rfind(&open)? + open.len();
    let kind = judge(&t[start..close], strength(name)?, false, words::last(name))?;
    Some((kind, start..close))
  })
}

#[cfg(test)]
mod tests {
  use super::*;

  fn value(text: &str) -> Option<&str> {
    find(text).map(|(_, at)| &text[at])
  }

  /// A tool's short password flag: attached, in the next word, quoted or not; a flag that asks
  /// for the password, another tool's flag of the same letter, a reference and prose are not.
  #[test]
  fn a_tools_short_password_flag_holds_its_password() {
    for (text, want) in [
      ("sshpass -p 'Tr0ub4dor&3x' ssh deploy@host", "Tr0ub4dor&3x"),
      ("sshpass -p Tr0ub4dor3x ssh deploy@host", "Tr0ub4dor3x"),
      ("sshpass -pTr0ub4dor3x ssh deploy@host", "Tr0ub4dor3x"),
      ("mysql -u root -pS3cret!pw shop", "S3cret!pw"),
      (
        "docker exec db mysqldump -uroot -pS3cret!pw app",
        "S3cret!pw",
      ),
      ("redis-cli -h cache -a Xk9Lq2Vw7Tz ping", "Xk9Lq2Vw7Tz"),
      (
        "mongosh -u admin -p 'S3cr3t!pw' --authenticationDatabase admin",
        "S3cr3t!pw",
      ),
      ("sqlcmd -S db -U sa -P 'Str0ng!Passw0rd'", "Str0ng!Passw0rd"),
      (
        "ldapsearch -x -D cn=admin -w Adm1nPass! -b dc=example",
        "Adm1nPass!",
      ),
      ("zip -P Zip2024secret backup.zip notes.txt", "Zip2024secret"),
      ("7z x archive.7z -pS3cretArch1ve", "S3cretArch1ve"),
      (
        "keytool -list -keystore app.jks -storepass K3yst0re!pw",
        "K3yst0re!pw",
      ),
    ] {
      assert_eq!(value(text), Some(want), "{text}");
    }
    for text in [
      "sshpass -p \"$SSH_PASS\" ssh deploy@host",
      "sshpass -f ~/.sshpw ssh -p 2222 deploy@host",
      "sshpass -e ssh deploy@host",
      "sshpass -p expects the password as an argument",
      "redis-cli -a \"$REDIS_PASSWORD\" ping",
      "mongosh -u admin -p --authenticationDatabase admin",
      "use zip -P followed by the password",
      "mysql -u root -p shop < dump.sql",
      "mysqldump -uroot -p app | ssh -p 2222 backup@host",
      "ssh -p 2222 deploy@host",
      "docker run -p 8080:80 nginx",
      "mkdir -p /srv/app && cd /srv/app",
    ] {
      assert_eq!(value(text), None, "{text}");
    }
  }
}
