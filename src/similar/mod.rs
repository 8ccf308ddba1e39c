//! Which stored entries a new one most likely duplicates or updates: a small, deterministic
//! lexical score, with no model and no network. It only produces hints for the approver and
//! the model; a write is never refused for being similar (duplicates stay legal).
//!
//! ## Design
//!
//! - **Tokens** (`similar/profile.rs`): the text is NFKC-folded (fullwidth `ｐｎｐｍ` is `pnpm`);
//!   ASCII words are lowercased and lightly stemmed (`deploys`, `deployed` → `deploy`);
//!   compounds (`node20`, `src/main.rs`, `python3.12`) count by their parts; a backtick or
//!   quoted span is a token of its own; Han and Hangul runs give character bigrams and content
//!   unigrams; a katakana run is one word; hiragana is grammar.
//! - **Synonyms** (`similar/synonyms.rs`): about 85 groups of words that mean the same in
//!   memory entries, across the three languages (`brief`, `concise`, `简洁`, `簡潔`; `PR`,
//!   `pull request`, `プルリク`; `deploy`, `ship`, `发布`, `デプロイ`), each one token.
//! - **Weights** come from a token's shape and short lists (`similar/lexicon.rs`), since no
//!   corpus statistics exist at write time: a stopword or negation weighs 0, a frame word of a
//!   memory entry ("user", "prefers", "uses", `用户`, `喜欢`, `ユーザー`) 0.3, a common technical
//!   word ("run", "make") 0.5, other words 0.8–1.2 by length, a synonym group 0.5–1.0; a CJK
//!   bigram 0.7 when both characters are content (half at a synonym word's edge, less with
//!   grammar), a content unigram 0.25.
//! - **The score** is 0.8 × the weighted Dice coefficient of the two token sets + 0.2 × their
//!   containment (shared weight over the smaller side's): Dice alone punishes a restatement
//!   that adds a trailing detail, containment alone names every short text inside a long one.
//! - **Values**: each text keeps its values (numbers, number words, versions, ports, dates,
//!   paths, hosts and URLs, identifiers, code and quoted spans, and names: a capitalised word
//!   inside a sentence, an acronym, any ASCII word in CJK text), each labelled with the content
//!   word before it (`Node` for `Node 20`).
//! - **Slots** (`similar/slots.rs`): each text is read as phrases, runs of content words that
//!   grammar words and punctuation end (`的`, `の` and a possessive `'s` join a phrase; a copula,
//!   `is`, `:`, `是`, a lone `は`, opens the value slot). The first phrase is the subject. Two
//!   texts speak of **one subject** when the first phrase of each shares a word with the other
//!   (or is the one-word value of "Kofi is the tech lead for …"); they speak of **two things of
//!   one kind** when each has a word of its own that qualifies a noun both share (`EU` and `US`
//!   before `cluster`, `CSV` and `PDF` before `export`, `华东` and `华北` before `集群`: another
//!   subject, attribute or member of a set), or a content word of its own in its subject ("API
//!   docs" / "API client"), or names of its own next to a verb of an attribute that holds many
//!   values ("accepts Visa" / "accepts Mastercard", `Parquetに対応`: another member of a set).
//! - **Relations**, and only `duplicate` and `update` advise replacing the stored entry:
//!   - an **update** speaks of one subject and differs in the value: values only (one on each
//!     side, of compatible kinds, with words of its own on one side at most), one word in the
//!     value slot of "X is Y" ("is called trunk" / "… master"), or anything the new text says
//!     it changed ("now", "moved to", "raised to", `改为`, `に変更`), naming the old value
//!     before the new one, or swapping a content word of a pair scored [`CHANGE_MIN`]
//!     or more; a change word lets another attribute or member through, never another subject.
//!     It is a **strong** update (named from [`UPDATE_MIN`], whatever else holds) when the new
//!     text says it changed, when the changed values are all that differs, or when the value's
//!     label is the same and the texts share more than their subject — and they share two words
//!     or their subjects share one;
//!   - a **duplicate** speaks of one subject, scores [`DUPLICATE_MIN`] or more, and only one of
//!     the two says anything the other does not (a text that adds a detail); a pair in which
//!     each says a word of its own (`retains` / `keeps`, `health` / `metrics`) may reword one
//!     fact or state two, and a lexical score cannot tell which;
//!   - anything else named is **related**: a stored entry is similar, and the approver reads it.
//! - **Look-alikes** are kept out three ways. One that shares only the frame ("The user
//!   prefers tabs" / "… dark mode") scores low: the frame weighs little. One that swaps
//!   **siblings** (`frontend`/`backend`, `staging`/`production`, `unit`/`e2e`, `logs`/`metrics`,
//!   `test`/`build`…) states another fact of the same kind and is never named. One that shares
//!   **only its subject** (`similar/overlap.rs`: every shared word comes before the words each
//!   text has alone, and each has a real word of its own: "The search service is written in
//!   Rust" / "… is deployed on Fly.io") is named only from [`SUBJECT_ONLY_MIN`].
//! - **Thresholds**, chosen on the labelled pairs of `tests/similar/pairs.txt` and
//!   `holdout1.txt`, against five layers of unrelated entries (`tests/similar_corpus.rs`
//!   prints the tables): a pair is named from [`NAME_MIN`] when it shares at least two words
//!   (one shared word, `answer` or `Node`, makes a shared topic, not a shared fact), the
//!   threshold that balanced paraphrases named against look-alikes and unrelated entries named
//!   on those pairs. A pair with no changed value is a duplicate
//!   from [`DUPLICATE_MIN`], unless exactly one of the texts says "not" and nothing else
//!   differs (then it is an update: the fact was reversed).
//!
//! ## What it does not do
//!
//! It sees words, not meaning. It names few paraphrases that share no content word ("Don't ask
//! for confirmation on trivial refactors" / "Small, safe refactors can be done without checking
//! in first"), and names as related many look-alikes whose one differing slot is a plain content
//! word ("オンボーディングの相談はリナさんへ" / "給与の相談はリナさんへ"); it gives them no
//! advice. What it still misjudges: a change word that is none (`15分ごとに更新`, "updated
//! every 15 minutes"), two attributes told apart only by a verb in kana (`PCは…` / `PCには…が
//! 入っている`), a kanji read as Chinese grammar (`与` of `給与`), a set-valued verb it does not
//! list.
#![forbid(unsafe_code)]

