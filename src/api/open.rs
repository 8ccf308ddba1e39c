//! Opening the engine from the provider's options: the store they name, and the budgets the
//! plugin records in it for the CLI.
#![forbid(unsafe_code)]

use serde_json::Value;

use super::config::{provider, RECORDED, RECORDED_KEY};
use crate::engine::Memory;
use crate::error::Result;
use crate::protocol::model::Budgets;
use crate::store::Store;

/// The engine over the store `options` name, opened (created if needed). With
/// `recordBudgets: true` (the plugin) its `budgets` are recorded in the store; `budgets:
/// "recorded"` (the CLI without `--budgets`) uses the recorded ones, or the defaults if none.
///
/// # Errors
/// `INVALID_INPUT` for a bad option; `STORE_CORRUPT`, `STORE_UNSUPPORTED_VERSION`.
pub fn open(options: &Value) -> Result<Memory> {
  let mut o = provider(options)?;
  let mut store = Store::open(std::path::Path::new(&o.db_path), o.audit_retention_days)?;
  let budgets = options.get("budgets").filter(|b| !b.is_null());
  if budgets == Some(&Value::from(RECORDED)) {
    if let Some(recorded) = store.meta(RECORDED_KEY)? {
      let value = serde_json::from_str(&recorded).unwrap_or(Value::Null);
      o.config.budgets = Budgets::from_config(Some(&value))?;
    }
  } else if options.get("recordBudgets") == Some(&Value::Bool(true)) {
    store.set_meta(RECORDED_KEY, &budgets.unwrap_or(&Value::Null).to_string())?;
  }
  Ok(Memory::new(store, o.config))
}
