//! Write policies: which of `ask`, `auto` and `off` decides a write, and the setting it came
//! from. Decided once per write from its structured fields (the layers it touches and the
//! writer's source), never from text a person reads.
//!
//! Precedence (the reference's): `writePolicies["source:<writer's source>"]`, then
//! `writePolicies["<track>/<scope>"]`, then `writePolicy`. A write touching several layers (a
//! seed) is decided by its strictest entry (`off` over `ask` over `auto`). The source is the
//! writer's: the `source` its input names (for `remove` too), else the provider's `sourceLabel`;
//! never the source stored on an entry the write changes.
#![forbid(unsafe_code)]

use serde::Serialize;
use serde_json::Value;

use crate::error::{json_str, MemoryError, Result};
use crate::protocol::model::{layer_name, wire_names, Scope, Track};

/// A write policy (`ask` unless configured).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum WritePolicy {
  /// Approved without asking a person (the transport still records its approval pair).
  Auto,
  /// Ask the approval transport.
  #[default]
  Ask,
  /// Refuse without asking.
  Off,
}

wire_names!(WritePolicy { Ask => "ask", Auto => "auto", Off => "off" });

/// A `writePolicies` key.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
  Layer(Track, Scope),
  Source(String),
}

/// The global policy and the per-layer / per-source overrides.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policies {
  global: WritePolicy,
  overrides: Vec<(Key, WritePolicy)>,
}

/// The policy that decides a write and the setting it came from (`writePolicy`,
/// `writePolicies["user/workspace"]`, `writePolicies["source:claude"]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
  /// `ask`, `auto` or `off`.
  pub policy: &'static str,
  /// The setting that decided.
  pub setting: String,
}

impl Decision {
  /// `writePolicies["source:claude"] off`: how an audit label names it.
  pub fn describe(&self) -> String {
    format!("{} {}", self.setting, self.policy)
  }
}

impl Policies {
  /// The global policy.
  pub fn global(&self) -> WritePolicy {
    self.global
  }

  /// `global` with the `writePolicies` table (keys `track/scope` or `source:<name>`, values
  /// `ask|auto|off`; `null` for none).
  ///
  /// # Errors
  /// `INVALID_INPUT` naming the first bad key or value.
  pub fn parse(global: WritePolicy, table: &Value) -> Result<Self> {
    let none = serde_json::Map::new();
    let Some(table) = table.as_object().or(table.is_null().then_some(&none)) else {
      return Err(MemoryError::invalid(
        "writePolicies must be an object with keys like \"user/workspace\" or \"source:claude\"",
      ));
    };
    let mut overrides = Vec::with_capacity(table.len());
    for (key, value) in table {
      let bad = |what: String| MemoryError::invalid(format!("invalid writePolicies {what}"));
      let layer = |(t, s): (&str, &str)| Some(Key::Layer(Track::parse(t)?, Scope::parse(s)?));
      let layer = key.split_once('/').and_then(layer);
      let source = key.strip_prefix("source:").filter(|name| {
        let named = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-';
        !name.is_empty() && name.bytes().all(named)
      });
      let key_text = json_str(key);
      let parsed = layer.or_else(|| source.map(|s| Key::Source(s.to_string())));
      let expected = "(expected \"track/scope\" or \"source:<name>\")";
      let parsed = parsed.ok_or_else(|| bad(format!("key {key_text} {expected}")))?;
      let policy = value.as_str().and_then(WritePolicy::parse);
      let what = || format!("value for {key_text}: {value} (one of ask|auto|off)");
      let policy = policy.ok_or_else(|| bad(what()))?;
      overrides.push((parsed, policy));
    }
    Ok(Self { global, overrides })
  }

  /// The decision for one entry of `track`/`scope` written by `source`.
  pub fn decide(&self, track: Track, scope: Scope, source: &str) -> (WritePolicy, Decision) {
    let by_source = |(k, _): &&(Key, _)| matches!(k, Key::Source(s) if s == source);
    let by_layer = |(k, _): &&(Key, _)| *k == Key::Layer(track, scope);
    let mut overrides = self.overrides.iter();
    let found = overrides.clone().find(by_source);
    let found = found.or_else(|| overrides.find(by_layer));
    match found {
      Some((Key::Source(s), p)) => decided(*p, format!("writePolicies[\"source:{s}\"]")),
      Some((Key::Layer(t, s), p)) => {
        decided(*p, format!("writePolicies[\"{}\"]", layer_name(*t, *s)))
      }
      None => decided(self.global, "writePolicy".into()),
    }
  }

