//! Configuration rules, one copy for both callers: the plugin config (defaults and load-time
//! validation with the reference's messages, protocol-behaviour §7.2) and the provider options
//! the plugin passes on (`budgets`, policies, limits, store path).
#![forbid(unsafe_code)]

use serde_json::{json, Value};

use super::values::{integer, opt_string};
use crate::engine::{Config, Policies, SecretPolicy, WritePolicy};
use crate::error::{json_str, MemoryError, Result};
use crate::protocol::keys;
use crate::protocol::model::{non_empty, Budgets, Scope, Track};

/// The `budgets` option that asks for the budgets the plugin recorded in the store (the CLI's
/// default, so that CLI and plugin always agree), and the `meta` key they are kept under.
/// The `budgets` option that takes the budgets a plugin recorded in the store.
pub const RECORDED: &str = "recorded";
/// The store's meta key holding the budgets the plugin recorded.
pub const RECORDED_KEY: &str = "plugin_budgets";

/// The option names of `new MemoryProvider(options)` that are data (besides the callbacks `gate`
/// and `auditVia`), space-separated.
pub const PROVIDER_OPTIONS: &str = "dbPath budgets recordBudgets writePolicy writePolicies \
  proposalMaxChars proposalMaxPending secretPolicy defaultQueryLimit sourceLabel \
  auditRetentionDays similarHints";

/// Days an entry may go unrecalled before a health check reports it, unless told.
pub const STALE_DAYS: u64 = 90;

/// Resolved provider options.
#[derive(Debug, Clone)]
pub struct ProviderOptions {
  /// The engine's configuration.
  pub config: Config,
  /// Absolute store path.
  pub db_path: String,
  /// Audit retention in days (0 keeps forever).
  pub audit_retention_days: u64,
}

/// Every key of the plugin config with its default.
pub fn defaults() -> Value {
  let engine = Config::default();
  let b = |t, s| engine.budgets.limit(t, s);
  json!({
    "enabled": true,
    "dbPath": "",
    "budgets": {
      "user": { "userGlobal": b(Track::User, Scope::UserGlobal), "workspace": b(Track::User, Scope::Workspace) },
      "agent": { "userGlobal": b(Track::Agent, Scope::UserGlobal), "workspace": b(Track::Agent, Scope::Workspace) },
    },
    "writePolicy": engine.policies.global().as_str(),
    "writePolicies": {},
    "language": "en",
    "snapshotOrder": -50,
    "maxEntriesPerQuery": engine.default_query_limit,
    "commandListLimit": 50,
    "commandAuditLimit": 10,
    "recall": { "historyLimitDefault": 8, "snippetCap": 5, "snippetChars": 300, "windowDays": 30 },
    "panelEntriesLimit": 200,
    "panelAuditLimit": 20,
    "auditRetentionDays": 0,
    "secretPolicy": "refuse",
    "proposals": { "enabled": true, "maxChars": engine.proposal_max_chars, "maxPending": engine.proposal_max_pending },
    "health": { "staleDays": STALE_DAYS },
  })
}

fn write_policy(value: &Value) -> Result<WritePolicy> {
  let text = value.as_str().map(str::to_string);
  let text = text.unwrap_or_else(|| value.to_string());
  let got = json_str(&text);
  let bad = || MemoryError::invalid(format!("invalid writePolicy {got} (one of ask|auto|off)"));
  WritePolicy::parse(&text).ok_or_else(bad)
}

fn secret_policy(value: &Value) -> Result<SecretPolicy> {
  let bad = || format!("secretPolicy must be 'refuse' or 'warn' (got {value})");
  let policy = value.as_str().and_then(SecretPolicy::parse);
  policy.ok_or_else(|| MemoryError::invalid(bad()))
}

