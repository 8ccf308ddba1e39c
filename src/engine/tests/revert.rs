//! History and undo: every kind of landed change reverts to the state before it (texts, tags,
//! keys, sources, layer usage), a later change is never overwritten, and the ledger records the
//! revert as the ordinary rows it consists of, each naming what it reverts.
use super::*;

/// What a user sees of the store: each entry's id, version, layer, keys, text, source and tags
/// (sorted), and every layer's usage.
type Row = (
  String,
  i64,
  String,
  String,
  String,
  String,
  String,
  String,
  Vec<String>,
);
type State = (Vec<Row>, Vec<Usage>);

fn state(m: &mut Memory) -> Result<State> {
  let mut entries: Vec<_> = m
    .list_entries(None)?
    .into_iter()
    .map(|e| {
      let layer = (e.track.as_str().to_string(), e.scope.as_str().to_string());
      let (ws, agent) = (e.workspace_key, e.agent_key);
      (
        e.id, e.version, layer.0, layer.1, ws, agent, e.text, e.source, e.tags,
      )
    })
    .collect();
  entries.sort();
  Ok((entries, m.budgets(Some("/w"))?))
}

/// Plan a write and run it through an approving gate; its result as JSON.
fn land(m: &mut Memory, plan: impl FnOnce(&mut Memory) -> Result<Plan>) -> Result<Value> {
  let plan = plan(m)?;
  match m.finish(plan, allow(), Via::default(), false)? {
    Finished::Written(v) => {
      serde_json::to_value(v).map_err(|e| MemoryError::invalid(e.to_string()))
    }
    Finished::Aborted => Err(MemoryError::invalid("aborted")),
  }
}

/// The newest audit row's seq.
fn newest(m: &mut Memory) -> Result<i64> {
  Ok(m.audit_list(1)?[0].seq)
}

/// Revert the newest change.
fn revert_newest(m: &mut Memory) -> Result<Value> {
  let seq = newest(m)?;
  revert(m, seq)
}

fn w() -> Writer {
  writer("", "/w")
}

fn input(text: &str, tags: &[&str]) -> Value {
  json!({"track": "user", "scope": "workspace", "text": text, "tags": tags, "source": "cli"})
}

/// Revert the change of `seq`, check the chain, and give the revert's result.
fn revert(m: &mut Memory, seq: i64) -> Result<Value> {
  let done = land(m, |m| m.plan_revert(seq, w()))?;
  assert!(
    m.audit_verify()?.ok,
    "the chain verifies after reverting {seq}"
  );
  Ok(done)
}

#[test]
fn every_kind_of_change_reverts_to_the_state_before_it() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  land(&mut m, |m| m.plan_add(&input("Uses pnpm", &["build"]), w()))?;
  land(&mut m, |m| {
    m.plan_add(&input("Prefers tabs", &["style"]), w())
  })?;
  // add
  let before = state(&mut m)?;
  land(&mut m, |m| {
    m.plan_add(&input("Deploys on Fridays", &["ops"]), w())
  })?;
  revert_newest(&mut m)?;
  assert_eq!(state(&mut m)?, before, "add");
  // replace: the previous text, tags and version
  let replaced = json!({"track": "user", "scope": "workspace", "match": "pnpm", "text": "Uses pnpm 9", "tags": ["js"]});
  land(&mut m, |m| m.plan_replace(&replaced, w()))?;
  let done = revert_newest(&mut m)?;
  assert_eq!(state(&mut m)?, before, "replace");
  assert_eq!(done["changes"][0]["entry"]["version"], 1);
  // remove: the same id, text, tags, keys and source
  land(&mut m, |m| {
    m.plan_remove(
      &json!({"track": "user", "scope": "workspace", "match": "tabs"}),
      w(),
    )
  })?;
  revert_newest(&mut m)?;
  assert_eq!(state(&mut m)?, before, "remove");
  // consolidate of both, reverted by any of its rows
  let merged = json!({"track": "user", "scope": "workspace", "matches": ["pnpm", "tabs"], "text": "pnpm, tabs"});
  land(&mut m, |m| m.plan_consolidate(&merged, w()))?;
  let last = newest(&mut m)?;
  revert(&mut m, last - 1)?;
  assert_eq!(state(&mut m)?, before, "consolidate");
  // seed, by its batch row
  let seeded = json!([{"track": "agent", "scope": "user-global", "text": "a"}, {"track": "agent", "scope": "workspace", "text": "b"}]);
  land(&mut m, |m| m.plan_seed(&seeded, w()))?;
  let seed_row = newest(&mut m)? - 2;
  assert_eq!(m.audit_list(3)?[2].action, "seed");
  revert(&mut m, seed_row)?;
  assert_eq!(state(&mut m)?, before, "seed");
  Ok(())
}