  /// The strictest decision over the layers a write touches, each with its writer's source
  /// (the first of equally strict ones; the global policy when there is none).
  pub fn decide_all<'a>(
    &self,
    writes: impl IntoIterator<Item = (Track, Scope, &'a str)>,
  ) -> (WritePolicy, Decision) {
    let decisions = writes.into_iter().map(|(t, s, src)| self.decide(t, s, src));
    decisions
      .reduce(|best, next| if best.0 >= next.0 { best } else { next })
      .unwrap_or_else(|| decided(self.global, "writePolicy".into()))
  }
}

/// `policy`, as `setting` decided it.
fn decided(policy: WritePolicy, setting: String) -> (WritePolicy, Decision) {
  let decision = Decision {
    policy: policy.as_str(),
    setting,
  };
  (policy, decision)
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  fn policies(global: WritePolicy, table: Value) -> Policies {
    Policies::parse(global, &table).unwrap_or_else(|e| panic!("{e}"))
  }

  #[test]
  fn source_beats_layer_beats_global() {
    let p = policies(
      WritePolicy::Auto,
      json!({ "user/user-global": "off", "source:claude": "ask" }),
    );
    let d = |t, s, src| p.decide(t, s, src).1.describe();
    assert_eq!(
      d(Track::User, Scope::UserGlobal, "claude"),
      "writePolicies[\"source:claude\"] ask"
    );
    assert_eq!(
      d(Track::User, Scope::UserGlobal, "x"),
      "writePolicies[\"user/user-global\"] off"
    );
    assert_eq!(d(Track::Agent, Scope::Workspace, "x"), "writePolicy auto");
  }

  /// A source is compared as a whole string: brackets, newlines and lookalikes of other keys
  /// select nothing but their own `source:` key, which the table cannot even name.
  #[test]
  fn crafted_sources_fall_through_to_the_layer() {
    let p = policies(
      WritePolicy::Auto,
      json!({ "user/user-global": "off", "source:trusted": "auto" }),
    );
    for source in [
      "other-plugin]",
      "x\n]",
      "a] [source:trusted",
      "trusted ",
      "source:trusted",
      "Trusted",
    ] {
      let (policy, decision) = p.decide(Track::User, Scope::UserGlobal, source);
      assert_eq!(
        (policy, decision.setting.as_str()),
        (WritePolicy::Off, "writePolicies[\"user/user-global\"]"),
        "{source:?}"
      );
    }
  }

  #[test]
  fn a_batch_is_decided_by_its_strictest_entry() {
    let p = policies(
      WritePolicy::Auto,
      json!({ "agent/workspace": "ask", "source:claude": "off" }),
    );
    let (policy, d) = p.decide_all([
      (Track::User, Scope::Workspace, "cli"),
      (Track::Agent, Scope::Workspace, "cli"),
      (Track::Agent, Scope::Workspace, "cli"),
    ]);
    assert_eq!(
      (policy, d.setting.as_str()),
      (WritePolicy::Ask, "writePolicies[\"agent/workspace\"]")
    );
    let (policy, _) = p.decide_all([
      (Track::User, Scope::Workspace, "claude"),
      (Track::User, Scope::Workspace, "cli"),
    ]);
    assert_eq!(policy, WritePolicy::Off);
    assert_eq!(p.decide_all([]).1.setting, "writePolicy");
  }

  #[test]
  fn the_table_is_checked_key_by_key() {
    let bad = |v: Value| {
      Policies::parse(WritePolicy::Ask, &v)
        .err()
        .map(|e| e.to_string())
    };
    assert_eq!(
      bad(json!({ "user/nowhere": "auto" })).as_deref(),
      Some("invalid writePolicies key \"user/nowhere\" (expected \"track/scope\" or \"source:<name>\")")
    );
    assert_eq!(
      bad(json!({ "source:claude": "yes" })).as_deref(),
      Some("invalid writePolicies value for \"source:claude\": \"yes\" (one of ask|auto|off)")
    );
    assert!(bad(json!({ "source:Bad]": "off" })).is_some());
    assert!(bad(json!([1])).is_some());
    assert_eq!(bad(Value::Null), None);
  }
}
