//! Core tests of the engine, run without napi (`cargo test --no-default-features`), by topic;
//! this file holds what they share.
use super::*;
use serde_json::json;

type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

fn memory(
  budgets: Value,
) -> std::result::Result<(Memory, tempfile::TempDir), Box<dyn std::error::Error>> {
  let dir = tempfile::tempdir()?;
  let store = Store::open(&dir.path().join("memory.db"), 0)?;
  let config = Config {
    budgets: Budgets::from_config(Some(&budgets))?,
    ..Config::default()
  };
  Ok((Memory::new(store, config), dir))
}

fn writer(agent: &str, cwd: &str) -> Writer {
  Writer {
    session_id: "s1".into(),
    workspace_key: cwd.into(),
    agent_key: agent.into(),
    source: None,
  }
}

fn allow() -> GateAnswer {
  GateAnswer::Outcome("allowed-once".into())
}

fn add(m: &mut Memory, track: &str, scope: &str, text: &str, w: Writer) -> Result<Value> {
  let plan = m.plan_add(&json!({"track": track, "scope": scope, "text": text}), w)?;
  match m.finish(plan, allow(), Via::default(), false)? {
    Finished::Written(v) => {
      serde_json::to_value(v).map_err(|e| MemoryError::invalid(e.to_string()))
    }
    Finished::Aborted => Err(MemoryError::invalid("aborted")),
  }
}

/// Store `text` as a store the JS plugin wrote may hold it: with a control character no write
/// accepts any more (those still have to be found, targeted and rendered safely).
fn plant(m: &mut Memory, track: &str, scope: &str, text: &str, w: Writer) -> Result<()> {
  let input = model::parse_entry_input(&json!({"track": track, "scope": scope, "text": "x"}))?;
  let mut e = m.new_entry(input, &w);
  e.text = text.into();
  e.id = Uuid::new_v4().to_string();
  (e.created_at, e.updated_at) = (now_ms(), now_ms());
  m.store
    .write(|tx, path| store::insert_entries(tx, &[e]).map_err(|x| fail_at(path, x)))
}

/// `add`, or `plant` for a text no write accepts.
fn write_any(m: &mut Memory, track: &str, scope: &str, text: &str, w: Writer) -> Result<()> {
  match crate::text::forbidden_control(text, true) {
    Some(_) => plant(m, track, scope, text, w),
    None => add(m, track, scope, text, w).map(drop),
  }
}

fn texts(m: &mut Memory) -> Result<Vec<String>> {
  Ok(m.list_entries(None)?.into_iter().map(|e| e.text).collect())
}

fn recount(m: &Memory) -> rusqlite::Result<Vec<(String, String, String, i64)>> {
  let conn = m.store.conn();
  let mut stmt = conn.prepare(
    "SELECT track, scope, CASE scope WHEN 'workspace' THEN workspace_key ELSE '' END, units FROM entries",
  )?;
  let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
  let mut sums: Vec<(String, String, String, i64)> = Vec::new();
  for row in rows {
    let (t, s, k, u): (String, String, String, i64) = row?;
    match sums.iter_mut().find(|x| x.0 == t && x.1 == s && x.2 == k) {
      Some(x) => x.3 += u,
      None => sums.push((t, s, k, u)),
    }
  }
  sums.sort();
  Ok(sums)
}

fn maintained(m: &Memory) -> rusqlite::Result<Vec<(String, String, String, i64)>> {
  let conn = m.store.conn();
  let mut stmt = conn.prepare(
    "SELECT track, scope, workspace_key, used FROM layer_usage WHERE used <> 0 ORDER BY 1, 2, 3",
  )?;
  let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
  rows.collect()
}

mod approval;
mod batch;
mod health;
mod ledger;
mod recall;
mod revert;
mod search;
mod similar;
mod targeting;
