//! The benchmark FLOOR: the SQL work of each memory operation done by plain rusqlite, with no
//! protocol layer (no validation, no gate, no JSON, no hashing), on a store with the provider's
//! own schema. `bench/run.mjs` spawns it and prints every operation's ratio to it.
//!
//! ```sh
//! floor bench --template T.db --dataset D.jsonl --plan P.json --dir DIR [--open-iters K] [--max-ms MS]
//! floor writes --db DIR/floor.db --dataset D.jsonl --plan P.json --ids DIR/floor-ids.json --round R --rounds N [--warm CYCLES]
//! floor filled --db DIR/floor.db --to N
//! floor first --db DIR/floor.db --needle N
//! floor no-fts --db DIR/floor.db --plan P.json
//! floor fill-audit --db STORE.db (--to N | --add N)
//! ```
//! (`cargo build --release --example floor`; the binary is `target/<host>/release/examples/floor`.)
//!
//! `bench` copies `--template` (an empty store created by the provider, so the tables and indexes
//! are exactly the provider's) to `DIR/floor.db`, loads the dataset (one EntryInput JSON per
//! line) in seed-like transactions of 1,000, writes the ids to `DIR/floor-ids.json` and measures
//! the reads, µs per operation (median, p95, mean):
//!
//! - `query.*`: the cheapest of several exact plans (instr scan; FTS5 trigram candidates re-checked
//!   by `instr`; a rank-order walk + an FTS count; a contentless case-sensitive trigram index over
//!   `lower(text)` whose phrase MATCH is exactly the ASCII-folded substring test; for session
//!   keys, the visible layers by index). Each returns the ranked page of 20 and the exact total,
//!   rows read into Rust strings, then bumps the page's recall counts in one write transaction,
//!   as the provider's query does by default (`countRecall`); the winning plan is reported. The
//!   floor builds its two FTS tables (`floor_fts`, `floor_fold`) and, unless the provider's
//!   schema has one, a ranking index (`floor_rank`, dropped before the writes) once, after
//!   loading and before the queries, and not kept by the writes; the provider's own FTS index and
//!   usage counters are kept in every floor write as the provider's store keeps them.
//! - `budgets`: one read of the four `layer_usage` counters of a session.
//! - `auditList.base`: the newest 100 audit rows at the dataset's audit size, after 100 filler
//!   rows like those `filled` appends (so that both listings read the same kind of rows).
//! - `snapshot`: the visible entries of one session (two indexed lookups) + the counters,
//!   rendered into the snapshot text.
//! - `open`: open the file, set the pragmas, read the schema version (warm page cache).
//!
//! `first` times one fresh process's open + first rare query (run after `bench`, which builds
//! the index it reads). `writes` runs one round of the writes (see [`writes`]) and prints the raw samples; `filled`
//! fills the audit table to `--to` rows and measures `auditList` again; `no-fts` times add and
//! seed without writing the provider's FTS index (the bench runs it last).
//!
//! `fill-audit` appends plain audit rows (half `recalled`, half `add`-like with an entry-sized
//! text) to an existing store until its audit table holds `--to` rows (or `--add` more); the
//! bench uses it to build the 1M-row audit table of the provider's store because producing a
//! million `recalled` rows through the protocol would take minutes.

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde_json::{json, Value};
use writes::{new_id, Statements};

mod writes;

type Res<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const ENTRY_COLUMNS: &str = "id, track, scope, workspace_key, agent_key, text, source, tags, version, created_at, updated_at, last_recalled, recall_count, session_id, rowid";
const INSERT_ENTRY_PLAIN: &str = "INSERT INTO entries (id, track, scope, workspace_key, agent_key, text, source, tags, version, created_at, updated_at, last_recalled, recall_count, session_id, units) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1, ?9, ?9, NULL, 0, ?10, ?11)";
/// For a schema with `entries.fts_id` (v10): the provider's key of the entry in its FTS index,
/// assigned the way the provider assigns it (its group's id in the high 32 bits, above the
/// group's newest); the group row and the index row are written by [`INSERT_GROUP`] and
/// [`INSERT_FTS`], as the provider writes them.
const INSERT_ENTRY_FTS_ID: &str = "INSERT INTO entries (id, track, scope, workspace_key, agent_key, text, source, tags, version, created_at, updated_at, last_recalled, recall_count, session_id, units, fts_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1, ?9, ?9, NULL, 0, ?10, ?11,
  (SELECT coalesce((SELECT max(fts_id) FROM entries WHERE fts_id BETWEEN g.id << 32 AND (g.id << 32) + 4294967295), g.id << 32) + 1
   FROM entry_groups AS g WHERE g.track = ?2 AND g.scope = ?3 AND g.workspace_key = ?4 AND g.agent_key = ?5))";
