//! The provider's API as the binding calls it, above the engine: call arguments and options
//! (JSON values the binding converted), the reads and the rules by name, the plugin's and the
//! provider's configuration, a batch of entry inputs screened before an import asks, and
//! opening the engine from the options.
pub mod calls;
pub mod config;
pub mod inputs;
pub mod open;
pub mod reads;
pub mod rules;
pub mod values;
pub mod writes;

use serde::Serialize;

use crate::error::{json_str, MemoryError, Result};

/// A read's or a rule's answer as the JSON text the binding hands to V8.
fn to_json(value: &impl Serialize) -> Result<String> {
  serde_json::to_string(value).map_err(|e| MemoryError::invalid(e.to_string()))
}

/// The refusal of a call by a name that is none of `names`: `no {what} is named "…"; the
/// {what}s are …`.
fn unknown(what: &str, name: &str, names: &str) -> MemoryError {
  let (name, names) = (json_str(name), names.replace(' ', ", "));
  let message = format!("no {what} is named {name}; the {what}s are {names}");
  MemoryError::invalid(message)
}
