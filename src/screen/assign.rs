//! Credentials given a name: `name = value`, `name: value`, `name is value`, `Password:` with
//! the value on the next line, `密码 value`, in any naming convention, in Chinese, Japanese and
//! Korean, and with "password" in a dozen other languages (`Passwort`, `contraseña`, `senha`,
//! `пароль`, `mot de passe`, …; their copulas `ist`, `es`, `é`, … and links `für`, `del`,
//! `do`, `для`, … too). (Named values without a marker are in [`super::formats`].)
//!
//! A name's words say how much it tells about its value. A **strong** name (`password`,
//! `passphrase`, `client_secret`, `密码`, `Passwort`) holds a secret whatever its value looks
//! like, so any real value counts, lowercase passphrases included; prose (`password: required`,
//! `password is stored in 1Password`, `Passwort: erforderlich`, `senha: obrigatória`),
//! placeholders, references and paths do not. A **weak** name
//! (`secret`, `token`, `pwd`, `api_key`) is often a label, so its value must look random: not a
//! name (`my-app-tls-2024`), a path (`/home/me/app`) or a word. AWS secret keys and the keys of
//! connection strings (`AccountKey=`, `SharedAccessKey=`) are named by their own kinds.
#![forbid(unsafe_code)]

use std::ops::Range;

use super::{alnum_or, ends_with_ci, floor, has, only, tokens, words};

/// How much a name says about its value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Strength {
  /// Often a label: the value must look random.
  Weak,
  /// Always a secret: any real value.
  Strong,
  /// An AWS secret access key's name.
  Aws,
  /// A connection string's key (`AccountKey`, `SharedAccessKey`).
  Connection,
}

use Strength::{Aws, Connection, Strong, Weak};

/// The strength of the first name of list `list` of `words.txt` that `is` accepts (`secret
/// access key = aws`).
fn named_by(list: &str, is: impl Fn(&str) -> bool) -> Option<Strength> {
  words::table(list).find_map(|[name, strength]| {
    let strength = match strength {
      "aws" => Aws,
      "connection" => Connection,
      "strong" => Strong,
      "weak" => Weak,
      _ => return None,
    };
    is(name).then_some(strength)
  })
}

/// A name's strength, from its last words (ASCII) or its ending (CJK).
pub(super) fn strength(ident: &str) -> Option<Strength> {
  let cjk = named_by("cjk-names", |n| ident.ends_with(n));
  if cjk.is_some() || foreign(ident) {
    return cjk.or(Some(Strong));
  }
  // Only the ASCII words at the end count: `数据库token` is a token, `token数据` is not.
  let ascii_end = ident.chars().next_back().is_some_and(|c| c.is_ascii());
  if !(ascii_end && may_name(ident)) {
    return None;
  }
  let words = words::split(ident);
  let last = words.last()?.as_bytes();
  let named = named_by("names", |name| {
    let mut ends = words.iter().rev().zip(name.rsplit(' '));
    name.split(' ').count() <= words.len() && ends.all(|(w, n)| w.eq_ignore_ascii_case(n))
  });
  named.or_else(|| named_by("endings", |end| ends_with_ci(last, end)))
}

/// Whether `ident` ends in a name of [`FOREIGN_NAMES`]: its last run of letters (any script), or
/// its last camel-case word (`dbSenha`).
fn foreign(ident: &str) -> bool {
  let run = &ident[ident.trim_end_matches(char::is_alphanumeric).len()..];
  if run.len() < 5 || run.len() > 64 {
    return false;
  }
  let lower = run.to_lowercase();
  let camel = words::split(run).last().map(|w| w.to_ascii_lowercase());
  words::table("foreign-names").any(|[name, how]| {
    lower == name || (how == "compound" && lower.ends_with(name)) || camel.as_deref() == Some(name)
  })
}

/// Whether the end of an ASCII name holds a fragment of a secret name: a cheap test before its
/// words are split (most markers follow `https`, `id`, `port` and the like).
fn may_name(ident: &str) -> bool {
  let tail = &ident.as_bytes()[ident.len().saturating_sub(12)..];
  let holds = |w: &&str| (0..=tail.len()).any(|i| ends_with_ci(&tail[..i], w));
  words::list("name-fragments").iter().any(holds)
}

/// A character of a name: ASCII alphanumerics and `_-.`, or a letter of another script.
fn ident_char(c: char) -> bool {
  c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') || (!c.is_ascii() && c.is_alphabetic())
}