const INSERT_GROUP: &str = "INSERT OR IGNORE INTO entry_groups (track, scope, workspace_key, agent_key) VALUES (?1, ?2, ?3, ?4)";
const INSERT_FTS: &str = "INSERT INTO entries_fts (rowid, folded) SELECT fts_id, lower(text) || char(1, 1) FROM entries WHERE id = ?1";
static INSERT_ENTRY: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
/// Whether the provider's schema has its FTS index `entries_fts` keyed by `entries.fts_id`
/// (a folded trigram index: the floor's target lookups go through it).
static PROVIDER_FTS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
const INSERT_AUDIT_PLAIN: &str = "INSERT INTO audit (ts, action, track, scope, entry_id, text, outcome, source, session_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
/// For a schema with the audit hash chain (v6+): the same row shape (two 64-hex-char hashes),
/// written in the INSERT itself, with no hashing: chaining is protocol work, not floor work.
const INSERT_AUDIT_HASHED: &str = "INSERT INTO audit (ts, action, track, scope, entry_id, text, outcome, source, session_id, prev_hash, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, '0000000000000000000000000000000000000000000000000000000000000000', '1111111111111111111111111111111111111111111111111111111111111111')";
static INSERT_AUDIT: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
/// The session-visibility filter of every floor query plan (`?2` agent key, `?3` workspace key;
/// NULL: no filter).
const VISIBLE: &str = "AND (?2 IS NULL OR agent_key = '' OR agent_key = ?2)
       AND (?3 IS NULL OR scope <> 'workspace' OR workspace_key = ?3)";

fn insert_audit_sql() -> &'static str {
  INSERT_AUDIT.get().copied().unwrap_or(INSERT_AUDIT_PLAIN)
}
const OUTCOME: &str = "allowed-once (via approval, writePolicy ask)";
const SOURCE: &str = "dsh-memento";

fn now_ms() -> i64 {
  SystemTime::now()
    .duration_since(UNIX_EPOCH)
    .map(|d| d.as_millis() as i64)
    .unwrap_or(0)
}

fn units(text: &str) -> i64 {
  text.encode_utf16().count() as i64
}

/// One entry to write (the protocol's EntryInput, keys resolved).
#[derive(Debug, Clone)]
struct Input {
  track: String,
  scope: String,
  workspace_key: String,
  agent_key: String,
  text: String,
  tags: String,
}

fn str_of(v: &Value, key: &str) -> String {
  v.get(key)
    .and_then(Value::as_str)
    .unwrap_or_default()
    .to_string()
}

impl Input {
  fn from_json(v: &Value) -> Input {
    let scope = str_of(v, "scope");
    let tags = v.get("tags").cloned().unwrap_or_else(|| json!([]));
    Input {
      track: str_of(v, "track"),
      workspace_key: if scope == "workspace" {
        str_of(v, "workspaceKey")
      } else {
        String::new()
      },
      scope,
      agent_key: str_of(v, "agentKey"),
      text: str_of(v, "text"),
      tags: tags.to_string(),
    }
  }
}

/// Latency samples of one operation, in µs.
#[derive(Debug, Default)]
struct Samples(Vec<f64>);

impl Samples {
  fn time<T>(&mut self, f: impl FnOnce() -> Res<T>) -> Res<T> {
    let t0 = Instant::now();
    let v = f()?;
    self.0.push(t0.elapsed().as_secs_f64() * 1e6);
    Ok(v)
  }
  fn stats(&self) -> Value {
    let mut v = self.0.clone();
    if v.is_empty() {
      return Value::Null;
    }
    v.sort_by(f64::total_cmp);
    let pct = |p: f64| v[(((v.len() - 1) as f64) * p).round() as usize];
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    json!({ "median": pct(0.5), "p95": pct(0.95), "mean": mean, "n": v.len() })
  }
}

fn open(path: &Path) -> Res<Connection> {
  let conn = Connection::open(path)?;
  conn.busy_timeout(std::time::Duration::from_secs(10))?;
  conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")?;
  if INSERT_AUDIT.get().is_none() {
    let hashed = conn
      .prepare("SELECT 1 FROM pragma_table_info('audit') WHERE name = 'hash'")?
      .exists([])?;
    let _ = INSERT_AUDIT.set(if hashed {
      INSERT_AUDIT_HASHED
    } else {
      INSERT_AUDIT_PLAIN
    });
    let fts_id = conn
      .prepare("SELECT 1 FROM pragma_table_info('entries') WHERE name = 'fts_id'")?
      .exists([])?;
    let fts = conn
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'entries_fts'")?
      .exists([])?;
    let _ = PROVIDER_FTS.set(fts_id && fts);
    let _ = INSERT_ENTRY.set(if fts_id {
      INSERT_ENTRY_FTS_ID
    } else {
      INSERT_ENTRY_PLAIN
    });
  }
  Ok(conn)
}

fn arg(args: &[String], name: &str) -> Option<String> {
  args
    .iter()
    .position(|a| a == name)
    .and_then(|i| args.get(i + 1))
    .cloned()
}

