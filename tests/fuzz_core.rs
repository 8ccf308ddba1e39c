//! Randomized tests of the pure core (issue 6, items 1 and 4), without napi and without new
//! crates: a hand-rolled deterministic PRNG (splitmix64) drives sequences of `plan_*` / `finish`
//! calls — several plans outstanding at once and finished in random order with random gate
//! answers and aborts, as concurrent approvals would — mixed with proposals, recall queries and
//! hostile JSON inputs. After every step the store is checked from a second, independent SQLite
//! connection:
//!
//! - no panic; every error carries a protocol code and an object `details`; a healthy store
//!   never reports `STORE_CORRUPT`;
//! - the maintained usage (`layer_usage`) equals a recount of `entries`, `units` equals the
//!   UTF-16 length of `text`, and no layer is ever over its limit;
//! - replaying the audit log's entry-changing rows yields exactly the entry set (ids, texts,
//!   layers), and every committed write's ids appear in it;
//! - the audit hash chain verifies.
//!
//! `sigkill_loop_keeps_the_store_whole` kills a writer process (this test binary re-run as a
//! child, see `crash_child_writer`) with SIGKILL at random points and checks the same
//! invariants plus `PRAGMA integrity_check` after every kill — the integrity check the Node
//! crash test (test/crash.test.mjs) cannot run from Node 20.
//!
//! Reproduce with `MEMENTO_TEST_SEED=<seed printed on failure>`; `MEMENTO_FUZZ_STEPS` and
//! `MEMENTO_CRASH_KILLS` scale the budgets.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dsh_memento::engine::{
  Config, Finished, GateAnswer, Memory, Plan, ProposalInput, QueryOptions, Via,
};
use dsh_memento::protocol::model::{Budgets, Writer};
use dsh_memento::store::{Store, Visibility};
use dsh_memento::MemoryError;
use rusqlite::Connection;
use serde_json::{json, Value};

const WORKSPACES: [&str; 2] = ["/srv/core/ws0", "/srv/core/ws1"];
const PRESETS: [&str; 2] = ["", "coder"];
const WORDS: [&str; 14] = [
  "prefers", "pnpm", "tabs", "vitest", "rust", "tea", "café", "漢字", "😀", "résumé", "build",
  "notes", "short", "Ünï",
];

/// splitmix64: tiny, fast, deterministic.
struct Rng(u64);

impl Rng {
  fn next(&mut self) -> u64 {
    self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = self.0;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
  }
  fn below(&mut self, n: usize) -> usize {
    if n == 0 {
      0
    } else {
      (self.next() % n as u64) as usize
    }
  }
  fn chance(&mut self, percent: u64) -> bool {
    self.next() % 100 < percent
  }
  fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
    xs[self.below(xs.len())]
  }
}

fn seed_from_env() -> u64 {
  std::env::var("MEMENTO_TEST_SEED")
    .ok()
    .and_then(|s| s.parse().ok())
    .unwrap_or_else(|| {
      std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
    })
}

fn env_count(name: &str, default: usize) -> usize {
  std::env::var(name)
    .ok()
    .and_then(|s| s.parse().ok())
    .unwrap_or(default)
}

fn limits_json() -> Value {
  json!({ "user": { "userGlobal": 300, "workspace": 400 }, "agent": { "userGlobal": 500, "workspace": 600 } })
}

fn open(path: &Path) -> Memory {
  let store = Store::open(path, 0).expect("open store");
  let config = Config {
    budgets: Budgets::from_config(Some(&limits_json())).expect("budgets"),
    ..Config::default()
  };
  Memory::new(store, config)
}

/// The generator of writes: markers `[<tag>@<layer>]` make every match unique.
struct Gen {
  rng: Rng,
  n: u64,
  prefix: String,
}

struct Layer {
  track: &'static str,
  scope: &'static str,
  ws: &'static str,
  agent: &'static str,
}

