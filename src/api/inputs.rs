//! A batch of entry inputs screened as `add`/`seed` screen them, before anything is asked or
//! written (an import names what it would leave out).
#![forbid(unsafe_code)]

use serde::Serialize;
use serde_json::Value;

use crate::error::{MemoryError, Result};
use crate::protocol::model::parse_entry_input;
use crate::screen;

/// An input the secret screen refuses, and where: what an import names and can leave out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flagged {
  /// Its position in the batch.
  pub index: usize,
  /// What the credential looks like (`a private key`, …), as the refusal names it.
  pub kind: &'static str,
  /// The field it is in: `text`, `source` or `tags`.
  pub field: &'static str,
  /// The flagged line of that field, the credential replaced by `<redacted>`.
  pub excerpt: String,
}

/// The inputs of `inputs` (an array) that a write refuses as credentials, in order: each one's
/// first flagged field of those the write path screens.
///
/// # Errors
/// `INVALID_INPUT` for a batch whose entries are no valid inputs (the first failure, by index).
pub fn screen(inputs: &Value) -> Result<Vec<Flagged>> {
  let not_array = || MemoryError::invalid("entries must be an array");
  let items = inputs.as_array().ok_or_else(not_array)?;
  let mut out = Vec::new();
  for (index, item) in items.iter().enumerate() {
    let e = parse_entry_input(item).map_err(|e| e.at_entry(index))?;
    let tags = e.tags.unwrap_or_default();
    let mut fields = screen::entry_fields(&e.text, e.source.as_deref(), &tags);
    out.extend(fields.find_map(|(field, s)| {
      let (kind, excerpt) = screen::redacted_line(s)?;
      Some(Flagged {
        index,
        kind,
        field,
        excerpt,
      })
    }));
  }
  Ok(out)
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  #[test]
  fn a_bad_input_is_refused_with_its_position() {
    let bad = json!([{ "track": "user", "scope": "user-global", "text": "ok" }, { "track": "user", "scope": "nowhere", "text": "x" }]);
    let e = screen(&bad).err();
    let message = e.as_ref().map(ToString::to_string).unwrap_or_default();
    assert!(
      message.starts_with("entry 1: invalid memory scope: track=\"user\" scope=\"nowhere\""),
      "{message}"
    );
    assert_eq!(e.map(|e| e.details()), Some(json!({ "index": 1 })));
  }

  #[test]
  fn tag_length_counts_utf16_units_and_never_splits_a_pair() {
    let tag = "😀".repeat(17);
    let e = screen(&json!([{ "track": "user", "scope": "workspace", "text": "t", "tags": [tag] }]));
    assert_eq!(
      e.map_err(|e| e.to_string()),
      Err(format!(
        "entry 0: entry tag \"{}\"… exceeds 32 chars",
        "😀".repeat(10)
      ))
    );
  }

  /// Each flagged input once, by its first flagged field; clean ones and absent fields are not.
  #[test]
  fn screening_names_each_flagged_input_its_kind_field_and_redacted_line() {
    let e = |text: &str, extra: Value| {
      let mut v = json!({ "track": "user", "scope": "workspace", "text": text });
      v.as_object_mut()
        .into_iter()
        .for_each(|o| o.extend(extra.as_object().cloned().unwrap_or_default()));
      v
    };
    let key = "sk-proj-4f9Qm2Lx8Vb1Nc7Tz3Rw6Yh0Kd5Js2Pa";
    let batch = json!([
      e("Rotate keys every 90 days", json!({})),
      e(
        &format!("Use {key} here\nand {key}"),
        json!({ "source": "x" })
      ),
      e("clean", json!({ "source": format!("token={key}") })),
      e("clean", json!({ "tags": ["ok", "AKIAIOSFODNN7EXAMPLE1"] })),
      e(
        "Bot token: TELEGRAM_BOT_TOKEN in .env",
        json!({ "source": "CLAUDE.md" })
      ),
    ]);
    let got = screen(&batch).map_err(|e| e.to_string());
    let flagged = |index, kind, field, excerpt: &str| Flagged {
      index,
      kind,
      field,
      excerpt: excerpt.into(),
    };
    assert_eq!(
      got,
      Ok(vec![
        flagged(1, "an OpenAI API key", "text", "Use <redacted> here"),
        flagged(
          2,
          "a password or token assignment",
          "source",
          "token=<redacted>"
        ),
        flagged(3, "an AWS access key id", "tags", "<redacted>"),
      ])
    );
    let bad = screen(&json!([e("ok", json!({})), { "track": "user" }])).map_err(|e| e.to_string());
    assert!(
      bad.as_ref().is_err_and(|m| m.starts_with("entry 1: ")),
      "{bad:?}"
    );
    assert!(screen(&json!({})).is_err());
  }
}
