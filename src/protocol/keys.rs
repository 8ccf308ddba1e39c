//! Key derivation: the workspace key of a cwd, the agent key of a preset, and where the store
//! file lives (protocol-behaviour §4.3, §6.1). Paths follow Node's `path.resolve` of the host
//! (POSIX or win32 rules), so keys equal the JS dsh-memento's on every platform; they are never
//! symlink-resolved. On Windows keys are case-insensitive: they are lowercased, as the JS plugin
//! stores them.
#![forbid(unsafe_code)]

/// Which platform's path rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paths {
  /// `/`-separated, rooted at `/` (Linux, macOS).
  Posix,
  /// Drive letters and `\\server\share` roots, either separator, case-insensitive.
  Windows,
}

impl Paths {
  /// The rules of the platform this code was built for.
  pub const HOST: Paths = if cfg!(windows) {
    Paths::Windows
  } else {
    Paths::Posix
  };

  /// Node's `path.resolve(base, path)` under these rules: a relative `path` resolves against
  /// `base` (itself absolute), `.` and `..` are folded, separators normalized and trailing ones
  /// dropped (a root keeps its own). No filesystem access.
  pub fn resolve(self, base: &str, path: &str) -> String {
    match self {
      Paths::Posix => {
        let base = if path.starts_with('/') { "" } else { base };
        let segments = fold_segments(base.split('/').chain(path.split('/')));
        format!("/{}", segments.join("/"))
      }
      Paths::Windows => resolve_windows(base, path),
    }
  }

  /// Whether `path` resolves without a base (`/x`; `C:\x`, `\\server\share\x`).
  pub fn is_absolute(self, path: &str) -> bool {
    match self {
      Paths::Posix => path.starts_with('/'),
      Paths::Windows => {
        let (device, absolute, _) = windows_root(path);
        absolute && !device.is_empty()
      }
    }
  }

  /// The workspace key of a session cwd: `''` without one, else its resolved absolute path,
  /// lowercased under Windows rules.
  pub fn workspace_key_of(self, cwd: Option<&str>) -> String {
    match cwd {
      None | Some("") => String::new(),
      Some(c) => self.fold_case(self.resolve_here(c)),
    }
  }

  /// `path` resolved against the process cwd, which is only read (a syscall) for a relative one.
  fn resolve_here(self, path: &str) -> String {
    if self.is_absolute(path) {
      return self.resolve("", path);
    }
    // The root when the cwd cannot be read (a deleted cwd must not crash a write).
    let cwd = std::env::current_dir().map(|d| d.to_string_lossy().into_owned());
    self.resolve(&cwd.unwrap_or_else(|_| "/".to_string()), path)
  }

  /// The agent key of a session's agent preset: `''` without one, else the trimmed preset,
  /// lowercased under Windows rules (as the JS dsh-memento keys it there).
  pub fn agent_key_of(self, preset: Option<&str>) -> String {
    self.fold_case(preset.map(str::trim).unwrap_or_default().to_string())
  }

  fn fold_case(self, key: String) -> String {
    match self {
      Paths::Posix => key,
      Paths::Windows => key.to_lowercase(),
    }
  }
}

fn is_sep(c: char) -> bool {
  c == '/' || c == '\\'
}

/// Fold `.` and `..` out of a path's segments, never climbing above the root.
fn fold_segments<'a>(tail: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
  let mut out = Vec::new();
  for part in tail {
    match part {
      "" | "." => {}
      ".." => _ = out.pop(),
      p => out.push(p),
    }
  }
  out
}

