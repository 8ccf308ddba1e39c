//! Hints that keep memory clean without a model: the stored entries a new text most likely
//! duplicates or updates (an approval's `similar`), and what to consolidate or remove when a
//! layer is full (a `BUDGET_EXCEEDED`'s `suggestions`). They change nothing: every write they
//! propose still goes through the gate.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use super::grams::{Grams, Postings};
use super::*;
use crate::error::Suggestion;
use crate::protocol::change::Similar;
use crate::similar::{self, Profile, Relation};
use crate::store::similar as stored;

/// Most hints one new text gets.
const HINTS: usize = 3;
/// Search terms, and candidates found by them, one new text is compared with in a large layer.
const TERMS: usize = 6;
const CANDIDATES: usize = 12;
/// Profiles kept between calls (a layer's are computed once, not on every write), in two
/// generations of this many (the older one is dropped when the newer fills, and what it holds
/// that is used again moves up): one is a few KB, and a large layer's candidates would otherwise
/// be kept by the thousand.
const PROFILES: usize = 1_024;
/// Small layers (read whole) kept, and the entries kept in large layers' trigram indexes (about
/// a KB each): a seed or import across many workspaces touches many layers, and keeping each
/// would hold a copy of the store; a run of writes across a few large layers keeps them all.
const SMALL: usize = 8;
const LARGE_ROWS: usize = 16_384;
/// New texts of a batch whose candidates are profiled together.
const AHEAD: usize = 32;
/// Texts to profile at once that are worth a second thread: fewer cost less than starting one.
const TWO_THREADS: usize = 16;

/// A stored entry's text and profile, shared by every comparison with it.
#[derive(Debug)]
pub struct Known {
  id: String,
  text: String,
  profile: Arc<Profile>,
}

/// Profiles of stored texts by entry id; and by text, those made ahead of a few new texts'
/// comparisons and those of the texts the last write planned. They are read, not taken: a text
/// that several entries share (or a new text and a stored one) is profiled once, and the
/// entries a write commits are not profiled again.
#[derive(Debug, Default)]
struct Profiles {
  by_id: FxHashMap<String, Arc<Known>>,
  older: FxHashMap<String, Arc<Known>>,
  made: FxHashMap<String, Arc<Profile>>,
  planned: FxHashMap<String, Arc<Profile>>,
}

impl Profiles {
  /// The profile of stored entry `id` with `text`, made (and kept, up to [`PROFILES`]) when its
  /// text is new.
  fn known(&mut self, id: &str, text: &str) -> Arc<Known> {
    if let Some(k) = self.by_id.get(id).filter(|k| k.text == text) {
      return k.clone();
    }
    if self.by_id.len() >= PROFILES {
      self.older = std::mem::take(&mut self.by_id);
    }
    let kept = self.older.remove(id).filter(|k| k.text == text);
    let k = kept.unwrap_or_else(|| {
      let profile = self.profile(text);
      let (id, text) = (id.to_string(), text.to_string());
      Arc::new(Known { id, text, profile })
    });
    self.by_id.insert(id.to_string(), k.clone());
    k
  }

  /// The kept profiles of stored `rows` (`(id, text)`), as one pool.
  fn pool<'a>(&mut self, rows: impl IntoIterator<Item = (&'a str, &'a str)>) -> Pool {
    Arc::new(rows.into_iter().map(|(id, t)| self.known(id, t)).collect())
  }

  /// The profile of `text`: made ahead or planned, or now.
  fn profile(&self, text: &str) -> Arc<Profile> {
    let made = self.made.get(text).or_else(|| self.planned.get(text));
    made.cloned().unwrap_or_else(|| Arc::new(Profile::of(text)))
  }

  /// Makes the profiles of `rows` (`(id, text)`) that are not kept yet, all at once and on two
  /// threads when the machine has them; [`Profiles::known`] and the planning of a new text then
  /// read them.
  fn ahead<'a>(&mut self, rows: impl Iterator<Item = (&'a str, &'a str)>) {
    let kept = |id: &str, text: &str| {
      let k = self.by_id.get(id).or_else(|| self.older.get(id));
      let made = self.made.contains_key(text) || self.planned.contains_key(text);
      k.is_some_and(|k| k.text == text) || made
    };
    let texts = rows.filter(|(id, text)| !kept(id, text));
    let mut texts: Vec<&str> = texts.map(|(_, t)| t).collect();
    texts.sort_unstable();
    texts.dedup();
    let made = profiles_of(&texts).into_iter().map(Arc::new);
    let texts = texts.iter().map(|t| t.to_string());
    self.made.extend(texts.zip(made));
  }
}

