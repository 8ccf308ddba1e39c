//! The overlap of two profiles' tokens: one merge of two lists sorted by key, keeping the
//! shared weight, the shared content weight (the subject), the sibling classes on each side,
//! where the shared and the unshared content words stand, and the heaviest tokens of each part
//! (for reasons).
#![forbid(unsafe_code)]

use super::profile::Tok;

/// The least weight of a token that names a subject: a real content word (a CJK bigram of two
/// content characters, a word of three letters or more), not a common one (`run`, `make`).
const SUBJECT_TOKEN: f32 = 0.7;

/// The overlap of two token sets, from one merge of the sorted lists.
#[derive(Default)]
pub(super) struct Overlap<'a> {
  pub(super) shared: f32,
  /// The sibling classes of the tokens only in the new text, and only in the stored one (bit
  /// `1 << class`).
  siblings_new: u32,
  siblings_old: u32,
  /// Shared weight of content tokens (each [`SUBJECT_TOKEN`] or more).
  pub(super) subject: f32,
  /// How many shared tokens weigh 0.5 or more: one shared word (`answer`, `Node`) makes a
  /// shared topic, not a shared fact.
  pub(super) shared_words: usize,
  /// The heaviest tokens shared, only in the new text, only in the stored one.
  pub(super) top_shared: Top<'a>,
  pub(super) top_new: Top<'a>,
  pub(super) top_old: Top<'a>,
  /// In the new text and in the stored one: where the last shared content token is, and where
  /// the first unshared one is.
  new_spans: Spans,
  old_spans: Spans,
  /// By the index of a token of the new text, and of the stored one: whether the other has it.
  pub(super) shared_new: Bits,
  pub(super) shared_old: Bits,
}

/// A set of token indexes: inline for a text of up to 256 tokens (almost every memory entry),
/// so that reading a pair allocates nothing.
#[derive(Debug, Clone)]
pub(super) enum Bits {
  Inline([u64; 4]),
  Heap(Vec<u64>),
}

impl Default for Bits {
  fn default() -> Self {
    Bits::Inline([0; 4])
  }
}

impl Bits {
  /// An empty set for indexes below `n`.
  pub(super) fn new(n: usize) -> Bits {
    match n <= 256 {
      true => Bits::Inline([0; 4]),
      false => Bits::Heap(vec![0; n.div_ceil(64)]),
    }
  }

  fn words(&self) -> &[u64] {
    match self {
      Bits::Inline(w) => w,
      Bits::Heap(w) => w,
    }
  }

  fn words_mut(&mut self) -> &mut [u64] {
    match self {
      Bits::Inline(w) => w,
      Bits::Heap(w) => w,
    }
  }

  pub(super) fn insert(&mut self, i: usize) {
    if let Some(w) = self.words_mut().get_mut(i / 64) {
      *w |= 1 << (i % 64);
    }
  }

  /// Removes every index `other` holds.
  pub(super) fn remove_all(&mut self, other: &Bits) {
    let pairs = self.words_mut().iter_mut().zip(other.words());
    pairs.for_each(|(w, o)| *w &= !o);
  }

  pub(super) fn contains(&self, i: usize) -> bool {
    self
      .words()
      .get(i / 64)
      .is_some_and(|w| w & (1 << (i % 64)) != 0)
  }
}

/// Where the shared and the unshared words of one text stand.
#[derive(Clone, Copy, Default)]
struct Spans {
  /// The first shared content token, and the last shared token that is no stopword (a shared
  /// verb, even a light one like `run` or `uses`, shares what is said).
  first_shared: Option<u32>,
  last_shared: Option<u32>,
  /// The first content token of its own, and the weight of them all.
  first_own: Option<u32>,
  own: f32,
}

/// The least weight of content of its own that makes a text say something else: one real word.
const OWN_MIN: f32 = 1.0;

impl Spans {
  fn shared(&mut self, tok: &Tok) {
    if tok.weight >= SUBJECT_TOKEN {
      self.first_shared = Some(self.first_shared.map_or(tok.at, |at| at.min(tok.at)));
    }
    if tok.weight >= 0.3 {
      self.last_shared = self.last_shared.max(Some(tok.at));
    }
  }

  fn own(&mut self, tok: &Tok) {
    if tok.weight >= SUBJECT_TOKEN {
      self.first_own = Some(self.first_own.map_or(tok.at, |at| at.min(tok.at)));
      self.own += tok.weight;
    }
  }

