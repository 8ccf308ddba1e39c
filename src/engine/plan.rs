//! Planning a write: validate, resolve the target in the writer's visible set, screen, pre-check
//! the budget and build the approve-what-you-see payload. Nothing is written here.
#![forbid(unsafe_code)]

use super::*;

impl Memory {
  pub(super) fn new_entry(&self, input: EntryInput, writer: &Writer) -> Entry {
    let own = || writer.workspace_key.clone();
    let label = || self.config.source_label.clone();
    let workspace_key = match input.scope {
      Scope::UserGlobal => String::new(),
      Scope::Workspace => input.workspace_key.unwrap_or_else(own),
    };
    Entry {
      track: input.track,
      scope: input.scope,
      workspace_key,
      agent_key: input.agent_key.unwrap_or_else(|| writer.agent_key.clone()),
      text: input.text,
      source: input.source.unwrap_or_else(label),
      tags: input.tags.unwrap_or_default(),
      version: 1,
      session_id: Some(writer.session_id.clone()),
      ..Entry::default()
    }
  }

  /// The visible set a targeting input picks: its explicit non-empty keys, else the writer's.
  pub(super) fn visible(ws: Option<&str>, agent: Option<&str>, writer: &Writer) -> Visibility {
    let pick =
      |key: Option<&str>, own: &str| Some(key.filter(|k| !k.is_empty()).unwrap_or(own).into());
    Visibility {
      workspace_key: pick(ws, &writer.workspace_key),
      agent_key: pick(agent, &writer.agent_key),
    }
  }

