//! Targeting: the approved id at the approved version, the writer's visible set, consolidate's targets.
use super::*;

#[test]
fn replace_acts_on_the_approved_id_even_if_the_match_became_ambiguous() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  add(
    &mut m,
    "agent",
    "workspace",
    "use pnpm here",
    writer("a", "/w"),
  )?;
  let plan = m.plan_replace(
    &json!({"track": "agent", "scope": "workspace", "match": "pnpm", "text": "use pnpm 9 here", "tags": ["tooling"]}),
    writer("a", "/w"),
  )?;
  assert_eq!(
    plan.payload().text,
    "from:\nuse pnpm here\n\nto:\nuse pnpm 9 here"
  );
  add(
    &mut m,
    "agent",
    "workspace",
    "pnpm is also in this one",
    writer("a", "/w"),
  )?;
  let Finished::Written(v) = m.finish(plan, allow(), Via::default(), false)? else {
    panic!("aborted")
  };
  let v = serde_json::to_value(v)?;
  assert_eq!(v["previous"]["text"], "use pnpm here");
  assert_eq!(v["entry"]["version"], 2);
  assert_eq!(v["entry"]["tags"], json!(["tooling"]));
  assert_eq!(
    texts(&mut m)?,
    vec!["use pnpm 9 here", "pnpm is also in this one"]
  );
  Ok(())
}

/// A write input for one layer: `{track, scope}` plus `extra`'s keys.
fn layer(track: &str, scope: &str, extra: Value) -> Value {
  let mut v = json!({ "track": track, "scope": scope });
  if let (Some(o), Some(x)) = (v.as_object_mut(), extra.as_object()) {
    o.extend(x.clone());
  }
  v
}

#[test]
fn an_approval_lands_only_on_the_version_it_showed() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  let ug = |extra: Value| layer("user", "user-global", extra);
  add(&mut m, "user", "user-global", "likes tea", writer("", "/w"))?;
  add(
    &mut m,
    "user",
    "user-global",
    "owns a cat",
    writer("", "/w"),
  )?;
  let w = || writer("", "/w");
  let remove = m.plan_remove(&ug(json!({"match": "tea"})), w())?;
  let replace = m.plan_replace(&ug(json!({"match": "TEA", "text": "likes black tea"})), w())?;
  let merge = m.plan_consolidate(
    &ug(json!({"matches": ["tea", "cat"], "text": "tea and a cat"})),
    w(),
  )?;
  let id = remove.payload().targets[0].id.clone();
  assert_eq!(
    serde_json::to_value(remove.payload())?["targets"],
    json!([{"id": id, "version": 1}])
  );
  assert_eq!(merge.payload().targets.len(), 2);
  // While the three wait, another session rewrites the target; the new text still matches.
  let rewrite = m.plan_replace(&ug(json!({"match": "tea", "text": "likes green tea"})), w())?;
  m.finish(rewrite, allow(), Via::default(), false)?;
  for plan in [remove, replace, merge] {
    let err = m
      .finish(plan, allow(), Via::default(), false)
      .err()
      .map(|e| (e.code(), e.details()));
    let (code, details) = err.ok_or("a stale approval committed")?;
    assert_eq!(code, "ENTRY_NOT_FOUND");
    assert_eq!(details["reason"], "changed");
    assert_eq!(details["approvedVersion"], 1);
    assert_eq!(
      details["current"],
      json!({"id": id, "version": 2, "text": "likes green tea"})
    );
  }
  assert_eq!(texts(&mut m)?, vec!["likes green tea", "owns a cat"]);
  let actions: Vec<String> = m.audit_list(3)?.into_iter().map(|r| r.action).collect();
  assert_eq!(
    actions,
    vec!["consolidate-failed", "replace-failed", "remove-failed"]
  );
  // A target that vanished is still plainly not found.
  let remove_cat = m.plan_remove(&ug(json!({"match": "cat"})), w())?;
  let again = m.plan_remove(&ug(json!({"match": "cat"})), w())?;
  m.finish(remove_cat, allow(), Via::default(), false)?;
  let err = m
    .finish(again, allow(), Via::default(), false)
    .err()
    .map(|e| e.details());
  assert_eq!(
    err,
    Some(json!({"track": "user", "scope": "user-global", "match": "cat"}))
  );
  Ok(())
}

