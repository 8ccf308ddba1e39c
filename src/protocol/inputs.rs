//! A batch of entry inputs checked as `add`/`seed` check them, before anything is asked or
//! written (imports validate a whole document first).
#![forbid(unsafe_code)]

use serde::Serialize;
use serde_json::{json, Value};

use crate::protocol::model::parse_entry_input;

/// The outcome of [`check`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Checked {
  /// Every input is valid: their normalized copies (tags trimmed and deduped; empty tags and
  /// absent optional fields left out).
  Valid {
    /// The normalized inputs, in order.
    inputs: Vec<Value>,
  },
  /// The first invalid input.
  Invalid {
    /// Its position.
    index: usize,
    /// What is wrong with it (the provider's message).
    message: String,
  },
}

/// Check every input of `inputs` (an array) with the model's parser.
pub fn check(inputs: &Value) -> Checked {
  let Some(items) = inputs.as_array() else {
    let message = "entries must be an array".to_string();
    return Checked::Invalid { index: 0, message };
  };
  let mut out = Vec::with_capacity(items.len());
  for (index, item) in items.iter().enumerate() {
    let e = match parse_entry_input(item) {
      Ok(e) => e,
      Err(e) => {
        return Checked::Invalid {
          index,
          message: e.to_string(),
        }
      }
    };
    let mut v = json!({ "track": e.track, "scope": e.scope, "text": e.text });
    let optional = [
      ("source", e.source.map(Value::from)),
      ("tags", e.tags.filter(|t| !t.is_empty()).map(Value::from)),
      ("workspaceKey", e.workspace_key.map(Value::from)),
      ("agentKey", e.agent_key.map(Value::from)),
    ];
    for (key, value) in optional {
      if let Some(value) = value {
        v[key] = value;
      }
    }
    out.push(v);
  }
  Checked::Valid { inputs: out }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn normalizes_valid_inputs_and_names_the_first_bad_one() {
    let ok = check(
      &json!([{ "track": "user", "scope": "workspace", "text": "t", "tags": [" a", "a"], "agentKey": "" }]),
    );
    let want = json!([{ "track": "user", "scope": "workspace", "text": "t", "tags": ["a"], "agentKey": "" }]);
    assert_eq!(
      ok,
      Checked::Valid {
        inputs: want.as_array().cloned().unwrap_or_default()
      }
    );
    let bad = check(
      &json!([{ "track": "user", "scope": "user-global", "text": "ok" }, { "track": "user", "scope": "nowhere", "text": "x" }]),
    );
    let Checked::Invalid { index, message } = bad else {
      panic!("accepted")
    };
    assert_eq!(index, 1);
    assert!(
      message.starts_with("invalid memory scope: track=\"user\" scope=\"nowhere\""),
      "{message}"
    );
  }

  #[test]
  fn tag_length_counts_utf16_units_and_never_splits_a_pair() {
    let tag = "😀".repeat(17);
    let Checked::Invalid { message, .. } =
      check(&json!([{ "track": "user", "scope": "workspace", "text": "t", "tags": [tag] }]))
    else {
      panic!("a 34-unit tag was accepted")
    };
    assert_eq!(
      message,
      format!("entry tag \"{}\"… exceeds 32 chars", "😀".repeat(10))
    );
  }
}