/// The root of a win32 path, as Node's `path.win32` parses it: its device (`C:` or
/// `\\server\share`, separators normalized; `''` for none), whether the path starts at its root
/// (`C:\x`, `\x`, UNC) rather than drive-relative, and what follows the root.
fn windows_root(p: &str) -> (String, bool, &str) {
  let mut chars = p.chars();
  let (first, second) = (chars.next(), chars.next());
  let sep = first.is_some_and(is_sep);
  if sep && second.is_some_and(is_sep) {
    // `\\server\share\rest`: both names are needed for a UNC root.
    let mut names = p[2..].splitn(3, is_sep);
    let (server, share) = (names.next().unwrap_or(""), names.next().unwrap_or(""));
    if !server.is_empty() && !share.is_empty() {
      let device = format!("\\\\{server}\\{share}");
      return (device, true, names.next().unwrap_or(""));
    }
  }
  if sep {
    return (String::new(), true, &p[1..]);
  }
  if first.is_some_and(|c| c.is_ascii_alphabetic()) && second == Some(':') {
    let absolute = p[2..].starts_with(is_sep);
    let rest = &p[2 + usize::from(absolute)..];
    return (p[..2].to_string(), absolute, rest);
  }
  (String::new(), false, p)
}

/// Node's `path.win32.resolve(base, path)`: the rightmost path that has both a device and an
/// absolute root ends the walk; a path on another device than the one found so far is skipped.
fn resolve_windows(base: &str, path: &str) -> String {
  let mut device = String::new();
  let mut tail = String::new();
  let mut absolute = false;
  for p in [path, base] {
    let (root, rooted, rest) = windows_root(p);
    if !root.is_empty() && !device.is_empty() && !root.eq_ignore_ascii_case(&device) {
      continue;
    }
    if device.is_empty() {
      device = root;
    }
    if !absolute {
      tail = format!("{rest}\\{tail}");
      absolute = rooted;
    }
    if absolute && !device.is_empty() {
      break;
    }
  }
  // Always rooted: a drive-relative path on another drive than the base's starts at that
  // drive's root (Node would ask the per-drive cwd `%=D:%`, which a library cannot see).
  let tail = fold_segments(tail.split(is_sep)).join("\\");
  format!("{device}\\{tail}")
}

/// The dsh home: `$DSH_HOME` when set and non-empty, otherwise `.dsh` in the user's home
/// directory (`os.homedir()`: `$HOME` on POSIX, `%USERPROFILE%` on Windows).
pub fn dsh_home(paths: Paths, dsh_home_env: Option<&str>, user_home: Option<&str>) -> String {
  let home = user_home.filter(|h| !h.is_empty()).unwrap_or("/");
  let given = dsh_home_env.filter(|h| !h.is_empty()).map(str::to_string);
  paths.resolve_here(&given.unwrap_or_else(|| format!("{home}/.dsh")))
}

/// Where the store file lives: `''` → `<home>/dsh-memento/memory.db`; absolute paths as given;
/// relative paths against the home (the same default path as the JS dsh-memento).
pub fn resolve_db_path(paths: Paths, db_path: &str, home: &str) -> String {
  let given = Some(db_path).filter(|p| !p.is_empty());
  paths.resolve(home, given.unwrap_or("dsh-memento/memory.db"))
}

/// The dsh home of this process: [`dsh_home`] from `$DSH_HOME` and the user's home directory.
pub fn host_dsh_home() -> String {
  let user_home = std::env::home_dir().map(|h| h.to_string_lossy().into_owned());
  let env = std::env::var("DSH_HOME").ok();
  dsh_home(Paths::HOST, env.as_deref(), user_home.as_deref())
}

