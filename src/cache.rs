//! The in-memory read model: every entry's ranking and visibility keys plus a search index of
//! its text ([`Grams`]) — but not the texts, which stay in SQLite (a page of results is read
//! back by rowid). About 260 bytes per entry instead of a second copy of the store.
//!
//! Coherence: the model remembers SQLite's `PRAGMA data_version`, which changes whenever another
//! connection (another process, another provider on the same file) commits, and the newest
//! audit `seq` it has seen. On a change, [`EntryCache::sync`] catches up from the audit ledger
//! — every write names the entries it touched — plus the recall counters, or reloads when the
//! ledger cannot be trusted for it. This connection's own commits are applied from what they
//! wrote ([`EntryCache::apply`]) and by [`EntryCache::bump`].
//! Writes never trust the model: the write transaction re-finds its target by id in SQLite.
#![forbid(unsafe_code)]

use std::cmp::Ordering;
use std::collections::HashMap;

use rusqlite::Connection;

use crate::entry_id::{EntryId, IdSlots};
use crate::grams::Grams;
use crate::postings::Slot;
use crate::protocol::model::{Entry, Scope, Track};
use crate::protocol::text::fold;
use crate::store::audit;
use crate::store::reads::{self, IndexRow};
use crate::store::{in_read_tx, Visibility};

/// What a search reads of every candidate: ranking and visibility keys, 32 bytes, in one
/// dense array (a common word walks tens of thousands of them).
#[derive(Debug, Clone, Copy)]
struct Hot {
  recall_count: i64,
  updated_at: i64,
  /// Interned agent key (0 = shared).
  agent: u32,
  /// Interned workspace key of a `workspace` entry (0 for user-global: one layer).
  workspace: u32,
  track: Track,
  scope: Scope,
  live: bool,
}

/// The rest of what the model keeps of one entry.
#[derive(Debug, Clone)]
struct Meta {
  id: EntryId,
  rowid: i64,
  /// Epoch ms of the last query hit, [`NEVER`] for none.
  last_recalled: i64,
}

/// `last_recalled` of an entry never recalled.
const NEVER: i64 = i64::MIN;

fn id_at(metas: &[Option<Meta>], slot: Slot) -> Option<&EntryId> {
  metas
    .get(slot as usize)
    .and_then(Option::as_ref)
    .map(|m| &m.id)
}

/// A budget layer: track, scope, interned workspace.
type LayerKey = (Track, Scope, u32);

fn layer_of(h: &Hot) -> LayerKey {
  (h.track, h.scope, h.workspace)
}

/// Agent and workspace keys, interned (`''` is 0).
#[derive(Debug, Default)]
struct Interner {
  ids: HashMap<Box<str>, u32>,
}

impl Interner {
  fn intern(&mut self, key: &str) -> u32 {
    if key.is_empty() {
      return 0;
    }
    let next = self.ids.len() as u32 + 1;
    *self.ids.entry(key.into()).or_insert(next)
  }

  fn get(&self, key: &str) -> Option<u32> {
    if key.is_empty() {
      Some(0)
    } else {
      self.ids.get(key).copied()
    }
  }
}

/// A visibility in interned keys: `None` = no filter, `Some(None)` = a key no entry has.
#[derive(Debug, Clone, Copy)]
struct Seen {
  agent: Option<Option<u32>>,
  workspace: Option<Option<u32>>,
}

impl Seen {
  fn admits(&self, m: &Hot) -> bool {
    let agent_ok = self
      .agent
      .is_none_or(|want| m.agent == 0 || Some(m.agent) == want);
    let workspace_ok =
      m.scope != Scope::Workspace || self.workspace.is_none_or(|want| Some(m.workspace) == want);
    agent_ok && workspace_ok
  }
}

/// What a query asks of the model.
#[derive(Debug, Clone, Copy, Default)]
pub struct Search<'a> {
  /// Only this track (an unknown value matches nothing).
  pub track: Option<&'a str>,
  /// Only this scope (an unknown value matches nothing).
  pub scope: Option<&'a str>,
  /// The session's visible set.
  pub visibility: Option<&'a Visibility>,
  /// Page size.
  pub limit: usize,
  /// The slots whose text contains the needle ([`EntryCache::matching`]); `None`: no needle.
  pub matched: Option<&'a [Slot]>,
}