#[test]
fn an_unchanged_target_lands_whatever_its_case() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  let w = || writer("a", "/w");
  let at = |extra: Value| layer("agent", "workspace", extra);
  add(&mut m, "agent", "workspace", "Always use PNPM", w())?;
  let plan = m.plan_replace(
    &at(json!({"match": "use pnpm", "text": "Always use PNPM 9"})),
    w(),
  )?;
  m.finish(plan, allow(), Via::default(), false)?;
  add(&mut m, "agent", "workspace", "Run CARGO FMT", w())?;
  let plan = m.plan_consolidate(
    &at(json!({"matches": ["use pnpm", "cargo fmt"], "text": "PNPM 9; cargo fmt"})),
    w(),
  )?;
  m.finish(plan, allow(), Via::default(), false)?;
  let plan = m.plan_remove(&at(json!({"match": "pnpm 9; CARGO"})), w())?;
  m.finish(plan, allow(), Via::default(), false)?;
  assert!(texts(&mut m)?.is_empty());
  Ok(())
}

#[test]
fn other_agents_and_workspaces_are_invisible_to_targeting() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  add(
    &mut m,
    "agent",
    "workspace",
    "run make test",
    writer("a", "/w1"),
  )?;
  add(
    &mut m,
    "agent",
    "workspace",
    "run make lint",
    writer("b", "/w1"),
  )?;
  add(
    &mut m,
    "agent",
    "workspace",
    "run make docs",
    writer("a", "/w2"),
  )?;
  let plan = m.plan_remove(
    &json!({"track": "agent", "scope": "workspace", "match": "run make"}),
    writer("a", "/w1"),
  )?;
  assert_eq!(plan.payload().text, "run make test");
  let err = m
    .plan_remove(
      &json!({"track": "agent", "scope": "workspace", "match": "lint"}),
      writer("a", "/w1"),
    )
    .err();
  assert_eq!(err.map(|e| e.code()), Some("ENTRY_NOT_FOUND"));
  let q = m.query(
    &json!({}),
    &QueryOptions {
      visibility: Visibility {
        agent_key: Some("a".into()),
        workspace_key: Some("/w1".into()),
      },
      ..QueryOptions::default()
    },
  )?;
  assert_eq!(q.total, 1);
  Ok(())
}

#[test]
fn consolidate_refuses_two_matches_on_one_entry_before_asking() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  add(&mut m, "user", "workspace", "alpha beta", writer("", "/w"))?;
  let err = m.plan_consolidate(
    &json!({"track": "user", "scope": "workspace", "matches": ["alpha", "beta"], "text": "merged"}),
    writer("", "/w"),
  );
  assert_eq!(err.err().map(|e| e.code()), Some("INVALID_INPUT"));
  Ok(())
}

#[test]
fn consolidate_frees_the_targets_in_the_budget_and_audits_in_order() -> TestResult {
  let (mut m, _dir) = memory(json!({"agent": {"userGlobal": 12}}))?;
  add(&mut m, "agent", "user-global", "aaaaa", writer("", "/w"))?;
  add(&mut m, "agent", "user-global", "bbbbb", writer("", "/w"))?;
  let plan = m.plan_consolidate(
    &json!({"track": "agent", "scope": "user-global", "matches": ["aaa", "bbb"], "text": "aaaaa+bbbbb"}),
    writer("", "/w"),
  )?;
  assert_eq!(
    plan.payload().text,
    "remove: aaa\naaaaa\nremove: bbb\nbbbbb\nnew text: aaaaa+bbbbb"
  );
  m.finish(plan, allow(), Via::default(), false)?;
  assert_eq!(texts(&mut m)?, vec!["aaaaa+bbbbb"]);
  let actions: Vec<String> = m.audit_list(3)?.into_iter().map(|r| r.action).collect();
  assert_eq!(
    actions,
    vec![
      "consolidate-add",
      "consolidate-remove",
      "consolidate-remove"
    ]
  );
  Ok(())
}