/// Check config key `key` (a dotted path; groups key by key) by its name or, for most, by its
/// default's type.
fn check(key: &str, value: &Value, default: &Value) -> Result<()> {
  let must = |what: &str| Err(MemoryError::invalid(format!("{key} must be {what}")));
  let checked = match key {
    // The policy parsers' messages are the reference's as they are, without the prefix.
    "writePolicy" => return write_policy(value).map(drop),
    "writePolicies" => return Policies::parse(WritePolicy::Ask, value).map(drop),
    "recall" | "proposals" | "health" => {
      let mut keys = default.as_object().into_iter().flatten();
      return keys.try_for_each(|(k, d)| check(&format!("{key}.{k}"), &value[k.as_str()], d));
    }
    "budgets" => Budgets::from_config(Some(value)).map(drop),
    "language" if !matches!(value.as_str(), Some("en" | "zh")) => {
      must(&format!("'en' or 'zh' (got {value})"))
    }
    "snapshotOrder" if !value.is_number() => must("a finite number"),
    "auditRetentionDays" => integer(value, key, 0).map(drop),
    "secretPolicy" => secret_policy(value).map(drop),
    _ if default.is_boolean() && !value.is_boolean() => must("a boolean"),
    _ if default.is_string() && !value.is_string() => must("a string"),
    _ if default.is_u64() => integer(value, key, 1).map(drop),
    _ => Ok(()),
  };
  checked.map_err(|e| MemoryError::invalid(format!("dsh-memento config: {e}")))
}

/// `value` over `defaults`: nested default objects merge key by key, an absent key takes its
/// default, anything given (also `null`) stays, unknown keys are kept.
fn merge(defaults: &Value, value: Option<&Value>) -> Value {
  match (defaults, value) {
    (Value::Object(d), Some(Value::Object(v))) => {
      // Unknown keys are kept after the known ones, in their given order.
      let merged = d.iter().map(|(k, def)| (k.clone(), merge(def, v.get(k))));
      let unknown = v.iter().filter(|(key, _)| !d.contains_key(*key));
      let unknown = unknown.map(|(key, given)| (key.clone(), given.clone()));
      Value::Object(merged.chain(unknown).collect())
    }
    (_, given) => given.unwrap_or(defaults).clone(),
  }
}

/// The plugin config: defaults filled, then checked in the reference order. `enabled: false`
/// skips the checks (nothing is registered, nothing opened). `null` reads as `{}`.
///
/// # Errors
/// `INVALID_INPUT` with the reference messages.
pub fn resolve(raw: &Value) -> Result<Value> {
  let defaults = defaults();
  let config = merge(&defaults, Some(raw).filter(|r| !r.is_null()));
  if config["enabled"] == false {
    return Ok(config);
  }
  for (key, default) in defaults.as_object().into_iter().flatten() {
    check(key, &config[key.as_str()], default)?;
  }
  Ok(config)
}