/// The best `limit` slots seen so far, best first.
struct Top<'a> {
  cache: &'a EntryCache,
  limit: usize,
  slots: Vec<Slot>,
}

impl Top<'_> {
  fn offer(&mut self, slot: Slot) {
    if self.slots.len() == self.limit {
      match self.slots.last() {
        Some(&worst) if self.cache.rank(slot, worst) == Ordering::Less => {
          self.slots.pop();
        }
        _ => return,
      }
    }
    let at = self
      .slots
      .partition_point(|&s| self.cache.rank(s, slot) == Ordering::Less);
    self.slots.insert(at, slot);
  }
}

/// Every entry's keys and search index, kept coherent with the store.
#[derive(Debug, Default)]
pub struct EntryCache {
  data_version: Option<i64>,
  /// By slot (a retired slot — removed, or replaced by a newer slot — is not `live`).
  hot: Vec<Hot>,
  /// By slot; `None` for a retired slot.
  metas: Vec<Option<Meta>>,
  by_id: IdSlots,
  /// Live slots per budget layer: targeting and session reads touch only their layers.
  by_layer: HashMap<LayerKey, Vec<Slot>>,
  keys: Interner,
  grams: Grams,
  retired: usize,
  /// The newest audit `seq` the model reflects.
  audit_seq: i64,
  /// How many times the model was loaded from scratch.
  loads: u64,
}

/// Catching up from more audit rows than this is a reload.
const CATCH_UP_MAX: usize = 4096;

impl EntryCache {
  /// Catch up if another connection committed since the last look (load if nothing is loaded
  /// yet). `pending` are this connection's recall bumps not yet written: their entries are
  /// re-read, and the caller re-applies them when this returns `true` (the model changed).
  ///
  /// # Errors
  /// SQLite failures.
  pub fn sync(&mut self, conn: &Connection, pending: &[(String, i64)]) -> rusqlite::Result<bool> {
    let version: i64 = conn
      .prepare_cached("PRAGMA data_version")?
      .query_row([], |r| r.get(0))?;
    if self.data_version == Some(version) {
      return Ok(false);
    }
    let loaded = self.data_version.is_some();
    in_read_tx(conn, || {
      if !(loaded && self.catch_up(conn, pending)?) {
        self.reload(conn)?;
      }
      Ok(())
    })?;
    self.data_version = Some(version);
    Ok(true)
  }

  /// Apply what other connections committed since the model's audit watermark: re-read every
  /// entry the new audit rows name (and the entries with pending local bumps), then every
  /// recalled entry's counters (recall bumps are written without audit rows). `false` when
  /// the ledger cannot be trusted for it — a gap after the watermark (pruned), too many rows,
  /// or an entry count that disagrees — and a reload is due.
  fn catch_up(&mut self, conn: &Connection, pending: &[(String, i64)]) -> rusqlite::Result<bool> {
    let tail = audit::tail(conn, self.audit_seq, CATCH_UP_MAX)?;
    if tail.len() >= CATCH_UP_MAX
      || tail
        .first()
        .is_some_and(|(seq, _)| *seq != self.audit_seq + 1)
    {
      return Ok(false);
    }
    let last = tail.last().map(|(seq, _)| *seq);
    let mut ids: Vec<String> = tail.into_iter().filter_map(|(_, id)| id).collect();
    ids.extend(pending.iter().map(|(id, _)| id.clone()));
    ids.sort_unstable();
    ids.dedup();
    self.refresh_ids(conn, &ids)?;
    reads::for_each_recalled(conn, |id, count, last_recalled| {
      if let Some((recall_count, last)) = self.counters_mut(id) {
        *recall_count = count;
        *last = last_recalled.unwrap_or(NEVER);
      }
    })?;
    if reads::entry_count(conn)? != self.by_id.len() {
      return Ok(false);
    }
    if let Some(seq) = last {
      self.audit_seq = seq;
    }
    Ok(true)
  }