mod lexicon;
mod overlap;
mod profile;
mod scan;
mod slots;
mod synonyms;
mod terms;
mod update;

use overlap::{overlap, Overlap};
use update::update_reason;

pub use profile::Profile;
pub use terms::search_terms;

/// How much of the score is the Dice coefficient (the rest is containment).
const DICE_SHARE: f32 = 0.8;
/// The score from which a pair that shares two words or more is named to the approver.
pub const NAME_MIN: f64 = 0.3;
/// The score from which a pair with the shape of a strong update (a value with the same label
/// changed, or the new text says what it changed from) is named: a changed value lowers the
/// score of what is still the same fact.
pub const UPDATE_MIN: f64 = 0.25;
/// The score from which a pair that shares only its subject (every shared word comes before
/// the words each text has alone: "The search service is written in Rust" / "… is deployed on
/// Fly.io") is named, when it is no strong update: it is most often another fact about the
/// same thing.
pub const SUBJECT_ONLY_MIN: f64 = 0.6;
/// The score from which a pair whose only evidence of an update is that the new text says
/// something changed ("Priya moved to the platform team") is one: below it, the change word may
/// be about another fact that shares a word or two.
pub const CHANGE_MIN: f64 = 0.4;
/// The score from which a pair with no changed value is a duplicate.
pub const DUPLICATE_MIN: f64 = 0.65;
/// The weight of shared content tokens (each worth 0.7 or more) that makes a shared subject:
/// one real word (a CJK bigram of two content characters weighs 0.7).
pub const SUBJECT_MIN: f32 = 0.7;

/// How a new text relates to a stored one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Relation {
  /// The same fact, reworded (or verbatim).
  Duplicate,
  /// The same subject with a different value: a number, version, name, path, date… changed.
  Update,
  /// The same fact said differently (a paraphrase), or closely related: worth a look.
  Related,
}

/// A hint that a new text is like a stored one.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Hint {
  /// 0..1, higher is more similar (3 decimals).
  pub score: f64,
  /// How the new text relates to the stored one.
  pub relation: Relation,
  /// Why, in words a person reads: "same words", "same words but Node 18 → 20 (a version)",
  /// "same subject: pnpm, npm".
  pub reason: String,
}

/// `Some(hint)` when `new` is similar enough to `old` to name to an approver; `None` otherwise.
///
/// Named: a strong update from [`UPDATE_MIN`]; any other pair from [`NAME_MIN`] when it shares
/// two words or more, and from [`SUBJECT_ONLY_MIN`] when it shares only its subject; never
/// when the texts differ by siblings (`frontend` / `backend`). Cheap: one merge of two sorted
/// token lists, plus a bounded look at the values.
pub fn compare(new: &Profile, old: &Profile) -> Option<Hint> {
  let (a, b) = (new, old);
  if a.total <= 0.0 || b.total <= 0.0 {
    return None;
  }
  let score = |shared: f32| {
    let dice = 2.0 * shared / (a.total + b.total);
    let containment = shared / a.total.min(b.total);
    f64::from(DICE_SHARE * dice + (1.0 - DICE_SHARE) * containment.min(1.0))
  };
  // Most stored entries share little with a new text: a bare merge of the keys rules them out
  // before the full overlap, which keeps what reasons need.
  if score(overlap::shared(a, b)) < UPDATE_MIN {
    return None;
  }
  let o = overlap(&a.toks, &b.toks);
  if o.sibling_swap() {
    return None;
  }
  let score = score(o.shared);
  let d = slots::diff(a, b, &o);
  let update = (o.subject >= SUBJECT_MIN)
    .then(|| update_reason(a, b, &o, &d, score))
    .flatten();
  let strong = update.as_ref().is_some_and(|u| u.strong);
  if !strong && !named(&o, score) {
    return None;
  }
  let (relation, reason) = match update {
    Some(update) => (Relation::Update, update.reason),
    None => unchanged(&o, score, a.negated != b.negated, &d),
  };
  Some(Hint {
    score: (score.min(1.0) * 1000.0).round() / 1000.0,
    relation,
    reason,
  })
}