fn need(args: &[String], name: &str) -> Res<String> {
  arg(args, name).ok_or_else(|| format!("missing {name}").into())
}

/// A row of a query page, read the way the provider reads it (all 14 columns).
#[allow(dead_code)]
#[derive(Debug)]
struct Row {
  strings: [String; 8],
  ints: [i64; 5],
  session: Option<String>,
  rowid: i64,
}

fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
  Ok(Row {
    strings: [
      r.get(0)?,
      r.get(1)?,
      r.get(2)?,
      r.get(3)?,
      r.get(4)?,
      r.get(5)?,
      r.get(6)?,
      r.get(7)?,
    ],
    ints: [
      r.get(8)?,
      r.get(9)?,
      r.get(10)?,
      r.get::<_, Option<i64>>(11)?.unwrap_or(0),
      r.get(12)?,
    ],
    session: r.get(13)?,
    rowid: r.get(14)?,
  })
}

/// Ranked page of 20 + total, by `instr` scan (the provider's current query shape).
fn query_scan(conn: &Connection, needle: &str, vis: Option<(&str, &str)>) -> Res<(usize, i64)> {
  let sql = format!(
    "SELECT {ENTRY_COLUMNS}, count(*) OVER () FROM entries
     WHERE instr(lower(text), ?1) > 0
       {VISIBLE}
     ORDER BY recall_count DESC, updated_at DESC, id LIMIT 20"
  );
  page(conn, &sql, needle, None, vis)
}

/// Ranked page of 20 + total, FTS5 trigram candidates re-checked by `instr`.
fn query_fts(
  conn: &Connection,
  fts: &str,
  needle: &str,
  vis: Option<(&str, &str)>,
) -> Res<(usize, i64)> {
  let sql = format!(
    "SELECT {ENTRY_COLUMNS}, count(*) OVER () FROM entries
     WHERE rowid IN (SELECT rowid FROM {fts} WHERE {fts} MATCH ?4)
       AND instr(lower(text), ?1) > 0
       {VISIBLE}
     ORDER BY recall_count DESC, updated_at DESC, id LIMIT 20"
  );
  let phrase = format!("\"{}\"", needle.replace('"', "\"\""));
  page(conn, &sql, needle, Some(&phrase), vis)
}

/// Ranked page of 20 by walking the rank order (stops after 20 hits) + an exact total counted
/// over the FTS5 trigram candidates (re-checked by `instr`): two statements, one answer.
fn query_rank_walk(
  conn: &Connection,
  fts: &str,
  needle: &str,
  vis: Option<(&str, &str)>,
) -> Res<(usize, i64)> {
  let sql = format!(
    "SELECT {ENTRY_COLUMNS}, 0 FROM entries
     WHERE instr(lower(text), ?1) > 0
       {VISIBLE}
     ORDER BY recall_count DESC, updated_at DESC, id LIMIT 20"
  );
  let (n, _) = page(conn, &sql, needle, None, vis)?;
  let (agent, ws) = match vis {
    Some((a, w)) => (Some(a), Some(w)),
    None => (None, None),
  };
  let phrase = format!("\"{}\"", needle.replace('"', "\"\""));
  let total: i64 = conn
    .prepare_cached(&format!(
      "SELECT count(*) FROM entries WHERE rowid IN (SELECT rowid FROM {fts} WHERE {fts} MATCH ?4)
         AND instr(lower(text), ?1) > 0
         {VISIBLE}"
    ))?
    .query_row(params![needle, agent, ws, phrase], |r| r.get(0))?;
  Ok((n, total))
}

/// Session visibility first: the visible layers by index (user-global + this workspace), then
/// the exact filter, ranked page of 20 and total over that small set.
fn query_visible_first(
  conn: &Connection,
  needle: &str,
  agent: &str,
  ws: &str,
) -> Res<(usize, i64)> {
  let sql = format!(
    "SELECT {ENTRY_COLUMNS}, count(*) OVER () FROM entries
     WHERE rowid IN (
         SELECT rowid FROM entries WHERE track IN ('user', 'agent') AND scope = 'user-global' AND workspace_key = ''
         UNION ALL
         SELECT rowid FROM entries WHERE track IN ('user', 'agent') AND scope = 'workspace' AND workspace_key = ?3)
       AND (agent_key = '' OR agent_key = ?2)
       AND instr(lower(text), ?1) > 0
     ORDER BY recall_count DESC, updated_at DESC, id LIMIT 20"
  );
  page(conn, &sql, needle, None, Some((agent, ws)))
}

