//! Search and targeting agree with a brute-force scan, across connections and shapes of data.
use super::*;
use crate::store::entries::Only;

/// Brute force: the ids of the entries a visibility and exact facets admit whose text contains
/// `needle` (ASCII case folded), best first (recall count, then recency, then id), by reading
/// every row and testing and ranking it in plain Rust.
fn brute_force(
  m: &Memory,
  needle: &str,
  vis: &Visibility,
  only: &Only,
) -> rusqlite::Result<Vec<String>> {
  let mut stmt = m.store.conn().prepare(
    "SELECT id, text, agent_key, scope, workspace_key, recall_count, updated_at FROM entries",
  )?;
  let rows = stmt.query_map([], |r| {
    Ok((
      r.get::<_, String>(0)?,
      r.get::<_, String>(1)?,
      r.get::<_, String>(2)?,
      r.get::<_, String>(3)?,
      r.get::<_, String>(4)?,
      r.get::<_, i64>(5)?,
      r.get::<_, i64>(6)?,
    ))
  })?;
  let mut found = Vec::new();
  for row in rows {
    let (id, text, agent, scope, workspace, recalls, updated) = row?;
    let agent_ok = vis
      .agent_key
      .as_deref()
      .is_none_or(|k| agent.is_empty() || agent == k);
    let workspace_ok =
      scope != "workspace" || vis.workspace_key.as_deref().is_none_or(|w| workspace == w);
    let only_workspace = only.workspace_key.as_deref().is_none_or(|w| match w {
      "" => scope != "workspace",
      w => scope == "workspace" && workspace == w,
    });
    let only_agent = only.agent_key.as_deref().is_none_or(|a| agent == a);
    if agent_ok
      && workspace_ok
      && only_workspace
      && only_agent
      && text
        .to_ascii_lowercase()
        .contains(&needle.to_ascii_lowercase())
    {
      found.push((-recalls, -updated, id));
    }
  }
  found.sort();
  Ok(found.into_iter().map(|(_, _, id)| id).collect())
}