/// The name just before `end` (past spaces, quotes and brackets): its start and strength.
fn name_before(t: &str, end: usize) -> Option<(usize, Strength)> {
  let from = floor(t, end.saturating_sub(96));
  let head = t[from..end].trim_end_matches([' ', '\t', '"', '\'', '`', ']', '[']);
  let ident = head.trim_end_matches(ident_char);
  let start = from + ident.len();
  // A name cut by the window still ends in its words; one that ends in `.` is a sentence end.
  let name = t[start..from + head.len()].trim_start_matches(['-', '.']);
  if name.is_empty() || name.ends_with('.') {
    return None;
  }
  Some((start, named(t, start, name)?))
}

/// The strength of `name`, which starts at `start` in `t`: as [`strength`] says, or strong for
/// the `passe` of French `mot de passe`.
fn named(t: &str, start: usize, name: &str) -> Option<Strength> {
  let french =
    name.eq_ignore_ascii_case("passe") && ends_with_ci(&t.as_bytes()[..start], "mot de ");
  strength(name).or(french.then_some(Strong))
}

/// `password for the staging db is …`: a strong name a few plain words before the marker,
/// linked by a word of [`LINKS`].
fn linked_name(t: &str, end: usize) -> Option<(usize, Strength)> {
  // The word before the marker must be plain: a cheap test before the words are looked at.
  let before = t[..end].trim_end_matches(' ');
  if !before.ends_with(char::is_alphanumeric) {
    return None;
  }
  let from = floor(t, end.saturating_sub(80));
  let head = &t[from..end];
  let head = head.rfind('\n').map_or(head, |n| &head[n + 1..]);
  let plain = |w: &str| w.chars().all(|c| c.is_alphanumeric() || "-_".contains(c));
  // Links are short: a longer word is none. An ASCII word is compared without case folding, any
  // other only with the links of its script and length (their capitals are as long).
  let link = |w: &str| {
    let lower = || w.chars().flat_map(char::to_lowercase);
    let ascii = w.is_ascii();
    w.len() <= 6
      && words::list("links").iter().any(|l| match ascii {
        true => w.eq_ignore_ascii_case(l),
        false => l.len() == w.len() && !l.is_ascii() && lower().eq(l.chars()),
      })
  };
  // Back from the marker over plain words: at least one, then the link, then the name.
  let mut words = head.split_whitespace().rev().take(7).enumerate();
  let (_, stop) = words.find(|(i, w)| !plain(w) || (*i > 0 && link(w)))?;
  let (_, name) = words.next().filter(|_| plain(stop))?;
  let name = name.trim_start_matches(|c: char| !ident_char(c));
  // `name` is a slice of `head`: where it starts in `t`.
  let start = end - head.len() + (name.as_ptr() as usize - head.as_ptr() as usize);
  (named(t, start, name) == Some(Strong)).then_some((start, Strong))
}

/// Where assignment markers are: `:`, `=` (also `:=`, `=>`, `==` and their fullwidth forms,
/// folded by normalisation), the copulas of [`COPULAS`] and `是`, `为`, `は`, and a space after
/// a name in a non-Latin script (`密码 Abc12345`, as labels are written there). A copula or a
/// space reads as prose, so its value must look like a credential.
fn markers(t: &str) -> impl Iterator<Item = (usize, usize, bool)> + '_ {
  // Scanned as bytes: every marker starts with an ASCII byte or the lead byte of a copula.
  let b = t.as_bytes();
  b.iter().enumerate().filter_map(move |(at, &c)| match c {
    b':' | b'=' => Some((at, 1, false)),
    b' ' if at > 0 && !b[at - 1].is_ascii() && t[..at].ends_with(char::is_alphabetic) => {
      Some((at, 1, true))
    }
    b'i' | b'w' | b'e' | b'j' | 0xC3 if at > 0 && b[at - 1] == b' ' => words::list("copulas")
      .iter()
      .find(|w| b[at..].starts_with(w.as_bytes()) && b.get(at + w.len()) == Some(&b' '))
      .map(|w| (at, w.len() + 1, true)),
    0xE3..=0xE7 => ["是", "为", "為", "は"]
      .iter()
      .find(|w| b[at..].starts_with(w.as_bytes()))
      .map(|w| (at, w.len(), true)),
    _ => None,
  })
}

