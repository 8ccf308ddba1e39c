//! The words of an identifier (`AWS_SECRET_ACCESS_KEY`, `SecretAccessKey`, `x-request-id`), so
//! a name is judged by its words whatever the naming convention.
#![forbid(unsafe_code)]

/// `ident`'s ASCII words, split at `_`, `-`, `.`, any other non-alphanumeric character and
/// camel-case boundaries (`APIKey` is `API`, `Key`; `OAuth2Token` ends in `Token`).
pub(super) fn split(ident: &str) -> Vec<&str> {
  let b = ident.as_bytes();
  let mut out = Vec::new();
  let mut start: Option<usize> = None;
  for (i, &c) in b.iter().enumerate() {
    if !c.is_ascii_alphanumeric() {
      out.extend(start.take().and_then(|s| ident.get(s..i)));
      continue;
    }
    let prev = i
      .checked_sub(1)
      .and_then(|p| b.get(p))
      .copied()
      .unwrap_or(b' ');
    let next_lower = b.get(i + 1).is_some_and(u8::is_ascii_lowercase);
    let boundary = c.is_ascii_uppercase()
      && ((prev.is_ascii_lowercase() || prev.is_ascii_digit())
        || (prev.is_ascii_uppercase() && next_lower));
    if let Some(s) = start.filter(|_| boundary) {
      out.extend(ident.get(s..i));
      start = Some(i);
    }
    start.get_or_insert(i);
  }
  out.extend(start.and_then(|s| ident.get(s..)));
  out
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn identifiers_split_into_their_words() {
    assert_eq!(
      split("AWS_SECRET_ACCESS_KEY"),
      ["AWS", "SECRET", "ACCESS", "KEY"]
    );
    assert_eq!(split("SecretAccessKey"), ["Secret", "Access", "Key"]);
    assert_eq!(split("APIKey"), ["API", "Key"]);
    assert_eq!(split("x-request-id"), ["x", "request", "id"]);
    assert_eq!(split("sessionId"), ["session", "Id"]);
    assert_eq!(split("OAuth2Token"), ["O", "Auth2", "Token"]);
    assert_eq!(split("db.password"), ["db", "password"]);
    assert_eq!(split("数据库password"), ["password"]);
    assert!(split("").is_empty());
  }
}