/// Whether a pair that is no strong update is named.
fn named(o: &Overlap<'_>, score: f64) -> bool {
  let floor = match o.subject_only() {
    true => SUBJECT_ONLY_MIN,
    false => NAME_MIN,
  };
  score >= floor && o.shared_words >= 2
}

/// The relation of a named pair that is no update: reversed (one text alone says "not", nothing
/// else differs), a duplicate (one subject, and only one of them says anything the other does
/// not), or related.
fn unchanged(o: &Overlap<'_>, score: f64, flip: bool, d: &slots::Diff) -> (Relation, String) {
  let only_negation = flip && o.new.top.is_empty() && o.old.top.is_empty();
  match score >= DUPLICATE_MIN && d.subject != slots::Subject::Other {
    true if only_negation => (
      Relation::Update,
      "same words, but one of them says not".to_string(),
    ),
    true if !d.swap() => (Relation::Duplicate, duplicate_reason(o)),
    _ => (Relation::Related, related_reason(o)),
  }
}

/// "same words", or what one of them adds, or the words each has that the other lacks.
fn duplicate_reason(o: &Overlap<'_>) -> String {
  let (new, old) = (o.new.top.words(), o.old.top.words());
  match (new.is_empty(), old.is_empty()) {
    (true, true) => "same words".to_string(),
    (false, true) => format!("same words; the new one adds {new}"),
    (true, false) => format!("same words; the stored one also says {old}"),
    (false, false) => format!("nearly the same words (stored: {old}; new: {new})"),
  }
}