/// The store path of `dbPath` in this process: [`resolve_db_path`] in [`host_dsh_home`].
pub fn store_path(db_path: &str) -> String {
  resolve_db_path(Paths::HOST, db_path, &host_dsh_home())
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn resolves_like_node_path_posix_resolve() {
    let base = "/work/x";
    let posix = Paths::Posix;
    assert_eq!(posix.resolve(base, "/a/b/../c/"), "/a/c");
    assert_eq!(posix.resolve(base, "rel/./d"), "/work/x/rel/d");
    assert_eq!(posix.resolve(base, "../../../up"), "/up");
    assert_eq!(posix.resolve(base, "/"), "/");
    assert_eq!(
      posix.resolve(base, "C:/conformance/ws"),
      "/work/x/C:/conformance/ws"
    );
  }

  /// Expected values are what Node 20's `path.win32.resolve(base, path)` prints.
  #[test]
  fn resolves_like_node_path_win32_resolve() {
    let cases = [
      ("C:\\base", "D:\\Proj\\A\\", "D:\\Proj\\A"),
      ("C:\\base", "d:/proj/a", "d:\\proj\\a"),
      (
        "C:\\base",
        "\\\\server\\share\\dir\\",
        "\\\\server\\share\\dir",
      ),
      ("C:\\base", "\\\\server\\share", "\\\\server\\share\\"),
      ("C:\\base", "//server/share/x/../y", "\\\\server\\share\\y"),
      ("C:\\base", "rel\\.\\d", "C:\\base\\rel\\d"),
      ("C:\\base", "..\\..\\..\\x", "C:\\x"),
      ("C:\\base", "\\top", "C:\\top"),
      ("C:\\base", "D:\\", "D:\\"),
      ("C:\\base", "C:sub", "C:\\base\\sub"),
      ("C:\\base", "/a/b/", "C:\\a\\b"),
      ("C:\\base", "D:\\a\\..\\..\\b", "D:\\b"),
      ("\\\\srv\\sh\\w", "..\\..\\z", "\\\\srv\\sh\\z"),
      ("C:\\base", "\\\\server", "C:\\server"),
      // Node asks the per-drive cwd (`%=D:%`) here; without one it is the drive's root.
      ("C:\\base", "D:sub", "D:\\sub"),
    ];
    for (base, path, want) in cases {
      assert_eq!(Paths::Windows.resolve(base, path), want, "{base} + {path}");
    }
  }

  #[test]
  fn windows_keys_ignore_case_separators_and_trailing_separators() {
    let w = Paths::Windows;
    assert_eq!(w.workspace_key_of(Some("D:\\Proj\\A\\")), "d:\\proj\\a");
    assert_eq!(w.workspace_key_of(Some("d:/proj/a")), "d:\\proj\\a");
    assert_eq!(
      w.workspace_key_of(Some("\\\\Server\\Share\\Team\\")),
      "\\\\server\\share\\team"
    );
    assert_eq!(w.workspace_key_of(Some("C:\\")), "c:\\");
    assert_eq!(w.agent_key_of(Some(" Coder ")), "coder");
    assert!(w.is_absolute("C:\\x") && w.is_absolute("//s/h/x"));
    assert!(!w.is_absolute("\\x") && !w.is_absolute("C:x") && !w.is_absolute("x"));
  }

  #[test]
  fn keys_default_to_empty() {
    let posix = Paths::Posix;
    assert_eq!(posix.workspace_key_of(None), "");
    assert_eq!(posix.workspace_key_of(Some("")), "");
    assert_eq!(posix.workspace_key_of(Some("/p/Q/")), "/p/Q");
    assert_eq!(posix.agent_key_of(Some("  Coder ")), "Coder");
    assert_eq!(posix.agent_key_of(None), "");
    assert_eq!(Paths::Windows.workspace_key_of(None), "");
  }

  #[test]
  fn db_path_follows_dsh_home() {
    let posix = Paths::Posix;
    let home = dsh_home(posix, Some("/h"), Some("/root"));
    assert_eq!(
      resolve_db_path(posix, "", &home),
      "/h/dsh-memento/memory.db"
    );
    assert_eq!(resolve_db_path(posix, "x/m.db", &home), "/h/x/m.db");
    assert_eq!(resolve_db_path(posix, "/abs/m.db", &home), "/abs/m.db");
    assert_eq!(dsh_home(posix, Some(""), Some("/root")), "/root/.dsh");
  }

  #[test]
  fn windows_db_path_is_under_the_user_profile() {
    let w = Paths::Windows;
    let home = dsh_home(w, None, Some("C:\\Users\\Ana"));
    assert_eq!(home, "C:\\Users\\Ana\\.dsh");
    assert_eq!(
      resolve_db_path(w, "", &home),
      "C:\\Users\\Ana\\.dsh\\dsh-memento\\memory.db"
    );
    assert_eq!(resolve_db_path(w, "D:/m.db", &home), "D:\\m.db");
    assert_eq!(
      dsh_home(w, Some("E:\\dsh"), Some("C:\\Users\\Ana")),
      "E:\\dsh"
    );
  }
}