/// The value after a marker that ends at `at`: quoted up to its closing quote on the line, else
/// up to whitespace, `;`, a non-ASCII character or (in a query string) `&`; at most 256 bytes.
pub(super) fn value_at(t: &str, at: usize, query: bool) -> Option<(Range<usize>, bool)> {
  let rest = t[at..].trim_start_matches([' ', '\t']);
  let rest = rest.strip_prefix(['=', '>', ':']).unwrap_or(rest);
  let rest = rest.trim_start_matches([' ', '\t']);
  let start = t.len() - rest.len();
  let window = &rest[..floor(rest, 256)];
  // An opening quote and its closing one.
  let pairs = ["\"\"", "''", "``", "「」", "『』", "“”", "‘’"];
  let closing = |q: char| pairs.iter().find_map(|p| p.strip_prefix(q)?.chars().next());
  let quoted = window.chars().next().and_then(|q| {
    let close = closing(q)?;
    let inner = &window[q.len_utf8()..];
    let end = inner.find(close).filter(|e| !inner[..*e].contains('\n'))?;
    let s = start + q.len_utf8();
    Some((s..s + end, true))
  });
  let unquoted = || {
    let stop = |c: char| c.is_whitespace() || c == ';' || !c.is_ascii() || (query && c == '&');
    let end = window.find(stop).unwrap_or(window.len());
    let v = &window[..end];
    // Closing punctuation and a sentence's full stop go; an ellipsis stays (`sk_test_...` is
    // visibly redacted).
    let closers = [',', ';', ':', ')', ']', '}', '>', '"', '\'', '`'];
    let trimmed = v.trim_end_matches(closers);
    let trimmed = match trimmed.strip_suffix('.') {
      Some(cut) if !cut.ends_with('.') => cut.trim_end_matches(closers),
      _ => trimmed,
    };
    let lead = trimmed.len() - trimmed.trim_start_matches(['(', '[', '"', '\'', '`']).len();
    (start + lead..start + trimmed.len(), false)
  };
  Some(quoted.unwrap_or_else(unquoted)).filter(|(r, _)| !r.is_empty())
}

/// A value someone visibly redacted (`845120...HFXI`, `sk-****`, `<redacted>`, `[REDACTED]`,
/// `xxxx`): what is left shows which credential is meant, not the credential.
pub(super) fn redacted(v: &str) -> bool {
  let lower = v.to_ascii_lowercase();
  let marks = ["..", "…", "***", "••", "redacted", "xxxx"];
  v.starts_with('<') || marks.iter().any(|m| lower.contains(m))
}

/// A template or reference in place of a value (`$DB_PASSWORD`, `${DB_PASSWORD}`, `$(cat f)`,
/// `{{ .Values.pw }}`, `<pw>`, `%(pw)s`, `%DB_PW%`), a YAML tag, alias or anchor (`!vault`,
/// `*default`, `&default`), a flag (`--password-stdin`), or a redacted value. A random value
/// may start with the same symbols (`$0k…`, `%9v#…`): what follows the symbol tells them apart.
pub(super) fn placeholder(v: &str) -> bool {
  let word = |s: &str| !s.is_empty() && only(s, u8::is_ascii_alphabetic, b"_");
  let rest = |p: char| v.strip_prefix(p).unwrap_or("");
  let variable =
    rest('$').starts_with(|c: char| c.is_ascii_alphabetic() || matches!(c, '_' | '{' | '('));
  let percent_name = |n: &str| alnum_or(n, b"_");
  let percent = rest('%').starts_with('(') || rest('%').strip_suffix('%').is_some_and(percent_name);
  let yaml = word(rest('!')) || word(rest('*')) || word(rest('&'));
  let flag = v.starts_with('-') && only(v, u8::is_ascii_alphabetic, b"-");
  v.starts_with(['{', '<']) || variable || percent || yaml || flag || redacted(v) || stand_in(v)
}

/// A value an example or a template stands in for a credential: a stand-in word (`PASSWORD`,
/// `changeme`), one addressed to its reader (`your-password-here`, `YOUR_API_KEY`), or one that
/// says where the real one goes (`…_here`). Only letters and separators: a real password may
/// start with `your` but holds a digit or a symbol.
fn stand_in(v: &str) -> bool {
  let v = v.trim_matches(['"', '\'']);
  let lower = v.to_ascii_lowercase();
  let wordy = !v.is_empty() && only(v, u8::is_ascii_alphabetic, b"-_");
  let addressed = lower.starts_with("your") || lower.ends_with("-here") || lower.ends_with("_here");
  words::list("stand-ins").contains(&lower.as_str()) || (wordy && addressed)
}