/// The provider's plan for a session (schema v10): the exact total counted in its folded FTS
/// index, whose rowids carry their group (`rowid >> 32`), and the page as each visible group's
/// best 20 (one range of `entries_layer` each, in rank order), merged, then the 20 rows read.
fn query_groups(conn: &Connection, needle: &str, agent: &str, ws: &str) -> Res<(usize, i64)> {
  let visible = "FROM entry_groups WHERE (agent_key = '' OR agent_key = ?1)
    AND (scope <> 'workspace' OR workspace_key = ?2)";
  let phrase = format!("\"{}\"", needle.replace('"', "\"\""));
  let total: i64 = conn
    .prepare_cached(&format!(
      "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?3 AND rowid >> 32 IN (SELECT id {visible})"
    ))?
    .query_row(params![agent, ws, phrase], |r| r.get(0))?;
  let groups: Vec<[String; 4]> = conn
    .prepare_cached(&format!(
      "SELECT track, scope, agent_key, workspace_key {visible}"
    ))?
    .query_map(params![agent, ws], |r| {
      Ok([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?])
    })?
    .collect::<Result<_, _>>()?;
  let like = format!(
    "%{}%",
    needle
      .replace('\\', "\\\\")
      .replace('%', "\\%")
      .replace('_', "\\_")
  );
  let mut best: Vec<(i64, i64, String, i64)> = Vec::new();
  let mut stmt = conn.prepare_cached(
    "SELECT recall_count, updated_at, id, rowid FROM entries
     WHERE track = ?1 AND scope = ?2 AND agent_key = ?3 AND workspace_key = ?4 AND text LIKE ?5 ESCAPE '\\'
     ORDER BY recall_count DESC, updated_at DESC, id LIMIT 20",
  )?;
  for [t, s, a, w] in &groups {
    let found = stmt.query_map(params![t, s, a, w, like], |r| {
      Ok((
        -r.get::<_, i64>(0)?,
        -r.get::<_, i64>(1)?,
        r.get(2)?,
        r.get(3)?,
      ))
    })?;
    best.extend(found.collect::<Result<Vec<_>, _>>()?);
  }
  best.sort();
  best.truncate(20);
  let mut read = conn.prepare_cached(&format!(
    "SELECT {ENTRY_COLUMNS} FROM entries WHERE rowid = ?1"
  ))?;
  let mut rows = Vec::with_capacity(20);
  for (_, _, _, rowid) in &best {
    rows.push(read.query_row([rowid], read_row)?);
  }
  recalled(conn, &rows)?;
  Ok((rows.len(), total))
}

/// Ranked page of 20 by walking the rank order (stops after 20 hits) + the exact total as
/// `count(*)` of a phrase MATCH on the folded, case-sensitive trigram index (no join).
fn query_folded(conn: &Connection, needle: &str) -> Res<(usize, i64)> {
  let (n, _) = query_page_only(conn, needle)?;
  let phrase = format!("\"{}\"", needle.replace('"', "\"\""));
  let total: i64 = conn
    .prepare_cached("SELECT count(*) FROM floor_fold WHERE floor_fold MATCH ?1")?
    .query_row([phrase], |r| r.get(0))?;
  Ok((n, total))
}

/// Ranked page of 20 + total over the folded trigram index's hits (exact: no re-check).
fn query_folded_join(
  conn: &Connection,
  needle: &str,
  vis: Option<(&str, &str)>,
) -> Res<(usize, i64)> {
  let sql = format!(
    "SELECT {ENTRY_COLUMNS}, count(*) OVER () FROM entries
     WHERE rowid IN (SELECT rowid FROM floor_fold WHERE floor_fold MATCH ?4)
       {VISIBLE}
     ORDER BY recall_count DESC, updated_at DESC, id LIMIT 20"
  );
  let phrase = format!("\"{}\"", needle.replace('"', "\"\""));
  page(conn, &sql, needle, Some(&phrase), vis)
}

/// The ranked page alone (no total): a walk of the rank order that stops after 20 hits.
fn query_page_only(conn: &Connection, needle: &str) -> Res<(usize, i64)> {
  let sql = format!(
    "SELECT {ENTRY_COLUMNS}, 0 FROM entries
     WHERE instr(lower(text), ?1) > 0
       {VISIBLE}
     ORDER BY recall_count DESC, updated_at DESC, id LIMIT 20"
  );
  page(conn, &sql, needle, None, None)
}

fn page(
  conn: &Connection,
  sql: &str,
  needle: &str,
  phrase: Option<&str>,
  vis: Option<(&str, &str)>,
) -> Res<(usize, i64)> {
  let mut stmt = conn.prepare_cached(sql)?;
  let (agent, ws) = match vis {
    Some((a, w)) => (Some(a), Some(w)),
    None => (None, None),
  };
  let mut total = 0i64;
  let mut rows = Vec::with_capacity(20);
  let mut q = if let Some(phrase) = phrase {
    stmt.query(params![needle, agent, ws, phrase])?
  } else {
    stmt.query(params![needle, agent, ws])?
  };
  while let Some(r) = q.next()? {
    total = r.get(15)?;
    rows.push(read_row(r)?);
  }
  drop(q);
  recalled(conn, &rows)?;
  Ok((rows.len(), total))
}

