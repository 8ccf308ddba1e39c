//! The floor's writes: each memory write's SQL by plain rusqlite, in one `BEGIN IMMEDIATE`
//! transaction, with no protocol layer (no validation, no gate, no hashing, no JSON).
//!
//! The bench interleaves the writes with the provider's in rounds ([`round`]): round `r` of
//! `R` takes the plan items `k % R == r`, the provider runs its share, then the floor runs its
//! share, and so on, so that both sides see the same moments of this noisy VM. Within a round
//! the floor runs two sets of statements per write ([`Statements`]) on alternating items:
//! - `Same` — the floor as the issue defines it: the same SQL statements the provider's write
//!   runs, all in the one transaction. The provider runs its target lookups and budget
//!   pre-check in a read transaction before it asks the gate, and the rest in its write
//!   transaction.
//! - `Minimal` — only the mutation and its audit INSERT(s): the least SQL any write could run.

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde_json::{json, Value};

use super::{
  index_of, inputs_of, insert_audit_sql, now_ms, session_of, str_of, strings_of, units, Input, Res,
  Samples, ENTRY_COLUMNS, OUTCOME, SOURCE,
};

/// Which statements a floor write runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statements {
  /// The mutation and its audit INSERT(s) only.
  Minimal,
  /// Every statement of the provider's write: besides the mutation and the audit INSERT,
  /// - add: the layer's usage (pre-check and re-check);
  /// - replace: the target lookup in its layer, the usage (pre-check and re-check), the re-find
  ///   of the approved id;
  /// - remove: the target lookup, the re-find, the usage it reports;
  /// - consolidate: two lookups, the usage (pre-check and re-check), two re-finds;
  /// - seed: each layer's usage (pre-check and re-check);
  /// - and per audit row, the read of the chain's tail (the last hash and the next seq).
  Same,
}

impl Statements {
  /// Alternate a round's items: odd ones run every statement, even ones the minimal set.
  fn alternate(j: usize) -> Self {
    if j % 2 == 1 {
      Self::Same
    } else {
      Self::Minimal
    }
  }
}

/// A write's target as the provider resolves it: a match in one layer of the writer's view.
#[derive(Debug, Clone)]
struct Target {
  track: String,
  scope: String,
  workspace_key: String,
  /// The agent whose entries (besides the shared ones) the writer sees.
  agent_key: String,
  /// The lower-case needle.
  needle: String,
  /// Whether the lookup goes through the provider's FTS index (see [`Target::new`]).
  by_index: bool,
}

/// Layers of more rows than this are searched through the provider's FTS index, smaller ones
/// scanned: the cheaper of the two exact lookups (a 7-character token's trigram postings cost
/// more than reading a few dozen rows, and far less than reading thousands).
const SCAN_MAX_ROWS: i64 = 500;

impl Target {
  /// The target of a write, its lookup chosen (untimed) by the size of its layer.
  fn new(
    conn: &Connection,
    track: &str,
    scope: &str,
    workspace_key: &str,
    agent_key: String,
    needle: &str,
  ) -> Res<Target> {
    // A user-global layer's rows carry the workspace key ''.
    let workspace_key = if scope == "workspace" {
      workspace_key
    } else {
      ""
    };
    let indexed =
      super::PROVIDER_FTS.get().copied().unwrap_or(false) && needle.chars().count() >= 3;
    let rows: i64 = if indexed {
      conn
        .prepare_cached(
          "SELECT count(*) FROM entries WHERE track = ?1 AND scope = ?2 AND workspace_key = ?3",
        )?
        .query_row(params![track, scope, workspace_key], |r| r.get(0))?
    } else {
      0
    };
    Ok(Target {
      track: track.to_string(),
      scope: scope.to_string(),
      workspace_key: workspace_key.to_string(),
      agent_key,
      needle: needle.to_string(),
      by_index: rows > SCAN_MAX_ROWS,
    })
  }
}