impl Gen {
  fn marker(&mut self) -> String {
    self.n += 1;
    format!("[{}.{}]", self.prefix, self.n)
  }
  fn text(&mut self, max_words: usize) -> String {
    let mut words: Vec<String> = (0..1 + self.rng.below(max_words))
      .map(|_| self.rng.pick(&WORDS).to_string())
      .collect();
    let at = self.rng.below(words.len() + 1);
    let m = self.marker();
    words.insert(at, m);
    words.join(" ")
  }
  fn layer(&mut self) -> Layer {
    Layer {
      track: self.rng.pick(&["user", "agent"]),
      scope: self.rng.pick(&["user-global", "workspace"]),
      ws: self.rng.pick(&WORKSPACES),
      agent: self.rng.pick(&PRESETS),
    }
  }
  fn writer(&mut self, ws: &str, agent: &str) -> Result<Writer, MemoryError> {
    let session = match self.rng.below(20) {
      0 => None,
      1 => Some(String::new()),
      _ => Some(format!("{}-s{}", self.prefix, self.rng.below(3))),
    };
    Writer::new(session.as_deref(), Some(ws), Some(agent))
  }
  /// A random JSON value: hostile shapes, odd numbers, odd strings, deep nesting.
  fn hostile(&mut self, depth: u32) -> Value {
    match self.rng.below(if depth > 3 { 6 } else { 9 }) {
      0 => Value::Null,
      1 => json!(self.rng.chance(50)),
      2 => json!(self
        .rng
        .pick(&[0.0, -0.0, 1.5, 1e308, -1.0, 9.007_199_254_740_993e15])),
      3 => json!(self.rng.pick(&[
        "",
        " ",
        "user",
        "agent",
        "workspace",
        "user-global",
        "\u{0}nul",
        "\u{200b}",
        "[",
        "@"
      ])),
      4 => json!("x".repeat(self.rng.below(5000))),
      5 => json!(self.text(4)),
      6 => Value::Array(
        (0..self.rng.below(4))
          .map(|_| self.hostile(depth + 1))
          .collect(),
      ),
      7 => {
        let mut v = Value::Null;
        for _ in 0..(60 + self.rng.below(100)) {
          v = json!({ "text": v });
        }
        v
      }
      _ => {
        let keys = [
          "track",
          "scope",
          "text",
          "match",
          "matches",
          "tags",
          "source",
          "workspaceKey",
          "agentKey",
          "__proto__",
          "constructor",
        ];
        let mut m = serde_json::Map::new();
        for _ in 0..self.rng.below(6) {
          m.insert(self.rng.pick(&keys).to_string(), self.hostile(depth + 1));
        }
        Value::Object(m)
      }
    }
  }
  /// A valid input with, sometimes, one field replaced by a hostile value.
  fn maybe_mutate(&mut self, mut v: Value) -> Value {
    if self.rng.chance(12) {
      return self.hostile(0);
    }
    if self.rng.chance(15) {
      let keys: Vec<String> = v
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
      if !keys.is_empty() {
        let k = keys[self.rng.below(keys.len())].clone();
        let h = self.hostile(1);
        v[k] = h;
      }
    }
    v
  }
}

fn marker_of(text: &str) -> Option<&str> {
  let start = text.find('[')?;
  let end = text[start..].find(']')? + start;
  Some(&text[start..=end])
}

fn check_error(e: &MemoryError, what: &str, seed: u64) {
  assert!(
    MemoryError::CODES.contains(&e.code()),
    "{what}: unknown code {} (seed {seed})",
    e.code()
  );
  assert!(
    e.details().is_object(),
    "{what}: details is an object (seed {seed})"
  );
  assert_ne!(
    e.code(),
    "STORE_CORRUPT",
    "{what}: a healthy store reported {e} (seed {seed})"
  );
}

