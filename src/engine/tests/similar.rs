//! Similar-write hints and the over-budget plan: what a write is told it is like, and how to make room.
use super::*;

/// The texts an add of `text` to user/workspace of `/w` would be told it is like.
fn hinted(m: &mut Memory, text: &str) -> Result<Vec<String>> {
  let input = json!({"track": "user", "scope": "workspace", "text": text});
  let plan = m.plan_add(&input, writer("", "/w"))?;
  Ok(
    plan
      .payload()
      .similar
      .iter()
      .map(|s| s.text.clone())
      .collect(),
  )
}

/// Run a planned write through an approving gate.
fn approve(m: &mut Memory, plan: Result<Plan>) -> Result<()> {
  m.finish(plan?, allow(), Via::default(), false).map(drop)
}

#[test]
fn hints_follow_every_write_of_this_connection_and_of_another() -> TestResult {
  // A layer read whole is kept between writes: each write of this connection must patch it,
  // and a write of another connection must drop it.
  let (m, dir) = memory(json!({}))?;
  hints_follow(m, &dir)
}

#[test]
fn hints_in_a_layer_too_large_to_compare_whole_follow_every_write() -> TestResult {
  // Past 256 entries the layer is kept as a trigram index instead, patched and dropped alike.
  let big = json!({"user": {"workspace": 1_000_000}});
  let (mut m, dir) = memory(big)?;
  let filler: Vec<Value> = (0..300)
    .map(|i| json!({"track": "user", "scope": "workspace", "text": format!("Unrelated note {i} on topic{i}")}))
    .collect();
  let plan = m.plan_seed(&Value::Array(filler), writer("", "/w"));
  approve(&mut m, plan)?;
  hints_follow(m, &dir)
}

#[test]
fn hints_keep_a_bounded_share_of_the_layers_a_seed_touches() -> TestResult {
  // A seed or import across many workspaces must not keep a copy of every layer it touched,
  // and a layer no longer kept is read again, with the same hints.
  let (mut m, _dir) = memory(json!({"user": {"workspace": 1_000_000}}))?;
  for k in 0..30 {
    let texts: Vec<Value> = (0..100)
      .map(|i| json!({"track": "user", "scope": "workspace", "text": format!("Workspace {k} keeps note {i} on topic{i}x{k}")}))
      .collect();
    let plan = m.plan_seed(&Value::Array(texts), writer("", &format!("/w{k}")));
    approve(&mut m, plan)?;
  }
  let (pooled, large) = m.known.kept();
  assert!(
    pooled <= 800 && large == 0,
    "{pooled} entries read whole and {large} in large layers kept"
  );
  let input =
    json!({"track": "user", "scope": "workspace", "text": "Workspace 0 keeps note 7 on topic7x0"});
  let plan = m.plan_add(&input, writer("", "/w0"))?;
  let similar = &plan.payload().similar;
  assert_eq!(
    similar.first().map(|s| s.text.as_str()),
    Some("Workspace 0 keeps note 7 on topic7x0")
  );
  Ok(())
}

#[test]
fn a_run_of_writes_across_a_few_large_layers_keeps_each_of_them() -> TestResult {
  // Dropping a large layer's index costs a read of the layer on its next write: a seed spread
  // over four layers of 300 must not rebuild them batch after batch.
  let (mut m, _dir) = memory(json!({"user": {"workspace": 1_000_000}}))?;
  let batch = |k: usize| -> Value {
    (0..4 * 300)
      .map(|i| json!({"track": "user", "scope": "workspace", "text": format!("Batch {k} note {i} on topic{i}x{k}"), "workspaceKey": format!("/w{}", i % 4)}))
      .collect()
  };
  for k in 0..2 {
    let plan = m.plan_seed(&batch(k), writer("", "/w0"));
    approve(&mut m, plan)?;
  }
  let plan = m.plan_seed(&batch(2), writer("", "/w0"));
  assert_eq!(m.known.kept().1, 4 * 600, "the four layers' indexes");
  approve(&mut m, plan)?;
  Ok(())
}