#[test]
fn search_equals_a_brute_force_scan_on_random_data_across_connections() -> TestResult {
  // Needles of every plan: 3+ characters (a phrase query, or a scan when common), 1–2
  // characters (the index's trigrams, or a scan), LIKE's wildcards and escape, NUL, the
  // index's U+0001 sentinel, FTS5's quote.
  let (mut m, dir) = memory(
    json!({"user": {"workspace": 1_000_000, "userGlobal": 1_000_000}, "agent": {"workspace": 1_000_000, "userGlobal": 1_000_000}}),
  )?;
  let mut other = Memory::new(
    Store::open(&dir.path().join("memory.db"), 0)?,
    Config::default(),
  );
  let alphabet: Vec<&str> = vec![
    "a", "B", "c", "D", "pnpm", "PNPM", "记", "住", "偏好", "Ä", "ä", "😀", " ", "-", "x", "7",
    ";", "%", "_", "\\", "\u{0}", "\u{1}", "\"",
  ];
  let mut seed = 42u64;
  let mut next = |n: usize| {
    seed = seed
      .wrapping_mul(6364136223846793005)
      .wrapping_add(1442695040888963407);
    (seed >> 33) as usize % n
  };
  let mut texts: Vec<String> = Vec::new();
  for round in 0..300 {
    let text: String = (0..1 + next(12))
      .map(|_| alphabet[next(alphabet.len())])
      .collect::<String>()
      + &format!(" #{round}");
    // Writes alternate between the two connections; reads below go through `m`.
    let target = if round % 3 == 0 { &mut other } else { &mut m };
    write_any(
      target,
      ["user", "agent"][next(2)],
      ["workspace", "user-global"][next(2)],
      &text,
      writer(["", "a1", "a2"][round % 3], ["/w", "/v"][round % 2]),
    )?;
    // The newest text written (by either connection): `m` must find it at once.
    let mut newest = text.clone();
    texts.push(text);
    if round % 5 == 0 {
      // Rewrite one entry's text (the index must follow the new text, not the old).
      let victim = format!("#{} ", next(round + 1));
      let who = if round % 2 == 0 { &mut m } else { &mut other };
      let fresh = (0..1 + next(8))
        .map(|_| alphabet[next(alphabet.len())])
        .collect::<String>()
        .replace(['\u{0}', '\u{1}'], "")
        + " rewritten";
      for scope in ["workspace", "user-global"] {
        for track in ["user", "agent"] {
          let plan = who.plan_replace(&json!({"track": track, "scope": scope, "match": victim, "text": format!("{fresh} {victim}")}), writer("", "/w"));
          if let Ok(plan) = plan {
            who.finish(plan, allow(), Via::default(), false)?;
            newest = format!("{fresh} {victim}");
          }
        }
      }
    }
    if round % 7 == 0 {
      let victim = format!("#{}", next(round + 1));
      let who = if round % 2 == 0 { &mut other } else { &mut m };
      for scope in ["workspace", "user-global"] {
        for track in ["user", "agent"] {
          let plan = who.plan_remove(
            &json!({"track": track, "scope": scope, "match": format!("{victim} ")}),
            writer("", "/w"),
          );
          if let Ok(plan) = plan {
            who.finish(plan, allow(), Via::default(), false)?;
          }
        }
      }
    }
    let needles: Vec<String> = {
      let t = &texts[next(texts.len())];
      let chars: Vec<char> = t.chars().collect();
      let start = next(chars.len());
      let len = 1 + next(4.min(chars.len() - start));
      let sub: String = chars[start..start + len].iter().collect();
      vec![
        sub.to_ascii_uppercase(),
        sub,
        alphabet[next(alphabet.len())].to_string(),
        "rewritten".to_string(),
        newest.trim().to_string(),
      ]
    };
    let session = Visibility {
      agent_key: Some("a1".into()),
      workspace_key: Some("/w".into()),
    };
    // The other connection recalls too.
    other.query(
      &json!({"text": needles[1], "limit": 5}),
      &QueryOptions {
        count_recall: true,
        ..QueryOptions::default()
      },
    )?;
    let only = |workspace: Option<&str>, agent: Option<&str>| Only {
      workspace_key: workspace.map(str::to_string),
      agent_key: agent.map(str::to_string),
      ..Only::default()
    };
    for needle in needles {
      for (vis, facets, limit) in [
        (Visibility::default(), Only::default(), 1000),
        (session.clone(), Only::default(), 1000),
        (session.clone(), Only::default(), 3),
        (Visibility::default(), only(Some("/v"), None), 1000),
        (Visibility::default(), only(Some(""), Some("a2")), 1000),
        (session.clone(), only(None, Some("")), 3),
      ] {
        let opts = QueryOptions {
          visibility: vis.clone(),
          count_recall: round % 2 == 0,
          only: facets.clone(),
          ..QueryOptions::default()
        };
        // Ranked before the query bumps its page's counters.
        let expected = brute_force(&m, &needle, &vis, &facets)?;
        let got = m.query(&json!({"text": needle, "limit": limit}), &opts)?;
        // Counters: what the file says, before this query's own bump.
        for e in &got.entries {
          let stored: i64 = m.store.conn().query_row(
            "SELECT recall_count FROM entries WHERE id = ?1",
            [&e.id],
            |r| r.get(0),
          )?;
          let own = i64::from(opts.count_recall);
          assert_eq!(
            e.recall_count,
            stored - own,
            "recall count of {} at round {round}",
            e.id
          );
        }
        // The page is exactly the best `limit` matches, in rank order.
        let ids: Vec<&str> = got.entries.iter().map(|e| e.id.as_str()).collect();
        let best: Vec<&str> = expected.iter().take(limit).map(String::as_str).collect();
        assert_eq!(
          ids, best,
          "needle {needle:?} at round {round} ({vis:?}, {facets:?})"
        );
        if needle == "rewritten" {
          // A listing of the same facets is the same set, oldest first.
          let mut listed: Vec<String> = m
            .list(Some(&vis), &facets)?
            .into_iter()
            .filter(|e| e.text.contains("rewritten"))
            .map(|e| e.id)
            .collect();
          let mut all = expected.clone();
          listed.sort();
          all.sort();
          assert_eq!(
            listed, all,
            "listing at round {round} ({vis:?}, {facets:?})"
          );
        }
        assert_eq!(
          got.total as usize,
          expected.len(),
          "needle {needle:?} total"
        );
      }
    }
  }
  Ok(())
}

#[test]
fn a_session_repeating_its_last_recall_adds_no_row() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  add(&mut m, "user", "workspace", "pnpm", writer("", "/w"))?;
  let opts = QueryOptions {
    session_id: Some("s7".into()),
    ..QueryOptions::default()
  };
  for _ in 0..5 {
    m.query(&json!({"text": "pnpm"}), &opts)?;
  }
  m.query(&json!({"text": "npm"}), &opts)?;
  m.query(&json!({"text": "pnpm"}), &opts)?;
  let recalls: Vec<Option<String>> = m
    .audit_list(100)?
    .into_iter()
    .filter(|r| r.action == "recalled")
    .map(|r| r.text)
    .collect();
  assert_eq!(
    recalls,
    vec![Some("pnpm".into()), Some("npm".into()), Some("pnpm".into())]
  );
  Ok(())
}