  /// Whether the text shares a subject, then says content words of its own and shares nothing
  /// after them.
  fn shares_only_its_opening(&self) -> bool {
    match (self.first_shared, self.last_shared, self.first_own) {
      (Some(_), Some(shared), Some(own)) => shared < own && self.own >= OWN_MIN,
      _ => false,
    }
  }
}

/// The three heaviest tokens seen (ties keep the first).
#[derive(Default)]
pub(super) struct Top<'a>(pub(super) [Option<&'a Tok>; 3]);

impl<'a> Top<'a> {
  fn offer(&mut self, tok: &'a Tok) {
    if tok.weight < 0.5 {
      return;
    }
    let slot = self
      .0
      .iter()
      .position(|t| t.is_none_or(|t| t.weight < tok.weight));
    if let Some(at) = slot {
      self.0[at..].rotate_right(1);
      self.0[at] = Some(tok);
    }
  }

  /// The tokens as written, comma-separated.
  pub(super) fn words(&self) -> String {
    let shown: Vec<&str> = self.0.iter().flatten().map(|t| t.shown.as_str()).collect();
    shown.join(", ")
  }

  pub(super) fn is_empty(&self) -> bool {
    self.0[0].is_none()
  }
}

impl<'a> Overlap<'a> {
  fn only_new(&mut self, tok: &'a Tok) {
    self.top_new.offer(tok);
    self.new_spans.own(tok);
    self.siblings_new |= (1 << tok.sibling) & !1;
  }

  fn only_old(&mut self, tok: &'a Tok) {
    self.top_old.offer(tok);
    self.old_spans.own(tok);
    self.siblings_old |= (1 << tok.sibling) & !1;
  }

  /// Whether the texts differ by siblings (`frontend` in one where the other has `backend`).
  pub(super) fn sibling_swap(&self) -> bool {
    self.siblings_new & self.siblings_old != 0
  }

  /// Whether the texts share only their subject: in both, every shared content word comes
  /// before the first content word the other lacks, and each goes on to say something of its
  /// own ("The search service is written in Rust" / "The search service is deployed on
  /// Fly.io"). A paraphrase or an update shares words of what is said, not only of whom.
  pub(super) fn subject_only(&self) -> bool {
    self.new_spans.shares_only_its_opening() && self.old_spans.shares_only_its_opening()
  }
}

/// The shared weight of two token lists alone ([`Overlap::shared`], without the rest), from
/// their keys: most stored entries share little with a new text, and this merge of two compact
/// arrays rules them out before anything else of theirs is read.
pub(super) fn shared(new: (&[u64], &[Tok]), old: (&[u64], &[Tok])) -> f32 {
  let (mut i, mut j, mut shared) = (0, 0, 0.0);
  let ((ka, ta), (kb, tb)) = (new, old);
  while let (Some(a), Some(b)) = (ka.get(i), kb.get(j)) {
    match a.cmp(b) {
      std::cmp::Ordering::Less => i += 1,
      std::cmp::Ordering::Greater => j += 1,
      std::cmp::Ordering::Equal => {
        if let (Some(x), Some(y)) = (ta.get(i), tb.get(j)) {
          shared += x.weight.min(y.weight);
        }
        (i, j) = (i + 1, j + 1);
      }
    }
  }
  shared
}

/// The overlap of the tokens of a new text and a stored one.
pub(super) fn overlap<'a>(new: &'a [Tok], old: &'a [Tok]) -> Overlap<'a> {
  let mut o = Overlap {
    shared_new: Bits::new(new.len()),
    shared_old: Bits::new(old.len()),
    ..Overlap::default()
  };
  let (mut i, mut j) = (0, 0);
  loop {
    match (new.get(i), old.get(j)) {
      (Some(a), Some(b)) if a.key == b.key => {
        o.shared_new.insert(i);
        o.shared_old.insert(j);
        let w = a.weight.min(b.weight);
        o.shared += w;
        if w >= 0.5 {
          o.shared_words += 1;
        }
        if w >= SUBJECT_TOKEN {
          o.subject += w;
        }
        o.top_shared.offer(a);
        o.new_spans.shared(a);
        o.old_spans.shared(b);
        (i, j) = (i + 1, j + 1);
      }
      (Some(a), b) if b.is_none_or(|b| a.key < b.key) => {
        o.only_new(a);
        i += 1;
      }
      (_, Some(b)) => {
        o.only_old(b);
        j += 1;
      }
      _ => break,
    }
  }
  o
}