/// The provider options ([`PROVIDER_OPTIONS`]); absent or `null` keys take the engine's
/// defaults.
///
/// # Errors
/// `INVALID_INPUT` naming the first bad option.
pub fn provider(options: &Value) -> Result<ProviderOptions> {
  let given = |name: &str| options.get(name).filter(|v| !v.is_null());
  let engine = Config::default();
  let count = |name: &str, default| given(name).map_or(Ok(default), |v| integer(v, name, 1));
  let config = Config {
    budgets: Budgets::from_config(given("budgets").filter(|b| *b != RECORDED))?,
    policies: Policies::parse(
      given("writePolicy").map_or(Ok(engine.policies.global()), write_policy)?,
      given("writePolicies").unwrap_or(&Value::Null),
    )?,
    proposal_max_chars: count("proposalMaxChars", engine.proposal_max_chars as u64)? as usize,
    proposal_max_pending: count("proposalMaxPending", engine.proposal_max_pending)?,
    secret_policy: given("secretPolicy").map_or(Ok(engine.secret_policy), secret_policy)?,
    default_query_limit: count("defaultQueryLimit", engine.default_query_limit)?,
    similar_hints: given("similarHints").map_or(Ok(engine.similar_hints), |v| {
      v.as_bool()
        .ok_or_else(|| MemoryError::invalid("similarHints must be a boolean"))
    })?,
    source_label: given("sourceLabel").map_or(Ok(engine.source_label), |v| {
      non_empty(v.as_str(), "sourceLabel").map(str::to_string)
    })?,
  };
  let db_path = opt_string(&options["dbPath"], "dbPath")?;
  let retention =
    given("auditRetentionDays").map_or(Ok(0), |v| integer(v, "auditRetentionDays", 0));
  Ok(ProviderOptions {
    config,
    db_path: keys::store_path(db_path.unwrap_or_default()),
    audit_retention_days: retention?,
  })
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::protocol::model::DEFAULT_SOURCE;

  fn message(raw: Value) -> Option<String> {
    resolve(&raw).err().map(|e| e.to_string())
  }

  #[test]
  fn defaults_fill_every_key_and_merge_partial_objects() -> Result<()> {
    assert_eq!(resolve(&json!({}))?, defaults());
    assert_eq!(resolve(&Value::Null)?, defaults());
    let c = resolve(&json!({ "budgets": { "user": { "workspace": 10 } }, "extra": 1 }))?;
    assert_eq!(
      c["budgets"]["user"],
      json!({ "userGlobal": 2000, "workspace": 10 })
    );
    assert_eq!(c["extra"], 1);
    let keys: Vec<&String> = c
      .as_object()
      .map(|o| o.keys().collect())
      .unwrap_or_default();
    assert_eq!(keys.first().map(|k| k.as_str()), Some("enabled"));
    Ok(())
  }

  #[test]
  fn checks_use_the_reference_messages() {
    let cases = [
      (json!({ "budgets": { "user": { "workspace": 0 } } }), "dsh-memento config: budgets.user.workspace must be a positive integer"),
      (json!({ "writePolicy": "maybe" }), "invalid writePolicy \"maybe\" (one of ask|auto|off)"),
      (json!({ "writePolicies": { "user/nowhere": "auto" } }), "invalid writePolicies key \"user/nowhere\" (expected \"track/scope\" or \"source:<name>\")"),
      (json!({ "writePolicies": { "source:claude": "yes" } }), "invalid writePolicies value for \"source:claude\": \"yes\" (one of ask|auto|off)"),
      (json!({ "language": "fr" }), "dsh-memento config: language must be 'en' or 'zh' (got \"fr\")"),
      (json!({ "recall": { "snippetCap": 1.5 } }), "dsh-memento config: recall.snippetCap must be a positive integer"),
      (json!({ "proposals": { "maxPending": 0 } }), "dsh-memento config: proposals.maxPending must be a positive integer"),
      (json!({ "secretPolicy": "log" }), "dsh-memento config: secretPolicy must be 'refuse' or 'warn' (got \"log\")"),
      (json!({ "enabled": "yes" }), "dsh-memento config: enabled must be a boolean"),
      (json!({ "auditRetentionDays": -1 }), "dsh-memento config: auditRetentionDays must be a non-negative integer"),
    ];
    for (raw, expected) in cases {
      assert_eq!(message(raw).as_deref(), Some(expected));
    }
    assert_eq!(
      message(json!({ "enabled": false, "language": "nonsense" })),
      None
    );
    assert_eq!(
      message(json!({ "writePolicies": { "source:my-tool2": "off", "agent/workspace": "auto" } })),
      None
    );
  }

  #[test]
  fn provider_options_default_and_check() -> Result<()> {
    let o =
      provider(&json!({ "writePolicy": "off", "defaultQueryLimit": 5, "dbPath": "/tmp/x.db" }))?;
    assert_eq!(o.config.policies.global(), WritePolicy::Off);
    assert_eq!(o.config.default_query_limit, 5);
    assert_eq!(o.db_path, "/tmp/x.db");
    assert_eq!(o.config.source_label, DEFAULT_SOURCE);
    let bad = |v: Value| provider(&v).err().map(|e| e.to_string());
    assert_eq!(
      bad(json!({ "writePolicy": "sometimes" })).as_deref(),
      Some("invalid writePolicy \"sometimes\" (one of ask|auto|off)")
    );
    assert_eq!(
      bad(json!({ "defaultQueryLimit": 0 })).as_deref(),
      Some("defaultQueryLimit must be a positive integer")
    );
    assert_eq!(
      bad(json!({ "sourceLabel": "" })).as_deref(),
      Some("sourceLabel must be a non-empty string")
    );
    assert!(bad(json!({ "budgets": { "user": { "workspace": -1 } } })).is_some());
    Ok(())
  }
}