  /// Screen new texts: refuse (or, under `warn`, flag) credentials; flag instruction-like text
  /// and invisible characters for the approver.
  pub(super) fn screen<'t>(&self, texts: impl IntoIterator<Item = &'t str>) -> Result<Vec<String>> {
    let mut found: Vec<String> = Vec::new();
    for text in texts {
      if let Some(kind) = screen::secret_kind(text) {
        if self.config.secret_policy == SecretPolicy::Refuse {
          let message = format!(
            "entry text looks like it contains {kind}; memory is injected into every future prompt and is no place for credentials, so nothing was written (secretPolicy 'warn' asks anyway)"
          );
          return Err(MemoryError::refused(message, Some("secret")));
        }
        found.push(format!("possible secret: {kind}"));
      }
      found.extend(screen::warnings(text));
      found.extend(crate::protocol::snapshot::structure_warning(text));
    }
    found.dedup();
    Ok(found)
  }

  /// The one entry of a layer of the visible set whose text contains `needle`.
  pub(super) fn resolve(
    &self,
    track: Track,
    scope: Scope,
    vis: &Visibility,
    needle: &str,
  ) -> Result<Target> {
    let folded = fold(needle);
    let filter = Filter {
      track: Some(track.as_str()),
      scope: Some(scope.as_str()),
      visibility: Some(vis),
      folded: Some(&folded),
      only: None,
    };
    let mut hits = reads::oldest_first(self.store.conn(), &filter).map_err(|e| self.fail(e))?;
    match hits.len() {
      0 => Err(not_found(track, scope, needle, None)),
      1 => Ok(Target::of(hits.remove(0), needle, vis)),
      n => Err(MemoryError::AmbiguousMatch {
        track: track.as_str().into(),
        scope: scope.as_str().into(),
        r#match: needle.into(),
        candidates: n as u64,
        sample: hits.iter().map(|e| excerpt(&e.text, 200)).collect(),
      }),
    }
  }

  /// Who writes, as the policy's `source:` keys name it: the write context's source, else the
  /// source the input names (`given`), else the provider's label. Never the source of an entry
  /// a remove or replace changes, nor the sources an imported file gives its entries.
  pub(super) fn writer_source<'a>(&'a self, writer: &'a Writer, given: Option<&'a str>) -> &'a str {
    let label = self.config.source_label.as_str();
    writer.source.as_deref().or(given).unwrap_or(label)
  }

  /// Pre-check that `delta` more units fit `e`'s layer; a refusal suggests what would make room
  /// there, as `agent` sees it.
  pub(super) fn precheck(&mut self, e: &Entry, delta: i64, agent: &str) -> Result<()> {
    let (conn, budgets) = (self.store.conn(), &self.config.budgets);
    let checked = usage_after(conn, budgets, (e, Some(delta)), self.path());
    checked.map(drop).map_err(|x| self.with_room(x, e, agent))
  }

  /// Plan an `add`.
  ///
  /// # Errors
  /// `INVALID_INPUT`, `BUDGET_EXCEEDED` (pre-check).
  pub fn plan_add(&mut self, input: &Value, writer: Writer) -> Result<Plan> {
    let entry = self.new_entry(model::parse_entry_input(input)?, &writer);
    let warnings = self.screen(entry_strings(&entry))?;
    let agent = writer.agent_key.as_str();
    self.precheck(&entry, units(&entry.text) as i64, agent)?;
    let similar = self.hints(&[(None, &entry)], agent, None)?;
    let by = self.writer_source(&writer, Some(&entry.source));
    let (text, source) = (Some(entry.text.clone()), Some(entry.source.clone()));
    let change = (Vec::new(), vec![Shown::new(&entry)]);
    let payload = self.build("add", text, source, change, (warnings, similar), by);
    Ok(Plan::new(writer, payload, Op::Add(entry, None)))
  }

  /// Plan a `replace`.
  ///
  /// # Errors
  /// `INVALID_INPUT`, `ENTRY_NOT_FOUND`, `AMBIGUOUS_MATCH`, `BUDGET_EXCEEDED`.
  pub fn plan_replace(&mut self, input: &Value, writer: Writer) -> Result<Plan> {
    let (i, needle) = model::parse_change(input, model::parse_match)?;
    let vis = Self::visible(i.workspace_key.as_deref(), i.agent_key.as_deref(), &writer);
    let tags = i.tags.as_deref().unwrap_or(&[]);
    let fields = screen::entry_fields(&i.text, i.source.as_deref(), tags);
    let warnings = self.screen(fields.map(|(_, s)| s))?;
    let target = self.resolve(i.track, i.scope, &vis, &needle)?;
    let initial = &target.shown;
    let agent = writer.agent_key.as_str();
    let delta = units(&i.text) as i64 - units(&initial.text) as i64;
    self.precheck(initial, delta, agent)?;
    let shows = format!("from:\n{}\n\nto:\n{}", initial.text, i.text);
    let label = || self.config.source_label.clone();
    let source = i.source.clone().unwrap_or_else(label);
    // The entry as the replace leaves it: what the approver sees, and what else it is like.
    let mut rewritten = initial.clone();
    rewritten.version += 1;
    rewritten.text.clone_from(&i.text);
    if let Some(tags) = &i.tags {
      rewritten.tags.clone_from(tags);
    }
    let similar = self.hints(&[(None, &rewritten)], agent, Some(&initial.id))?;
    let (before, after) = (Shown::stored(initial), Shown::stored(&rewritten));
    let change = (vec![before], vec![after]);
    let notes = (warnings, similar);
    let by = self.writer_source(&writer, i.source.as_deref());
    let payload = self.build("replace", Some(shows), Some(source), change, notes, by);
    let to = (i.text, i.tags);
    Ok(Plan::new(writer, payload, Op::Replace(target, to)))
  }

  /// Plan a `remove`.
  ///
  /// # Errors
  /// `INVALID_INPUT`, `ENTRY_NOT_FOUND`, `AMBIGUOUS_MATCH`.
  pub fn plan_remove(&mut self, input: &Value, writer: Writer) -> Result<Plan> {
    let obj = as_object(input);
    let (track, scope) = model::parse_layer(&obj)?;
    let needle = model::parse_match(&obj)?;
    let writer_source = model::parse_source(&obj)?;
    let (ws, agent) = model::parse_keys(&obj)?;
    let vis = Self::visible(ws.as_deref(), agent.as_deref(), &writer);
    let target = self.resolve(track, scope, &vis, &needle)?;
    let entry = &target.shown;
    // The writer's source decides, never the removed entry's (which an import may have set).
    let by = self.writer_source(&writer, writer_source.as_deref());
    let (text, source) = (Some(entry.text.clone()), Some(entry.source.clone()));
    let change = (vec![Shown::stored(entry)], Vec::new());
    let payload = self.build("remove", text, source, change, Default::default(), by);
    Ok(Plan::new(writer, payload, Op::Remove(target)))
  }

  /// Plan a `consolidate`. Two matches naming the same entry fail here, before approval.
  ///
  /// # Errors
  /// `INVALID_INPUT`, `ENTRY_NOT_FOUND`, `AMBIGUOUS_MATCH`, `BUDGET_EXCEEDED`.
  pub fn plan_consolidate(&mut self, input: &Value, writer: Writer) -> Result<Plan> {
    let (input, matches) = model::parse_change(input, model::parse_matches)?;
    let (ws, agent) = (input.workspace_key.as_deref(), input.agent_key.as_deref());
    let vis = Self::visible(ws, agent, &writer);
    let new = self.new_entry(input, &writer);
    let (track, scope) = (new.track, new.scope);
    let warnings = self.screen(entry_strings(&new))?;
    let mut targets: Vec<Target> = Vec::with_capacity(matches.len());
    for needle in &matches {
      let target = self.resolve(track, scope, &vis, needle)?;
      if let Some(i) = targets.iter().position(|t| t.shown.id == target.shown.id) {
        return Err(MemoryError::invalid(format!(
          "consolidate matches {} and {} name the same entry; give each entry once",
          json_str(&targets[i].needle),
          json_str(needle)
        )));
      }
      targets.push(target);
    }
    let found = targets.iter().map(|t| &t.shown);
    let in_layer = found.clone().filter(|e| layer_of(e) == layer_of(&new));
    let freed: u64 = in_layer.map(|e| units(&e.text)).sum();
    let delta = units(&new.text) as i64 - freed as i64;
    self.precheck(&new, delta, &writer.agent_key)?;
    let part = |t: &Target| format!("remove: {}\n{}", t.needle, excerpt(&t.shown.text, 300));
    let mut parts: Vec<String> = targets.iter().map(part).collect();
    parts.push(format!("new text: {}", new.text));
    let by = self.writer_source(&writer, Some(&new.source));
    let change = (found.map(Shown::stored).collect(), vec![Shown::new(&new)]);
    let (text, source) = (Some(parts.join("\n")), Some(new.source.clone()));
    let notes = (warnings, Vec::new());
    let payload = self.build("consolidate", text, source, change, notes, by);
    Ok(Plan::new(writer, payload, Op::Consolidate(targets, new)))
  }

  /// Plan a `seed`: every input validated and the whole batch budget-checked before approval.
  ///
  /// # Errors
  /// `INVALID_INPUT` (naming the failing item), `BUDGET_EXCEEDED`.
  pub fn plan_seed(&mut self, inputs: &Value, writer: Writer) -> Result<Plan> {
    let items = match inputs.as_array() {
      Some(items) if !items.is_empty() => items,
      _ => return Err(MemoryError::invalid("seed requires a non-empty entry list")),
    };
    let mut entries = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
      let input = model::parse_entry_input(item).map_err(|e| e.at_entry(i))?;
      entries.push(self.new_entry(input, &writer));
    }
    let warnings = self.screen(entries.iter().flat_map(entry_strings))?;
    for (first, delta) in per_layer(entries.iter().map(|e| (e, units(&e.text) as i64))) {
      self.precheck(first, delta, &writer.agent_key)?;
    }
    let after = entries.iter().map(Shown::new).collect();
    let news = entries.iter().enumerate().map(|(i, e)| (Some(i), e));
    let similar = self.hints(&news.collect::<Vec<_>>(), &writer.agent_key, None)?;
    let notes = (warnings, similar);
    // An import's entries keep the sources their file gives them; who imports decides.
    let by = self.writer_source(&writer, None);
    let payload = self.build("seed", None, None, (Vec::new(), after), notes, by);
    Ok(Plan::new(writer, payload, Op::Seed(entries)))
  }

  /// Plan the approval of a pending proposal: a gated `add` with source `proposal`.
  ///
  /// # Errors
  /// `PROPOSAL_NOT_FOUND`, `INVALID_INPUT`, `BUDGET_EXCEEDED`.
  pub fn plan_approve(&mut self, id: &str, writer: Writer) -> Result<Plan> {
    let proposal = super::records::pending_proposal(self.store.conn(), id, self.store.path())?;
    let input = json!({
      "track": proposal.track, "scope": proposal.scope, "text": proposal.text, "source": "proposal",
      "workspaceKey": proposal.workspace_key, "agentKey": proposal.agent_key,
    });
    let mut plan = self.plan_add(&input, writer)?;
    if let Op::Add(_, approves) = &mut plan.op {
      *approves = Some(proposal.id);
    }
    Ok(plan)
  }

  /// The payload of `action`: the protocol's `text` (`None`: the listing of a seed, which is its
  /// reason without the first line) and `source`, the change (`before` → `after`) and the
  /// warnings; the reason, digest, targets, seed layers and the policy that decides (of the
  /// layers the change touches, for `by`, who writes) follow from them.
  pub(super) fn build(
    &self,
    action: &'static str,
    text: Option<String>,
    source: Option<String>,
    (before, after): (Vec<Shown>, Vec<Shown>),
    (warnings, similar): (Vec<String>, Vec<Similar>),
    by: &str,
  ) -> (Payload, WritePolicy) {
    let touched = before.iter().chain(&after).map(|s| (s.track, s.scope, by));
    let (policy, decision) = self.config.policies.decide_all(touched);
    let seed = action == "seed";
    let layer = before.first().or(after.first());
    let (track, scope) = match layer {
      Some(e) if !seed => (e.track.as_str(), e.scope.as_str()),
      _ => ("batch", "batch"),
    };
    let targets = before.iter().filter_map(|e| {
      let (id, version) = (e.id.clone()?, e.version?);
      Some(Version { id, version })
    });
    let reason = change::reason(action, &before, &after, &similar, &warnings);
    let listing = reason.split_once('\n').map_or("", |(_, rest)| rest);
    let text = text.unwrap_or_else(|| listing.to_string());
    let layers = seed.then(|| change::layer_shares(&after));
    let payload = Payload {
      action,
      track: track.into(),
      scope: scope.into(),
      text,
      source,
      count: seed.then_some(after.len()),
      targets: targets.collect(),
      layers: layers.unwrap_or_default(),
      reason,
      digest: change::digest(action, &before, &after),
      reverts: None,
      warnings,
      similar,
      before,
      after,
      policy: decision,
    };
    (payload, policy)
  }
}

/// Each layer `changes` touch, by its first entry, with the units they add there (less what they
/// free), in first-appearance order. Linear in the changes, however many layers (workspaces) they
/// spread over.
pub(super) fn per_layer<'a>(
  changes: impl IntoIterator<Item = (&'a Entry, i64)>,
) -> Vec<(&'a Entry, i64)> {
  let mut layers: Vec<(&Entry, i64)> = Vec::new();
  let mut index: std::collections::HashMap<(Track, Scope, &str), usize> = Default::default();
  for (e, delta) in changes {
    let at = *index.entry(layer_of(e)).or_insert_with(|| {
      layers.push((e, 0));
      layers.len() - 1
    });
    layers[at].1 += delta;
  }
  layers
}

/// Every caller-chosen string of a new entry (what secret screening looks at).
pub(super) fn entry_strings(e: &Entry) -> impl Iterator<Item = &str> {
  screen::entry_fields(&e.text, Some(&e.source), &e.tags).map(|(_, s)| s)
}