  /// How many times the model was loaded from scratch (the first load included).
  pub fn loads(&self) -> u64 {
    self.loads
  }

  /// Forget everything; the next [`EntryCache::sync`] reloads.
  pub fn invalidate(&mut self) {
    self.data_version = None;
  }

  fn reload(&mut self, conn: &Connection) -> rusqlite::Result<()> {
    *self = EntryCache {
      loads: self.loads + 1,
      ..EntryCache::default()
    };
    // Sized up front: no doubling (and no transient second copy) while loading.
    let n = reads::entry_count(conn)?;
    self.hot.reserve_exact(n);
    self.metas.reserve_exact(n);
    self.by_id.reserve(n);
    reads::for_each_index_row(conn, |row| self.insert(&row))?;
    self.audit_seq = audit::max_seq(conn)?;
    self.hot.shrink_to_fit();
    self.metas.shrink_to_fit();
    self.by_id.shrink_to_fit();
    self.by_layer.values_mut().for_each(Vec::shrink_to_fit);
    self.grams.shrink();
    Ok(())
  }

  /// Index an entry under a fresh slot, retiring the slot it had.
  fn insert(&mut self, e: &IndexRow<'_>) {
    let id = EntryId::new(e.id);
    self.forget(&id);
    let slot = self.metas.len() as Slot;
    let hot = Hot {
      recall_count: e.recall_count,
      updated_at: e.updated_at,
      agent: self.keys.intern(e.agent_key),
      workspace: match e.scope {
        Scope::Workspace => self.keys.intern(e.workspace_key),
        Scope::UserGlobal => 0,
      },
      track: e.track,
      scope: e.scope,
      live: true,
    };
    self.grams.insert(slot, &fold(e.text));
    self.by_layer.entry(layer_of(&hot)).or_default().push(slot);
    self.hot.push(hot);
    self.metas.push(Some(Meta {
      id: id.clone(),
      rowid: e.rowid,
      last_recalled: e.last_recalled.unwrap_or(NEVER),
    }));
    self.by_id.insert(&id, slot, |s| id_at(&self.metas, s));
  }

  /// Drop an entry from the id map and retire its slot, if the model has it.
  fn forget(&mut self, id: &EntryId) {
    if let Some(slot) = self.by_id.remove(id, |s| id_at(&self.metas, s)) {
      self.retire(slot);
    }
  }

  fn retire(&mut self, slot: Slot) {
    let Some(hot) = self.hot.get_mut(slot as usize).filter(|h| h.live) else {
      return;
    };
    hot.live = false;
    let layer = layer_of(hot);
    if let Some(meta) = self.metas.get_mut(slot as usize) {
      *meta = None;
    }
    if let Some(slots) = self.by_layer.get_mut(&layer) {
      slots.retain(|s| *s != slot);
    }
    self.retired += 1;
  }

