//! The in-memory read model of the `entries` table: every entry with its ASCII-folded text, so
//! that search, targeting and listing never scan SQLite rows.
//!
//! Coherence: the cache remembers SQLite's `PRAGMA data_version`, which changes whenever another
//! connection (another process, another provider on the same file) commits. [`EntryCache::sync`]
//! reloads on any such change; this connection's own commits are applied by re-reading exactly
//! the rows they touched ([`EntryCache::refresh_ids`]) and by [`EntryCache::bump`]. Writes never
//! trust the cache: the write transaction re-finds its target by id in SQLite.
#![forbid(unsafe_code)]

use std::cmp::Ordering;
use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension};

use crate::model::{Entry, Scope, Track};
use crate::store::{self, RowKeys, Visibility};
use crate::text::fold;

#[derive(Debug, Clone)]
struct Cached {
  entry: Entry,
  folded: String,
  keys: RowKeys,
  /// The id's first 8 bytes, big-endian: orders like the id string, without touching it.
  id_prefix: u64,
}

fn id_prefix(id: &str) -> u64 {
  let mut bytes = [0u8; 8];
  for (b, s) in bytes.iter_mut().zip(id.bytes()) {
    *b = s;
  }
  u64::from_be_bytes(bytes)
}

/// What a query asks of the cache.
#[derive(Debug, Clone, Copy, Default)]
pub struct Search<'a> {
  /// Only this track (an unknown value matches nothing).
  pub track: Option<&'a str>,
  /// Only this scope (an unknown value matches nothing).
  pub scope: Option<&'a str>,
  /// ASCII-folded needle.
  pub folded: Option<&'a str>,
  /// The session's visible set.
  pub visibility: Option<&'a Visibility>,
  /// Page size.
  pub limit: usize,
  /// Search-index keys of the only entries that can match (`None`: walk every entry).
  pub keys: Option<&'a [i64]>,
}

/// Every entry, in memory, kept coherent with the store.
#[derive(Debug, Default)]
pub struct EntryCache {
  data_version: Option<i64>,
  slots: Vec<Option<Cached>>,
  by_id: HashMap<String, usize>,
  by_fts: HashMap<i64, usize>,
  /// Slots per budget layer: targeting scans one layer, which budgets keep small.
  by_layer: HashMap<LayerKey, Vec<usize>>,
  dead: usize,
}

/// A budget layer: track, scope, and the workspace for `workspace` entries.
type LayerKey = (Track, Scope, String);

fn layer_of(e: &Entry) -> LayerKey {
  let ws = match e.scope {
    Scope::Workspace => e.workspace_key.clone(),
    Scope::UserGlobal => String::new(),
  };
  (e.track, e.scope, ws)
}

fn visible(e: &Entry, vis: &Visibility) -> bool {
  let agent_ok = vis
    .agent_key
    .as_deref()
    .is_none_or(|k| e.agent_key.is_empty() || e.agent_key == k);
  let ws_ok = e.scope != Scope::Workspace
    || vis
      .workspace_key
      .as_deref()
      .is_none_or(|w| e.workspace_key == w);
  agent_ok && ws_ok
}

/// Query ranking: recall count DESC, updated_at DESC, id ASC.
fn rank(a: &Cached, b: &Cached) -> Ordering {
  b.entry
    .recall_count
    .cmp(&a.entry.recall_count)
    .then(b.entry.updated_at.cmp(&a.entry.updated_at))
    .then(a.id_prefix.cmp(&b.id_prefix))
    .then_with(|| a.entry.id.cmp(&b.entry.id))
}

impl EntryCache {
  /// Reload if another connection committed since the last look (or nothing is loaded yet).
  /// Returns whether it reloaded.
  ///
  /// # Errors
  /// SQLite failures.
  pub fn sync(&mut self, conn: &Connection) -> rusqlite::Result<bool> {
    let version: i64 = conn.query_row("PRAGMA data_version", [], |r| r.get(0))?;
    if self.data_version == Some(version) {
      return Ok(false);
    }
    self.reload(conn)?;
    self.data_version = Some(version);
    Ok(true)
  }

