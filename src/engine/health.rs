//! The health check (`dsh-memento doctor`, `/memory doctor`, the panel's Health view): per
//! layer, near-duplicates, updates of one fact, entries not recalled for a long time, entries
//! naming files that no longer exist under their workspace, entries the credential screen now
//! flags, and oversized entries — each with the gated write that fixes it. It changes nothing.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::path::Path;

use super::similar::{consolidation, removal};
use super::*;
use crate::error::Suggestion;
use crate::protocol::paths;
use crate::similar::Relation;
use crate::text::hex_digest;

/// A day, in ms.
const DAY_MS: i64 = 86_400_000;
/// A layer of more entries than this is checked for similar pairs through the FTS index, entry by
/// entry, rather than pair by pair.
const PAIRWISE_MAX: usize = 512;

/// What a health check looks at.
#[derive(Debug, Clone)]
pub struct HealthOptions {
  /// Entries not recalled for this many days (or never, and older) are reported.
  pub stale_days: u64,
  /// Only the entries a session sees (`None`s: every entry).
  pub visibility: Visibility,
  /// Now, in epoch ms.
  pub now: i64,
}

/// One finding of a health check.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
  /// A short stable id: the first 12 hex digits of the digest of its kind, entries and fix.
  pub id: String,
  /// `duplicates`, `updates`, `stale`, `missing-path`, `secret` or `oversized`.
  pub kind: &'static str,
  /// The layer: track.
  pub track: Track,
  /// The layer: scope.
  pub scope: Scope,
  /// The layer's workspace (`''` for user-global).
  pub workspace_key: String,
  /// The entries' agent (`''`: shared).
  pub agent_key: String,
  /// The entries, `{id, version, text}`.
  pub entries: Vec<Value>,
  /// What is wrong, in words.
  pub detail: String,
  /// The gated write that fixes it, when one does.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub fix: Option<Suggestion>,
}

/// A health check's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Health {
  /// Entries looked at.
  pub checked: u64,
  /// What was found, layer by layer.
  pub findings: Vec<Finding>,
}

impl Memory {
  /// Check every layer of `opts.visibility`'s entries. Reads only.
  ///
  /// # Errors
  /// `STORE_CORRUPT`.
  pub fn health(&mut self, opts: &HealthOptions) -> Result<Health> {
    let all = self.list_entries(Some(&opts.visibility))?;
    let checked = all.len() as u64;
    let mut layers = BTreeMap::<_, Vec<Entry>>::new();
    for e in all {
      let (track, scope, workspace) = layer_of(&e);
      let layer = (track.as_str(), scope.as_str(), workspace.to_string());
      let key = (layer, e.agent_key.clone());
      layers.entry(key).or_default().push(e);
    }
    let found = layers.values().map(|layer| self.layer_health(layer, opts));
    let findings = found.collect::<Result<Vec<_>>>()?.concat();
    Ok(Health { checked, findings })
  }

  fn layer_health(&mut self, layer: &[Entry], opts: &HealthOptions) -> Result<Vec<Finding>> {
    let Some(first) = layer.first() else {
      return Ok(Vec::new());
    };
    let limit = self.config.budgets.limit(first.track, first.scope);
    let mut out = Vec::new();
    let finding = |kind, indexes: &[usize], detail: String, fix: Option<Suggestion>| {
      let entries = indexes.iter().map(|&i| &layer[i]);
      let entries = entries.map(|e| json!({ "id": e.id, "version": e.version, "text": e.text }));
      // The finding's kind and entries, and its fix: two findings of one entry (oversized and
      // naming a missing file) share a fix, never an id.
      let ids: Vec<&str> = indexes.iter().map(|&i| layer[i].id.as_str()).collect();
      let seed = json!([kind, ids, fix.as_ref().map(|f| &f.input)]);
      Finding {
        id: hex_digest(seed.to_string().as_bytes())[..12].to_string(),
        kind,
        track: first.track,
        scope: first.scope,
        workspace_key: layer_of(first).2.to_string(),
        agent_key: first.agent_key.clone(),
        entries: entries.collect(),
        detail,
        fix,
      }
    };
    let groups = match layer.len() <= PAIRWISE_MAX {
      true => self.similar_groups(layer),
      false => self.similar_groups_indexed(layer)?,
    };
    for (group, relation) in &groups {
      let kind = match relation {
        Relation::Update => "updates",
        _ => "duplicates",
      };
      let fix = consolidation(layer, group, *relation);
      let n = group.len();
      let detail = match fix.as_ref().map(|f| (f.action, f.entries.len(), f.frees)) {
        Some(("consolidate", taken, frees)) if taken < n => format!(
          "{n} entries say one fact; a consolidate takes {taken} of them at a time and this one frees {frees} chars"
        ),
        Some((action, _, frees)) => format!("{n} entries say one fact; {action} frees {frees} chars"),
        None => format!("{n} entries say one fact"),
      };
      out.push(finding(kind, group, detail, fix));
    }
    let workspace = Path::new(&first.workspace_key);
    let workspace_here = first.scope == Scope::Workspace && workspace.is_dir();
    for (i, e) in layer.iter().enumerate() {
      let age = (opts.now - e.last_recalled.unwrap_or(e.created_at)) / DAY_MS;
      let stale = (age >= opts.stale_days as i64).then(|| match e.last_recalled {
        None => format!("never recalled in the {age} days since it was written"),
        Some(_) => format!("not recalled for {age} days"),
      });
      let named = workspace_here.then(|| paths::named(&e.text));
      let gone = |p: &String| !workspace.join(p.trim_start_matches("./")).exists();
      let missing: Vec<String> = named.into_iter().flatten().filter(gone).collect();
      let missing = (!missing.is_empty()).then(|| {
        let s = if missing.len() > 1 { "" } else { "s" };
        let (names, ws) = (missing.join(", "), &first.workspace_key);
        format!("names {names} that no longer exist{s} under {ws}")
      });
      let mut fields = screen::entry_fields(&e.text, Some(&e.source), &e.tags);
      let secret = fields.find_map(|(field, s)| Some((field, screen::secret_kind(s)?)));
      let secret = secret.map(|(field, kind)| {
        format!("its {field} looks like it holds {kind}: memory is injected into every prompt")
      });
      let size = units(&e.text);
      let oversized = (size * 4 > limit).then(|| {
        format!("{size} chars: more than a quarter of the layer's {limit}; split it, shorten it, or remove it")
      });
      // Each check's kind, the reason its fix gives, and what it found.
      let checks = [
        ("stale", "stale", stale),
        ("missing-path", "names files that no longer exist", missing),
        ("secret", "looks like a credential", secret),
        ("oversized", "oversized", oversized),
      ];
      for (kind, why, detail) in checks {
        out.extend(detail.map(|d| finding(kind, &[i], d, removal(layer, i, why))));
      }
    }
    Ok(out)
  }
}