#[test]
fn search_and_targeting_stay_exact_after_most_entries_are_removed() -> TestResult {
  let big = json!({"user": {"workspace": 10_000_000, "userGlobal": 10_000_000}});
  let (mut m, _dir) = memory(big)?;
  let inputs: Vec<Value> = (0..1500)
    .map(|i| json!({"track": "user", "scope": if i % 2 == 0 { "workspace" } else { "user-global" }, "text": format!("entry-{i:05} pnpm")}))
    .collect();
  let plan = m.plan_seed(&Value::Array(inputs), writer("", "/w"))?;
  m.finish(plan, allow(), Via::default(), false)?;
  for i in 0..1100 {
    let scope = if i % 2 == 0 {
      "workspace"
    } else {
      "user-global"
    };
    let plan = m.plan_remove(
      &json!({"track": "user", "scope": scope, "match": format!("entry-{i:05}")}),
      writer("", "/w"),
    )?;
    m.finish(plan, allow(), Via::default(), false)?;
  }
  // Targeting, phrase search and scans still agree with a brute-force scan.
  let plan = m.plan_remove(
    &json!({"track": "user", "scope": "user-global", "match": "entry-01499"}),
    writer("", "/w"),
  )?;
  assert_eq!(plan.payload().text, "entry-01499 pnpm");
  for needle in ["pnpm", "entry-012", "y-0140", "-"] {
    let got = m.query(
      &json!({"text": needle, "limit": 1000}),
      &QueryOptions::default(),
    )?;
    let mut ids: Vec<String> = got.entries.iter().map(|e| e.id.clone()).collect();
    ids.sort();
    assert_eq!(
      ids,
      brute_force(&m, needle, &Visibility::default(), &Only::default())?,
      "needle {needle:?}"
    );
  }
  assert_eq!(m.list_entries(None)?.len(), 400);
  Ok(())
}

#[test]
fn a_session_list_is_exactly_its_visible_set() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  for (i, (agent, ws)) in [
    ("", "/a"),
    ("x", "/a"),
    ("y", "/a"),
    ("", "/b"),
    ("x", "/b"),
  ]
  .into_iter()
  .enumerate()
  {
    for (track, scope) in [
      ("user", "workspace"),
      ("user", "user-global"),
      ("agent", "workspace"),
      ("agent", "user-global"),
    ] {
      add(
        &mut m,
        track,
        scope,
        &format!("{track} {scope} {agent} {ws} {i}"),
        writer(agent, ws),
      )?;
    }
  }
  let all = m.list_entries(None)?;
  for (agent, ws) in [("x", "/a"), ("", "/b"), ("y", "/c")] {
    let vis = Visibility {
      agent_key: Some(agent.into()),
      workspace_key: Some(ws.into()),
    };
    let expected: Vec<String> = all
      .iter()
      .filter(|e| {
        (e.agent_key.is_empty() || e.agent_key == agent)
          && (e.scope == Scope::UserGlobal || e.workspace_key == ws)
      })
      .map(|e| e.text.clone())
      .collect();
    let got: Vec<String> = m
      .list_entries(Some(&vis))?
      .into_iter()
      .map(|e| e.text)
      .collect();
    assert_eq!(got, expected, "agent {agent:?} in {ws}");
    let opts = QueryOptions {
      visibility: vis.clone(),
      ..QueryOptions::default()
    };
    let mut searched: Vec<String> = m
      .query(&json!({"text": "user", "limit": 1000}), &opts)?
      .entries
      .into_iter()
      .map(|e| e.text)
      .collect();
    searched.sort();
    let mut want: Vec<String> = expected
      .iter()
      .filter(|t| t.contains("user"))
      .cloned()
      .collect();
    want.sort();
    assert_eq!(searched, want, "session search: agent {agent:?} in {ws}");
  }
  Ok(())
}