/// Everything the invariants need, read through an independent connection.
fn check_store(path: &Path, committed: &HashSet<String>, seed: u64, when: &str) {
  let conn = Connection::open(path).expect("read connection");
  conn
    .busy_timeout(Duration::from_secs(10))
    .expect("busy timeout");
  let ctx = format!("{when} (seed {seed})");
  let budgets = Budgets::from_config(Some(&limits_json())).expect("budgets");
  let mut entries: HashMap<String, (String, String, String, String)> = HashMap::new();
  let mut recount: HashMap<(String, String, String), i64> = HashMap::new();
  {
    let mut stmt = conn
      .prepare("SELECT id, track, scope, workspace_key, text, units FROM entries")
      .expect("entries");
    let rows = stmt
      .query_map([], |r| {
        Ok((
          r.get::<_, String>(0)?,
          r.get::<_, String>(1)?,
          r.get::<_, String>(2)?,
          r.get::<_, String>(3)?,
          r.get::<_, String>(4)?,
          r.get::<_, i64>(5)?,
        ))
      })
      .expect("entries query");
    for row in rows {
      let (id, track, scope, ws, text, units) = row.expect("entry row");
      let utf16 = text.encode_utf16().count() as i64;
      assert_eq!(units, utf16, "{ctx}: units of {id} = UTF-16 length");
      let layer = if scope == "workspace" {
        ws.clone()
      } else {
        String::new()
      };
      assert!(
        scope == "workspace" || ws.is_empty(),
        "{ctx}: user-global entry {id} has workspace key {ws}"
      );
      *recount
        .entry((track.clone(), scope.clone(), layer))
        .or_default() += units;
      assert!(
        entries
          .insert(id.clone(), (track, scope, ws, text))
          .is_none(),
        "{ctx}: duplicate id {id}"
      );
    }
  }
  // Maintained usage = recount; nothing over its limit.
  let mut maintained: HashMap<(String, String, String), i64> = HashMap::new();
  {
    let mut stmt = conn
      .prepare("SELECT track, scope, workspace_key, used FROM layer_usage")
      .expect("layer_usage");
    let rows = stmt
      .query_map([], |r| {
        Ok((
          r.get::<_, String>(0)?,
          r.get::<_, String>(1)?,
          r.get::<_, String>(2)?,
          r.get::<_, i64>(3)?,
        ))
      })
      .expect("layer_usage query");
    for row in rows {
      let (t, s, w, used) = row.expect("usage row");
      if used != 0 {
        maintained.insert((t, s, w), used);
      }
    }
  }
  recount.retain(|_, v| *v != 0);
  assert_eq!(maintained, recount, "{ctx}: maintained usage = recount");
  for ((t, s, w), used) in &recount {
    let track = dsh_memento::protocol::model::Track::parse(t).expect("track");
    let scope = dsh_memento::protocol::model::Scope::parse(s).expect("scope");
    let limit = budgets.limit(track, scope) as i64;
    assert!(
      *used <= limit,
      "{ctx}: layer {t}/{s}/{w} uses {used} > {limit}"
    );
  }
  // Replay the audit log.
  let mut state: HashMap<String, String> = HashMap::new();
  let mut seen_ids: HashSet<String> = HashSet::new();
  {
    let mut stmt = conn
      .prepare("SELECT seq, action, entry_id, text FROM audit ORDER BY seq")
      .expect("audit");
    let rows = stmt
      .query_map([], |r| {
        Ok((
          r.get::<_, i64>(0)?,
          r.get::<_, String>(1)?,
          r.get::<_, Option<String>>(2)?,
          r.get::<_, Option<String>>(3)?,
        ))
      })
      .expect("audit query");
    for row in rows {
      let (seq, action, id, text) = row.expect("audit row");
      let text = text.unwrap_or_default();
      match (action.as_str(), id) {
        ("add" | "consolidate-add", Some(id)) => {
          assert!(
            state.insert(id.clone(), text).is_none(),
            "{ctx}: row {seq} re-adds live {id}"
          );
          seen_ids.insert(id);
        }
        ("replace", Some(id)) => {
          assert!(
            state.contains_key(&id),
            "{ctx}: row {seq} replaces unknown {id}"
          );
          state.insert(id.clone(), text);
          seen_ids.insert(id);
        }
        ("remove" | "consolidate-remove", Some(id)) => {
          let prev = state.remove(&id);
          assert_eq!(
            prev.as_deref(),
            Some(text.as_str()),
            "{ctx}: row {seq} removes {id} with its last text"
          );
          seen_ids.insert(id);
        }
        (a, Some(id)) if a.ends_with("-denied") || a.ends_with("-aborted") => {
          panic!("{ctx}: {a} row {seq} names entry {id}")
        }
        (a, None)
          if [
            "add",
            "replace",
            "remove",
            "consolidate-add",
            "consolidate-remove",
          ]
          .contains(&a) =>
        {
          panic!("{ctx}: {a} row {seq} has no entry id")
        }
        _ => {}
      }
    }
  }
  let live: HashMap<String, String> = entries
    .iter()
    .map(|(id, (_, _, _, text))| (id.clone(), text.clone()))
    .collect();
  assert_eq!(state, live, "{ctx}: the audit log replays to the entry set");
  for id in committed {
    assert!(
      seen_ids.contains(id),
      "{ctx}: committed write of {id} has no audit row"
    );
  }
}

