//! Times the core on issue 14's "large layers" shape: 10,000 entries in the four layers of one
//! workspace, ~80-character texts (half mostly Chinese), each with a unique token.
//! `cargo run --release --no-default-features --example large [entries]`
#![allow(
  clippy::unwrap_used,
  clippy::expect_used,
  clippy::manual_is_multiple_of,
  missing_docs
)]

use std::time::Instant;

use dsh_memento::engine::{Config, Finished, GateAnswer, Memory, QueryOptions, Via};
use dsh_memento::protocol::model::{Budgets, Writer};
use dsh_memento::store::{Store, Visibility};
use serde_json::{json, Value};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const WS: &str = "/work/repos/big";
const AGENTS: [&str; 4] = ["coder", "reviewer", "planner", "writer"];

fn token(i: usize) -> String {
  let mut x = (i as u64 + 0x1234567).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 20;
  let mut s = String::from("Q");
  for _ in 0..6 {
    s.push(
      char::from_digit((x % 36) as u32, 36)
        .unwrap()
        .to_ascii_uppercase(),
    );
    x /= 36;
  }
  s
}

fn pair(i: usize) -> String {
  let x = (i as u32).wrapping_mul(2_654_435_761);
  [0x3400 + x % 6592, 0x3400 + (x / 6592) % 6592]
    .iter()
    .map(|c| char::from_u32(*c).unwrap())
    .collect()
}

fn text(i: usize) -> String {
  let mut t = format!("[{}] ", token(i));
  if i % 2 == 0 {
    t += &format!("联系人{} ", pair(i));
    t += "用户偏好简洁的回答，构建前先运行测试，部署需要经过预发布环境，数据库迁移放在固定目录，代码评审要求至少两人通过";
  } else {
    if i % 10 < 6 {
      t += "run the integration tests before pushing; ";
    }
    t += "prefers pnpm over npm for every install; use tabs in Makefiles and two spaces elsewhere";
  }
  t.chars().take(80).collect()
}

fn layer(i: usize) -> (&'static str, &'static str, &'static str) {
  let (track, scope) = [
    ("user", "user-global"),
    ("user", "workspace"),
    ("agent", "user-global"),
    ("agent", "workspace"),
  ][i % 4];
  let agent = if track == "user" || i % 3 == 0 {
    ""
  } else {
    AGENTS[i % 4]
  };
  (track, scope, agent)
}

fn input(i: usize) -> Value {
  let (track, scope, agent) = layer(i);
  json!({"track": track, "scope": scope, "text": text(i), "workspaceKey": WS, "agentKey": agent})
}

fn writer() -> Writer {
  Writer {
    session_id: "bench".into(),
    workspace_key: WS.into(),
    agent_key: "coder".into(),
    source: None,
  }
}

fn config() -> Config {
  let big = 1_000_000_000u64;
  let b = json!({"user": {"userGlobal": big, "workspace": big}, "agent": {"userGlobal": big, "workspace": big}});
  Config {
    budgets: Budgets::from_config(Some(&b)).unwrap(),
    ..Config::default()
  }
}

fn allow(m: &mut Memory, plan: dsh_memento::engine::Plan) -> Res<()> {
  match m.finish(
    plan,
    GateAnswer::Outcome("allowed-once".into()),
    Via::default(),
    false,
  )? {
    Finished::Written(_) => Ok(()),
    Finished::Aborted => Err("aborted".into()),
  }
}

/// Median µs of `f` over `n` runs (the minimum is printed too: on a loaded machine it is the
/// closer estimate of an idle one).
fn time(name: &str, n: usize, mut f: impl FnMut(usize) -> Res<()>) -> Res<f64> {
  let mut wall = Vec::with_capacity(n);
  for i in 0..n {
    let t = Instant::now();
    f(i)?;
    wall.push(t.elapsed().as_secs_f64() * 1e6);
  }
  wall.sort_by(f64::total_cmp);
  println!(
    "{name:<28} median {:>9.1} µs  min {:>9.1} µs (of {n})",
    wall[n / 2],
    wall[0]
  );
  Ok(wall[n / 2])
}