  /// Forget everything; the next [`EntryCache::sync`] reloads.
  pub fn invalidate(&mut self) {
    self.data_version = None;
  }

  fn reload(&mut self, conn: &Connection) -> rusqlite::Result<()> {
    self.slots.clear();
    self.by_id.clear();
    self.by_fts.clear();
    self.by_layer.clear();
    self.dead = 0;
    for (keys, entry) in store::all_entries(conn)? {
      self.insert(entry, keys);
    }
    Ok(())
  }

  fn insert(&mut self, entry: Entry, keys: RowKeys) {
    let cached = Cached {
      folded: fold(&entry.text),
      id_prefix: id_prefix(&entry.id),
      entry,
      keys,
    };
    let slot = match self.by_id.get(&cached.entry.id) {
      Some(&slot) => {
        self.unindex(slot);
        slot
      }
      None => {
        self.by_id.insert(cached.entry.id.clone(), self.slots.len());
        self.slots.push(None);
        self.slots.len() - 1
      }
    };
    self.by_fts.insert(keys.fts_id, slot);
    self
      .by_layer
      .entry(layer_of(&cached.entry))
      .or_default()
      .push(slot);
    self.slots[slot] = Some(cached);
  }

  /// Take a slot out of the secondary indexes (not out of `by_id`).
  fn unindex(&mut self, slot: usize) {
    if let Some(old) = self.slots[slot].as_ref() {
      self.by_fts.remove(&old.keys.fts_id);
      if let Some(slots) = self.by_layer.get_mut(&layer_of(&old.entry)) {
        slots.retain(|s| *s != slot);
      }
    }
  }

  fn remove(&mut self, id: &str) {
    if let Some(slot) = self.by_id.remove(id) {
      self.unindex(slot);
      self.slots[slot] = None;
      self.dead += 1;
    }
    if self.dead > 1024 && self.dead * 4 > self.slots.len() {
      self.compact();
    }
  }

  fn compact(&mut self) {
    let live: Vec<Cached> = self.slots.drain(..).flatten().collect();
    self.by_id.clear();
    self.by_fts.clear();
    self.by_layer.clear();
    self.dead = 0;
    for cached in live {
      let keys = cached.keys;
      self.insert(cached.entry, keys);
    }
  }

  /// Re-read the rows this connection's own commit touched.
  ///
  /// # Errors
  /// SQLite failures (the caller then invalidates).
  pub fn refresh_ids(&mut self, conn: &Connection, ids: &[String]) -> rusqlite::Result<()> {
    if self.data_version.is_none() {
      return Ok(());
    }
    for id in ids {
      match store::entry_with_keys(conn, id).optional()? {
        Some((keys, entry)) => self.insert(entry, keys),
        None => self.remove(id),
      }
    }
    Ok(())
  }

  /// Apply this connection's recall-counter bump.
  pub fn bump(&mut self, ids: &[String], at: i64) {
    for id in ids {
      if let Some(c) = self
        .by_id
        .get(id)
        .and_then(|&slot| self.slots[slot].as_mut())
      {
        c.entry.recall_count += 1;
        c.entry.last_recalled = Some(at);
      }
    }
  }

  fn live(&self) -> impl Iterator<Item = &Cached> {
    self.slots.iter().flatten()
  }