#[test]
fn one_entry_of_a_batch_reverts_alone_and_a_revert_reverts_back() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  let seeded = json!([{"track": "user", "scope": "workspace", "text": "one"}, {"track": "user", "scope": "workspace", "text": "two"}]);
  land(&mut m, |m| m.plan_seed(&seeded, w()))?;
  let seeded_state = state(&mut m)?;
  revert_newest(&mut m)?;
  assert_eq!(
    m.list_entries(None)?
      .iter()
      .map(|e| e.text.as_str())
      .collect::<Vec<_>>(),
    ["one"]
  );
  // Reverting the revert is a redo.
  revert_newest(&mut m)?;
  assert_eq!(state(&mut m)?, seeded_state);
  // A batch whose entries are partly gone: the rest is removed.
  revert(&mut m, 1)?;
  assert_eq!(m.list_entries(None)?.len(), 0);
  Ok(())
}

#[test]
fn a_revert_after_a_later_change_is_refused_before_asking_with_the_current_text() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  land(&mut m, |m| m.plan_add(&input("Uses pnpm", &[]), w()))?;
  let added = newest(&mut m)?;
  let replaced =
    json!({"track": "user", "scope": "workspace", "match": "pnpm", "text": "Uses pnpm 9"});
  land(&mut m, |m| m.plan_replace(&replaced, w()))?;
  let refused = m
    .plan_revert(added, w())
    .err()
    .ok_or("a revert over a later change")?;
  assert_eq!(refused.code(), "ENTRY_NOT_FOUND");
  let details = refused.details();
  assert_eq!(
    (
      &details["reason"],
      &details["approvedVersion"],
      &details["current"]["version"],
      &details["current"]["text"],
      &details["reverts"]
    ),
    (
      &json!("changed"),
      &json!(1),
      &json!(2),
      &json!("Uses pnpm 9"),
      &json!(added)
    )
  );
  assert!(
    refused
      .to_string()
      .contains("a revert never overwrites a later change"),
    "{refused}"
  );
  // Nothing was asked, so nothing was written.
  assert_eq!(m.audit_list(10)?.len(), 2);
  Ok(())
}

#[test]
fn a_denied_revert_leaves_its_denied_row_and_nothing_else() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  land(&mut m, |m| m.plan_add(&input("Uses pnpm", &[]), w()))?;
  let before = state(&mut m)?;
  let plan = m.plan_revert(1, w())?;
  assert_eq!(plan.payload().action, "revert");
  assert!(
    plan
      .payload()
      .reason
      .starts_with("[dsh-memento] revert of change #1 (undo the add)\nremove: user/workspace"),
    "{}",
    plan.payload().reason
  );
  let denied = m.finish(
    plan,
    GateAnswer::Outcome("rejected".into()),
    Via::default(),
    false,
  );
  assert_eq!(denied.err().map(|e| e.code()), Some("WRITE_DENIED"));
  assert_eq!(state(&mut m)?, before);
  let rows: Vec<String> = m.audit_list(10)?.into_iter().map(|r| r.action).collect();
  assert_eq!(rows, ["revert-denied", "add"]);
  assert!(m.audit_verify()?.ok);
  Ok(())
}