/// The profiles of `texts`, in order: half of them on a second thread when there are enough to
/// be worth one (and the machine has a second core and lets it be made).
pub(super) fn profiles_of(texts: &[&str]) -> Vec<Profile> {
  let one = |texts: &[&str]| texts.iter().map(|t| Profile::of(t)).collect::<Vec<_>>();
  // Asked once: the answer reads the process's CPU quota and affinity from the system.
  static CORES: OnceLock<usize> = OnceLock::new();
  let cores = || *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
  if texts.len() < TWO_THREADS || cores() < 2 {
    return one(texts);
  }
  let (first, second) = texts.split_at(texts.len() / 2);
  std::thread::scope(|s| {
    let other = std::thread::Builder::new().spawn_scoped(s, || one(second));
    let mut out = one(first);
    let rest = other.ok().and_then(|h| h.join().ok());
    out.extend(rest.unwrap_or_else(|| one(second)));
    out
  })
}

/// The entries of one layer a new text is compared with.
type Pool = Arc<Vec<Arc<Known>>>;

/// What a new text is compared with: a small layer's entries, or the rows of a large layer
/// found for it, to be profiled.
enum Candidates {
  Pool(Pool),
  Rows(Vec<(String, String)>),
}

/// Groups of alike entries (by index), each with the strongest relation found in it.
type Groups = Vec<(Vec<usize>, Relation)>;

/// A layer as one agent sees it: track, scope, layer key (`''` for user-global), agent.
type LayerKey = (Track, Scope, String, String);

/// What hints keep between calls: the profile of every stored text compared so far, the small
/// layers read whole and the large ones' trigram indexes — kept while no other connection
/// writes (`PRAGMA data_version`) and patched with this connection's own commits, so a run of
/// writes to one layer reads it once.
#[derive(Debug, Default)]
pub struct Cache {
  profiles: Profiles,
  data_version: i64,
  pools: HashMap<LayerKey, Pool>,
  large: HashMap<LayerKey, Grams>,
}

impl Cache {
  /// The entries kept in large layers' indexes.
  fn large_rows(&self) -> usize {
    self.large.values().map(Grams::len).sum()
  }

  /// The entries kept in layers read whole, and in large layers' indexes.
  #[cfg(test)]
  pub(super) fn kept(&self) -> (usize, usize) {
    (
      self.pools.values().map(|p| p.len()).sum(),
      self.large_rows(),
    )
  }
}