/// Set by [`without_fts`]: the provider's FTS index is not written.
static NO_FTS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Entry `id`'s share of its layer's usage, added (`?2` = 1) or taken out (-1).
const KEEP_USAGE: &str = "INSERT INTO layer_usage (track, scope, workspace_key, used)
  SELECT track, scope, CASE scope WHEN 'workspace' THEN workspace_key ELSE '' END, ?2 * units
  FROM entries WHERE id = ?1 AND true
  ON CONFLICT (track, scope, workspace_key) DO UPDATE SET used = used + excluded.used";
const DELETE_FTS: &str =
  "DELETE FROM entries_fts WHERE rowid = (SELECT fts_id FROM entries WHERE id = ?1)";

/// The provider's bookkeeping of entry `id`, as its store's writes do it: the layer's usage and
/// the FTS index row, added (`sign` 1: after an insert or a rewrite) or taken out (-1: before a
/// rewrite or a delete). A schema without the FTS index (before v10) keeps neither.
fn keep(conn: &Connection, id: &str, sign: i64) -> Res<()> {
  if super::PROVIDER_FTS.get() != Some(&true) {
    return Ok(());
  }
  conn
    .prepare_cached(KEEP_USAGE)?
    .execute(params![id, sign])?;
  if !NO_FTS.load(std::sync::atomic::Ordering::Relaxed) {
    let index = if sign > 0 {
      super::INSERT_FTS
    } else {
      DELETE_FTS
    };
    conn.prepare_cached(index)?.execute([id])?;
  }
  Ok(())
}

fn insert_entry(conn: &Connection, id: &str, e: &Input, at: i64, session: &str) -> Res<()> {
  let grouped = super::INSERT_ENTRY.get() == Some(&super::INSERT_ENTRY_FTS_ID);
  if grouped {
    let layer = params![e.track, e.scope, e.workspace_key, e.agent_key];
    conn.prepare_cached(super::INSERT_GROUP)?.execute(layer)?;
  }
  conn
    .prepare_cached(
      super::INSERT_ENTRY
        .get()
        .copied()
        .unwrap_or(super::INSERT_ENTRY_PLAIN),
    )?
    .execute(params![
      id,
      e.track,
      e.scope,
      e.workspace_key,
      e.agent_key,
      e.text,
      SOURCE,
      e.tags,
      at,
      session,
      units(&e.text)
    ])?;
  keep(conn, id, 1)
}

#[derive(Debug, Clone, Copy)]
struct Audit<'a> {
  action: &'a str,
  track: Option<&'a str>,
  scope: Option<&'a str>,
  entry_id: Option<&'a str>,
  text: &'a str,
  session: &'a str,
}

fn audit(conn: &Connection, a: Audit<'_>, st: Statements) -> Res<()> {
  if st == Statements::Same {
    let _tail: (Option<String>, Option<i64>, i64) = conn
      .prepare_cached(
        "SELECT (SELECT hash FROM audit ORDER BY seq DESC LIMIT 1), (SELECT max(seq) FROM audit),
                coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'audit'), 0)",
      )?
      .query_row([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
  }
  conn.prepare_cached(insert_audit_sql())?.execute(params![
    now_ms(),
    a.action,
    a.track,
    a.scope,
    a.entry_id,
    a.text,
    OUTCOME,
    SOURCE,
    a.session
  ])?;
  Ok(())
}

fn entry_audit<'a>(action: &'a str, id: &'a str, e: &'a Input, session: &'a str) -> Audit<'a> {
  Audit {
    action,
    track: Some(&e.track),
    scope: Some(&e.scope),
    entry_id: Some(id),
    text: &e.text,
    session,
  }
}

pub fn new_id() -> String {
  uuid::Uuid::new_v4().to_string()
}

