#![allow(clippy::unwrap_used, missing_docs)]
use std::time::Instant;
use dsh_memento::engine::{Config, GateAnswer, Memory};
use dsh_memento::protocol::model::{Budgets, Writer};
use dsh_memento::store::Store;
use serde_json::json;
fn main() {
  let n: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(100);
  let on = std::env::args().nth(2).as_deref() != Some("off");
  let dir = std::env::temp_dir().join(format!("hp-{}-{on}", std::process::id()));
  std::fs::create_dir_all(&dir).unwrap();
  let store = Store::open(&dir.join("m.db"), 0).unwrap();
  let mut config = Config::default();
  config.budgets = Budgets::from_config(Some(&json!({"agent": {"workspace": 1_000_000_000}}))).unwrap();
  config.similar_hints = on;
  let mut m = Memory::new(store, config);
  let w = Writer { session_id: "s".into(), workspace_key: "/w".into(), agent_key: String::new(), source: None };
  let s = ["the API server","the staging database","CI","the frontend build","the deploy script","the auth service","the mobile app"];
  let seed: Vec<_> = (0..n).map(|i| json!({"track":"agent","scope":"workspace","text": format!("{} runs on port {} behind nginx {}.", s[i%7], 8000+i, i%9)})).collect();
  let plan = m.plan_seed(&json!(seed), w.clone()).unwrap();
  m.finish(plan, GateAnswer::Outcome("allowed-once".into()), None, false).unwrap();
  let k = 2000;
  let t0 = Instant::now();
  for i in 0..k {
    let _ = m.plan_add(&json!({"track":"agent","scope":"workspace","text": format!("{} runs on port {} behind caddy [x{i}]", s[i%7], 9000+i)}), w.clone()).unwrap();
  }
  println!("n={n} on={on}: {:.1} µs per plan_add", t0.elapsed().as_secs_f64() * 1e6 / k as f64);
}
