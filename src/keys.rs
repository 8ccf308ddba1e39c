//! Key derivation: the workspace key of a cwd, the agent key of a preset, and where the store
//! file lives (protocol-behaviour §4.3, §6.1). POSIX semantics; keys are never symlink-resolved.
#![forbid(unsafe_code)]

use std::path::{Component, Path, PathBuf};

/// Lexically normalized absolute form of `path` (`path.resolve` in Node): relative paths resolve
/// against `base`, `.` and `..` are folded, trailing slashes dropped. No filesystem access.
pub fn resolve(base: &Path, path: &str) -> PathBuf {
  let joined = if Path::new(path).is_absolute() {
    PathBuf::from(path)
  } else {
    base.join(path)
  };
  let mut out = PathBuf::from("/");
  for part in joined.components() {
    match part {
      Component::ParentDir => {
        out.pop();
      }
      Component::Normal(p) => out.push(p),
      Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
    }
  }
  out
}

/// The process cwd, or `/` when it cannot be read (a deleted cwd must not crash a write).
fn process_cwd() -> PathBuf {
  std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))
}

/// Workspace key of a session cwd: `''` without one, else its resolved absolute path.
pub fn workspace_key_of(cwd: Option<&str>) -> String {
  match cwd {
    // The process cwd is only read (a syscall) for a relative cwd.
    Some(c) if Path::new(c).is_absolute() => {
      resolve(Path::new("/"), c).to_string_lossy().into_owned()
    }
    Some(c) if !c.is_empty() => resolve(&process_cwd(), c).to_string_lossy().into_owned(),
    _ => String::new(),
  }
}

/// Agent key of a session's agent preset: `''` without one, else the trimmed preset.
pub fn agent_key_of(preset: Option<&str>) -> String {
  preset.map(str::trim).unwrap_or_default().to_string()
}

/// The dsh home: `$DSH_HOME` when set and non-empty, otherwise `~/.dsh`.
pub fn dsh_home(dsh_home_env: Option<&str>, home_env: Option<&str>) -> PathBuf {
  match dsh_home_env {
    Some(h) if !h.is_empty() => resolve(&process_cwd(), h),
    _ => resolve(
      &process_cwd(),
      home_env.filter(|h| !h.is_empty()).unwrap_or("/"),
    )
    .join(".dsh"),
  }
}

/// Where the store file lives: `''` → `<home>/dsh-memento/memory.db`; absolute paths as given;
/// relative paths against the home (the same default path as the JS dsh-memento).
pub fn resolve_db_path(db_path: &str, home: &Path) -> PathBuf {
  if db_path.is_empty() {
    home.join("dsh-memento").join("memory.db")
  } else {
    resolve(home, db_path)
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn resolves_like_node_path_resolve() {
    let base = Path::new("/work/x");
    assert_eq!(resolve(base, "/a/b/../c/"), PathBuf::from("/a/c"));
    assert_eq!(resolve(base, "rel/./d"), PathBuf::from("/work/x/rel/d"));
    assert_eq!(
      resolve(base, "C:/conformance/ws"),
      PathBuf::from("/work/x/C:/conformance/ws")
    );
  }

  #[test]
  fn keys_default_to_empty() {
    assert_eq!(workspace_key_of(None), "");
    assert_eq!(workspace_key_of(Some("")), "");
    assert_eq!(workspace_key_of(Some("/p/q/")), "/p/q");
    assert_eq!(agent_key_of(Some("  coder ")), "coder");
    assert_eq!(agent_key_of(None), "");
  }

  #[test]
  fn db_path_follows_dsh_home() {
    let home = dsh_home(Some("/h"), Some("/root"));
    assert_eq!(
      resolve_db_path("", &home),
      PathBuf::from("/h/dsh-memento/memory.db")
    );
    assert_eq!(resolve_db_path("x/m.db", &home), PathBuf::from("/h/x/m.db"));
    assert_eq!(
      resolve_db_path("/abs/m.db", &home),
      PathBuf::from("/abs/m.db")
    );
    assert_eq!(
      dsh_home(Some(""), Some("/root")),
      PathBuf::from("/root/.dsh")
    );
  }
}
