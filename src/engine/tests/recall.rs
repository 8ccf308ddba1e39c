//! Queries and snapshots: ranking by recall, frozen snapshots.
use super::*;

#[test]
fn query_ranks_by_recall_and_counts_in_one_pass() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  for t in ["pnpm one", "pnpm two", "other"] {
    add(&mut m, "user", "workspace", t, writer("", "/w"))?;
  }
  let opts = QueryOptions {
    count_recall: true,
    ..QueryOptions::default()
  };
  let first = m.query(&json!({"text": "PNPM two"}), &opts)?;
  assert_eq!(
    first.entries[0].recall_count, 0,
    "pre-increment counters are returned"
  );
  let page = m.query(&json!({"text": "pnpm", "limit": 1}), &opts)?;
  assert_eq!(page.entries[0].text, "pnpm two");
  assert_eq!(page.total, 2);
  assert!(page.truncated);
  let quiet = QueryOptions {
    session_id: Some("s9".into()),
    ..QueryOptions::default()
  };
  m.query(&json!({"text": ""}), &quiet)?;
  let row = &m.audit_list(1)?[0];
  assert_eq!(
    (
      row.action.as_str(),
      row.text.as_deref(),
      row.session_id.as_deref()
    ),
    ("recalled", Some(""), Some("s9"))
  );
  let mut counts: Vec<(String, i64)> = m
    .list_entries(None)?
    .into_iter()
    .map(|e| (e.text, e.recall_count))
    .collect();
  counts.sort();
  let expected = vec![
    ("other".to_string(), 0),
    ("pnpm one".to_string(), 0),
    ("pnpm two".to_string(), 2),
  ];
  assert_eq!(
    counts, expected,
    "only hits are counted; the session-only query counted nothing it returned twice"
  );
  Ok(())
}

#[test]
fn a_replaced_entry_keeps_its_recall_rank() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  for t in ["pnpm alpha", "pnpm beta"] {
    add(&mut m, "user", "workspace", t, writer("", "/w"))?;
  }
  let opts = QueryOptions {
    count_recall: true,
    ..QueryOptions::default()
  };
  for _ in 0..3 {
    m.query(&json!({"text": "beta"}), &opts)?;
  }
  let plan = m.plan_replace(
    &json!({"track": "user", "scope": "workspace", "match": "beta", "text": "pnpm gamma"}),
    writer("", "/w"),
  )?;
  m.finish(plan, allow(), Via::default(), false)?;
  let page = m.query(&json!({"text": "pnpm"}), &QueryOptions::default())?;
  let ranked: Vec<(&str, i64)> = page
    .entries
    .iter()
    .map(|e| (e.text.as_str(), e.recall_count))
    .collect();
  assert_eq!(ranked, vec![("pnpm gamma", 3), ("pnpm alpha", 0)]);
  Ok(())
}

#[test]
fn a_snapshot_is_frozen_per_session_and_stored_once_per_text() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  assert_eq!(
    m.snapshot_record("s1", "## User profile\n- a", &Visibility::default())?,
    "## User profile\n- a"
  );
  assert_eq!(
    m.snapshot_record("s1", "something newer", &Visibility::default())?,
    "## User profile\n- a",
    "first write wins"
  );
  assert_eq!(
    m.snapshot_record("s2", "## User profile\n- a", &Visibility::default())?,
    "## User profile\n- a"
  );
  assert_eq!(
    m.snapshot_record("s3", "", &Visibility::default())?,
    "",
    "an empty snapshot is frozen too"
  );
  let rows = m.audit_list(10)?;
  assert_eq!(
    rows.iter().filter(|r| r.action == "snapshot").count(),
    3,
    "one row per session"
  );
  assert_eq!(
    rows[1].text.as_deref(),
    Some("## User profile\n- a"),
    "listings show the verbatim text"
  );
  let stored: i64 = m
    .store
    .conn()
    .query_row("SELECT count(*) FROM snapshot_texts", [], |r| r.get(0))?;
  assert_eq!(stored, 2, "two distinct texts");
  assert!(m.audit_verify()?.ok);
  Ok(())
}