/// A layer's usage counter (`Same` only).
fn usage(
  conn: &Connection,
  track: &str,
  scope: &str,
  workspace_key: &str,
  st: Statements,
) -> Res<()> {
  if st == Statements::Same {
    let _used: Option<i64> = conn
      .prepare_cached(
        "SELECT used FROM layer_usage WHERE track = ?1 AND scope = ?2 AND workspace_key = ?3",
      )?
      .query_row(params![track, scope, workspace_key], |r| r.get(0))
      .optional()?
      .flatten();
  }
  Ok(())
}

fn input_usage(conn: &Connection, e: &Input, st: Statements) -> Res<()> {
  usage(conn, &e.track, &e.scope, &e.workspace_key, st)
}

fn target_usage(conn: &Connection, t: &Target, st: Statements) -> Res<()> {
  usage(conn, &t.track, &t.scope, &t.workspace_key, st)
}

/// The target lookup (`Same` only): the matching rows of the target's layer in the writer's
/// view, every column, as the provider reads them; it must find exactly `id`. In a large layer
/// the candidates come from the provider's FTS index (issue 14: a targeted write finds its match
/// through the index, not by reading every text of the layer), re-checked by `instr`; a small
/// layer's rows are scanned.
fn lookup(conn: &Connection, t: &Target, id: &str, st: Statements) -> Res<()> {
  if st == Statements::Minimal {
    return Ok(());
  }
  // Through the index, the layer's columns are filters only (`+`): the planner must not walk
  // the layer by its index.
  let select = if t.by_index {
    format!("SELECT {ENTRY_COLUMNS}, rowid FROM entries WHERE fts_id IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?6) AND +track = ?1 AND +scope = ?5 AND +workspace_key = ?2")
  } else {
    format!("SELECT {ENTRY_COLUMNS}, rowid FROM entries WHERE track = ?1 AND scope = ?5 AND workspace_key = ?2 AND ?6 IS NOT NULL")
  };
  let filter = "AND (?3 IS NULL OR instr(lower(text), ?3) > 0)";
  let sql = format!(
    "{select} AND agent_key = '' {filter} UNION ALL {select} AND agent_key = ?4 AND ?4 <> '' {filter}"
  );
  let phrase = format!("\"{}\"", t.needle.replace('"', "\"\""));
  let hits = conn
    .prepare_cached(&sql)?
    .query_map(
      params![
        t.track,
        t.workspace_key,
        t.needle,
        t.agent_key,
        t.scope,
        phrase
      ],
      |r| {
        let row = super::read_row(r)?;
        Ok((r.get::<_, String>(0)?, row))
      },
    )?
    .collect::<rusqlite::Result<Vec<_>>>()?;
  match hits.as_slice() {
    [(found, _)] if found == id => Ok(()),
    _ => Err(format!("lookup: {} hits for {}", hits.len(), t.needle).into()),
  }
}

/// The re-find of the approved id in the writer's view, inside the write (`Same` only).
fn refind(conn: &Connection, t: &Target, id: &str, st: Statements) -> Res<()> {
  if st == Statements::Same {
    let sql = format!(
      "SELECT {ENTRY_COLUMNS} FROM entries WHERE id = ?1
         AND (?2 IS NULL OR agent_key = '' OR agent_key = ?2)
         AND (scope <> 'workspace' OR ?3 IS NULL OR workspace_key = ?3)"
    );
    conn
      .prepare_cached(&sql)?
      .query_row(params![id, t.agent_key, t.workspace_key], super::read_row)?;
  }
  Ok(())
}

fn delete(conn: &Connection, id: &str) -> Res<()> {
  keep(conn, id, -1)?;
  let n = conn
    .prepare_cached("DELETE FROM entries WHERE id = ?1")?
    .execute([id])?;
  if n != 1 {
    return Err(format!("delete {id}: {n} rows").into());
  }
  Ok(())
}