impl Memory {
  /// Reads the layers of `keys` not kept yet: a small one whole (profiled as it is read), a
  /// large one into its trigram index, built on a thread of its own while the next is read (up
  /// to [`LARGE_ROWS`] rows a call: [`Memory::candidates`] reads the rest one by one).
  fn load(&mut self, keys: impl Iterator<Item = LayerKey>) -> Result<()> {
    let (store, cache) = (&self.store, &mut self.known);
    // Read before the rows: a write landing in between then only costs a re-read.
    let version = stored::data_version(store.conn()).map_err(|x| store.fail(x))?;
    if cache.data_version != version {
      cache.data_version = version;
      cache.pools.clear();
      cache.large.clear();
    }
    let built = std::thread::scope(|s| {
      let (mut large, mut held) = (Vec::new(), 0);
      for key in keys {
        if held >= LARGE_ROWS {
          break;
        }
        let read = large.iter().any(|(k, _, _)| *k == key);
        if read || cache.pools.contains_key(&key) || cache.large.contains_key(&key) {
          continue;
        }
        let rows = stored::all(store.conn(), &stored_layer(&key)).map_err(|x| store.fail(x))?;
        if !stored::is_small(rows.len()) {
          held += rows.len();
          let rows = Arc::new(rows);
          let mine = rows.clone();
          let thread = std::thread::Builder::new().spawn_scoped(s, move || Postings::of(&mine));
          large.push((key, rows, thread.ok()));
          continue;
        }
        if cache.pools.len() >= SMALL {
          cache.pools.clear();
        }
        let rows = rows.iter().map(|(id, text)| (id.as_str(), text.as_str()));
        cache.profiles.ahead(rows.clone());
        cache.pools.insert(key, cache.profiles.pool(rows));
      }
      let large = large.into_iter().map(|(key, rows, thread)| {
        let postings = thread.and_then(|t| t.join().ok());
        let postings = postings.unwrap_or_else(|| Postings::of(&rows));
        let rows = Arc::try_unwrap(rows).unwrap_or_else(|rows| rows.to_vec());
        (key, Grams::of(rows, postings))
      });
      Ok::<_, MemoryError>(large.collect::<Vec<_>>())
    })?;
    for (key, grams) in built {
      if cache.large_rows() + grams.len() > LARGE_ROWS {
        cache.large.clear();
      }
      cache.large.insert(key, grams);
    }
    Ok(())
  }

  /// The entries of `e`'s layer as `agent` sees them that a new text is compared with: the whole
  /// layer when it is small, else the rows sharing the most of `e`'s search terms.
  fn candidates(&mut self, e: &Entry, agent: &str) -> Result<Candidates> {
    let key = layer_key(e, agent);
    self.load(std::iter::once(key.clone()))?;
    if let Some(pool) = self.known.pools.get(&key) {
      return Ok(Candidates::Pool(pool.clone()));
    }
    let terms = similar::search_terms(&e.text, TERMS);
    let large = self.known.large.get(&key);
    let found = large.map(|g| g.found(&terms, CANDIDATES));
    let rows = found.into_iter().flatten();
    let rows = rows.map(|(id, text)| (id.to_string(), text.to_string()));
    Ok(Candidates::Rows(rows.collect()))
  }

  /// Brings the layers kept up to date with a write this connection committed.
  pub(super) fn committed(&mut self, written: &Written) {
    let (gone, new) = written.changes();
    let cache = &mut self.known;
    for (key, pool) in cache.pools.iter_mut() {
      let layer = stored_layer(key);
      let pool = Arc::make_mut(pool);
      pool.retain(|k| !gone.contains(&k.id.as_str()));
      for e in new.iter().filter(|e| layer.holds(e)) {
        pool.push(cache.profiles.known(&e.id, &e.text));
      }
    }
    cache.pools.retain(|_, pool| stored::is_small(pool.len()));
    for (key, grams) in cache.large.iter_mut() {
      let layer = stored_layer(key);
      gone.iter().for_each(|id| grams.remove(id));
      for e in new.iter().filter(|e| layer.holds(e)) {
        grams.push(e.id.clone(), e.text.clone());
        // The newest entries are the likeliest candidates of the next write.
        if cache.profiles.planned.contains_key(&e.text) {
          cache.profiles.known(&e.id, &e.text);
        }
      }
    }
    // A layer that became small is read whole again.
    cache.large.retain(|_, g| !stored::is_small(g.len()));
  }

  /// A write's hints ([`Memory::similar_to`]): none when the provider was opened without them.
  pub(super) fn hints(
    &mut self,
    news: &[(Option<usize>, &Entry)],
    agent: &str,
    skip: Option<&str>,
  ) -> Result<Vec<Similar>> {
    if !self.config.similar_hints {
      return Ok(Vec::new());
    }
    self.similar_to(news, agent, skip)
  }