#[test]
fn a_revert_is_audited_as_its_rows_each_naming_what_it_reverts() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  land(&mut m, |m| m.plan_add(&input("a", &[]), w()))?;
  land(&mut m, |m| m.plan_add(&input("b", &[]), w()))?;
  let merged =
    json!({"track": "user", "scope": "workspace", "matches": ["a", "b"], "text": "a and b"});
  land(&mut m, |m| m.plan_consolidate(&merged, w()))?;
  revert(&mut m, 4)?;
  let rows = crate::store::history::span(m.store.conn(), 6, 8)?;
  let actions: Vec<&str> = rows.iter().map(|r| r.action.as_str()).collect();
  assert_eq!(actions, ["remove", "add", "add"]);
  for r in &rows {
    let fields = model::RowFields::parse(r.fields.as_deref()).ok_or("fields")?;
    assert_eq!(fields.reverts, Some(4));
  }
  // Restored as it was (version 1 again, and first, as it was stored first), by a row that
  // names the revert.
  let a = rows[1].entry_id.clone().ok_or("a restored id")?;
  let h = m.history(&HistoryTarget::Id(a.clone()), &Visibility::default())?;
  let shown: Vec<(i64, &str, &str)> = h
    .versions
    .iter()
    .map(|v| (v.version, v.action.as_str(), v.text.as_str()))
    .collect();
  assert_eq!(shown, [(1, "add", "a"), (1, "add", "a")]);
  assert_eq!(
    (h.complete, h.ended.is_none(), h.versions[1].reverts),
    (true, true, Some(4))
  );
  Ok(())
}

#[test]
fn the_history_of_a_consolidated_entry_leads_to_its_successor() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  land(&mut m, |m| m.plan_add(&input("a", &[]), w()))?;
  land(&mut m, |m| m.plan_add(&input("b", &[]), w()))?;
  let merged =
    json!({"track": "user", "scope": "workspace", "matches": ["a", "b"], "text": "a and b"});
  land(&mut m, |m| m.plan_consolidate(&merged, w()))?;
  let h = m.history(&HistoryTarget::Seq(1), &Visibility::default())?;
  let ended = h.ended.ok_or("ended")?;
  assert_eq!(ended.action, "consolidate-remove");
  let successor = m.history(
    &HistoryTarget::Id(ended.into.ok_or("into")?),
    &Visibility::default(),
  )?;
  assert_eq!(
    successor
      .versions
      .iter()
      .map(|v| v.text.as_str())
      .collect::<Vec<_>>(),
    ["a and b"]
  );
  // Undone and redone: the same entries, at the same versions, each time.
  let merged_state = state(&mut m)?;
  revert(&mut m, 5)?;
  revert_newest(&mut m)?;
  assert_eq!(state(&mut m)?, merged_state);
  revert(&mut m, 5)?;
  assert_eq!(
    m.list_entries(None)?
      .iter()
      .map(|e| (e.text.as_str(), e.version))
      .collect::<Vec<_>>(),
    [("a", 1), ("b", 1)]
  );
  // Undone already: the merged entry is gone, and the refusal names it by its text.
  let again = m.plan_revert(5, w()).err().ok_or("refused")?;
  assert_eq!(again.code(), "ENTRY_NOT_FOUND");
  assert!(again.to_string().contains("\"a and b\""), "{again}");
  Ok(())
}