fn ids_of(value: &Value) -> Vec<String> {
  let mut out = Vec::new();
  for key in ["entry", "previous"] {
    if let Some(id) = value[key]["id"].as_str() {
      out.push(id.to_string());
    }
  }
  for key in ["removed", "entries"] {
    if let Some(items) = value[key].as_array() {
      out.extend(
        items
          .iter()
          .filter_map(|e| e["id"].as_str().map(str::to_string)),
      );
    }
  }
  out
}

/// One random step: plan something (kept outstanding), finish an outstanding plan, or a
/// proposal/recall call. Returns the ids a committed write touched.
fn step(m: &mut Memory, g: &mut Gen, outstanding: &mut Vec<Plan>, seed: u64) -> Vec<String> {
  let entries = m.list_entries(None).expect("list entries");
  let marked: Vec<_> = entries
    .iter()
    .filter(|e| marker_of(&e.text).is_some())
    .cloned()
    .collect();
  let action = g.rng.below(11);
  if action <= 2 && !outstanding.is_empty() || outstanding.len() >= 6 {
    let plan = outstanding.swap_remove(g.rng.below(outstanding.len()));
    let answer = match g.rng.below(10) {
      0 => GateAnswer::Outcome("rejected".into()),
      1 => GateAnswer::Outcome("allowed-once ".into()),
      2 => GateAnswer::NotAString("a number".into()),
      3 => GateAnswer::Failed("transport down".into()),
      _ => GateAnswer::Outcome("allowed-once".into()),
    };
    let aborted = g.rng.chance(5);
    let via = g.rng.chance(20).then(|| "test".to_string());
    let via = Via {
      via,
      ..Via::default()
    };
    return match m.finish(plan, answer, via, aborted) {
      Ok(Finished::Written(v)) => ids_of(&serde_json::to_value(v).expect("result JSON")),
      Ok(Finished::Aborted) => Vec::new(),
      Err(e) => {
        check_error(&e, "finish", seed);
        Vec::new()
      }
    };
  }
  let pick_entry =
    |g: &mut Gen| (!marked.is_empty()).then(|| marked[g.rng.below(marked.len())].clone());
  let planned = match action {
    3 | 4 => {
      let l = g.layer();
      let mut input = json!({ "track": l.track, "scope": l.scope, "text": g.text(10) });
      if g.rng.chance(30) {
        input["tags"] = json!(["pref"]);
      }
      let input = g.maybe_mutate(input);
      g.writer(l.ws, l.agent).and_then(|w| m.plan_add(&input, w))
    }
    5 => {
      let Some(e) = pick_entry(g) else {
        return Vec::new();
      };
      let text = g.text(8);
      let input = g.maybe_mutate(json!({ "track": e.track.as_str(), "scope": e.scope.as_str(), "match": marker_of(&e.text), "text": text }));
      let ws = if e.workspace_key.is_empty() {
        WORKSPACES[0].to_string()
      } else {
        e.workspace_key.clone()
      };
      g.writer(&ws, &e.agent_key)
        .and_then(|w| m.plan_replace(&input, w))
    }
    6 => {
      let Some(e) = pick_entry(g) else {
        return Vec::new();
      };
      let input = g.maybe_mutate(json!({ "track": e.track.as_str(), "scope": e.scope.as_str(), "match": marker_of(&e.text) }));
      let ws = if e.workspace_key.is_empty() {
        WORKSPACES[0].to_string()
      } else {
        e.workspace_key.clone()
      };
      g.writer(&ws, &e.agent_key)
        .and_then(|w| m.plan_remove(&input, w))
    }
    7 => {
      let Some(first) = pick_entry(g) else {
        return Vec::new();
      };
      let mut matches: Vec<String> = vec![marker_of(&first.text).unwrap_or("").to_string()];
      for e in &marked {
        if e.id != first.id
          && e.track == first.track
          && e.scope == first.scope
          && e.workspace_key == first.workspace_key
          && (e.agent_key.is_empty() || e.agent_key == first.agent_key)
          && g.rng.chance(40)
          && matches.len() < 4
        {
          matches.push(marker_of(&e.text).unwrap_or("").to_string());
        }
      }
      if g.rng.chance(5) {
        matches.push(matches[0].clone());
      }
      let text = g.text(5);
      let input = g.maybe_mutate(json!({ "track": first.track.as_str(), "scope": first.scope.as_str(), "matches": matches, "text": text }));
      let ws = if first.workspace_key.is_empty() {
        WORKSPACES[0].to_string()
      } else {
        first.workspace_key.clone()
      };
      g.writer(&ws, &first.agent_key)
        .and_then(|w| m.plan_consolidate(&input, w))
    }
    8 => {
      let items: Vec<Value> = (0..1 + g.rng.below(3))
        .map(|_| {
          let l = g.layer();
          let v = json!({ "track": l.track, "scope": l.scope, "text": g.text(4), "workspaceKey": l.ws, "agentKey": l.agent });
          g.maybe_mutate(v)
        })
        .collect();
      let inputs = if g.rng.chance(10) {
        g.hostile(0)
      } else {
        Value::Array(items)
      };
      g.writer(WORKSPACES[0], "")
        .and_then(|w| m.plan_seed(&inputs, w))
    }
    9 => {
      let l = g.layer();
      let session = format!("{}-p{}", g.prefix, g.n);
      let text = g.text(4);
      let input = g.maybe_mutate(json!({ "track": l.track, "scope": l.scope, "text": text, "workspaceKey": l.ws, "agentKey": l.agent }));
      match m.proposal_add(ProposalInput {
        kind: "fuzz".into(),
        input,
        session_id: Some(session.clone()),
      }) {
        Ok(Some(p)) => {
          let w = Writer::new(Some(&session), Some(l.ws), Some(l.agent)).expect("writer");
          if g.rng.chance(25) {
            if let Err(e) = m.proposal_dismiss(&p.id, &w) {
              check_error(&e, "proposal_dismiss", seed);
            }
            return Vec::new();
          }
          m.plan_approve(&p.id, w)
        }
        Ok(None) => return Vec::new(),
        Err(e) => Err(e),
      }
    }
    _ => {
      let opts = QueryOptions {
        session_id: g.rng.chance(50).then(|| "fuzz-reader".to_string()),
        visibility: Visibility {
          agent_key: g.rng.chance(50).then(|| "coder".to_string()),
          workspace_key: g.rng.chance(50).then(|| WORKSPACES[1].to_string()),
        },
        count_recall: g.rng.chance(50),
        ..QueryOptions::default()
      };
      let filter = if g.rng.chance(30) {
        g.hostile(0)
      } else {
        json!({ "text": g.rng.pick(&WORDS), "limit": g.rng.below(30) })
      };
      if let Err(e) = m.query(&filter, &opts) {
        check_error(&e, "query", seed);
      }
      return Vec::new();
    }
  };
  match planned {
    Ok(plan) => outstanding.push(plan),
    Err(e) => check_error(&e, "plan", seed),
  }
  Vec::new()
}

