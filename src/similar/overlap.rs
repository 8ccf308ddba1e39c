//! The overlap of two profiles' tokens: one merge of two lists sorted by key, keeping the
//! shared weight, the shared content weight (the subject), the sibling classes on each side,
//! where the shared and the unshared content words stand, and the heaviest tokens of each part
//! (for reasons).
#![forbid(unsafe_code)]

use super::profile::{Profile, Tok};

/// The least weight of a token that names a subject: a real content word (a CJK bigram of two
/// content characters, a word of three letters or more), not a common one (`run`, `make`).
const SUBJECT_TOKEN: f32 = 0.7;

/// The overlap of two token sets, from one merge of the sorted lists.
#[derive(Default)]
pub(super) struct Overlap<'a> {
  pub(super) shared: f32,
  /// Shared weight of content tokens (each [`SUBJECT_TOKEN`] or more).
  pub(super) subject: f32,
  /// How many shared tokens weigh 0.5 or more: one shared word (`answer`, `Node`) makes a
  /// shared topic, not a shared fact.
  pub(super) shared_words: usize,
  /// The heaviest tokens shared.
  pub(super) top_shared: Top<'a>,
  /// The new text, and the stored one.
  pub(super) new: TextSide<'a>,
  pub(super) old: TextSide<'a>,
}

/// A set of token indexes: inline for a text of up to 256 tokens (almost every memory entry),
/// so that reading a pair allocates nothing.
#[derive(Debug, Clone, Default)]
pub(super) struct Bits {
  inline: [u64; 4],
  /// The words of a larger set (empty, unallocated, for a small one).
  heap: Vec<u64>,
}

impl Bits {
  /// An empty set for indexes below `n`.
  pub(super) fn new(n: usize) -> Bits {
    let heap = vec![0; if n <= 256 { 0 } else { n.div_ceil(64) }];
    Bits {
      inline: [0; 4],
      heap,
    }
  }

  // The words of a small set are `inline`, those of a large one are `heap` (and `inline` stays
  // empty): a word is in `heap` if it has one, else in `inline`.
  pub(super) fn insert(&mut self, i: usize) {
    if let Some(w) = self.heap.get_mut(i / 64).or(self.inline.get_mut(i / 64)) {
      *w |= 1 << (i % 64);
    }
  }

  /// Removes every index `other` (a set of the same size) holds.
  pub(super) fn remove_all(&mut self, other: &Bits) {
    let words = self.inline.iter_mut().chain(&mut self.heap);
    let others = other.inline.iter().chain(&other.heap);
    words.zip(others).for_each(|(w, o)| *w &= !o);
  }

  pub(super) fn contains(&self, i: usize) -> bool {
    let word = self.heap.get(i / 64).or(self.inline.get(i / 64));
    word.is_some_and(|w| w & (1 << (i % 64)) != 0)
  }
}

/// One text of the pair: which of its tokens the other has, and where the shared and the
/// unshared words stand.
#[derive(Default)]
pub(super) struct TextSide<'a> {
  /// By the index of one of its tokens: whether the other text has it.
  pub(super) shared: Bits,
  /// Its heaviest tokens the other lacks.
  pub(super) top: Top<'a>,
  /// The sibling classes of its tokens the other lacks (bit `1 << class`).
  siblings: u32,
  /// Whether it shares a content token, and where the last shared token that is no stopword
  /// stands (a shared verb, even a light one like `run` or `uses`, shares what is said).
  shares_content: bool,
  last_shared: Option<u32>,
  /// The first content token of its own, and the weight of them all.
  first_own: Option<u32>,
  own: f32,
}

/// The least weight of content of its own that makes a text say something else: one real word.
const OWN_MIN: f32 = 1.0;

impl<'a> TextSide<'a> {
  fn new(tokens: usize) -> Self {
    TextSide {
      shared: Bits::new(tokens),
      ..TextSide::default()
    }
  }

  /// Its token `i`, which the other text has too.
  fn shared(&mut self, i: usize, tok: &Tok) {
    self.shared.insert(i);
    self.shares_content |= tok.weight >= SUBJECT_TOKEN;
    if tok.weight >= 0.3 {
      self.last_shared = self.last_shared.max(Some(tok.at));
    }
  }

  /// A token the other text lacks.
  fn own(&mut self, tok: &'a Tok) {
    self.top.offer(tok);
    self.siblings |= (1 << tok.sibling) & !1;
    if tok.weight >= SUBJECT_TOKEN {
      self.first_own = Some(self.first_own.map_or(tok.at, |at| at.min(tok.at)));
      self.own += tok.weight;
    }
  }

  /// Whether the text shares a subject, then says content words of its own and shares nothing
  /// after them.
  fn shares_only_its_opening(&self) -> bool {
    match (self.last_shared, self.first_own) {
      (Some(shared), Some(own)) => self.shares_content && shared < own && self.own >= OWN_MIN,
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
    let lighter = |t: &Option<&Tok>| t.is_none_or(|t| t.weight < tok.weight);
    if let Some(at) = self.0.iter().position(lighter) {
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

impl Overlap<'_> {
  /// Whether the texts differ by siblings (`frontend` in one where the other has `backend`).
  pub(super) fn sibling_swap(&self) -> bool {
    self.new.siblings & self.old.siblings != 0
  }

  /// Whether the texts share only their subject: in both, every shared content word comes
  /// before the first content word the other lacks, and each goes on to say something of its
  /// own ("The search service is written in Rust" / "The search service is deployed on
  /// Fly.io"). A paraphrase or an update shares words of what is said, not only of whom.
  pub(super) fn subject_only(&self) -> bool {
    self.new.shares_only_its_opening() && self.old.shares_only_its_opening()
  }
}

/// The shared weight of two token lists alone ([`Overlap::shared`], without the rest), from
/// their keys: most stored entries share little with a new text, and this merge of two compact
/// arrays rules them out before anything else of theirs is read.
pub(super) fn shared(new: &Profile, old: &Profile) -> f32 {
  let (mut i, mut j, mut shared) = (0, 0, 0.0);
  while let (Some(&a), Some(&b)) = (new.keys.get(i), old.keys.get(j)) {
    if a == b {
      if let (Some(x), Some(y)) = (new.toks.get(i), old.toks.get(j)) {
        shared += x.weight.min(y.weight);
      }
    }
    // Both steps from comparisons, not a three-way branch: which side is behind is a coin toss
    // the CPU cannot predict.
    i += usize::from(a <= b);
    j += usize::from(b <= a);
  }
  shared
}

/// The overlap of the tokens of a new text and a stored one.
pub(super) fn overlap<'a>(new: &'a [Tok], old: &'a [Tok]) -> Overlap<'a> {
  let mut o = Overlap {
    new: TextSide::new(new.len()),
    old: TextSide::new(old.len()),
    ..Overlap::default()
  };
  let (mut i, mut j) = (0, 0);
  loop {
    match (new.get(i), old.get(j)) {
      (Some(a), Some(b)) if a.key == b.key => {
        let w = a.weight.min(b.weight);
        o.shared += w;
        o.shared_words += usize::from(w >= 0.5);
        if w >= SUBJECT_TOKEN {
          o.subject += w;
        }
        o.top_shared.offer(a);
        o.new.shared(i, a);
        o.old.shared(j, b);
        (i, j) = (i + 1, j + 1);
      }
      (Some(a), b) if b.is_none_or(|b| a.key < b.key) => {
        o.new.own(a);
        i += 1;
      }
      (_, Some(b)) => {
        o.old.own(b);
        j += 1;
      }
      _ => break,
    }
  }
  o
}