  /// For each new entry (with its index in a batch, if any), the up to three stored entries of
  /// its layer (as the writer's agent sees it) it most likely duplicates or updates, best first;
  /// `skip`: an entry to leave out (what a replace rewrites).
  pub(super) fn similar_to(
    &mut self,
    news: &[(Option<usize>, &Entry)],
    agent: &str,
    skip: Option<&str>,
  ) -> Result<Vec<Similar>> {
    let mut out = Vec::new();
    self.known.profiles.planned.clear();
    // The new texts of a batch and the stored ones they are compared with are profiled a few
    // dozen texts at a time, all at once (`Profiles::ahead`).
    for chunk in news.chunks(AHEAD) {
      self.known.profiles.made.clear();
      self.load(chunk.iter().map(|(_, new)| layer_key(new, agent)))?;
      let pools = chunk.iter().map(|(_, new)| self.candidates(new, agent));
      let pools = pools.collect::<Result<Vec<_>>>()?;
      let rows = pools.iter().flat_map(|c| match c {
        Candidates::Rows(rows) => rows.as_slice(),
        Candidates::Pool(_) => &[],
      });
      let rows = rows.map(|(id, text)| (id.as_str(), text.as_str()));
      let texts = chunk.iter().map(|(_, new)| ("", new.text.as_str()));
      self.known.profiles.ahead(rows.chain(texts));
      for ((index, new), pool) in chunk.iter().zip(pools) {
        let profiles = &mut self.known.profiles;
        let pool = match pool {
          Candidates::Pool(pool) => pool,
          Candidates::Rows(rows) => {
            profiles.pool(rows.iter().map(|(id, t)| (id.as_str(), t.as_str())))
          }
        };
        let profile = profiles.profile(&new.text);
        let others = pool.iter().filter(|k| Some(k.id.as_str()) != skip);
        let hints = others.filter_map(|old| Some((similar::compare(&profile, &old.profile)?, old)));
        let mut found: Vec<_> = hints.collect();
        // Best first; only the hints kept copy their entry's id and text.
        found.sort_by(|(a, _), (b, _)| b.score.total_cmp(&a.score));
        out.extend(found.into_iter().take(HINTS).map(|(h, old)| Similar {
          entry: *index,
          id: old.id.clone(),
          text: old.text.clone(),
          score: h.score,
          relation: h.relation,
          reason: h.reason,
        }));
        // Kept for the commit, which adds it to the layer's pool or to the profiles kept.
        let planned = &mut self.known.profiles.planned;
        if planned.len() < PROFILES {
          planned.insert(new.text.clone(), profile);
        }
      }
    }
    self.known.profiles.made.clear();
    Ok(out)
  }

  /// `err` with its `suggestions` when it is a `BUDGET_EXCEEDED` of `e`'s layer (as `agent`
  /// sees it): near-duplicate groups to consolidate, then the entries least worth keeping
  /// (never or least recalled, oldest) to remove, until they free what the write lacks.
  pub(super) fn with_room(&mut self, mut err: MemoryError, e: &Entry, agent: &str) -> MemoryError {
    if let MemoryError::BudgetExceeded {
      limit,
      needed,
      suggestions,
      ..
    } = &mut err
    {
      let short = needed.saturating_sub(*limit);
      *suggestions = self.room(e, agent, short).unwrap_or_default();
    }
    err
  }