#[test]
fn random_plan_finish_sequences_keep_every_invariant() {
  let base = seed_from_env();
  let runs = 6;
  let steps = env_count("MEMENTO_FUZZ_STEPS", 400);
  let started = Instant::now();
  let mut executed = 0usize;
  for run in 0..runs {
    let seed = base.wrapping_add(run as u64);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("memory.db");
    let mut m = open(&path);
    let mut g = Gen {
      rng: Rng(seed),
      n: 0,
      prefix: format!("r{run}"),
    };
    let mut outstanding = Vec::new();
    let mut committed = HashSet::new();
    for i in 0..steps {
      committed.extend(step(&mut m, &mut g, &mut outstanding, seed));
      executed += 1;
      if i % 10 == 0 || i + 1 == steps {
        check_store(&path, &committed, seed, &format!("run {run} step {i}"));
      }
    }
    let verification = m.audit_verify().expect("audit verify");
    assert!(
      verification.ok,
      "audit chain verifies (seed {seed}): {verification:?}"
    );
    drop(m);
    // Reopen: same invariants, and the chain still verifies.
    let reopened = open(&path);
    check_store(&path, &committed, seed, &format!("run {run} reopened"));
    assert!(reopened.audit_verify().expect("verify").ok);
  }
  eprintln!(
    "fuzz_core: {executed} random core operations over {runs} stores in {} ms (seed {base})",
    started.elapsed().as_millis()
  );
}