/// Hints before and after each kind of write, by this connection and by another.
fn hints_follow(mut m: Memory, dir: &tempfile::TempDir) -> TestResult {
  let w = || writer("", "/w");
  let text = "The staging database runs on port 5432";
  add(&mut m, "user", "workspace", "Prefers tabs", w())?;
  assert!(hinted(&mut m, text)?.is_empty(), "nothing like it yet");
  add(&mut m, "user", "workspace", text, w())?;
  assert_eq!(hinted(&mut m, text)?, [text], "an add of this connection");
  let moved = "The staging database runs on port 6543";
  let input = json!({"track": "user", "scope": "workspace", "match": "5432", "text": moved});
  let plan = m.plan_replace(&input, w());
  approve(&mut m, plan)?;
  assert_eq!(hinted(&mut m, text)?, [moved], "a replace: the new text");
  let input = json!({"track": "user", "scope": "workspace", "match": "6543"});
  let plan = m.plan_remove(&input, w());
  approve(&mut m, plan)?;
  assert!(hinted(&mut m, text)?.is_empty(), "a remove");
  let seed = json!([{"track": "user", "scope": "workspace", "text": text}, {"track": "user", "scope": "workspace", "text": moved}]);
  let plan = m.plan_seed(&seed, w());
  approve(&mut m, plan)?;
  assert_eq!(hinted(&mut m, text)?.len(), 2, "a seed");
  let input = json!({"track": "user", "scope": "workspace", "matches": ["5432", "6543"], "text": "Staging DB: port 7000"});
  let plan = m.plan_consolidate(&input, w());
  approve(&mut m, plan)?;
  assert!(
    hinted(&mut m, text)?
      .iter()
      .all(|t| t == "Staging DB: port 7000"),
    "a consolidate"
  );
  // Another connection (another process, the CLI) writes to the same file.
  let mut other = Memory::new(
    Store::open(&dir.path().join("memory.db"), 0)?,
    m.config.clone(),
  );
  add(&mut other, "user", "workspace", text, w())?;
  assert!(
    hinted(&mut m, text)?.contains(&text.to_string()),
    "another connection's add"
  );
  Ok(())
}

#[test]
fn an_add_names_the_stored_entries_it_duplicates_and_a_replace_not_its_own_target() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  add(
    &mut m,
    "user",
    "workspace",
    "Prefers pnpm over npm for every install",
    writer("", "/w"),
  )?;
  add(
    &mut m,
    "user",
    "workspace",
    "Deploys go through make ship on Fridays",
    writer("", "/w"),
  )?;
  // Another workspace's layer is not this one's.
  add(
    &mut m,
    "user",
    "workspace",
    "Prefers pnpm over npm for every install",
    writer("", "/other"),
  )?;
  let plan = m.plan_add(&json!({"track": "user", "scope": "workspace", "text": "prefers pnpm over npm for every install."}), writer("", "/w"))?;
  let similar = &plan.payload().similar;
  assert_eq!(similar.len(), 1, "{similar:?}");
  assert_eq!(similar[0].text, "Prefers pnpm over npm for every install");
  assert!(
    plan
      .payload()
      .reason
      .contains("≈ likely a duplicate of \"Prefers pnpm over npm for every install\""),
    "{}",
    plan.payload().reason
  );
  let plan = m.plan_replace(&json!({"track": "user", "scope": "workspace", "match": "pnpm", "text": "Prefers pnpm over npm for every install!"}), writer("", "/w"))?;
  assert!(
    plan.payload().similar.is_empty(),
    "the entry a replace rewrites is no hint"
  );
  let seed = json!([
    {"track": "user", "scope": "workspace", "text": "Nothing like the others at all"},
    {"track": "user", "scope": "workspace", "text": "Deploys go through make ship on Fridays."},
  ]);
  let plan = m.plan_seed(&seed, writer("", "/w"))?;
  let hints: Vec<(Option<usize>, &str)> = plan
    .payload()
    .similar
    .iter()
    .map(|s| (s.entry, s.text.as_str()))
    .collect();
  assert_eq!(
    hints,
    [(Some(1), "Deploys go through make ship on Fridays")]
  );
  // Another agent's entries are not this agent's to see; shared and global ones are.
  let text = "Reviews happen in the #code-review channel";
  add(&mut m, "agent", "workspace", text, writer("other", "/w"))?;
  add(
    &mut m,
    "agent",
    "user-global",
    text,
    writer("", "/elsewhere"),
  )?;
  let texts = |plan: &Plan| -> Vec<String> {
    let similar = &plan.payload().similar;
    similar.iter().map(|s| s.text.clone()).collect()
  };
  let input = json!({"track": "agent", "scope": "workspace", "text": text});
  assert!(texts(&m.plan_add(&input, writer("me", "/w"))?).is_empty());
  assert_eq!(texts(&m.plan_add(&input, writer("other", "/w"))?), [text]);
  let input = json!({"track": "agent", "scope": "user-global", "text": text});
  assert_eq!(texts(&m.plan_add(&input, writer("me", "/w"))?), [text]);
  Ok(())
}