/// What every query of the provider writes by default (`countRecall`): each returned entry's
/// recall count and time, in one write transaction.
fn recalled(conn: &Connection, rows: &[Row]) -> Res<()> {
  if rows.is_empty() {
    return Ok(());
  }
  conn.execute_batch("BEGIN IMMEDIATE")?;
  let mut bump = conn.prepare_cached(
    "UPDATE entries SET recall_count = recall_count + 1, last_recalled = max(coalesce(last_recalled, 0), ?2) WHERE rowid = ?1",
  )?;
  let at = now_ms();
  for r in rows {
    bump.execute(params![r.rowid, at])?;
  }
  conn.execute_batch("COMMIT")?;
  Ok(())
}

fn budgets(conn: &Connection, ws: &str) -> Res<Vec<(String, String, i64)>> {
  let mut stmt = conn.prepare_cached(
    "SELECT track, scope, used FROM layer_usage WHERE track = 'user' AND scope = 'user-global' AND workspace_key = ''
     UNION ALL SELECT track, scope, used FROM layer_usage WHERE track = 'user' AND scope = 'workspace' AND workspace_key = ?1
     UNION ALL SELECT track, scope, used FROM layer_usage WHERE track = 'agent' AND scope = 'user-global' AND workspace_key = ''
     UNION ALL SELECT track, scope, used FROM layer_usage WHERE track = 'agent' AND scope = 'workspace' AND workspace_key = ?1",
  )?;
  let rows = stmt.query_map([ws], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
  Ok(rows.collect::<rusqlite::Result<_>>()?)
}

#[allow(dead_code)]
#[derive(Debug)]
struct AuditRow {
  seq: i64,
  ts: i64,
  texts: [Option<String>; 8],
}

fn audit_list(conn: &Connection, limit: i64) -> Res<usize> {
  let mut stmt = conn.prepare_cached(
    "SELECT seq, ts, action, track, scope, entry_id, text, outcome, source, session_id FROM audit ORDER BY seq DESC LIMIT ?1",
  )?;
  let rows = stmt.query_map([limit], |r| {
    Ok(AuditRow {
      seq: r.get(0)?,
      ts: r.get(1)?,
      texts: [
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
        r.get(7)?,
        r.get(8)?,
        r.get(9)?,
      ],
    })
  })?;
  Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?.len())
}

/// The session's visible entries (two indexed lookups) + counters, rendered like the plugin.
fn snapshot(conn: &Connection, agent: &str, ws: &str) -> Res<String> {
  let mut stmt = conn.prepare_cached(&format!(
    "SELECT {ENTRY_COLUMNS} FROM entries WHERE track IN ('user', 'agent') AND scope = 'user-global' AND workspace_key = '' AND (agent_key = '' OR agent_key = ?1)
     UNION ALL
     SELECT {ENTRY_COLUMNS} FROM entries WHERE track IN ('user', 'agent') AND scope = 'workspace' AND workspace_key = ?2 AND (agent_key = '' OR agent_key = ?1)"
  ))?;
  let mut rows = stmt
    .query_map([agent, ws], read_row)?
    .collect::<rusqlite::Result<Vec<_>>>()?;
  let order = |r: &Row| match (r.strings[1].as_str(), r.strings[2].as_str()) {
    ("user", "user-global") => 0,
    ("user", _) => 1,
    ("agent", "user-global") => 2,
    _ => 3,
  };
  rows.sort_by(|a, b| {
    (order(a), a.ints[1], &a.strings[0]).cmp(&(order(b), b.ints[1], &b.strings[0]))
  });
  let used: HashMap<(String, String), i64> = budgets(conn, ws)?
    .into_iter()
    .map(|(t, s, u)| ((t, s), u))
    .collect();
  let mut out = String::from("[dsh-memento: frozen memory snapshot — captured at session start; memory changes during this session do not update this block. To change memory, use the memory tool.]");
  let mut current = usize::MAX;
  for r in &rows {
    let group = order(r);
    if group != current {
      current = group;
      let key = (r.strings[1].clone(), r.strings[2].clone());
      let u = used.get(&key).copied().unwrap_or(0);
      let limit = if key.0 == "user" { 2000 } else { 4000 };
      out.push_str(&format!(
        "\n\n## {}/{} — {u}/{limit} chars used",
        key.0, key.1
      ));
    }
    out.push_str("\n- ");
    out.push_str(&r.strings[5]);
  }
  Ok(out)
}

/// The provider's own FTS5 tables, which every floor write keeps as the provider's writes do.
fn provider_fts(conn: &Connection) -> Res<String> {
  let mut stmt = conn
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%USING fts5%'")?;
  let tables = stmt
    .query_map([], |r| r.get::<_, String>(0))?
    .collect::<rusqlite::Result<Vec<_>>>()?;
  Ok(match tables.is_empty() {
    true => "the provider's schema has no FTS5 table".into(),
    false => format!(
      "provider tables {}: kept in every floor write, as in the provider's writes",
      tables.join(", ")
    ),
  })
}