/// "same subject: pnpm, npm".
fn related_reason(o: &Overlap<'_>) -> String {
  match o.top_shared.is_empty() {
    true => "some words in common".to_string(),
    false => format!("same subject: {}", o.top_shared.words()),
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  fn hint(new: &str, old: &str) -> Option<Hint> {
    compare(&Profile::of(new), &Profile::of(old))
  }

  #[test]
  fn the_same_text_is_a_duplicate() {
    let h = hint("Prefers pnpm over npm", "Prefers pnpm over npm").unwrap();
    assert_eq!(h.relation, Relation::Duplicate);
    assert_eq!(h.score, 1.0);
    assert_eq!(h.reason, "same words");
  }

  #[test]
  fn a_changed_version_is_an_update() {
    let h = hint("The API runs on Node 20", "The API runs on Node 18").unwrap();
    assert_eq!(h.relation, Relation::Update, "{h:?}");
    assert_eq!(h.reason, "same words but Node 18 → 20 (a version)");
    let h = hint(
      "Deploys go through `make release`",
      "Deploys go through `make ship`",
    )
    .unwrap();
    assert_eq!(h.relation, Relation::Update, "{h:?}");
    assert_eq!(h.reason, "same words but make ship → make release (code)");
  }

  #[test]
  fn a_shared_frame_is_not_a_subject() {
    assert_eq!(
      hint("The user prefers tabs", "The user prefers dark mode"),
      None
    );
    assert_eq!(hint("用户喜欢深色主题", "用户喜欢简洁的回答"), None);
  }

  #[test]
  fn siblings_are_other_facts() {
    assert_eq!(hint("前端代码由小王审查", "后端代码由小王审查"), None);
    let h = hint(
      "Frontend PRs need two approvals",
      "Frontend PRs need one approval",
    );
    assert_eq!(h.map(|h| h.relation), Some(Relation::Update));
  }

  #[test]
  fn a_shared_subject_alone_is_another_fact() {
    let (new, old) = (
      "The search service is written in Rust",
      "The search service is deployed on Fly.io",
    );
    assert_eq!(hint(new, old), None);
    // The same shape whose only difference is the value is an update.
    let h = hint(
      "Logs are shipped to Datadog",
      "Logs are shipped to Grafana Loki",
    )
    .unwrap();
    assert_eq!(h.relation, Relation::Update, "{h:?}");
  }

  #[test]
  fn a_text_that_says_it_changed_is_an_update() {
    let h = hint(
      "The team switched from CircleCI to GitHub Actions",
      "CI runs on CircleCI",
    );
    assert_eq!(h.map(|h| h.relation), Some(Relation::Update));
    let h = hint("测试框架换成了 vitest", "测试框架用的是 jest").unwrap();
    assert_eq!(h.relation, Relation::Update, "{h:?}");
  }

  #[test]
  fn one_shared_word_is_a_topic_not_a_fact() {
    assert_eq!(
      hint(
        "簡潔な回答を好む",
        "Prefers explanations that start with a one-line answer"
      ),
      None
    );
  }

  #[test]
  fn a_reversed_fact_is_an_update() {
    let h = hint(
      "Does not use yarn for the web app",
      "Uses yarn for the web app",
    )
    .unwrap();
    assert_eq!(h.relation, Relation::Update);
    assert_eq!(h.reason, "same words, but one of them says not");
  }

  /// The relation named, if any.
  fn relation(new: &str, old: &str) -> Option<Relation> {
    hint(new, old).map(|h| h.relation)
  }

  /// Whether the pair is named with advice to replace.
  fn advises(new: &str, old: &str) -> bool {
    matches!(
      relation(new, old),
      Some(Relation::Duplicate | Relation::Update)
    )
  }

  #[test]
  fn another_subject_in_the_same_frame_is_no_update() {
    let pairs = [
      (
        "The APAC region runs Postgres 16",
        "The EMEA region runs Postgres 14",
      ),
      (
        "The billing queue is drained by worker-7",
        "The email queue is drained by worker-3",
      ),
      ("华南机房的出口带宽是 10G", "华北机房的出口带宽是 40G"),
      ("大阪オフィスの回線は10G", "札幌オフィスの回線は1G"),
    ];
    for (new, old) in pairs {
      assert!(!advises(new, old), "{new} / {old}: {:?}", hint(new, old));
    }
    // The same frame about the same subject is one.
    assert_eq!(
      relation(
        "The APAC region runs Postgres 17",
        "The APAC region runs Postgres 16"
      ),
      Some(Relation::Update)
    );
  }

  #[test]
  fn another_attribute_or_member_is_no_update() {
    let pairs = [
      (
        "The user's Bitbucket login is zed-ops",
        "The user's Gitea login is zed_admin",
      ),
      (
        "Every release note needs a migration section",
        "Every release note needs a rollback section",
      ),
      ("报表页面支持导出 Excel 格式", "报表页面支持导出 JSON 格式"),
      (
        "申請フォームはCSVアップロードに対応",
        "申請フォームはZIPアップロードに対応",
      ),
    ];
    for (new, old) in pairs {
      assert!(!advises(new, old), "{new} / {old}: {:?}", hint(new, old));
    }
  }

  #[test]
  fn another_member_of_a_set_is_no_update() {
    let pairs = [
      (
        "The checkout form accepts Amex",
        "The checkout form accepts Discover",
      ),
      ("导入工具支持 Parquet", "导入工具支持 Avro"),
      (
        "取り込みツールはParquetに対応",
        "取り込みツールはAvroに対応",
      ),
    ];
    for (new, old) in pairs {
      assert!(!advises(new, old), "{new} / {old}: {:?}", hint(new, old));
    }
    // An amount there is a new value of one attribute.
    assert_eq!(
      relation("The build requires Xcode 17", "The build requires Xcode 16"),
      Some(Relation::Update)
    );
  }

  #[test]
  fn shared_values_are_no_shared_subject() {
    let (new, old) = (
      "Docs builds run on Netlify",
      "Preview deploys for the storefront run on Netlify edge functions",
    );
    assert!(!advises(new, old), "{:?}", hint(new, old));
  }

  #[test]
  fn a_word_in_the_copula_slot_or_a_change_word_makes_an_update() {
    assert_eq!(
      relation(
        "The release branch is called stable",
        "The release branch is called production"
      ),
      Some(Relation::Update)
    );
    // A plain word elsewhere is another fact, unless the new text says it changed.
    let old = "The audit log is rotated by size";
    assert_ne!(
      relation("The audit log is rotated by date", old),
      Some(Relation::Update)
    );
    assert_eq!(
      relation("The audit log is now rotated by date", old),
      Some(Relation::Update)
    );
  }

  #[test]
  fn the_value_of_x_is_y_may_come_first() {
    assert_eq!(
      relation(
        "Noor is the release manager for the desktop app",
        "Tomas is the release manager for the desktop app"
      ),
      Some(Relation::Update)
    );
  }

  #[test]
  fn unrelated_texts_are_not_named() {
    assert_eq!(
      hint("Deploys go through `make ship`", "用户喜欢简洁的回答"),
      None
    );
    assert_eq!(hint("", "anything"), None);
  }
}