/// The child half of the kill loop: a writer that runs until it is killed. A no-op unless
/// `MEMENTO_CRASH_CHILD` names a store (so `cargo test` runs it as an empty pass).
#[test]
fn crash_child_writer() {
  let Ok(path) = std::env::var("MEMENTO_CRASH_CHILD") else {
    return;
  };
  let seed = seed_from_env();
  let mut m = open(Path::new(&path));
  let mut g = Gen {
    rng: Rng(seed),
    n: 0,
    prefix: format!("c{seed}"),
  };
  let mut outstanding = Vec::new();
  let deadline = Instant::now() + Duration::from_secs(30);
  while Instant::now() < deadline {
    step(&mut m, &mut g, &mut outstanding, seed);
  }
}

#[test]
fn sigkill_loop_keeps_the_store_whole() {
  let base = seed_from_env();
  let kills = env_count("MEMENTO_CRASH_KILLS", 40);
  let exe = std::env::current_exe().expect("test binary");
  let dir = tempfile::tempdir().expect("tempdir");
  let path = dir.path().join("memory.db");
  let mut rng = Rng(base ^ 0x00c0_ffee);
  let started = Instant::now();
  for i in 0..kills {
    let mut child = Command::new(&exe)
      .args([
        "--exact",
        "crash_child_writer",
        "--nocapture",
        "--test-threads=1",
      ])
      .env("MEMENTO_CRASH_CHILD", &path)
      .env("MEMENTO_TEST_SEED", base.wrapping_add(i as u64).to_string())
      .stdout(Stdio::null())
      .stderr(Stdio::null())
      .spawn()
      .expect("spawn writer");
    std::thread::sleep(Duration::from_millis(5 + rng.below(60) as u64));
    child.kill().expect("SIGKILL");
    let status = child.wait().expect("wait");
    assert!(
      !status.success(),
      "kill {i}: the writer was killed, not finished"
    );
    if !path.exists() {
      continue;
    }
    // Recovery by a normal open, then integrity and every invariant.
    let m = open(&path);
    let conn = Connection::open(&path).expect("read connection");
    let integrity: String = conn
      .query_row("PRAGMA integrity_check", [], |r| r.get(0))
      .expect("integrity_check");
    assert_eq!(integrity, "ok", "kill {i}: integrity_check (seed {base})");
    check_store(&path, &HashSet::new(), base, &format!("after kill {i}"));
    assert!(
      m.audit_verify().expect("verify").ok,
      "kill {i}: audit chain verifies (seed {base})"
    );
  }
  let m = open(&path);
  let rows = m.audit_list(1_000_000).expect("audit").len();
  eprintln!(
    "sigkill loop: {kills} kills survived, {rows} audit rows, integrity_check ok after each, {} ms (seed {base})",
    started.elapsed().as_millis()
  );
}
