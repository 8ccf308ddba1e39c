//! The files and directories a memory text names (`src/main.rs`, `./scripts/deploy.sh`,
//! `/etc/nginx/nginx.conf`, `docs/`), so a health check can point out the ones that no longer
//! exist. Only tokens shaped like paths count: a file name with an extension, or a path that
//! starts with `./`, `../` or `/`, or ends with `/`; URLs, MIME types, ratios, dates, globs,
//! `owner/repo` and `feat/branch` names are not paths.
#![forbid(unsafe_code)]

/// Characters that end a path token besides whitespace (quotes, brackets, trailing punctuation).
fn outside(c: char) -> bool {
  c.is_whitespace() || "`\"'()[]<>{},;|".contains(c)
}

/// Whether `token` is shaped like a path to a file or directory.
fn path_like(token: &str) -> bool {
  // The top-level MIME types (`text/plain` is a type, not a path).
  const MIME: &str = "application/ text/ image/ audio/ video/ font/ multipart/";
  if token.len() < 3
    || !token.contains('/')
    || token.contains("://")
    || token.contains(['*', '?', '$', '@', '=', '%'])
    || MIME.split(' ').any(|m| token.starts_with(m))
  {
    return false;
  }
  let anchored = token.starts_with("./") || token.starts_with("../") || token.starts_with('/');
  let last = token.rsplit('/').next().unwrap_or("");
  // `name.ext`: a letter after the dot, and not a version (`v1.2/…`) or a number.
  let ext = last.rsplit_once('.').is_some_and(|(stem, ext)| {
    !stem.is_empty()
      && (1..=8).contains(&ext.len())
      && ext.chars().all(|c| c.is_ascii_alphanumeric())
      && ext.chars().any(|c| c.is_ascii_alphabetic())
  });
  let segment_ok = |s: &str| !s.chars().all(|c| c.is_ascii_digit()) || s.is_empty();
  let segments_ok = token.split('/').all(segment_ok);
  // `docs/`, `.github/`; not a version (`v1.2/`).
  let dir = token.strip_suffix('/').is_some_and(|d| {
    let name = d.rsplit('/').next().unwrap_or("");
    name.len() > 2 && !name[1..].contains('.')
  });
  segments_ok && (anchored || ext || dir)
}

/// The path-shaped tokens of `text`, each once, in order.
pub fn named(text: &str) -> Vec<String> {
  let mut out: Vec<String> = Vec::new();
  for token in text.split(outside) {
    let token = token.trim_end_matches([':', '.', '!', '?']);
    if path_like(token) && !token.starts_with("~/") && !out.iter().any(|t| t == token) {
      out.push(token.to_string());
    }
  }
  out
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn only_path_shaped_tokens_are_named() {
    let text = "Config lives in `config/settings.yaml`; run ./scripts/deploy.sh, logs in /var/log/api/ and docs/. \
      See https://x.example/a/b.html, send application/json, 1/2 of 2024/05/01, feat/ui and owner/repo, src/**/*.rs, v1.2/ and .github/";
    assert_eq!(
      named(text),
      [
        "config/settings.yaml",
        "./scripts/deploy.sh",
        "/var/log/api/",
        "docs/",
        ".github/"
      ]
    );
    assert_eq!(named("用 src/main.rs 启动"), ["src/main.rs"]);
    assert!(named("no paths here").is_empty());
  }
}
