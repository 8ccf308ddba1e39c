//! Approval: only allowed-once commits, a denial or an abort leaves its row, the budget is re-checked inside the transaction.
use super::*;

#[test]
fn an_allowed_add_lands_with_its_audit_row() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  let v = add(
    &mut m,
    "user",
    "workspace",
    "prefers pnpm",
    writer("coder", "/w"),
  )?;
  assert_eq!(v["entry"]["text"], "prefers pnpm");
  assert_eq!(v["entry"]["workspaceKey"], "/w");
  assert_eq!(
    v["usage"],
    json!({"track": "user", "scope": "workspace", "used": 12, "limit": 2000})
  );
  let audit = m.audit_list(10)?;
  assert_eq!(audit.len(), 1);
  assert_eq!(audit[0].action, "add");
  assert_eq!(audit[0].entry_id.as_deref(), v["entry"]["id"].as_str());
  assert_eq!(
    audit[0].outcome.as_deref(),
    Some("allowed-once (via approval, writePolicy ask)")
  );
  Ok(())
}

#[test]
fn any_other_answer_is_a_denial_with_only_its_row() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  for answer in [
    GateAnswer::Outcome("rejected".into()),
    GateAnswer::Outcome("Allowed-Once".into()),
    GateAnswer::NotAString("an object".into()),
    GateAnswer::Failed("boom".into()),
  ] {
    let plan = m.plan_add(
      &json!({"track": "user", "scope": "workspace", "text": "x"}),
      writer("", "/w"),
    )?;
    let err = m
      .finish(plan, answer, Via::default(), false)
      .err()
      .map(|e| e.code());
    assert_eq!(err, Some("WRITE_DENIED"));
  }
  assert!(texts(&mut m)?.is_empty());
  let audit = m.audit_list(10)?;
  assert_eq!(audit.len(), 4);
  assert!(audit
    .iter()
    .all(|r| r.action == "add-denied" && r.entry_id.is_none()));
  assert_eq!(
    audit[0].outcome.as_deref(),
    Some("unavailable (via approval, writePolicy ask)")
  );
  Ok(())
}

#[test]
fn an_abort_after_approval_writes_nothing_but_its_row() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  let plan = m.plan_add(
    &json!({"track": "user", "scope": "workspace", "text": "x"}),
    writer("", "/w"),
  )?;
  assert_eq!(
    m.finish(plan, allow(), Via::default(), true)?,
    Finished::Aborted
  );
  assert!(texts(&mut m)?.is_empty());
  assert_eq!(m.audit_list(1)?[0].action, "add-aborted");
  Ok(())
}

#[test]
fn the_budget_is_rechecked_in_the_transaction() -> TestResult {
  let (mut m, _dir) = memory(json!({"user": {"workspace": 10}}))?;
  let first = m.plan_add(
    &json!({"track": "user", "scope": "workspace", "text": "123456"}),
    writer("", "/w"),
  )?;
  let second = m.plan_add(
    &json!({"track": "user", "scope": "workspace", "text": "abcdef"}),
    writer("", "/w"),
  )?;
  m.finish(first, allow(), Via::default(), false)?;
  let err = m.finish(second, allow(), Via::default(), false).err();
  assert_eq!(
    err.as_ref().map(|e| e.details()),
    Some(json!({"track": "user", "scope": "workspace", "used": 6, "limit": 10, "needed": 12}))
  );
  assert_eq!(texts(&mut m)?, vec!["123456"]);
  Ok(())
}

#[test]
fn workspace_budgets_are_per_workspace() -> TestResult {
  let (mut m, _dir) = memory(json!({"user": {"workspace": 10}}))?;
  add(&mut m, "user", "workspace", "0123456789", writer("", "/a"))?;
  add(&mut m, "user", "workspace", "0123456789", writer("", "/b"))?;
  let err = add(&mut m, "user", "workspace", "x", writer("", "/a"))
    .err()
    .map(|e| e.code());
  assert_eq!(err, Some("BUDGET_EXCEEDED"));
  let rows = m.budgets(Some("/c"))?;
  assert_eq!(rows[1].used, 0);
  assert_eq!(m.budgets(None)?[1].used, 10);
  Ok(())
}

#[test]
fn a_plan_runs_in_one_read_transaction_and_ends_it_even_when_it_fails() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  add(
    &mut m,
    "user",
    "workspace",
    "prefers pnpm",
    writer("", "/w"),
  )?;
  let in_tx = std::cell::Cell::new(false);
  let plan = m.planned(|m| {
    in_tx.set(!m.store.conn().is_autocommit());
    m.plan_replace(
      &json!({"track": "user", "scope": "workspace", "match": "pnpm", "text": "prefers yarn"}),
      writer("", "/w"),
    )
  })?;
  assert!(in_tx.get(), "the plan ran outside a transaction");
  assert!(
    m.store.conn().is_autocommit(),
    "the plan left its transaction open"
  );
  m.finish(plan, allow(), Via::default(), false)?;
  let missing = m.planned(|m| {
    m.plan_remove(
      &json!({"track": "user", "scope": "workspace", "match": "npm and pnpm"}),
      writer("", "/w"),
    )
  });
  assert_eq!(missing.err().map(|e| e.code()), Some("ENTRY_NOT_FOUND"));
  assert!(
    m.store.conn().is_autocommit(),
    "a failed plan left its transaction open"
  );
  // The next write still gets its own transaction.
  add(&mut m, "user", "workspace", "uses tabs", writer("", "/w"))?;
  assert_eq!(texts(&mut m)?, vec!["prefers yarn", "uses tabs"]);
  Ok(())
}