fn file_size(path: &Path) -> u64 {
  ["", "-wal"]
    .iter()
    .map(|s| {
      let mut p = path.as_os_str().to_owned();
      p.push(s);
      fs::metadata(PathBuf::from(p)).map(|m| m.len()).unwrap_or(0)
    })
    .sum()
}

fn audit_count(conn: &Connection) -> Res<i64> {
  Ok(conn.query_row("SELECT count(*) FROM audit", [], |r| r.get(0))?)
}

/// Append plain audit rows until the table holds `to` rows (commits every 50k rows).
fn fill_audit(conn: &mut Connection, to: i64) -> Res<i64> {
  let mut have = audit_count(conn)?;
  let text = "[QZZZZZZ] 联系人㐀㐁 run the integration tests before pushing; the CI pipeline caches node_modules by lockfile hash，构建前先运行测试";
  while have < to {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let batch = (to - have).min(50_000);
    {
      let mut stmt = tx.prepare_cached(insert_audit_sql())?;
      let ts = now_ms();
      for k in 0..batch {
        let n = have + k;
        let session = format!("bench-fill-{}", n / 20);
        if n % 2 == 0 {
          stmt.execute(params![
            ts,
            "recalled",
            Option::<&str>::None,
            Option::<&str>::None,
            Option::<&str>::None,
            "tests",
            "ok",
            SOURCE,
            session
          ])?;
        } else {
          let id = new_id();
          stmt.execute(params![
            ts,
            "add",
            "agent",
            "workspace",
            id,
            text,
            OUTCOME,
            SOURCE,
            session
          ])?;
        }
      }
    }
    tx.commit()?;
    have += batch;
  }
  Ok(have)
}

fn read_dataset(path: &str) -> Res<Vec<Input>> {
  let file = fs::File::open(path)?;
  let mut out = Vec::new();
  for line in BufReader::new(file).lines() {
    let line = line?;
    if line.trim().is_empty() {
      continue;
    }
    out.push(Input::from_json(&serde_json::from_str(&line)?));
  }
  Ok(out)
}

fn inputs_of(v: &Value) -> Vec<Input> {
  v.as_array()
    .map(|a| a.iter().map(Input::from_json).collect())
    .unwrap_or_default()
}

fn strings_of(v: &Value) -> Vec<String> {
  v.as_array()
    .map(|a| {
      a.iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
    })
    .unwrap_or_default()
}

fn index_of(v: &Value) -> usize {
  v.get("index").and_then(Value::as_u64).unwrap_or(0) as usize
}

fn session_of(v: &Value) -> String {
  v.get("write")
    .and_then(|w| w.get("sessionId"))
    .and_then(Value::as_str)
    .unwrap_or("bench")
    .to_string()
}