/// add: INSERT entry + audit row. Returns the id.
fn add(conn: &mut Connection, e: &Input, session: &str, st: Statements) -> Res<String> {
  let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
  input_usage(&tx, e, st)?;
  input_usage(&tx, e, st)?;
  let id = new_id();
  insert_entry(&tx, &id, e, now_ms(), session)?;
  audit(&tx, entry_audit("add", &id, e, session), st)?;
  tx.commit()?;
  Ok(id)
}

/// seed: the `seed` row, then entry + `add` row per input. Returns the ids.
pub fn seed(
  conn: &mut Connection,
  inputs: &[Input],
  session: &str,
  st: Statements,
) -> Res<Vec<String>> {
  let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
  if st == Statements::Same {
    let mut layers: Vec<&Input> = Vec::new();
    for e in inputs {
      let same =
        |l: &&Input| l.track == e.track && l.scope == e.scope && l.workspace_key == e.workspace_key;
      if !layers.iter().any(same) {
        layers.push(e);
      }
    }
    for e in layers.iter().chain(layers.iter()) {
      input_usage(&tx, e, st)?;
    }
  }
  let payload: String = inputs
    .iter()
    .map(|e| format!("{}/{}: {}\n", e.track, e.scope, e.text))
    .collect();
  let row = Audit {
    action: "seed",
    track: None,
    scope: None,
    entry_id: None,
    text: &payload,
    session,
  };
  audit(&tx, row, st)?;
  let at = now_ms();
  let mut ids = Vec::with_capacity(inputs.len());
  for e in inputs {
    let id = new_id();
    insert_entry(&tx, &id, e, at, session)?;
    audit(&tx, entry_audit("add", &id, e, session), st)?;
    ids.push(id);
  }
  tx.commit()?;
  Ok(ids)
}

/// replace: UPDATE the entry by id + audit row.
fn replace(
  conn: &mut Connection,
  t: &Target,
  id: &str,
  new: &Input,
  session: &str,
  st: Statements,
) -> Res<()> {
  let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
  lookup(&tx, t, id, st)?;
  target_usage(&tx, t, st)?;
  refind(&tx, t, id, st)?;
  target_usage(&tx, t, st)?;
  keep(&tx, id, -1)?;
  let n = tx
    .prepare_cached(
      "UPDATE entries SET text = ?2, tags = ?3, version = version + 1, updated_at = ?4, session_id = ?5, units = ?6 WHERE id = ?1",
    )?
    .execute(params![id, new.text, new.tags, now_ms(), session, units(&new.text)])?;
  if n != 1 {
    return Err("replace: no row".into());
  }
  keep(&tx, id, 1)?;
  audit(&tx, entry_audit("replace", id, new, session), st)?;
  tx.commit()?;
  Ok(())
}

/// remove: DELETE the entry by id + audit row.
fn remove(
  conn: &mut Connection,
  t: &Target,
  id: &str,
  old: &Input,
  session: &str,
  st: Statements,
) -> Res<()> {
  let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
  lookup(&tx, t, id, st)?;
  refind(&tx, t, id, st)?;
  delete(&tx, id)?;
  audit(&tx, entry_audit("remove", id, old, session), st)?;
  target_usage(&tx, t, st)?;
  tx.commit()?;
  Ok(())
}

/// consolidate: DELETE each old entry, INSERT the new one, an audit row for each.
fn consolidate(
  conn: &mut Connection,
  olds: &[(Target, String, Input)],
  new: &Input,
  session: &str,
  st: Statements,
) -> Res<()> {
  let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
  for (t, id, _) in olds {
    lookup(&tx, t, id, st)?;
  }
  input_usage(&tx, new, st)?;
  for (t, id, _) in olds {
    refind(&tx, t, id, st)?;
    delete(&tx, id)?;
  }
  input_usage(&tx, new, st)?;
  let id = new_id();
  insert_entry(&tx, &id, new, now_ms(), session)?;
  for (_, old_id, old) in olds {
    audit(
      &tx,
      entry_audit("consolidate-remove", old_id, old, session),
      st,
    )?;
  }
  audit(&tx, entry_audit("consolidate-add", &id, new, session), st)?;
  tx.commit()?;
  Ok(())
}