  /// Writes that free at least `short` units in `e`'s layer (fewer when it does not hold that
  /// much): consolidations of near-duplicates first, then removals.
  fn room(&mut self, e: &Entry, agent: &str, short: u64) -> Result<Vec<Suggestion>> {
    let vis = Visibility {
      agent_key: Some(agent.to_string()),
      workspace_key: Some(e.workspace_key.clone()),
    };
    let filter = reads::Filter {
      track: Some(e.track.as_str()),
      scope: Some(e.scope.as_str()),
      visibility: Some(&vis),
      ..Default::default()
    };
    let layer = reads::oldest_first(self.store.conn(), &filter).map_err(|x| self.fail(x))?;
    let mut out = Vec::new();
    let mut freed = 0;
    let mut used: Vec<bool> = vec![false; layer.len()];
    let groups = stored::is_small(layer.len()).then(|| self.similar_groups(&layer));
    for (group, relation) in groups.unwrap_or_default() {
      if freed >= short {
        break;
      }
      if let Some(s) = consolidation(&layer, &group, relation) {
        // What the write leaves (the kept text) may still be removed below, as a last resort.
        let kept = &s.input["text"];
        let left = group.iter().find(|&&i| *kept == layer[i].text);
        for &i in group.iter().filter(|&i| Some(i) != left) {
          used[i] = true;
        }
        freed += s.frees;
        out.push(s);
      }
    }
    let mut rest: Vec<usize> = (0..layer.len()).filter(|&i| !used[i]).collect();
    let worth = |e: &Entry| (e.recall_count, e.last_recalled.unwrap_or(0), e.created_at);
    rest.sort_by_key(|&i| worth(&layer[i]));
    for i in rest {
      if freed >= short {
        break;
      }
      let why = match layer[i].recall_count {
        0 => "never recalled".to_string(),
        n => format!("recalled {n}×, among the least"),
      };
      // An entry whose text no substring names alone cannot be targeted by a write.
      if let Some(s) = removal(&layer, i, &why) {
        freed += s.frees;
        out.push(s);
      }
    }
    Ok(out)
  }

  /// The groups of `layer`'s entries that are near-duplicates or updates of each other (by
  /// index), each with the strongest relation found in it, largest first.
  pub(super) fn similar_groups(&mut self, layer: &[Entry]) -> Groups {
    let rows = layer.iter().map(|e| (e.id.as_str(), e.text.as_str()));
    let known = self.known.profiles.pool(rows);
    let mut pairs = Vec::new();
    for i in 0..layer.len() {
      for j in i + 1..layer.len() {
        let hint = similar::compare(&known[j].profile, &known[i].profile);
        if let Some(h) = hint.filter(|h| h.relation != Relation::Related) {
          pairs.push((i, j, h.relation));
        }
      }
    }
    groups_of(layer.len(), &pairs, |i| units(&layer[i].text))
  }

  /// [`Memory::similar_groups`] of a large layer: each entry against the candidates the layer's
  /// trigram index finds for it, not against every other entry.
  pub(super) fn similar_groups_indexed(&mut self, layer: &[Entry]) -> Result<Groups> {
    let ids = layer.iter().enumerate().map(|(i, e)| (e.id.as_str(), i));
    let index: HashMap<&str, usize> = ids.collect();
    let mut pairs = Vec::new();
    for (i, e) in layer.iter().enumerate() {
      let found = self.similar_to(&[(None, e)], &e.agent_key, Some(&e.id))?;
      let like = found.iter().filter(|s| s.relation != Relation::Related);
      pairs.extend(like.filter_map(|s| {
        let j = *index.get(s.id.as_str())?;
        Some((i.min(j), i.max(j), s.relation))
      }));
    }
    Ok(groups_of(layer.len(), &pairs, |i| units(&layer[i].text)))
  }
}

/// The layer of `e` as `agent` sees it.
fn layer_key(e: &Entry, agent: &str) -> LayerKey {
  let (track, scope, workspace) = super::layer_of(e);
  (track, scope, workspace.to_string(), agent.to_string())
}

/// The layer of `key` for the store's queries.
fn stored_layer(key: &LayerKey) -> stored::Layer<'_> {
  stored::Layer {
    track: key.0.as_str(),
    scope: key.1.as_str(),
    workspace_key: &key.2,
    agent_key: &key.3,
  }
}