  /// Renumber the live slots densely once a quarter of the slots are retired.
  fn maybe_compact(&mut self) {
    if self.retired <= 1024 || self.retired * 4 <= self.metas.len() {
      return;
    }
    let mut next: Slot = 0;
    let remap: Vec<Option<Slot>> = self
      .hot
      .iter()
      .map(|h| {
        h.live.then(|| {
          next += 1;
          next - 1
        })
      })
      .collect();
    let renumber = |s: &mut Slot| {
      if let Some(Some(new)) = remap.get(*s as usize) {
        *s = *new;
      }
    };
    self.by_id.renumber(renumber);
    self
      .by_layer
      .values_mut()
      .for_each(|slots| slots.iter_mut().for_each(renumber));
    self.by_layer.retain(|_, slots| !slots.is_empty());
    self.hot.retain(|h| h.live);
    self.metas.retain(Option::is_some);
    self.grams.compact(&remap);
    self.retired = 0;
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
      if !reads::index_row_by_id(conn, id, |row| self.insert(&row))? {
        self.forget(&EntryId::new(id));
      }
    }
    self.maybe_compact();
    Ok(())
  }

  /// Apply this connection's own commit from what it wrote, without reading it back: the
  /// `written` entries (with their rowid when the write knows it — an insert does; otherwise
  /// the model's) and the `removed` ids. An entry whose rowid is unknown to both is re-read.
  pub fn apply(
    &mut self,
    conn: &Connection,
    written: &[(Option<i64>, Entry)],
    removed: &[String],
  ) -> rusqlite::Result<()> {
    if self.data_version.is_none() {
      return Ok(());
    }
    for id in removed {
      self.forget(&EntryId::new(id));
    }
    for (rowid, e) in written {
      let known = rowid.or_else(|| {
        let slot = self
          .by_id
          .get(&EntryId::new(&e.id), |s| id_at(&self.metas, s))?;
        self.metas.get(slot as usize)?.as_ref().map(|m| m.rowid)
      });
      match known {
        Some(rowid) => self.insert(&IndexRow {
          rowid,
          id: &e.id,
          track: e.track,
          scope: e.scope,
          workspace_key: &e.workspace_key,
          agent_key: &e.agent_key,
          text: &e.text,
          updated_at: e.updated_at,
          last_recalled: e.last_recalled,
          recall_count: e.recall_count,
        }),
        None => self.refresh_ids(conn, std::slice::from_ref(&e.id))?,
      }
    }
    self.maybe_compact();
    Ok(())
  }

  /// Apply this connection's recall-counter bump.
  pub fn bump(&mut self, ids: &[String], at: i64) {
    for id in ids {
      if let Some((recall_count, last)) = self.counters_mut(id) {
        *recall_count += 1;
        *last = (*last).max(at);
      }
    }
  }

  /// An entry's recall count and last recall (`NEVER` for none), to change.
  fn counters_mut(&mut self, id: &str) -> Option<(&mut i64, &mut i64)> {
    let slot = self
      .by_id
      .get(&EntryId::new(id), |s| id_at(&self.metas, s))? as usize;
    match (self.hot.get_mut(slot), self.metas.get_mut(slot)) {
      (Some(h), Some(Some(m))) => Some((&mut h.recall_count, &mut m.last_recalled)),
      _ => None,
    }
  }

  /// Show this connection's view of an entry's recall counters (bumps not yet written).
  pub fn overlay(&self, e: &mut Entry) {
    if let Some(slot) = self
      .by_id
      .get(&EntryId::new(&e.id), |s| id_at(&self.metas, s))
    {
      self.counters_into(slot, e);
    }
  }

  fn counters_into(&self, slot: Slot, e: &mut Entry) {
    if let (Some(h), Some(Some(m))) = (self.hot.get(slot as usize), self.metas.get(slot as usize)) {
      e.recall_count = h.recall_count;
      e.last_recalled = (m.last_recalled != NEVER).then_some(m.last_recalled);
    }
  }

  fn live(&self, slot: Slot) -> Option<&Hot> {
    self.hot.get(slot as usize).filter(|h| h.live)
  }

  /// Query ranking: recall count DESC, updated_at DESC, id ASC.
  fn rank(&self, a: Slot, b: Slot) -> Ordering {
    let (Some(ha), Some(hb)) = (self.hot.get(a as usize), self.hot.get(b as usize)) else {
      return a.cmp(&b);
    };
    hb.recall_count
      .cmp(&ha.recall_count)
      .then(hb.updated_at.cmp(&ha.updated_at))
      .then_with(|| id_at(&self.metas, a).cmp(&id_at(&self.metas, b)))
  }

  /// The slots whose ASCII-folded text contains `folded` (sorted; retired slots possible).
  /// Words and short non-ASCII needles: the in-memory index; other needles of 3+ characters:
  /// the FTS5 trigram index over the folded text; the rest (1–2 characters of ASCII
  /// punctuation or space): a scan in SQLite. Each is exact.
  ///
  /// # Errors
  /// SQLite failures.
  pub fn matching(&self, conn: &Connection, folded: &str) -> rusqlite::Result<Vec<Slot>> {
    if let Some(slots) = self.grams.lookup(folded) {
      return Ok(slots);
    }
    let ids = if folded.chars().nth(2).is_some() {
      reads::fts_match_ids(conn, folded)?
    } else {
      reads::scan_match_ids(conn, folded)?
    };
    let mut slots: Vec<Slot> = ids
      .iter()
      .filter_map(|id| self.by_id.get(&EntryId::new(id), |s| id_at(&self.metas, s)))
      .collect();
    slots.sort_unstable();
    slots.dedup();
    Ok(slots)
  }

  fn seen(&self, v: &Visibility) -> Seen {
    Seen {
      agent: v.agent_key.as_deref().map(|k| self.keys.get(k)),
      workspace: v.workspace_key.as_deref().map(|w| self.keys.get(w)),
    }
  }

  /// A session's view is its user-global layers plus its workspace's layers.
  fn session_layers(&self, workspace: Option<u32>) -> Vec<&[Slot]> {
    Track::ALL
      .into_iter()
      .flat_map(|t| {
        [
          Some((t, Scope::UserGlobal, 0)),
          workspace.map(|w| (t, Scope::Workspace, w)),
        ]
      })
      .flatten()
      .filter_map(|layer| self.by_layer.get(&layer).map(Vec::as_slice))
      .collect()
  }

  /// The ranked page (slots, best first) and the exact total of matches, in one pass.
  pub fn search(&self, q: &Search<'_>) -> (Vec<Slot>, u64) {
    let track = q.track.map(Track::parse);
    let scope = q.scope.map(Scope::parse);
    let seen = q.visibility.map(|v| self.seen(v));
    let layers = seen
      .and_then(|s| s.workspace)
      .map(|workspace| self.session_layers(workspace));
    let layer_count: Option<usize> = layers.as_ref().map(|l| l.iter().map(|s| s.len()).sum());
    let mut top = Top {
      cache: self,
      limit: q.limit,
      slots: Vec::with_capacity(q.limit.min(64)),
    };
    let mut total = 0u64;
    let mut visit = |slot: Slot| {
      let Some(m) = self.live(slot) else { return };
      if track.is_some_and(|t| t != Some(m.track))
        || scope.is_some_and(|s| s != Some(m.scope))
        || seen.is_some_and(|s| !s.admits(m))
      {
        return;
      }
      total += 1;
      if q.limit > 0 {
        top.offer(slot);
      }
    };
    // The smaller side drives: a session's few layers probed against a large match set, or
    // the match set itself.
    match (q.matched, &layers) {
      (Some(matched), Some(layers)) if layer_count.unwrap_or(0) < matched.len() => layers
        .iter()
        .flat_map(|l| l.iter())
        .filter(|s| matched.binary_search(s).is_ok())
        .for_each(|&s| visit(s)),
      (Some(matched), _) => matched.iter().for_each(|&s| visit(s)),
      (None, Some(layers)) => layers.iter().flat_map(|l| l.iter()).for_each(|&s| visit(s)),
      (None, None) => (0..self.hot.len() as Slot).for_each(visit),
    }
    (top.slots, total)
  }

  /// The entries of these slots, in order, read from the store, with this connection's
  /// counters.
  ///
  /// # Errors
  /// SQLite failures.
  pub fn fetch(&self, conn: &Connection, slots: &[Slot]) -> rusqlite::Result<Vec<Entry>> {
    let keyed: Vec<(Slot, i64)> = slots
      .iter()
      .filter_map(|&slot| match self.metas.get(slot as usize) {
        Some(Some(m)) => Some((slot, m.rowid)),
        _ => None,
      })
      .collect();
    let rowids: Vec<i64> = keyed.iter().map(|(_, rowid)| *rowid).collect();
    let mut rows = reads::entries_by_rowids(conn, &rowids)?;
    Ok(
      keyed
        .into_iter()
        .filter_map(|(slot, rowid)| {
          let mut e = rows.remove(&rowid)?;
          self.counters_into(slot, &mut e);
          Some(e)
        })
        .collect(),
    )
  }
}