fn main() -> Res<()> {
  let n: usize = std::env::args().nth(1).map_or(Ok(10_000), |s| s.parse())?;
  let dir = tempfile::tempdir()?;
  let path = dir.path().join("memory.db");
  let mut m = Memory::new(Store::open(&path, 0)?, config());
  let t = Instant::now();
  for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
    let inputs: Vec<Value> = chunk.iter().map(|&i| input(i)).collect();
    let plan = m.plan_seed(&Value::Array(inputs), writer())?;
    allow(&mut m, plan)?;
  }
  println!(
    "built {n} entries in {:.0} ms",
    t.elapsed().as_secs_f64() * 1e3
  );
  drop(m);

  let quiet = QueryOptions::default();
  if std::env::args().nth(2).as_deref() == Some("seed") {
    let mut m = Memory::new(Store::open(&path, 0)?, config());
    return time("seed (batch of 100)", 60, |b| {
      let inputs: Vec<Value> = (0..100)
        .map(|e| json!({"track": "user", "scope": "workspace", "text": text(n + 9000 + b * 100 + e), "workspaceKey": format!("/seeded/{b}")}))
        .collect();
      let plan = m.plan_seed(&Value::Array(inputs), writer())?;
      allow(&mut m, plan)
    })
    .map(|_| ());
  }
  time("open (warm)", 20, |_| {
    drop(Memory::new(Store::open(&path, 0)?, config()));
    Ok(())
  })?;
  let mut first = Vec::new();
  for i in 0..10 {
    let mut m = Memory::new(Store::open(&path, 0)?, config());
    let t = Instant::now();
    m.query(
      &json!({"text": token(i * 7).to_lowercase(), "limit": 1}),
      &quiet,
    )?;
    first.push(t.elapsed().as_secs_f64() * 1e6);
  }
  first.sort_by(f64::total_cmp);
  println!(
    "{:<28} {:>10.1} µs (median of 10)",
    "first query after open", first[5]
  );
  let mut m = Memory::new(Store::open(&path, 0)?, config());
  let recall = QueryOptions {
    count_recall: true,
    ..QueryOptions::default()
  };
  let session = QueryOptions {
    count_recall: true,
    visibility: Visibility {
      agent_key: Some("coder".into()),
      workspace_key: Some(WS.into()),
    },
    ..QueryOptions::default()
  };
  time("query rare token", 50, |i| {
    let r = m.query(
      &json!({"text": token(i * 31).to_lowercase(), "limit": 20}),
      &recall,
    )?;
    assert_eq!(r.total, 1);
    Ok(())
  })?;
  time("query common word", 50, |_| {
    let r = m.query(&json!({"text": "tests", "limit": 20}), &recall)?;
    assert!(r.total > 1000);
    Ok(())
  })?;
  time("query 2-char CJK", 50, |i| {
    let r = m.query(&json!({"text": pair(i * 62), "limit": 20}), &recall)?;
    assert!(r.total >= 1);
    Ok(())
  })?;
  time("query session (common)", 50, |_| {
    m.query(&json!({"text": "tests", "limit": 20}), &session)?;
    Ok(())
  })?;
  time("query no text, limit 20", 20, |_| {
    m.query(&json!({"limit": 20}), &quiet)?;
    Ok(())
  })?;
  time("budgets()", 200, |_| {
    m.budgets(None)?;
    Ok(())
  })?;
  time("budgets(workspace)", 200, |_| {
    m.budgets(Some(WS))?;
    Ok(())
  })?;
  time("auditList(100)", 100, |_| {
    m.audit_list(100)?;
    Ok(())
  })?;
  time("add", 50, |i| {
    let plan = m.plan_add(&input(n + 100 + i), writer())?;
    allow(&mut m, plan)
  })?;
  // Targets: user/workspace (i % 4 == 1, shared), agent/workspace owned by coder, and shared
  // agent/workspace pairs.
  let targets =
    |r: usize, k: usize| -> Vec<usize> { (0..n).filter(|i| i % 4 == r).skip(k).collect() };
  let removes = targets(1, 0);
  time("remove (targeted)", 50, |i| {
    let j = removes[i];
    let input = json!({"track": "user", "scope": "workspace", "match": token(j).to_lowercase()});
    let plan = m.planned(|m| m.plan_remove(&input, writer()))?;
    allow(&mut m, plan)
  })?;
  let owned: Vec<usize> = (0..n)
    .filter(|&i| layer(i) == ("agent", "workspace", AGENTS[3]))
    .collect();
  time("replace", 50, |i| {
    let j = owned[i];
    let input = json!({"track": "agent", "scope": "workspace", "match": token(j).to_lowercase(), "text": text(n + 500 + i), "agentKey": AGENTS[3]});
    let plan = m.planned(|m| m.plan_replace(&input, writer()))?;
    allow(&mut m, plan)
  })?;
  let shared: Vec<usize> = (0..n)
    .filter(|&i| layer(i) == ("agent", "workspace", ""))
    .collect();
  time("consolidate (2)", 50, |i| {
    let (a, b) = (shared[2 * i], shared[2 * i + 1]);
    let input = json!({"track": "agent", "scope": "workspace", "matches": [token(a).to_lowercase(), token(b).to_lowercase()], "text": text(n + 800 + i), "agentKey": ""});
    let plan = m.planned(|m| m.plan_consolidate(&input, writer()))?;
    allow(&mut m, plan)
  })?;
  let batch = time("seed (batch of 100)", 10, |b| {
    let inputs: Vec<Value> = (0..100)
      .map(|e| json!({"track": if e < 60 { "user" } else { "agent" }, "scope": "workspace", "text": text(n + 2000 + b * 100 + e), "workspaceKey": format!("/seeded/{b}")}))
      .collect();
    let plan = m.plan_seed(&Value::Array(inputs), writer())?;
    allow(&mut m, plan)
  })?;
  println!("{:<28} {:>10.1} µs", "seed per entry", batch / 100.0);
  let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
  if let Some(hwm) = status.lines().find(|l| l.starts_with("VmHWM")) {
    println!("peak RSS {}", hwm.trim_start_matches("VmHWM:").trim());
  }
  Ok(())
}