/// The floor's samples of one write: the same statements and the minimal set.
#[derive(Debug, Default)]
struct Split {
  minimal: Samples,
  same: Samples,
}

impl Split {
  /// Time `f` for the round's `j`-th item, with the statements [`Statements::alternate`] picks.
  fn time(&mut self, j: usize, f: impl FnOnce(Statements) -> Res<()>) -> Res<()> {
    let st = Statements::alternate(j);
    match st {
      Statements::Same => self.same.time(|| f(st)),
      Statements::Minimal => self.minimal.time(|| f(st)),
    }
  }

  fn raw(&self) -> Value {
    json!({ "same": self.same.0, "minimal": self.minimal.0 })
  }
}

/// The target a planned write names by `needle`, in the writer's view.
fn target_of(conn: &Connection, item: &Value, needle: &str) -> Res<Target> {
  let input = &item["input"];
  let agent = Some(str_of(input, "agentKey"))
    .filter(|a| !a.is_empty())
    .unwrap_or_else(|| str_of(&item["write"], "agentPreset"));
  Target::new(
    conn,
    &str_of(input, "track"),
    &str_of(input, "scope"),
    &str_of(input, "workspaceKey"),
    agent,
    needle,
  )
}

/// The plan's items of kind `key` that belong to round `round` of `rounds`.
fn share(plan: &Value, key: &str, round: usize, rounds: usize) -> Vec<Value> {
  let all = plan[key].as_array().cloned().unwrap_or_default();
  all
    .into_iter()
    .enumerate()
    .filter(|(k, _)| k % rounds == round)
    .map(|(_, v)| v)
    .collect()
}

/// Untimed: the round's share of the plan's warm-up adds, then add → replace → remove cycles of
/// an entry in a workspace of its own, with every statement (the provider's round warms up with
/// the same writes).
fn warm_up(
  conn: &mut Connection,
  plan: &Value,
  round: usize,
  rounds: usize,
  cycles: usize,
) -> Res<()> {
  for a in share(plan, "warmAdds", round, rounds) {
    add(
      conn,
      &Input::from_json(&a["input"]),
      &session_of(&a),
      Statements::Same,
    )?;
  }
  for cycle in 0..cycles {
    warm_cycle(conn, &format!("zzwarm{round}x{cycle}zz"))?;
  }
  Ok(())
}

fn warm_cycle(conn: &mut Connection, token: &str) -> Res<()> {
  let token = token.to_string();
  let e = Input {
    track: "agent".into(),
    scope: "workspace".into(),
    workspace_key: "/work/repos/floor-warm".into(),
    agent_key: "coder".into(),
    text: format!("warm-up entry {token}"),
    tags: "[]".into(),
  };
  let t = Target::new(
    conn,
    &e.track,
    &e.scope,
    &e.workspace_key,
    e.agent_key.clone(),
    &token,
  )?;
  let session = "floor-warm";
  let id = add(conn, &e, session, Statements::Same)?;
  replace(conn, &t, &id, &e, session, Statements::Same)?;
  remove(conn, &t, &id, &e, session, Statements::Same)
}