/// An environment variable's name (`TELEGRAM_BOT_TOKEN`, `process.env.DB_PASSWORD`): it says
/// where a credential lives, not what it is.
fn env_name(v: &str) -> bool {
  let name = v.rsplit('.').next().unwrap_or(v);
  name.contains('_')
    && name.starts_with(|c: char| c.is_ascii_uppercase())
    && !has(name, u8::is_ascii_lowercase)
    && alnum_or(v, b"_.")
}

/// Code or config naming where the secret is (`os.getenv("PW")`, `getpass.getpass()`,
/// `self.password`, `db_password`, `arn:aws:secretsmanager:…`), or a URL.
fn reference(v: &str) -> bool {
  let lower = v.to_ascii_lowercase();
  let secret_word = |w: &&str| strength(w).is_some() || w.eq_ignore_ascii_case("key");
  let code = v.contains(['_', '.'])
    && alnum_or(v, b"_.")
    && words::split(v).iter().any(secret_word)
    && !random(v);
  // A call (`getpass.getpass()`, `read_secret("db")`): a name of 3+ characters, then `(` and
  // nothing, a string, or anything up to a closing `)` (the value's own may be trimmed off).
  let call = v.split_once('(').is_some_and(|(f, args)| {
    f.len() >= 3
      && f.starts_with(|c: char| c.is_ascii_alphabetic())
      && alnum_or(f, b"_.")
      && (args.is_empty() || args.starts_with(['"', '\'']) || args.ends_with(')'))
  });
  let references = words::list("references");
  let referenced = references.iter().any(|r| lower.starts_with(r));
  referenced || code || call || v.contains("://") || env_name(v)
}

/// Where a secret is kept, not the secret: a path.
fn path(v: &str) -> bool {
  let drive = v.as_bytes().get(1..3) == Some(b":\\".as_slice());
  v.starts_with(['/', '~']) || v.starts_with("./") || v.starts_with("../") || drive
}

/// A prose or type word (`required`, `see the vault`, `String`, `varchar(255)`).
fn prose(v: &str) -> bool {
  let after = v.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
  let word = &v[..v.len() - after.len()];
  let ends = after.is_empty() || after.starts_with([' ', '(', '<', '[', ',']);
  ends && (words::in_list("prose", word) || words::in_list("foreign-prose", word))
}

/// Digits, symbols or mixed case: what today's passwords and tokens have and words lack.
fn shaped(v: &str) -> bool {
  let mixed = has(v, u8::is_ascii_uppercase) && has(v, u8::is_ascii_lowercase);
  has(v, u8::is_ascii_digit) || v.contains(|c: char| !c.is_alphanumeric()) || mixed
}

/// A resource or file name (`my-app-tls-2024`, `api-7d9f8b6c4-x2x7z`, `db_creds_v2`):
/// lowercase words and numbers joined by separators, with a real word and no long random chunk.
fn name_shaped(v: &str) -> bool {
  let segments = || v.split(['-', '_', '.']);
  alnum_or(v, b"-_.")
    && !has(v, u8::is_ascii_uppercase)
    && v.contains(['-', '_', '.'])
    && segments().any(|s| s.len() >= 3 && s.bytes().all(|b| b.is_ascii_lowercase()))
    && segments().all(|s| s.len() < 16)
}

/// Random-looking: a chunk of 8+ characters mixing letters and digits, 16+ alphanumerics of
/// all three classes, a long chunk of evenly mixed case, or a password-like mix with a symbol.
fn random(v: &str) -> bool {
  let mixed_chunk = v.split(['-', '_', '.', ':', '/', '+', '=']).any(|s| {
    let upper = s.bytes().filter(u8::is_ascii_uppercase).count();
    let lower = s.bytes().filter(u8::is_ascii_lowercase).count();
    (s.len() >= 8 && has(s, u8::is_ascii_alphabetic) && has(s, u8::is_ascii_digit))
      || (alnum_or(s, b"") && s.len() >= 16 && upper * 4 >= s.len() && lower * 4 >= s.len())
  });
  let symbol = v.bytes().any(|b| b"!@#$%^&*?~+=".contains(&b));
  mixed_chunk || (has(v, u8::is_ascii_alphabetic) && has(v, u8::is_ascii_digit) && symbol)
}