fn bench(args: &[String]) -> Res<Value> {
  let template = need(args, "--template")?;
  let dataset = need(args, "--dataset")?;
  let plan: Value = serde_json::from_str(&fs::read_to_string(need(args, "--plan")?)?)?;
  let dir = PathBuf::from(need(args, "--dir")?);
  let max_ms: u128 = arg(args, "--max-ms")
    .map(|s| s.parse())
    .transpose()?
    .unwrap_or(15_000);
  let open_iters: usize = arg(args, "--open-iters")
    .map(|s| s.parse())
    .transpose()?
    .unwrap_or(30);
  fs::create_dir_all(&dir)?;
  let path = dir.join("floor.db");
  for s in ["", "-wal", "-shm"] {
    let mut p = path.as_os_str().to_owned();
    p.push(s);
    let _ = fs::remove_file(PathBuf::from(p));
  }
  fs::copy(&template, &path)?;
  let mut conn = open(&path)?;
  let mut ops = serde_json::Map::new();
  let mut info = serde_json::Map::new();

  // Load the dataset in seed transactions of 1,000 (the provider's store is built the same way).
  let data = read_dataset(&dataset)?;
  let t0 = Instant::now();
  let mut ids: Vec<String> = Vec::with_capacity(data.len());
  for (b, chunk) in data.chunks(1000).enumerate() {
    ids.extend(writes::seed(
      &mut conn,
      chunk,
      &format!("bench-build-{b}"),
      Statements::Minimal,
    )?);
  }
  info.insert("buildSeconds".into(), json!(t0.elapsed().as_secs_f64()));
  conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
  info.insert("fileBytes".into(), json!(file_size(&path)));
  info.insert("auditRowsBase".into(), json!(audit_count(&conn)?));
  // The ids by dataset index, for the write rounds.
  fs::write(dir.join("floor-ids.json"), serde_json::to_string(&ids)?)?;

  // The floor's own read-only indexes for its query plans, built once after loading (the
  // provider's FTS index is kept in every floor write).
  let provider = provider_fts(&conn)?;
  let t = Instant::now();
  conn.execute_batch(
    "CREATE VIRTUAL TABLE floor_fts USING fts5(text, content='entries', content_rowid='rowid', tokenize='trigram');
     INSERT INTO floor_fts(floor_fts) VALUES('rebuild');
     PRAGMA wal_checkpoint(TRUNCATE);",
  )?;
  // A rank index unless the provider's schema has one (a second would cost every recall bump).
  let ranked: bool = conn.query_row(
    "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'index' AND name = 'entries_rank'",
    [],
    |r| r.get(0),
  )?;
  if !ranked {
    conn.execute_batch(
      "CREATE INDEX floor_rank ON entries (recall_count DESC, updated_at DESC, id);",
    )?;
  }
  info.insert(
    "fts".into(),
    json!(format!(
      "{provider}; floor query plans use floor_fts (trigram, case-insensitive, re-checked) built in {:.1} s and floor_fold (below), not kept by floor writes",
      t.elapsed().as_secs_f64()
    )),
  );
  let fts = "floor_fts".to_string();

  // An exact index: trigrams of the ASCII-folded text (`lower()` folds ASCII only, exactly the
  // protocol's folding), case-sensitive, contentless. A phrase MATCH on it IS the substring
  // test, so its count(*) is the exact total with no re-check. Built once, read-only.
  let t = Instant::now();
  conn.execute_batch(
    "CREATE VIRTUAL TABLE floor_fold USING fts5(t, content='', tokenize='trigram case_sensitive 1');
     INSERT INTO floor_fold(rowid, t) SELECT rowid, lower(text) FROM entries;
     PRAGMA wal_checkpoint(TRUNCATE);",
  )?;
  info.insert("foldedFtsSeconds".into(), json!(t.elapsed().as_secs_f64()));

  let session = plan.get("session").cloned().unwrap_or(Value::Null);
  let agent = str_of(&session, "agentKey");
  let ws = str_of(&session, "workspaceKey");

  // budgets
  let mut s = Samples::default();
  for _ in 0..2000 {
    s.time(|| budgets(&conn, &ws))?;
  }
  ops.insert("budgets".into(), s.stats());

  // queries: each shape, both plans, the cheaper one is the floor.
  let rare = strings_of(&plan["rare"]);
  let cjk = strings_of(&plan["cjk"]);
  let common = plan["common"].as_str().unwrap_or("tests").to_string();
  let commons: Vec<String> = rare.iter().map(|_| common.clone()).collect();
  let shapes: [(&str, &Vec<String>, bool); 4] = [
    ("query.rare", &rare, false),
    ("query.common", &commons, false),
    ("query.cjk2", &cjk, false),
    ("query.session", &commons, true),
  ];
  for (name, needles, with_vis) in shapes {
    let vis = with_vis.then_some((agent.as_str(), ws.as_str()));
    let mut plans: Vec<(&str, Samples)> = Vec::new();
    let run = |f: &dyn Fn(&str) -> Res<(usize, i64)>| -> Res<Samples> {
      for n in needles.iter().take(3) {
        f(n)?;
      }
      let mut samples = Samples::default();
      let start = Instant::now();
      for n in needles {
        samples.time(|| f(n))?;
        if samples.0.len() >= 5 && start.elapsed().as_millis() > max_ms {
          break;
        }
      }
      Ok(samples)
    };
    plans.push(("instr scan", run(&|n| query_scan(&conn, n, vis))?));
    if needles.iter().all(|n| n.chars().count() >= 3) {
      plans.push(("fts5 trigram", run(&|n| query_fts(&conn, &fts, n, vis))?));
      plans.push((
        "rank walk + fts count",
        run(&|n| query_rank_walk(&conn, &fts, n, vis))?,
      ));
    }
    if needles.iter().all(|n| n.chars().count() >= 3) {
      plans.push((
        "folded fts (exact, no re-check)",
        run(&|n| query_folded_join(&conn, n, vis))?,
      ));
    }
    if !with_vis && needles.iter().all(|n| n.chars().count() >= 3) {
      plans.push((
        "rank walk + folded-fts count",
        run(&|n| query_folded(&conn, n))?,
      ));
    }
    if with_vis {
      plans.push((
        "visible layers by index",
        run(&|n| query_visible_first(&conn, n, &agent, &ws))?,
      ));
    }
    let grouped = INSERT_ENTRY.get() == Some(&INSERT_ENTRY_FTS_ID);
    if with_vis && grouped && needles.iter().all(|n| n.chars().count() >= 3) {
      plans.push((
        "group-counted fts + best of each visible group",
        run(&|n| query_groups(&conn, n, &agent, &ws))?,
      ));
    }
    if name == "query.common" {
      let page = run(&|n| query_page_only(&conn, n))?;
      info.insert("query.common.pageOnly".into(), page.stats());
    }
    let median = |s: &Samples| s.stats()["median"].as_f64().unwrap_or(f64::MAX);
    plans.sort_by(|a, b| median(&a.1).total_cmp(&median(&b.1)));
    let best = plans.remove(0);
    let mut stats = best.1.stats();
    stats["plan"] = json!(best.0);
    for (other, s) in &plans {
      stats[format!("alt {other}")] = s.stats()["median"].clone();
    }
    ops.insert(name.into(), stats);
  }

  // audit list at the dataset's size, newest rows like the filled table's (so that the two
  // listings differ in the table's size only)
  let filler = audit_count(&conn)? + 100;
  fill_audit(&mut conn, filler)?;
  let mut s = Samples::default();
  for _ in 0..500 {
    s.time(|| audit_list(&conn, 100))?;
  }
  ops.insert("auditList.base".into(), s.stats());

  // snapshot of the session
  let mut s = Samples::default();
  let mut snapshot_len = 0;
  for _ in 0..300 {
    snapshot_len = s.time(|| snapshot(&conn, &agent, &ws))?.len();
  }
  ops.insert("snapshot".into(), s.stats());
  info.insert("snapshotChars".into(), json!(snapshot_len));

  // The rank walk's index is the floor's, for its query plans only: writes do not keep it.
  conn.execute_batch("DROP INDEX IF EXISTS floor_rank;")?;

  // open (warm): open + pragmas + version read, then close
  let mut s = Samples::default();
  for _ in 0..open_iters {
    s.time(|| {
      let c = open(&path)?;
      let v: Option<String> = c
        .query_row(
          "SELECT value FROM meta WHERE key = 'schema_version'",
          [],
          |r| r.get(0),
        )
        .optional()?;
      drop(c);
      Ok(v)
    })?;
  }
  ops.insert("open".into(), s.stats());

  drop(conn);
  Ok(json!({ "ops": ops, "info": info }))
}