/// One round of the write measurements, after `warm` untimed cycles: raw samples (µs),
/// `{op: {same: [...], minimal: [...]}}`. `data` and `ids` are the loaded dataset and its ids,
/// by dataset index.
pub fn round(
  conn: &mut Connection,
  plan: &Value,
  data: &[Input],
  ids: &[String],
  round: usize,
  rounds: usize,
  warm: usize,
) -> Res<Value> {
  warm_up(conn, plan, round, rounds, warm)?;
  let entry = |i: usize, what: &str| -> Res<(String, Input)> {
    let id = ids
      .get(i)
      .cloned()
      .ok_or(format!("{what} index out of range"))?;
    let old = data
      .get(i)
      .cloned()
      .ok_or(format!("{what} index out of range"))?;
    Ok((id, old))
  };
  let mut out = serde_json::Map::new();

  let mut s = Split::default();
  for (j, a) in share(plan, "adds", round, rounds).iter().enumerate() {
    let e = Input::from_json(&a["input"]);
    let sid = session_of(a);
    s.time(j, |st| add(conn, &e, &sid, st).map(|_| ()))?;
  }
  out.insert("add".into(), s.raw());

  let mut s = Split::default();
  for (j, b) in share(plan, "seedBatches", round, rounds).iter().enumerate() {
    let inputs = inputs_of(&b["inputs"]);
    let sid = session_of(b);
    s.time(j, |st| seed(conn, &inputs, &sid, st).map(|_| ()))?;
  }
  out.insert("seed.batch100".into(), s.raw());

  let mut s = Split::default();
  for (j, r) in share(plan, "replaces", round, rounds).iter().enumerate() {
    let (id, _) = entry(index_of(r), "replace")?;
    let mut new = Input::from_json(&r["input"]);
    new.tags = "[]".into();
    let t = target_of(conn, r, &str_of(&r["input"], "match"))?;
    let sid = session_of(r);
    s.time(j, |st| replace(conn, &t, &id, &new, &sid, st))?;
  }
  out.insert("replace".into(), s.raw());

  let mut s = Split::default();
  for (j, r) in share(plan, "removes", round, rounds).iter().enumerate() {
    let (id, old) = entry(index_of(r), "remove")?;
    let t = target_of(conn, r, &str_of(&r["input"], "match"))?;
    let sid = session_of(r);
    s.time(j, |st| remove(conn, &t, &id, &old, &sid, st))?;
  }
  out.insert("remove".into(), s.raw());

  let mut s = Split::default();
  for (j, c) in share(plan, "consolidates", round, rounds)
    .iter()
    .enumerate()
  {
    let indices = c["indices"].as_array().cloned().unwrap_or_default();
    let needles = strings_of(&c["input"]["matches"]);
    let mut olds = Vec::with_capacity(indices.len());
    for (i, needle) in indices.iter().zip(&needles) {
      let (id, old) = entry(i.as_u64().unwrap_or(u64::MAX) as usize, "consolidate")?;
      olds.push((target_of(conn, c, needle)?, id, old));
    }
    let new = Input::from_json(&c["input"]);
    let sid = session_of(c);
    s.time(j, |st| consolidate(conn, &olds, &new, &sid, st))?;
  }
  out.insert("consolidate".into(), s.raw());
  Ok(Value::Object(out))
}

/// Information: the minimal add and seed without writing the provider's FTS index (what keeping
/// it in every write transaction costs). Leaves the index behind: run it last.
pub fn without_fts(conn: &mut Connection, plan: &Value) -> Res<Value> {
  if super::PROVIDER_FTS.get() != Some(&true) {
    return Ok(json!({}));
  }
  NO_FTS.store(true, std::sync::atomic::Ordering::Relaxed);
  let mut adds = Samples::default();
  for a in plan["adds"].as_array().cloned().unwrap_or_default() {
    let e = Input::from_json(&a["input"]);
    adds.time(|| add(conn, &e, &session_of(&a), Statements::Minimal))?;
  }
  let mut seeds = Samples::default();
  for b in plan["seedBatches"].as_array().cloned().unwrap_or_default() {
    let inputs = inputs_of(&b["inputs"]);
    seeds.time(|| seed(conn, &inputs, &session_of(&b), Statements::Minimal))?;
  }
  conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
  Ok(json!({ "add.noFts": adds.stats(), "seed.batch100.noFts": seeds.stats() }))
}