  /// Every live entry, or only those with these search-index keys.
  fn walk<'s>(&'s self, keys: Option<&'s [i64]>) -> Box<dyn Iterator<Item = &'s Cached> + 's> {
    match keys {
      None => Box::new(self.live()),
      Some(keys) => Box::new(
        keys
          .iter()
          .filter_map(|k| self.by_fts.get(k))
          .filter_map(|&slot| self.slots[slot].as_ref()),
      ),
    }
  }

  /// How many entries are cached (the planner's size signal).
  pub fn len(&self) -> usize {
    self.by_id.len()
  }

  /// No entries at all.
  pub fn is_empty(&self) -> bool {
    self.by_id.is_empty()
  }

  fn in_creation_order(mut found: Vec<&Cached>) -> Vec<Entry> {
    found.sort_by(|a, b| {
      a.entry
        .created_at
        .cmp(&b.entry.created_at)
        .then(a.keys.rowid.cmp(&b.keys.rowid))
    });
    found.into_iter().map(|c| c.entry.clone()).collect()
  }

  /// Every entry the visibility admits (`None`: every entry), oldest first.
  pub fn list(&self, vis: Option<&Visibility>) -> Vec<Entry> {
    let found: Vec<&Cached> = match vis {
      Some(v) if v.workspace_key.is_some() => self
        .session_layers(v)
        .filter(|c| visible(&c.entry, v))
        .collect(),
      _ => self
        .live()
        .filter(|c| vis.is_none_or(|v| visible(&c.entry, v)))
        .collect(),
    };
    Self::in_creation_order(found)
  }

  /// A session's view is its user-global layers plus its workspace's layers: the entries of just
  /// those (the caller still applies the agent filter).
  fn session_layers<'s>(&'s self, v: &Visibility) -> Box<dyn Iterator<Item = &'s Cached> + 's> {
    let ws = v.workspace_key.clone().unwrap_or_default();
    Box::new(
      Track::ALL
        .into_iter()
        .flat_map(move |t| {
          [
            (t, Scope::UserGlobal, String::new()),
            (t, Scope::Workspace, ws.clone()),
          ]
        })
        .filter_map(|layer| self.by_layer.get(&layer))
        .flatten()
        .filter_map(|&slot| self.slots[slot].as_ref()),
    )
  }

  /// Entries of one layer in the visible set whose folded text contains `folded`, oldest first.
  /// A `workspace` layer without a workspace key means every workspace's layer of that track.
  pub fn candidates(
    &self,
    track: Track,
    scope: Scope,
    vis: &Visibility,
    folded: &str,
  ) -> Vec<Entry> {
    let in_layer: Box<dyn Iterator<Item = &Cached>> = match (scope, &vis.workspace_key) {
      (Scope::Workspace, None) => Box::new(self.live()),
      (Scope::Workspace, Some(ws)) => self.layer(track, scope, ws.clone()),
      (Scope::UserGlobal, _) => self.layer(track, scope, String::new()),
    };
    Self::in_creation_order(
      in_layer
        .filter(|c| {
          c.entry.track == track
            && c.entry.scope == scope
            && visible(&c.entry, vis)
            && c.folded.contains(folded)
        })
        .collect(),
    )
  }

  fn layer<'s>(
    &'s self,
    track: Track,
    scope: Scope,
    ws: String,
  ) -> Box<dyn Iterator<Item = &'s Cached> + 's> {
    Box::new(
      self
        .by_layer
        .get(&(track, scope, ws))
        .into_iter()
        .flatten()
        .filter_map(|&slot| self.slots[slot].as_ref()),
    )
  }

  /// A ranked page and the exact total of matches, in one pass over memory.
  pub fn search(&self, q: &Search<'_>) -> (Vec<Entry>, u64) {
    let source = match (q.keys, q.visibility) {
      (None, Some(v)) if v.workspace_key.is_some() => self.session_layers(v),
      (keys, _) => self.walk(keys),
    };
    let mut hits: Vec<&Cached> = source
      .filter(|c| {
        q.track.is_none_or(|t| c.entry.track.as_str() == t)
          && q.scope.is_none_or(|s| c.entry.scope.as_str() == s)
          && q.visibility.is_none_or(|v| visible(&c.entry, v))
          && q.folded.is_none_or(|n| c.folded.contains(n))
      })
      .collect();
    let total = hits.len() as u64;
    if hits.len() > q.limit {
      if q.limit == 0 {
        return (Vec::new(), total);
      }
      hits.select_nth_unstable_by(q.limit - 1, |a, b| rank(a, b));
      hits.truncate(q.limit);
    }
    hits.sort_by(|a, b| rank(a, b));
    (hits.into_iter().map(|c| c.entry.clone()).collect(), total)
  }
}
