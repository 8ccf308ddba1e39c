//! Seeds and layer usage: a batch checked whole and atomic, usage maintained exactly.
use super::*;

#[test]
fn seed_is_prechecked_whole_and_atomic() -> TestResult {
  let (mut m, _dir) = memory(json!({"user": {"userGlobal": 10}}))?;
  let inputs = json!([
    {"track": "user", "scope": "user-global", "text": "123456"},
    {"track": "user", "scope": "user-global", "text": "123456"}
  ]);
  assert_eq!(
    m.plan_seed(&inputs, writer("", "/w"))
      .err()
      .map(|e| e.code()),
    Some("BUDGET_EXCEEDED")
  );
  let bad = json!([{"track": "user", "scope": "user-global", "text": "ok"}, {"track": "user", "scope": "nope", "text": "x"}]);
  let err = m.plan_seed(&bad, writer("", "/w")).err();
  let err = err.ok_or("the bad entry is refused")?;
  assert!(
    err.to_string().starts_with("entry 1: invalid memory scope"),
    "{err}"
  );
  assert_eq!(
    err.details(),
    json!({"index": 1}),
    "which entry, for an import to locate"
  );
  let ok = json!([{"track": "user", "scope": "user-global", "text": "one", "tags": ["t"], "agentKey": ""}, {"track": "agent", "scope": "workspace", "text": "two"}]);
  let plan = m.plan_seed(&ok, writer("coder", "/w"))?;
  assert_eq!(
    plan.payload().text,
    "1. user/user-global · every workspace · every agent · source dsh-memento · tags [\"t\"]\n│ one\n\
     2. agent/workspace · workspace /w · agent coder · source dsh-memento · no tags\n│ two"
  );
  assert_eq!(plan.payload().count, Some(2));
  m.finish(plan, allow(), Via::default(), false)?;
  let entries = m.list_entries(None)?;
  assert_eq!(entries[0].agent_key, "", "an explicit '' key is kept");
  assert_eq!(entries[1].agent_key, "coder");
  let actions: Vec<String> = m
    .audit_list(3)?
    .into_iter()
    .rev()
    .map(|r| r.action)
    .collect();
  assert_eq!(actions, vec!["seed", "add", "add"]);
  Ok(())
}

#[test]
fn maintained_usage_and_index_always_equal_a_recount() -> TestResult {
  let big = json!({"workspace": 100000, "userGlobal": 100000});
  let (mut m, _dir) = memory(json!({"user": big, "agent": big}))?;
  let mut seed = 7u64;
  for i in 0..200 {
    seed = seed
      .wrapping_mul(6364136223846793005)
      .wrapping_add(1442695040888963407);
    let ws = ["/a", "/b", ""][(seed >> 33) as usize % 3];
    let scope = if seed & 1 == 0 {
      "workspace"
    } else {
      "user-global"
    };
    let track = ["user", "agent"][(seed >> 50) as usize % 2];
    let text = format!(
      "entry {i} 记住 😀 {}",
      "x".repeat((seed >> 40) as usize % 20)
    );
    match (seed >> 20) % 4 {
      0 | 1 => {
        add(&mut m, track, scope, &text, writer("", ws))?;
      }
      kind => {
        // Rewrite or remove an entry that exists, through its own layer.
        let all = m.list_entries(None)?;
        let Some(e) = all.get((seed >> 8) as usize % all.len().max(1)) else {
          continue;
        };
        let target = e.text.split(" 😀").next().unwrap_or_default();
        let mut input =
          json!({"track": e.track.as_str(), "scope": e.scope.as_str(), "match": target});
        let w = writer("", &e.workspace_key);
        let plan = match kind {
          2 => {
            input["text"] = json!(text);
            m.plan_replace(&input, w)?
          }
          _ => m.plan_remove(&input, w)?,
        };
        m.finish(plan, allow(), Via::default(), false)?;
      }
    }
  }
  let recounted = recount(&m)?;
  assert_eq!(maintained(&m)?, recounted);
  // The FTS index holds one document per entry, at its `fts_id`, and the text as it is now.
  let conn = m.store.conn();
  let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0));
  let docs = "SELECT count(*) FROM entries_fts_docsize";
  let at_ids = "SELECT count(*) FROM entries_fts_docsize WHERE id IN (SELECT fts_id FROM entries)";
  assert_eq!(
    (count(docs)?, count(at_ids)?),
    (count("SELECT count(*) FROM entries")?, count(docs)?)
  );
  let replaced = "SELECT count(*) FROM entries WHERE version > 1 AND fts_id NOT IN
    (SELECT rowid FROM entries_fts WHERE entries_fts MATCH '\"' || lower(text) || '\"')";
  assert!(count("SELECT count(*) FROM entries WHERE version > 1")? > 0);
  assert_eq!(
    count(replaced)?,
    0,
    "a replaced entry is found by its new text"
  );
  // What budgets() reports for a session is what the recount says of its four layers.
  for ws in ["/a", "/b", "", "/never-written"] {
    let reported: Vec<i64> = m.budgets(Some(ws))?.iter().map(|u| u.used as i64).collect();
    let expected: Vec<i64> = [
      ("user", "user-global", ""),
      ("user", "workspace", ws),
      ("agent", "user-global", ""),
      ("agent", "workspace", ws),
    ]
    .iter()
    .map(|(t, s, k)| {
      recounted
        .iter()
        .find(|r| r.0 == *t && r.1 == *s && r.2 == *k)
        .map_or(0, |r| r.3)
    })
    .collect();
    assert_eq!(reported, expected, "budgets for workspace {ws:?}");
  }
  // Without a workspace: the user-global layers and each track's fullest workspace layer.
  let reported: Vec<i64> = m.budgets(None)?.iter().map(|u| u.used as i64).collect();
  let most = |t: &str, s: &str| {
    recounted
      .iter()
      .filter(|r| r.0 == t && r.1 == s)
      .map(|r| r.3)
      .max()
      .unwrap_or(0)
  };
  let expected = vec![
    most("user", "user-global"),
    most("user", "workspace"),
    most("agent", "user-global"),
    most("agent", "workspace"),
  ];
  assert_eq!(reported, expected, "budgets without a workspace");
  Ok(())
}