#[test]
fn another_connection_s_writes_and_recalls_are_seen_at_once() -> TestResult {
  let (mut m, dir) = memory(json!({}))?;
  let mut other = Memory::new(
    Store::open(&dir.path().join("memory.db"), 0)?,
    Config::default(),
  );
  add(
    &mut m,
    "user",
    "workspace",
    "prefers pnpm",
    writer("", "/w"),
  )?;
  add(&mut m, "user", "workspace", "uses tabs", writer("", "/w"))?;
  let recall = QueryOptions {
    count_recall: true,
    ..QueryOptions::default()
  };
  m.query(&json!({"text": "pnpm"}), &recall)?;
  // The other connection rewrites, adds, removes, and recalls.
  let plan = other.plan_replace(
    &json!({"track": "user", "scope": "workspace", "match": "pnpm", "text": "prefers bun"}),
    writer("", "/w"),
  )?;
  other.finish(plan, allow(), Via::default(), false)?;
  add(
    &mut other,
    "user",
    "workspace",
    "likes rust",
    writer("", "/w"),
  )?;
  let plan = other.plan_remove(
    &json!({"track": "user", "scope": "workspace", "match": "tabs"}),
    writer("", "/w"),
  )?;
  other.finish(plan, allow(), Via::default(), false)?;
  other.query(&json!({"text": "rust"}), &recall)?;
  add(
    &mut other,
    "agent",
    "user-global",
    "one more write",
    writer("", "/w"),
  )?;

  let quiet = QueryOptions::default();
  let found = |m: &mut Memory, needle: &str| -> Result<Vec<(String, i64)>> {
    Ok(
      m.query(&json!({"text": needle}), &quiet)?
        .entries
        .into_iter()
        .map(|e| (e.text, e.recall_count))
        .collect(),
    )
  };
  assert_eq!(
    found(&mut m, "bun")?,
    vec![("prefers bun".to_string(), 1)],
    "rewritten; this connection's bump kept"
  );
  assert_eq!(found(&mut m, "pnpm")?, vec![]);
  assert_eq!(found(&mut m, "tabs")?, vec![]);
  assert_eq!(
    found(&mut m, "rust")?,
    vec![("likes rust".to_string(), 1)],
    "the other connection's bump"
  );
  assert_eq!(m.list_entries(None)?.len(), 3);
  Ok(())
}

#[test]
fn a_text_with_a_nul_is_stored_and_found_whole() -> TestResult {
  let (mut m, _dir) = memory(json!({}))?;
  plant(
    &mut m,
    "user",
    "workspace",
    "a\u{0}B tail",
    writer("", "/w"),
  )?;
  assert_eq!(texts(&mut m)?, vec!["a\u{0}B tail"]);
  for needle in ["b tail", "\u{0}b", "TAIL", "b"] {
    let got = m.query(&json!({"text": needle}), &QueryOptions::default())?;
    assert_eq!(got.total, 1, "needle {needle:?}");
  }
  Ok(())
}

#[test]
fn a_common_needle_is_exact_whether_a_filter_admits_little_or_much_of_the_store() -> TestResult {
  // 300 "pnpm" entries (a common needle: the index is not asked for its rows): a session of
  // /w0 or /w1 sees a fifth of them at most (scanned), one of /big four fifths (counted in the
  // index, its page the best of each group); the facets of /big or of agent a1 hold a third or
  // more (counted in the index, the page a walk down the ranking).
  let budgets = json!({"user": {"workspace": 1_000_000, "userGlobal": 1_000_000}, "agent": {"workspace": 1_000_000, "userGlobal": 1_000_000}});
  let (mut m, _dir) = memory(budgets)?;
  for i in 0..300 {
    let (track, agent) = [("user", ""), ("agent", "a1"), ("agent", "a2")][i % 3];
    let (scope, cwd) = match i % 10 {
      0 => ("user-global", "/w0"),
      1 => ("workspace", "/w0"),
      2 => ("workspace", ["/w1", "/w2", "/w3"][i % 3]),
      _ => ("workspace", "/big"),
    };
    add(
      &mut m,
      track,
      scope,
      &format!("uses PNPM, note {i}"),
      writer(agent, cwd),
    )?;
    if i % 7 == 0 {
      // Recalls reorder the ranking away from recency.
      m.query(
        &json!({"text": format!("note {i}")}),
        &QueryOptions::default(),
      )?;
    }
  }
  let session = |agent: &str, workspace: &str| Visibility {
    agent_key: Some(agent.into()),
    workspace_key: Some(workspace.into()),
  };
  let facets = |workspace: Option<&str>, agent: Option<&str>| Only {
    workspace_key: workspace.map(str::to_string),
    agent_key: agent.map(str::to_string),
    ..Only::default()
  };
  for (vis, only) in [
    (session("a1", "/w0"), Only::default()),
    (session("a2", "/big"), Only::default()),
    (session("", "/w1"), Only::default()),
    // A management view's exact facets that hold much of the store: counted in the index too.
    (Visibility::default(), facets(Some("/big"), None)),
    (Visibility::default(), facets(None, Some("a1"))),
  ] {
    let opts = QueryOptions {
      visibility: vis.clone(),
      count_recall: false,
      only: only.clone(),
      ..QueryOptions::default()
    };
    let expected = brute_force(&m, "pnpm", &vis, &only)?;
    let got = m.query(&json!({"text": "pnpm", "limit": 7}), &opts)?;
    let ids: Vec<&str> = got.entries.iter().map(|e| e.id.as_str()).collect();
    let best: Vec<&str> = expected.iter().take(7).map(String::as_str).collect();
    assert_eq!(
      (ids, got.total as usize),
      (best, expected.len()),
      "{vis:?} {only:?}"
    );
  }
  Ok(())
}