/// The connected groups of `n` items joined by `pairs`, each with its strongest relation
/// (`Duplicate` over `Update`), largest (by `size`) first.
fn groups_of(n: usize, pairs: &[(usize, usize, Relation)], size: impl Fn(usize) -> u64) -> Groups {
  fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    i
  }
  let mut parent: Vec<usize> = (0..n).collect();
  for &(i, j, _) in pairs {
    let (a, b) = (root(&mut parent, i), root(&mut parent, j));
    parent[b] = a;
  }
  // Each item's group under its root.
  let mut groups = vec![(Vec::new(), Relation::Update); n];
  for i in 0..n {
    groups[root(&mut parent, i)].0.push(i);
  }
  for &(i, ..) in pairs.iter().filter(|p| p.2 == Relation::Duplicate) {
    groups[root(&mut parent, i)].1 = Relation::Duplicate;
  }
  groups.retain(|(g, _)| g.len() > 1);
  let weight = |g: &[usize]| g.iter().map(|&i| size(i)).sum::<u64>();
  groups.sort_by_key(|(g, _)| (std::cmp::Reverse(weight(g)), g[0]));
  groups
}

/// `{id, text}` of an entry.
fn named(e: &Entry) -> Value {
  json!({ "id": e.id, "text": e.text })
}

/// The removal of entry `i` of `layer`, when its text names it alone.
pub(super) fn removal(layer: &[Entry], i: usize, why: &str) -> Option<Suggestion> {
  let e = &layer[i];
  unique_in(layer, i).then(|| Suggestion {
    action: "remove",
    why: why.into(),
    frees: units(&e.text),
    entries: vec![named(e)],
    input: json!({ "track": e.track, "scope": e.scope, "match": e.text, "workspaceKey": e.workspace_key, "agentKey": e.agent_key }),
  })
}

/// Whether entry `i`'s whole text names it alone in `layer` (no other text contains it), so a
/// write can target it by that text.
fn unique_in(layer: &[Entry], i: usize) -> bool {
  let needle = fold(&layer[i].text);
  let mut others = layer.iter().enumerate().filter(|(j, _)| *j != i);
  !others.any(|(_, e)| fold(&e.text).contains(&needle))
}

/// One write that leaves a group of alike entries as one: a consolidation into its newest entry
/// (the current state of the fact) when every entry of it can be targeted; for a pair where one
/// text contains the other (so only the longer can be named), the removal of the longer.
pub(super) fn consolidation(
  layer: &[Entry],
  group: &[usize],
  relation: Relation,
) -> Option<Suggestion> {
  let why = match relation {
    Relation::Update => "updates of one fact: keep the newest",
    _ => "near-duplicates: keep the newest wording",
  };
  let newest = |&&i: &&usize| (layer[i].updated_at, units(&layer[i].text));
  let keep = *group.iter().max_by_key(newest)?;
  // One consolidate takes at most 20 entries: the kept one and the 19 largest others (a larger
  // group takes more than one, each suggested again once this one is done).
  let mut others: Vec<usize> = group.iter().copied().filter(|&i| i != keep).collect();
  others.sort_by_key(|&i| std::cmp::Reverse(units(&layer[i].text)));
  others.truncate(model::MAX_CONSOLIDATE_MATCHES - 1);
  others.sort_unstable();
  let group: Vec<usize> = match group.len() > model::MAX_CONSOLIDATE_MATCHES {
    true => others.into_iter().chain([keep]).collect(),
    false => group.to_vec(),
  };
  let total: u64 = group.iter().map(|&i| units(&layer[i].text)).sum();
  let mut targetable = group.to_vec();
  targetable.retain(|&i| unique_in(layer, i));
  if targetable.len() == group.len() {
    let kept = &layer[keep];
    return Some(Suggestion {
      action: "consolidate",
      why: why.into(),
      frees: total - units(&kept.text),
      entries: group.iter().map(|&i| named(&layer[i])).collect(),
      input: json!({
        "track": kept.track, "scope": kept.scope, "workspaceKey": kept.workspace_key, "agentKey": kept.agent_key,
        "matches": group.iter().map(|&i| layer[i].text.clone()).collect::<Vec<_>>(),
        "text": kept.text, "tags": kept.tags,
      }),
    });
  }
  let why = "says what the other says: the other's text is inside this one's, so only this one can be named";
  match (targetable.as_slice(), group.len()) {
    ([gone], 2) => removal(layer, *gone, why),
    _ => None,
  }
}