/// The kind of credential `v` is as the value of a name of strength `s` whose last word is
/// `word`, if it is one. A value that is the name's own word is a variable (`password=password`).
pub(super) fn judge(v: &str, s: Strength, copular: bool, word: &str) -> Option<&'static str> {
  if s == Aws && v.len() == 40 && alnum_or(v, b"/+") {
    return Some("an AWS secret access key");
  }
  let variable = v.eq_ignore_ascii_case(word) || !has(v, u8::is_ascii_alphanumeric);
  // A password manager named where secrets are kept (`シークレットは1Passwordに保管`, `the
  // password is in Bitwarden`) is where the credential is, not the credential.
  if variable || placeholder(v) || reference(v) || words::in_list("secret-stores", v) {
    return None;
  }
  let len = v.chars().count();
  match s {
    Aws | Strong | Connection if len < 6 || prose(v) || (copular && !shaped(v)) => None,
    Strong if path(v) => None,
    Weak if len < 8 || path(v) || tokens::path(v) || name_shaped(v) || !random(v) => None,
    Connection => Some("a connection string key"),
    Aws | Strong | Weak => Some("a password or token assignment"),
  }
}

/// The first named credential in `t`: its kind and where its value is.
pub(super) fn find(t: &str) -> Option<(&'static str, Range<usize>)> {
  markers(t).find_map(|(at, len, copular)| {
    let (start, mut s) = name_before(t, at).or_else(|| linked_name(t, at))?;
    let before = t[..start].chars().next_back();
    // `${DB_PASSWORD:default}`: the name of a template variable, not an assignment.
    if before == Some('{') {
      return None;
    }
    let query = matches!(before, Some('?' | '&'));
    let colon = t[at..].starts_with(':');
    let below = || next_line(t, at + len, s).filter(|_| colon);
    let (range, quoted) = value_at(t, at + len, query).or_else(below)?;
    if !quoted && cut_word(t, range.clone()) {
      return None;
    }
    // After a copula, lowercase words are prose (`the password is quite long`, `la contraseña
    // es muy larga`): only a label's value grows into a passphrase.
    let range = passphrase(t, range, s, quoted || copular);
    // In a `;`-separated connection string, `Pwd=` is a password.
    let in_connection = before == Some(';') || t[range.end..].starts_with(';');
    let last = words::last(&t[start..at]);
    if in_connection && ["pwd", "pass"].iter().any(|w| last.eq_ignore_ascii_case(w)) {
      s = Strong;
    }
    let kind = judge(&t[range.clone()], s, copular && !quoted, last)?;
    Some((kind, range))
  })
}

/// An unquoted value of ASCII letters that a letter of the Latin, Greek or Cyrillic alphabets
/// goes on from (`obrigat` of `obrigatória`, `Schl` of `Schlüssel`): the start of a word in a
/// language with diacritics, which the value stopped at.
fn cut_word(t: &str, value: Range<usize>) -> bool {
  let next = t[value.end..].chars().next();
  let letter = |c: char| {
    c.is_alphabetic()
      && matches!(c, '\u{00C0}'..='\u{024F}' | '\u{0370}'..='\u{052F}' | '\u{1E00}'..='\u{1EFF}')
  };
  next.is_some_and(letter) && t[value].bytes().all(|b| b.is_ascii_alphabetic())
}

/// A strong name's value alone on the next line (`Password:` then the password): the line after
/// a `:` that ends its line, when it is one word that is not itself a `name:`. (An `=` that
/// ends its line is an empty value, as in `.env.example`.)
fn next_line(t: &str, at: usize, s: Strength) -> Option<(Range<usize>, bool)> {
  let rest = t[at..].trim_start_matches([' ', '\t']);
  let rest = rest.strip_prefix('\r').unwrap_or(rest).strip_prefix('\n')?;
  let window = &rest[..floor(rest, 256)];
  let line = &window[..window.find('\n').unwrap_or(window.len())];
  let word = line.trim();
  let single = !word.is_empty() && !word.contains(char::is_whitespace) && !word.ends_with(':');
  let start = t.len() - rest.len() + (line.len() - line.trim_start().len());
  (s != Weak && single).then(|| (start..start + word.len(), false))
}