fn main() -> Res<()> {
  let args: Vec<String> = std::env::args().skip(1).collect();
  let out = match args.first().map(String::as_str) {
    Some("bench") => bench(&args)?,
    Some("writes") => {
      let mut conn = open(Path::new(&need(&args, "--db")?))?;
      let data = read_dataset(&need(&args, "--dataset")?)?;
      let plan: Value = serde_json::from_str(&fs::read_to_string(need(&args, "--plan")?)?)?;
      let ids: Vec<String> = serde_json::from_str(&fs::read_to_string(need(&args, "--ids")?)?)?;
      let round: usize = need(&args, "--round")?.parse()?;
      let rounds: usize = need(&args, "--rounds")?.parse()?;
      let warm: usize = arg(&args, "--warm")
        .map(|w| w.parse())
        .transpose()?
        .unwrap_or(1);
      writes::round(&mut conn, &plan, &data, &ids, round, rounds.max(1), warm)?
    }
    Some("filled") => {
      // Fill the audit table to `--to` rows, then list its newest 100.
      let mut conn = open(Path::new(&need(&args, "--db")?))?;
      let t = Instant::now();
      let have = fill_audit(&mut conn, need(&args, "--to")?.parse()?)?;
      let seconds = t.elapsed().as_secs_f64();
      let mut s = Samples::default();
      for _ in 0..500 {
        s.time(|| audit_list(&conn, 100))?;
      }
      json!({ "auditFillSeconds": seconds, "auditRowsFilled": have, "auditList.filled": s.stats() })
    }
    Some("first") => {
      // A fresh process's time to its first answer: open (pragmas, schema version) + one rare
      // query through the floor's exact folded index (built by `bench`).
      let db = need(&args, "--db")?;
      let needle = need(&args, "--needle")?;
      let t = Instant::now();
      let conn = open(Path::new(&db))?;
      conn
        .query_row(
          "SELECT value FROM meta WHERE key = 'schema_version'",
          [],
          |r| r.get::<_, String>(0),
        )
        .optional()?;
      let (hits, total) = query_folded_join(&conn, &needle, None)?;
      let us = t.elapsed().as_secs_f64() * 1e6;
      if total < 1 {
        return Err(format!("first: no hit for {needle}").into());
      }
      json!({ "us": us, "hits": hits, "total": total })
    }
    Some("no-fts") => {
      let mut conn = open(Path::new(&need(&args, "--db")?))?;
      let plan: Value = serde_json::from_str(&fs::read_to_string(need(&args, "--plan")?)?)?;
      writes::without_fts(&mut conn, &plan)?
    }
    Some("fill-audit") => {
      let db = need(&args, "--db")?;
      let mut conn = open(Path::new(&db))?;
      // `--to N`: until the table holds N rows; `--add N`: N more rows.
      let to: i64 = match arg(&args, "--add") {
        Some(n) => audit_count(&conn)? + n.parse::<i64>()?,
        None => need(&args, "--to")?.parse()?,
      };
      let t = Instant::now();
      let have = fill_audit(&mut conn, to)?;
      conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
      json!({ "auditRows": have, "seconds": t.elapsed().as_secs_f64() })
    }
    _ => return Err(
      "usage: floor (bench | first | writes | filled | no-fts | fill-audit) …: see examples/floor/main.rs"
        .into(),
    ),
  };
  println!("{out}");
  Ok(())
}
