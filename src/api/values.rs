//! The checks one argument or option value must pass, with the message a person sees: shared
//! by the call arguments and the configuration, so that the configuration needs nothing of the
//! calls.
#![forbid(unsafe_code)]

use serde_json::Value;

use crate::error::{MemoryError, Result};

/// An optional string argument: absent (`null`), else a string.
///
/// # Errors
/// `INVALID_INPUT` (`{what} must be a string`) for anything else.
pub fn opt_string<'a>(value: &'a Value, what: &str) -> Result<Option<&'a str>> {
  match value {
    Value::Null => Ok(None),
    Value::String(s) => Ok(Some(s)),
    _ => Err(MemoryError::invalid(format!("{what} must be a string"))),
  }
}

/// `value` as a count of at least `min` (0 or 1).
///
/// # Errors
/// `INVALID_INPUT` (`{name} must be a positive integer`, or non-negative when `min` is 0).
pub fn integer(value: &Value, name: &str, min: u64) -> Result<u64> {
  let what = if min == 0 { "non-negative" } else { "positive" };
  let bad = || MemoryError::invalid(format!("{name} must be a {what} integer"));
  value.as_u64().filter(|n| *n >= min).ok_or_else(bad)
}