/// A strong name's unquoted passphrase written with spaces after a label (`passphrase: maple
/// river orbit`): the value grows from its first word to the line's end when the line holds
/// nothing but a few lowercase words, so a redacted line hides all of it. A `fixed` value (quoted,
/// or after a copula) stays as it is.
fn passphrase(t: &str, value: Range<usize>, s: Strength, fixed: bool) -> Range<usize> {
  let lower = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase());
  if s != Strong || fixed || !lower(&t[value.clone()]) {
    return value;
  }
  let rest = &t[value.end..];
  // Only a short line is looked at (a long one is no passphrase and must not cost a scan).
  let window = &rest[..floor(rest, 121)];
  let whole = window.len() == rest.len();
  let end = window.find('\n').or(whole.then_some(window.len()));
  let line = &window[..end.unwrap_or(0)];
  let mut words = line.split(' ').skip(1);
  let more = line.starts_with(' ') && (1..=5).contains(&words.clone().count()) && words.all(lower);
  value.start..value.end + if more { line.len() } else { 0 }
}

#[cfg(test)]
mod tests {
  use super::*;

  /// The value a named rule finds, with or without a marker.
  fn value(text: &str) -> Option<&str> {
    let found = find(text).or_else(|| super::super::formats::find(text));
    found.map(|(_, at)| &text[at])
  }

  #[test]
  fn names_are_judged_by_their_words() {
    for (name, want) in [
      ("password", Some(Strong)),
      ("DB_PASSWORD", Some(Strong)),
      ("PGPASSWORD", Some(Strong)),
      ("aws_secret_access_key", Some(Aws)),
      ("SecretAccessKey", Some(Aws)),
      ("AccountKey", Some(Connection)),
      ("SharedAccessKey", Some(Connection)),
      ("SharedAccessKeyName", None),
      ("apiKey", Some(Weak)),
      ("x-api-key", Some(Weak)),
      ("GITHUB_TOKEN", Some(Weak)),
      ("max_tokens", None),
      ("tokenizer", None),
      ("password_file", None),
      ("passwordless", None),
      ("bypass", None),
      ("secretName", None),
      ("数据库密码", Some(Strong)),
      ("パスワード", Some(Strong)),
      ("访问令牌", Some(Weak)),
      ("SSHPASS", Some(Strong)),
      ("Passwort", Some(Strong)),
      ("WLAN-Passwort", Some(Strong)),
      ("Datenbankpasswort", Some(Strong)),
      ("DB_PASSWORT", Some(Strong)),
      ("Kennwort", Some(Strong)),
      ("wachtwoord", Some(Strong)),
      ("lösenordet", Some(Strong)),
      ("salasana", Some(Strong)),
      ("contraseña", Some(Strong)),
      ("contrasena", Some(Strong)),
      ("senha", Some(Strong)),
      ("dbSenha", Some(Strong)),
      ("palavra-passe", Some(Strong)),
      ("Пароль", Some(Strong)),
      ("hasło", Some(Strong)),
      ("heslo", Some(Strong)),
      ("şifre", Some(Strong)),
      ("şifresi", Some(Strong)),
      ("비밀번호는", Some(Strong)),
      ("resenha", None),
      ("Passwortmanager", None),
      ("Passwort-Richtlinie", None),
      ("passe", None),
    ] {
      assert_eq!(strength(name), want, "{name}");
    }
  }