#[test]
fn history_numbers_versions_and_respects_visibility() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  land(&mut m, |m| {
    m.plan_add(&input("Uses pnpm", &["a"]), writer("coder", "/w"))
  })?;
  for text in ["Uses pnpm 8", "Uses pnpm 9"] {
    let r = json!({"track": "user", "scope": "workspace", "match": "pnpm", "text": text});
    land(&mut m, |m| m.plan_replace(&r, writer("coder", "/w")))?;
  }
  let target = HistoryTarget::Match {
    track: Track::User,
    scope: Scope::Workspace,
    needle: "pnpm 9".into(),
  };
  let coder = Visibility {
    agent_key: Some("coder".into()),
    workspace_key: Some("/w".into()),
  };
  let h = m.history(&target, &coder)?;
  let shown: Vec<(i64, &str)> = h
    .versions
    .iter()
    .map(|v| (v.version, v.text.as_str()))
    .collect();
  assert_eq!(
    shown,
    [(1, "Uses pnpm"), (2, "Uses pnpm 8"), (3, "Uses pnpm 9")]
  );
  assert_eq!(h.versions[0].tags, ["a"]);
  assert!(h.complete);
  assert_eq!(
    m.history(&HistoryTarget::Seq(2), &Visibility::default())?
      .entry_id,
    h.entry_id
  );
  let other = Visibility {
    agent_key: Some("reviewer".into()),
    workspace_key: Some("/w".into()),
  };
  assert!(
    m.history(&HistoryTarget::Id(h.entry_id.clone()), &other)
      .is_err(),
    "another agent sees nothing"
  );
  // Retention pruned the first two rows: the history starts at version 3 and says so.
  chain::prune(m.store.conn(), i64::MAX, Some(2))?;
  let h = m.history(&HistoryTarget::Id(h.entry_id.clone()), &coder)?;
  assert_eq!(
    (h.complete, h.versions.len(), h.versions[0].version),
    (false, 1, 3)
  );
  Ok(())
}

#[test]
fn rows_that_are_no_change_cannot_be_reverted() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  land(&mut m, |m| m.plan_add(&input("x", &[]), w()))?;
  m.query(
    &json!({"text": "x"}),
    &QueryOptions {
      session_id: Some("s".into()),
      ..QueryOptions::default()
    },
  )?;
  let refused = m
    .plan_revert(2, w())
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
  assert!(
    refused.starts_with("audit row 2 is a recalled row, not a landed change"),
    "{refused}"
  );
  let missing = m.plan_revert(99, w()).err().map(|e| e.code());
  assert_eq!(missing, Some("INVALID_INPUT"));
  Ok(())
}

#[test]
fn a_restore_over_budget_is_refused_with_its_plan() -> TestResult {
  let (mut m, _dir) = memory(json!({"user": {"workspace": 12}}))?;
  land(&mut m, |m| m.plan_add(&input("ten chars!", &[]), w()))?;
  land(&mut m, |m| {
    m.plan_remove(
      &json!({"track": "user", "scope": "workspace", "match": "ten"}),
      w(),
    )
  })?;
  let removed = newest(&mut m)?;
  land(&mut m, |m| m.plan_add(&input("other text", &[]), w()))?;
  let refused = m.plan_revert(removed, w()).err().map(|e| e.code());
  assert_eq!(refused, Some("BUDGET_EXCEEDED"));
  Ok(())
}

#[test]
fn sessions_list_what_each_session_was_given_byte_for_byte() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  let vis = Visibility {
    agent_key: Some(String::new()),
    workspace_key: Some("/w".into()),
  };
  m.snapshot_record("s1", "frozen text 😀", &vis)?;
  m.snapshot_record("s2", "another", &Visibility::default())?;
  let all = m.sessions(None, 0, &Visibility::default())?;
  assert_eq!(
    all
      .iter()
      .map(|s| s.session_id.as_str())
      .collect::<Vec<_>>()
      .len(),
    2
  );
  let one = m.sessions(Some("s1"), 0, &Visibility::default())?;
  assert_eq!(
    (
      one[0].text.as_deref(),
      one[0].chars,
      one[0].workspace_key.as_deref()
    ),
    (Some("frozen text 😀"), 14, Some("/w"))
  );
  assert_eq!(
    m.sessions(None, 0, &vis)?.len(),
    1,
    "only the sessions that saw these keys"
  );
  Ok(())
}
