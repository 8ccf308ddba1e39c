//! The health check: each kind of finding, with its gated fix.
use super::*;

#[test]
fn the_health_check_finds_each_kind_with_its_gated_fix() -> TestResult {
  let (mut m, dir) = memory(json!({"agent": {"workspace": 400}}))?;
  let ws = dir.path().to_string_lossy().into_owned();
  std::fs::write(dir.path().join("present.md"), "x")?;
  let w = writer("", &ws);
  for text in [
    "Prefers pnpm over npm for every install",
    "prefers pnpm over npm for every install.",
    "The notes live in present.md and in gone/away.rs",
    "Old fact nobody recalls",
    &"long ".repeat(30),
  ] {
    add(&mut m, "agent", "workspace", text, w.clone())?;
  }
  plant(
    &mut m,
    "agent",
    "workspace",
    "token: ghp_1A2b3C4d5E6f7G8h9I0jK1lM2nO3pQ4rS5tU",
    w.clone(),
  )?;
  m.store.conn().execute(
    "UPDATE entries SET created_at = 0 WHERE text = 'Old fact nobody recalls'",
    [],
  )?;
  let now = now_ms();
  let health = m.health(&HealthOptions {
    stale_days: 30,
    visibility: Visibility::default(),
    now,
  })?;
  let mut kinds: Vec<(&str, usize)> = health
    .findings
    .iter()
    .map(|f| (f.kind, f.entries.len()))
    .collect();
  kinds.sort();
  assert_eq!(
    kinds,
    [
      ("duplicates", 2),
      ("missing-path", 1),
      ("oversized", 1),
      ("secret", 1),
      ("stale", 1)
    ],
    "{:#?}",
    health.findings
  );
  let missing = health
    .findings
    .iter()
    .find(|f| f.kind == "missing-path")
    .ok_or("missing-path")?;
  assert!(
    missing.detail.contains("gone/away.rs") && !missing.detail.contains("present.md"),
    "{}",
    missing.detail
  );
  // Every fix is a write the provider plans as it is; nothing was changed.
  for f in &health.findings {
    let fix = f.fix.as_ref().ok_or("a fix")?;
    let planned = match fix.action {
      "consolidate" => m.plan_consolidate(&fix.input, w.clone()),
      _ => m.plan_remove(&fix.input, w.clone()),
    };
    assert!(planned.is_ok(), "{}: {:?}", f.kind, planned.err());
  }
  assert_eq!(m.list_entries(None)?.len(), 6);
  Ok(())
}

/// One entry both oversized and naming a missing file: two findings, one fix, two ids.
#[test]
fn two_findings_of_one_entry_have_two_ids() -> TestResult {
  let (mut m, dir) = memory(json!({"agent": {"workspace": 400}}))?;
  let ws = dir.path().to_string_lossy().into_owned();
  let text = format!("See gone/away.rs {}", "long ".repeat(30));
  add(&mut m, "agent", "workspace", &text, writer("", &ws))?;
  let opts = HealthOptions {
    stale_days: 90,
    visibility: Visibility::default(),
    now: now_ms(),
  };
  let health = m.health(&opts)?;
  let found: Vec<(&str, &str)> = health
    .findings
    .iter()
    .map(|f| (f.kind, f.id.as_str()))
    .collect();
  assert_eq!(found.len(), 2, "{found:?}");
  let input = |i: usize| health.findings[i].fix.as_ref().map(|f| f.input.clone());
  assert_eq!(input(0), input(1), "the same removal fixes both");
  assert_ne!(found[0].1, found[1].1, "{found:?}");
  Ok(())
}

#[test]
fn a_group_larger_than_one_consolidate_is_fixed_twenty_at_a_time() -> TestResult {
  let (mut m, _dir) = memory(json!({"user": {"workspace": 100_000}}))?;
  let w = writer("", "/w");
  // the same fact in 26 wordings: a distillation that ran once a day for a month
  let fact =
    |i: usize| format!("Prefers pnpm over npm for every install (noted on run {i:02}, again)");
  for i in 0..26 {
    add(&mut m, "user", "workspace", &fact(i), w.clone())?;
  }
  let opts = HealthOptions {
    stale_days: 90,
    visibility: Visibility::default(),
    now: now_ms(),
  };
  let health = m.health(&opts)?;
  let f = health.findings.first().ok_or("a finding")?;
  assert_eq!(f.entries.len(), 26, "{:#?}", health.findings);
  assert!(
    f.detail.contains("takes 20 of them at a time"),
    "{}",
    f.detail
  );
  let fix = f.fix.as_ref().ok_or("a fix")?;
  assert_eq!(fix.input["matches"].as_array().map(Vec::len), Some(20));
  let plan = m.plan_consolidate(&fix.input, w.clone())?;
  m.finish(plan, allow(), Via::default(), false)?;
  // what is left is found again, now within one consolidate
  let health = m.health(&opts)?;
  let f = health.findings.first().ok_or("the rest")?;
  assert_eq!(f.entries.len(), 7);
  assert_eq!(
    f.fix.as_ref().ok_or("a fix")?.input["matches"]
      .as_array()
      .map(Vec::len),
    Some(7)
  );
  Ok(())
}

/// Two facts of one shape (named to an approver as similar) are no finding: the health check
/// offers to merge only duplicates and updates of one fact.
#[test]
fn the_health_check_never_merges_look_alikes() -> TestResult {
  let (mut m, dir) = memory(json!({"agent": {"workspace": 400}}))?;
  let ws = dir.path().to_string_lossy().into_owned();
  for text in [
    "The orders service is owned by the growth team",
    "The billing service is owned by the growth team",
    "The EU cluster runs Kubernetes 1.29",
    "The US cluster runs Kubernetes 1.27",
  ] {
    add(&mut m, "agent", "workspace", text, writer("", &ws))?;
  }
  let health = m.health(&HealthOptions {
    stale_days: 30,
    visibility: Visibility::default(),
    now: now_ms(),
  })?;
  assert!(health.findings.is_empty(), "{:#?}", health.findings);
  Ok(())
}