#[test]
fn a_full_layer_says_what_to_consolidate_then_what_to_remove() -> TestResult {
  let (mut m, _dir) = memory(json!({"user": {"workspace": 200}}))?;
  for text in [
    "Prefers pnpm over npm for every install",
    "prefers pnpm over npm for every install.",
    "Old note about the staging server",
    "Another old note nobody recalls",
  ] {
    add(&mut m, "user", "workspace", text, writer("", "/w"))?;
  }
  let used = m.budgets(Some("/w"))?[1].used;
  let err = m
    .plan_add(&json!({"track": "user", "scope": "workspace", "text": "x".repeat((200 - used + 60) as usize)}), writer("", "/w"))
    .err();
  let Some(MemoryError::BudgetExceeded {
    suggestions,
    needed,
    limit,
    ..
  }) = err
  else {
    panic!("{err:?}")
  };
  let short = needed - limit;
  // The near-duplicates first: here one text holds the other, so only the longer can be named.
  assert!(
    suggestions[0].why.starts_with("says what the other says"),
    "{suggestions:?}"
  );
  assert_eq!(
    suggestions[0].entries[0]["text"],
    "prefers pnpm over npm for every install."
  );
  let freed: u64 = suggestions.iter().map(|s| s.frees).sum();
  assert!(
    freed >= short,
    "{freed} frees what the write lacks ({short})"
  );
  assert!(suggestions[1..]
    .iter()
    .all(|s| s.action == "remove" && s.why == "never recalled"));
  // Each suggestion is a write the provider plans as it is.
  let w = writer("", "/w");
  for s in &suggestions {
    let planned = match s.action {
      "consolidate" => m.plan_consolidate(&s.input, w.clone()),
      _ => m.plan_remove(&s.input, w.clone()),
    };
    assert!(planned.is_ok(), "{:?}: {:?}", s.input, planned.err());
  }
  Ok(())
}

/// Two facts of one shape: named to the approver as similar, with no advice, and never merged
/// by a plan to make room.
const ORDERS: &str = "The orders service is owned by the growth team";
const BILLING: &str = "The billing service is owned by the growth team";

#[test]
fn a_look_alike_is_similar_without_advice_and_a_full_layer_never_consolidates_it() -> TestResult {
  let (mut m, _dir) = memory(json!({"user": {"workspace": 200}}))?;
  add(&mut m, "user", "workspace", ORDERS, writer("", "/w"))?;
  let input = json!({"track": "user", "scope": "workspace", "text": BILLING});
  let plan = m.plan_add(&input, writer("", "/w"))?;
  let similar = &plan.payload().similar;
  assert_eq!(similar.len(), 1, "{similar:?}");
  assert_eq!(similar[0].relation, crate::similar::Relation::Related);
  let reason = &plan.payload().reason;
  assert!(reason.contains("≈ similar to \""), "{reason}");
  assert!(!reason.contains("consider"), "{reason}");
  approve(&mut m, Ok(plan))?;
  for text in [
    "Old note about the staging server",
    "Another old note nobody recalls",
  ] {
    add(&mut m, "user", "workspace", text, writer("", "/w"))?;
  }
  let used = m.budgets(Some("/w"))?[1].used;
  let text = "x".repeat((200 - used + 150) as usize);
  let input = json!({"track": "user", "scope": "workspace", "text": text});
  let err = m.plan_add(&input, writer("", "/w")).err();
  let Some(MemoryError::BudgetExceeded { suggestions, .. }) = err else {
    panic!("{err:?}")
  };
  assert!(!suggestions.is_empty());
  // Only removals, each of one entry, for being least recalled: nothing says the two are one.
  for s in &suggestions {
    assert_eq!(s.action, "remove", "{s:?}");
    assert_eq!(s.entries.len(), 1, "{s:?}");
    assert_eq!(s.why, "never recalled", "{s:?}");
  }
  Ok(())
}

/// Profiles made ahead on two threads are each text's own, in the order of the texts.
#[test]
fn profiles_made_on_two_threads_are_each_texts_own_in_order() {
  let texts: Vec<String> = (0..40)
    .map(|i| {
      format!(
        "service {i} listens on port {} and 部署在 cluster-{i}",
        8000 + i
      )
    })
    .collect();
  let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
  let made = crate::engine::similar::profiles_of(&texts);
  assert_eq!(made.len(), texts.len());
  for (text, profile) in texts.iter().zip(&made) {
    assert_eq!(
      format!("{profile:?}"),
      format!("{:?}", crate::similar::Profile::of(text))
    );
  }
}