  /// "Password" in other languages is a strong name, in their labels, copulas and links; a
  /// status word of the language, or a value cut at a letter with a diacritic, is prose.
  #[test]
  fn foreign_password_names_are_strong_and_their_prose_is_not_a_value() {
    for text in [
      "Passwort: Tr0ub4dor&3x",
      "Passwort: korrektpferdbatterie",
      "Das Passwort ist Tr0ub4dor&3x",
      "Passwort für den Server: Tr0ub4dor&3x",
      "Kennwort = Tr0ub4dor&3x",
      "la contraseña es Tr0ub4dor&3x",
      "contraseña del wifi: Tr0ub4dor&3x",
      "a senha é Tr0ub4dor&3x",
      "senha do banco: Tr0ub4dor&3x",
      "le mot de passe est Tr0ub4dor&3x",
      "mot de passe du wifi : Tr0ub4dor&3x",
      "пароль: Tr0ub4dor&3x",
      "пароль для почты: Tr0ub4dor&3x",
      "lösenordet är Tr0ub4dor&3x",
      "hasło: Tr0ub4dor&3x",
      "heslo je Tr0ub4dor&3x",
      "wifi şifresi: Tr0ub4dor&3x",
      "비밀번호는 Tr0ub4dor&3x",
    ] {
      let want = text.rsplit([' ', ':']).next();
      assert_eq!(value(text), want, "{text}");
    }
    for text in [
      "Passwort: erforderlich",
      "Passwort: Erforderlich",
      "Das Passwort ist erforderlich",
      "Passwort: mindestens 12 Zeichen",
      "Passwort: siehe KeePass",
      "Passwort: Schlüsselbund",
      "contraseña: obligatoria",
      "la contraseña es segura",
      "senha: obrigatória",
      "mot de passe : obligatoire",
      "пароль: обязательно",
      "wachtwoord: verplicht",
      "hasło: wymagane",
      "salasana: pakollinen",
      "şifre: gerekli",
      "비밀번호: 필수",
      "resenha: excelente",
      "the password is quite long",
      "la contraseña es muy larga",
      "das Passwort ist sehr lang",
      "a senha é muito forte",
    ] {
      assert_eq!(value(text), None, "{text}");
    }
  }

  #[test]
  fn strong_names_take_any_real_value_and_weak_ones_a_random_one() {
    assert_eq!(
      value("password: correcthorsebatterystaple"),
      Some("correcthorsebatterystaple")
    );
    assert_eq!(
      value("\"password\": \"correct horse battery staple\""),
      Some("correct horse battery staple")
    );
    assert_eq!(
      value("the wifi password for the office is c0rrect-horse"),
      Some("c0rrect-horse")
    );
    assert_eq!(
      value("docker login --username ana --password hunter2hunter2"),
      Some("hunter2hunter2")
    );
    assert_eq!(
      value("curl -u elastic:s3cr3tPass https://es:9200"),
      Some("s3cr3tPass")
    );
    assert_eq!(
      value("Server=db;User Id=sa;Pwd=hunter22;"),
      Some("hunter22")
    );
    assert_eq!(
      value("jdbc:mysql://db/app?user=root&password=hunter22&ssl=true"),
      Some("hunter22")
    );
    assert_eq!(value("パスワードは「hunter22」です"), Some("hunter22"));
    // where secrets are kept is no secret
    assert_eq!(
      value("シークレットは1Passwordに保管し、.envはコミットしない"),
      None
    );
    assert_eq!(
      value("the password is 1Password2024"),
      Some("1Password2024")
    );
    assert_eq!(
      value("<password>Thunder201.canyon</password>"),
      Some("Thunder201.canyon")
    );
    assert_eq!(
      value("Password:\nKettle5217^velvet"),
      Some("Kettle5217^velvet")
    );
    assert_eq!(
      value("machine api.heroku.com login ana password oJvllRQdAt^"),
      Some("oJvllRQdAt^")
    );
    assert_eq!(
      value("db.internal:5432:app:app:TqjhB81C8pnmSewE_"),
      Some("TqjhB81C8pnmSewE_")
    );
    assert_eq!(
      value("mysql -u root -p7OPvkdUSX6FB- shop"),
      Some("7OPvkdUSX6FB-")
    );
    assert_eq!(
      value("账号 admin 密码 Silver2924.zephyr"),
      Some("Silver2924.zephyr")
    );
    assert_eq!(
      value("passphrase: maple river orbit"),
      Some("maple river orbit")
    );
    for text in [
      "password: required",
      "password is stored in 1Password",
      "password: managed by Vault",
      "password: see the team vault",
      "the password is correct",
      "password: String,",
      "password=os.getenv(\"DB_PASSWORD\")",
      "connect(user=user, password=password)",
      "password: /run/secrets/db",
      "secret: my-app-tls-2024",
      "secret: db-creds-5f7b9c8d2k",
      "pwd: /home/me/app",
      "token: stored elsewhere",
      "密码：请向管理员索取",
      "git push -u origin main",
      "docker run -u 1000:1000 app",
      "password = getpass.getpass()",
      "password: ${DB_PASSWORD:changeme}",
      ".env.example:\nDB_PASSWORD=\nAPI_TOKEN=",
      "SECRET_KEY = '$SECRET_KEY'",
      "password: %(db_password)s",
      "STRIPE_SECRET_KEY=sk_test_... (see README)",
    ] {
      assert_eq!(value(text), None, "{text}");
    }
  }
}
