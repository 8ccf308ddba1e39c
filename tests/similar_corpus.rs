//! The similarity scorer on labelled pairs of memory entries.
//!
//! - **The pairs**: a new text and a stored one, labelled `dup` (the same fact reworded),
//!   `update` (the same subject, a newer value), `para` (the same meaning in other words),
//!   `look` (a look-alike) or `unrel` (unrelated), in English, Chinese and Japanese.
//!   `tests/similar/pairs.txt` and `tests/similar/holdout1.txt` (a first hold-out, measured
//!   once and then tuned on; its header keeps its first-run figures) are the tuned set, held to
//!   floors just below what the scorer reaches; `tests/similar/holdout2.txt`, written after all
//!   tuning and measured once, is held to the goals only. `tests/similar/shapes.txt` holds
//!   look-alikes of every shape (another subject, attribute, member of a set, or instance in the
//!   same frame) beside updates and duplicates written in the same frames, tuned on with the
//!   others; `tests/similar/holdout3.txt`, written after the slot rules and measured once before
//!   general fixes (its header keeps both runs), is held to its floors and the goals;
//!   `tests/similar/holdout4.txt`, written blind (before its author read the rules), is printed
//!   with the goals it misses (its header keeps its first run).
//! - **The layers** (`tests/similar/layers.txt`): five workspace memories of unrelated entries;
//!   every pair's new text is compared with every entry, and each entry named is a false name.
//!
//! Per kind and language it measures how often the stored text is named (recall for `dup`,
//! `update`, `para`; the false-name rate for `look` and `unrel`) and the relation given, and
//! per language the rate at which a layer's entry is named; and, as the approver meets it, how
//! many pairs of each kind are labelled `duplicate` or `update` (the hints that advise "consider
//! replace") and how many of all so labelled are about one fact (the advice's precision).
//! `cargo test --no-default-features --test similar_corpus -- --nocapture` prints the tables,
//! every miss and every false name.
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Instant;

use dsh_memento::similar::{compare, search_terms, Hint, Profile, Relation};

/// One labelled pair.
struct Pair {
  kind: &'static str,
  lang: &'static str,
  new: &'static str,
  old: &'static str,
  /// `file:line`, for the report.
  at: String,
}

const KINDS: [&str; 5] = ["dup", "update", "para", "look", "unrel"];
const LANGS: [&str; 3] = ["en", "zh", "ja"];

fn pairs(file: &'static str, name: &str) -> Vec<Pair> {
  let mut out = Vec::new();
  for (n, line) in file.lines().enumerate() {
    if line.trim().is_empty() || line.starts_with('#') {
      continue;
    }
    let fields: Vec<&'static str> = line.splitn(4, " | ").collect();
    assert_eq!(fields.len(), 4, "{name}:{}: malformed", n + 1);
    let where_ = format!("{name}:{}", n + 1);
    let (kind, lang) = (
      known(&KINDS, fields[0], &where_),
      known(&LANGS, fields[1], &where_),
    );
    out.push(Pair {
      kind,
      lang,
      new: fields[2].trim(),
      old: fields[3].trim(),
      at: format!("{name}:{}", n + 1),
    });
  }
  out
}

/// The item of `list` that `s` names (asserted).
fn known(list: &[&'static str], s: &str, at: &str) -> &'static str {
  let found = list.iter().find(|k| **k == s).copied();
  assert!(found.is_some(), "{at}: unknown {s:?}");
  found.unwrap_or_default()
}

/// The pairs the scorer was tuned on: `pairs.txt` and the first hold-out, which showed what
/// `pairs.txt` lacked and was then tuned on.
fn tuned() -> Vec<Pair> {
  let mut all = pairs(include_str!("similar/pairs.txt"), "pairs.txt");
  all.extend(pairs(include_str!("similar/holdout1.txt"), "holdout1.txt"));
  all
}

/// Look-alikes of every shape (another subject, attribute, member of a set or instance in the
/// same frame), beside updates and duplicates in the same frames.
fn shapes() -> Vec<Pair> {
  pairs(include_str!("similar/shapes.txt"), "shapes.txt")
}

/// The pairs written after all tuning, measured once and never tuned on.
fn holdout() -> Vec<Pair> {
  pairs(include_str!("similar/holdout2.txt"), "holdout2.txt")
}

/// The pairs written after the slot rules, never tuned on before their first run.
fn holdout3() -> Vec<Pair> {
  pairs(include_str!("similar/holdout3.txt"), "holdout3.txt")
}

/// The pairs written blind (before reading the rules), never tuned on before their first run.
fn holdout4() -> Vec<Pair> {
  pairs(include_str!("similar/holdout4.txt"), "holdout4.txt")
}

/// The layers' entries: (layer, language, text).
fn layers() -> Vec<(&'static str, &'static str, &'static str)> {
  let mut out = Vec::new();
  let mut layer = "";
  for line in include_str!("similar/layers.txt").lines() {
    if line.starts_with("# ") || line.trim().is_empty() {
      continue;
    }
    if let Some(name) = line.strip_prefix("## ") {
      layer = name.split(' ').next().unwrap_or(name);
    } else if let Some((lang, text)) = line.split_once(" | ") {
      out.push((layer, known(&LANGS, lang, "layers.txt"), text.trim()));
    }
  }
  out
}

/// Whether a hint's relation is the one a kind should get.
fn relation_right(kind: &str, relation: Relation) -> bool {
  match kind {
    "dup" => relation == Relation::Duplicate,
    "update" => relation == Relation::Update,
    "para" => relation != Relation::Update,
    _ => relation == Relation::Related,
  }
}

/// Whether a relation advises replacing the stored entry ("consider replace").
fn advises(relation: Relation) -> bool {
  matches!(relation, Relation::Duplicate | Relation::Update)
}

#[derive(Default, Clone, Copy)]
struct Counts {
  pairs: usize,
  named: usize,
  right: usize,
  /// Labelled `duplicate`, and `update`: the hints that advise "consider replace".
  duplicate: usize,
  update: usize,
}

impl Counts {
  fn rate(&self) -> f64 {
    self.named as f64 / self.pairs.max(1) as f64
  }

  /// Hints that advise replacing the stored entry.
  fn advice(&self) -> usize {
    self.duplicate + self.update
  }
}

#[derive(Default, Clone, Copy)]
struct LayerCounts {
  compared: usize,
  named: usize,
  /// Named `duplicate` or `update`: advice to replace an unrelated entry.
  advice: usize,
  /// Compared with entries of the new text's own language only.
  same_lang: usize,
  same_lang_named: usize,
}

impl LayerCounts {
  fn rate(&self) -> f64 {
    self.named as f64 / self.compared.max(1) as f64
  }

  fn same_lang_rate(&self) -> f64 {
    self.same_lang_named as f64 / self.same_lang.max(1) as f64
  }
}

#[derive(Default)]
struct Measured {
  by: BTreeMap<(&'static str, &'static str), Counts>,
  layers: BTreeMap<&'static str, LayerCounts>,
  /// New texts that named at least one layer entry.
  texts_naming: usize,
  texts: usize,
  report: String,
}

impl Measured {
  fn of(pairs: &[Pair]) -> Measured {
    let entries: Vec<(&str, &str, &str, Profile)> = layers()
      .into_iter()
      .map(|(layer, lang, text)| (layer, lang, text, Profile::of(text)))
      .collect();
    let mut m = Measured::default();
    for p in pairs {
      let new = Profile::of(p.new);
      let hint = compare(&new, &Profile::of(p.old));
      m.count(p, hint.as_ref());
      m.texts += 1;
      let mut naming = false;
      for (layer, lang, text, profile) in &entries {
        let hint = compare(&new, profile);
        let c = m.layers.entry(p.lang).or_default();
        c.compared += 1;
        c.named += usize::from(hint.is_some());
        c.advice += usize::from(hint.as_ref().is_some_and(|h| advises(h.relation)));
        if *lang == p.lang {
          c.same_lang += 1;
          c.same_lang_named += usize::from(hint.is_some());
        }
        if let Some(h) = hint {
          naming = true;
          let _ = writeln!(
            m.report,
            "  LAYER NAMED [{} {}] {:?} ~ [{layer}] {text:?}: {} {:?} {}",
            p.kind, p.at, p.new, h.score, h.relation, h.reason
          );
        }
      }
      m.texts_naming += usize::from(naming);
    }
    m
  }

  fn count(&mut self, p: &Pair, hint: Option<&Hint>) {
    let c = self.by.entry((p.kind, p.lang)).or_default();
    c.pairs += 1;
    c.named += usize::from(hint.is_some());
    let relation = hint.map(|h| h.relation);
    c.duplicate += usize::from(relation == Some(Relation::Duplicate));
    c.update += usize::from(relation == Some(Relation::Update));
    let right = hint.is_some_and(|h| relation_right(p.kind, h.relation));
    c.right += usize::from(right);
    let positive = matches!(p.kind, "dup" | "update" | "para");
    let what = match (positive, hint) {
      (true, None) => "MISSED",
      (false, Some(h)) if advises(h.relation) => "FALSE ADVICE",
      (false, Some(_)) => "FALSE NAME",
      (true, Some(_)) if !right => "WRONG RELATION",
      _ => return,
    };
    let shown = hint.map_or_else(
      || "-".to_string(),
      |h| format!("{} {:?} {}", h.score, h.relation, h.reason),
    );
    let _ = writeln!(
      self.report,
      "  {what} [{} {} {}] {:?} ~ {:?}: {shown}",
      p.kind, p.at, p.lang, p.new, p.old
    );
  }

  /// All pairs of `kind` in `lang` (`None`: every language).
  fn get(&self, kind: &str, lang: Option<&str>) -> Counts {
    let mut sum = Counts::default();
    for ((k, l), c) in &self.by {
      if *k == kind && lang.is_none_or(|lang| lang == *l) {
        sum.pairs += c.pairs;
        sum.named += c.named;
        sum.right += c.right;
        sum.duplicate += c.duplicate;
        sum.update += c.update;
      }
    }
    sum
  }

  fn layer(&self, lang: Option<&str>) -> LayerCounts {
    let mut sum = LayerCounts::default();
    for (l, c) in &self.layers {
      if lang.is_none_or(|lang| lang == *l) {
        sum.compared += c.compared;
        sum.named += c.named;
        sum.advice += c.advice;
        sum.same_lang += c.same_lang;
        sum.same_lang_named += c.same_lang_named;
      }
    }
    sum
  }

  /// Of the pairs' hints labelled `duplicate` or `update`, how many are about the same fact (a
  /// duplicate, an update or a paraphrase): the advice's precision.
  fn advice_precision(&self) -> (usize, usize) {
    let same: usize = ["dup", "update", "para"]
      .iter()
      .map(|k| self.get(k, None).advice())
      .sum();
    let all = same + self.get("look", None).advice() + self.get("unrel", None).advice();
    (same, all)
  }

  /// The table of the advice: per kind, how many pairs are named, and how many are labelled
  /// `duplicate` or `update` (the hints that say "consider replace"), per language and in all;
  /// then the advice's precision.
  fn advice_table(&self) -> String {
    let pct = |n: usize, d: usize| 100.0 * n as f64 / d.max(1) as f64;
    let cell = |n: usize, d: usize| format!("{n:>3}/{d:<3} {:>5.1}%", pct(n, d));
    let mut t = format!(
      "{:<8} {:>5} | {:>14} | {:>14} {:>14} {:>14} | {:>14}\n",
      "kind", "pairs", "named", "dup/upd en", "zh", "ja", "dup/upd all"
    );
    let _ = writeln!(t, "{}", "-".repeat(t.len() - 1));
    for kind in ["dup", "update", "look", "para", "unrel"] {
      let all = self.get(kind, None);
      let langs: Vec<String> = LANGS
        .iter()
        .map(|l| {
          let c = self.get(kind, Some(l));
          cell(c.advice(), c.pairs)
        })
        .collect();
      let split = match all.advice() {
        0 => String::new(),
        _ => format!(" ({} duplicate, {} update)", all.duplicate, all.update),
      };
      let _ = writeln!(
        t,
        "{kind:<8} {:>5} | {} | {} | {}{split}",
        all.pairs,
        cell(all.named, all.pairs),
        langs.join(" "),
        cell(all.advice(), all.pairs)
      );
    }
    let layer = self.layer(None);
    let _ = writeln!(
      t,
      "layer entries: named {} of {} ({:.3}%), labelled duplicate or update {} ({:.3}%)",
      layer.named,
      layer.compared,
      pct(layer.named, layer.compared),
      layer.advice,
      pct(layer.advice, layer.compared)
    );
    let (same, all) = self.advice_precision();
    let _ = writeln!(
      t,
      "advice precision: {same} of the {all} pairs labelled duplicate or update are one fact ({:.1}%); \
       with the layer entries so labelled: {same} of {} ({:.1}%)",
      pct(same, all),
      all + layer.advice,
      pct(same, all + layer.advice)
    );
    t
  }

  fn table(&self) -> String {
    let mut t = format!(
      "{:<8} {:>5} | {:>16} {:>16} {:>16} | {:>16}\n",
      "kind", "pairs", "en", "zh", "ja", "all"
    );
    let _ = writeln!(t, "{}", "-".repeat(t.len() - 1));
    let cell = |c: Counts| format!("{:>3}/{:<3} {:>6.1}%", c.named, c.pairs, 100.0 * c.rate());
    for kind in KINDS {
      let all = self.get(kind, None);
      let cells: Vec<String> = LANGS
        .iter()
        .map(|l| cell(self.get(kind, Some(l))))
        .collect();
      let _ = writeln!(
        t,
        "{kind:<8} {:>5} | {} | {}",
        all.pairs,
        cells.join(" "),
        cell(all)
      );
    }
    let _ = writeln!(
      t,
      "(named / pairs: recall for dup, update, para; the false-name rate for look, unrel)\n"
    );
    let _ = writeln!(t, "relation right, of those named:");
    for kind in ["dup", "update", "para"] {
      let rel = |c: Counts| {
        format!(
          "{:>3}/{:<3} {:>6.1}%",
          c.right,
          c.named,
          100.0 * c.right as f64 / c.named.max(1) as f64
        )
      };
      let cells: Vec<String> = LANGS.iter().map(|l| rel(self.get(kind, Some(l)))).collect();
      let _ = writeln!(
        t,
        "{kind:<8}       | {} | {}",
        cells.join(" "),
        rel(self.get(kind, None))
      );
    }
    let _ = writeln!(t, "\nlayer entries named (per comparison):");
    for lang in LANGS.iter().map(Some).chain([None]) {
      let c = self.layer(lang.copied());
      let _ = writeln!(
        t,
        "  new text {:<3}: {:>4} of {:>6} = {:.4}%   (same-language entries: {} of {} = {:.4}%)",
        lang.copied().unwrap_or("all"),
        c.named,
        c.compared,
        100.0 * c.rate(),
        c.same_lang_named,
        c.same_lang,
        100.0 * c.same_lang_rate()
      );
    }
    let _ = writeln!(
      t,
      "  new texts naming any layer entry: {} of {}",
      self.texts_naming, self.texts
    );
    t
  }
}

/// The goals the product must meet.
struct Goals {
  duplicate: f64,
  update: f64,
  paraphrase: f64,
  /// The most look-alikes named.
  lookalike: f64,
  /// The most layer entries named, per comparison.
  layer: f64,
}

const GOALS: Goals = Goals {
  duplicate: 0.95,
  update: 0.90,
  paraphrase: 0.60,
  lookalike: 0.25,
  layer: 0.01,
};

/// Bounds on the tuned pairs: just short of what the scorer reaches (one more miss or false name
/// fails), never looser than the goals. Reached: duplicates 95/97, updates 97/97, paraphrases
/// 54/78, look-alikes 7/78, layer entries 54 of 76,814 comparisons.
const FLOORS: Goals = Goals {
  duplicate: 0.975,
  update: 0.99,
  paraphrase: 0.685,
  lookalike: 0.095,
  layer: 0.00071,
};

/// The bounds `m` misses, each as "what value is below/above bound".
fn misses(m: &Measured, goals: &Goals) -> Vec<(&'static str, String)> {
  let (dup, upd) = (m.get("dup", None), m.get("update", None));
  let (para, look) = (m.get("para", None), m.get("look", None));
  let layer = m.layer(None);
  let checks = [
    ("duplicates named", dup.rate(), goals.duplicate, true),
    ("updates named", upd.rate(), goals.update, true),
    ("paraphrases named", para.rate(), goals.paraphrase, true),
    ("look-alikes named", look.rate(), goals.lookalike, false),
    ("layer entries named", layer.rate(), goals.layer, false),
  ];
  let missed = checks
    .into_iter()
    .filter(|(_, value, bound, floor)| match floor {
      true => value < bound,
      false => value > bound,
    });
  let say = |(name, value, bound, floor): (&'static str, f64, f64, bool)| {
    let side = if floor { "below" } else { "above" };
    (name, format!("{name} {value:.4} is {side} {bound}"))
  };
  missed.map(say).collect()
}

fn check(m: &Measured, goals: &Goals, what: &str) {
  let missed: Vec<String> = misses(m, goals).into_iter().map(|(_, say)| say).collect();
  assert!(missed.is_empty(), "{what}: {missed:#?}");
}

/// Bounds on the advice ("consider replace"): a hint labelled `duplicate` or `update` must be
/// about one fact.
struct Advice {
  /// The least share of the pairs labelled duplicate or update that are one fact (a duplicate,
  /// an update or a paraphrase).
  precision: f64,
  /// The most look-alikes labelled duplicate or update.
  lookalike: f64,
  /// The least updates labelled update or duplicate.
  update: f64,
}

const ADVICE_GOALS: Advice = Advice {
  precision: 0.97,
  lookalike: 0.05,
  update: 0.80,
};

/// Bounds on the tuned pairs with the shapes: just short of what the scorer reaches (one more
/// false advice or one update fewer so labelled fails).
const ADVICE_FLOORS: Advice = Advice {
  precision: 0.99,
  lookalike: 0.02,
  update: 0.99,
};

/// The advice bounds `m` misses, as [`misses`] says them.
fn advice_misses(m: &Measured, bounds: &Advice) -> Vec<(&'static str, String)> {
  let (same, all) = m.advice_precision();
  let (look, upd) = (m.get("look", None), m.get("update", None));
  let checks = [
    (
      "advice precision",
      same as f64 / all.max(1) as f64,
      bounds.precision,
      true,
    ),
    (
      "look-alikes labelled duplicate or update",
      look.advice() as f64 / look.pairs.max(1) as f64,
      bounds.lookalike,
      false,
    ),
    (
      "updates labelled update or duplicate",
      upd.advice() as f64 / upd.pairs.max(1) as f64,
      bounds.update,
      true,
    ),
  ];
  let missed = checks
    .into_iter()
    .filter(|(_, value, bound, floor)| match floor {
      true => value < bound,
      false => value > bound,
    });
  let say = |(name, value, bound, floor): (&'static str, f64, f64, bool)| {
    let side = if floor { "below" } else { "above" };
    (name, format!("{name} {value:.4} is {side} {bound}"))
  };
  missed.map(say).collect()
}

fn check_advice(m: &Measured, bounds: &Advice, what: &str) {
  let missed: Vec<String> = advice_misses(m, bounds)
    .into_iter()
    .map(|(_, say)| say)
    .collect();
  assert!(missed.is_empty(), "{what}: {missed:#?}");
}

/// The goals the scorer does not meet on the hold-out, as measured: a lexical score does not
/// see that "Don't ask for confirmation on trivial refactors" and "Small, safe refactors can be
/// done without checking in first" say one thing, nor that "オンボーディングの相談はリナさんへ"
/// and "給与の相談はリナさんへ" say two. First run (the scorer of a4b4fb1): paraphrases 6/18,
/// look-alikes 5/18, and also duplicates 22/24 and updates 21/24, which three defects fixed
/// after it (a CJK word could not be a subject, `会` was a frame word, an ASCII word in CJK text
/// was weighed as English) brought to 24/24 — a figure no longer blind. Its one look-alike
/// still labelled a duplicate is that second pair: `与` of `給与` is read as Chinese grammar, so
/// the stored text says nothing of its own. The test fails if another goal is missed, or if one
/// of these is met (then this list is out of date).
const KNOWN_SHORTFALLS: &[&str] = &[
  "paraphrases named",
  "look-alikes named",
  "look-alikes labelled duplicate or update",
];

#[test]
fn the_scorer_is_measured_on_the_tuned_pairs() {
  let pairs = tuned();
  let n = pairs.len();
  assert!(n >= 200, "{n} pairs");
  for lang in LANGS {
    let share = pairs.iter().filter(|p| p.lang == lang).count() as f64 / n as f64;
    assert!(share >= 0.25, "{lang} is {share:.2} of the pairs");
  }
  for kind in KINDS {
    assert!(
      pairs.iter().filter(|p| p.kind == kind).count() >= 20,
      "{kind}"
    );
  }
  let m = Measured::of(&pairs);
  println!(
    "similarity on the tuned pairs ({n})\n{}\n{}",
    m.table(),
    m.report
  );
  check(&m, &FLOORS, "tuned pairs");
  check(&m, &GOALS, "tuned pairs");
  // The advice, on the tuned pairs with the shapes.
  let mut all = pairs;
  all.extend(shapes());
  let m = Measured::of(&all);
  println!(
    "advice on the tuned pairs and the shapes ({})\n{}",
    all.len(),
    m.advice_table()
  );
  check_advice(&m, &ADVICE_FLOORS, "tuned pairs and shapes");
  check_advice(&m, &ADVICE_GOALS, "tuned pairs and shapes");
  check(
    &m,
    &Goals {
      lookalike: 1.0,
      paraphrase: 0.0,
      ..GOALS
    },
    "tuned pairs and shapes",
  );
}

/// The hold-out, written after all tuning: held to the goals, less the known shortfalls.
#[test]
fn the_scorer_meets_the_goals_on_the_hold_out() {
  held_to_floors("hold-out", &holdout(), (60, 1), None, KNOWN_SHORTFALLS);
}

/// Bounds on the third hold-out, after the general fixes its first run showed (see its header):
/// just short of what the scorer reaches there, never looser than the goals.
const HOLDOUT3_FLOORS: Goals = Goals {
  duplicate: 0.97,
  update: 0.97,
  paraphrase: 0.0,
  lookalike: 1.0,
  layer: 0.0006,
};
const HOLDOUT3_ADVICE_FLOORS: Advice = Advice {
  precision: 0.98,
  lookalike: 0.03,
  update: 0.95,
};

/// The goals the scorer does not meet on the third hold-out: its paraphrases share no content
/// word, which only meaning could see; and it names most look-alikes (as related, without
/// advice), which the named goal, set before the relation carried the advice, counts.
const HOLDOUT3_SHORTFALLS: &[&str] = &["paraphrases named", "look-alikes named"];

#[test]
fn the_advice_meets_the_goals_on_the_third_hold_out() {
  held_to_floors(
    "third hold-out",
    &holdout3(),
    (100, 4),
    Some((&HOLDOUT3_FLOORS, &HOLDOUT3_ADVICE_FLOORS)),
    HOLDOUT3_SHORTFALLS,
  );
}

/// A hold-out measured and printed — at least `at_least` pairs, each language and kind at least
/// `per_kind` times — held to its `floors` (names, advice) when it has them, and missing exactly
/// the goals `shortfalls` names (each printed).
fn held_to_floors(
  what: &str,
  pairs: &[Pair],
  (at_least, per_kind): (usize, usize),
  floors: Option<(&Goals, &Advice)>,
  shortfalls: &[&str],
) {
  assert!(pairs.len() >= at_least, "{} pairs", pairs.len());
  for lang in LANGS {
    for kind in KINDS {
      let count = pairs
        .iter()
        .filter(|p| p.lang == lang && p.kind == kind)
        .count();
      assert!(count >= per_kind, "{count} {kind} in {lang}");
    }
  }
  let m = Measured::of(pairs);
  println!(
    "similarity on the {what} ({})\n{}\n{}\n{}",
    pairs.len(),
    m.advice_table(),
    m.table(),
    m.report
  );
  let mut missed = misses(&m, &GOALS);
  missed.extend(advice_misses(&m, &ADVICE_GOALS));
  for (_, say) in &missed {
    println!("BELOW GOAL on the {what}: {say}");
  }
  if let Some((floors, advice_floors)) = floors {
    check(&m, floors, what);
    check_advice(&m, advice_floors, what);
  }
  let names: Vec<&str> = missed.iter().map(|(name, _)| *name).collect();
  assert_eq!(names, shortfalls, "{what}: {missed:#?}");
}

/// Bounds on the fourth hold-out at its first run (see its header), so that it guards against
/// regression: one more miss, false name or false advice fails. Reached: duplicates 24/24,
/// updates 24/24, paraphrases 0/24, look-alikes named 23/36, layer entries 13 of 23,880
/// comparisons; advice precision 37/37, look-alikes labelled duplicate or update 0/36, updates
/// labelled update or duplicate 22/24.
const HOLDOUT4_FLOORS: Goals = Goals {
  duplicate: 1.0,
  update: 1.0,
  paraphrase: 0.0,
  lookalike: 0.64,
  layer: 0.00055,
};
const HOLDOUT4_ADVICE_FLOORS: Advice = Advice {
  precision: 0.98,
  lookalike: 0.02,
  update: 0.9,
};

/// The goals the scorer does not meet on the fourth hold-out at its first run: as on the third,
/// its paraphrases share no content word, and most look-alikes are named (related, no advice).
const HOLDOUT4_SHORTFALLS: &[&str] = &["paraphrases named", "look-alikes named"];

/// The fourth hold-out, written blind (before its author read the rules): printed, held to its
/// first run's figures.
#[test]
fn the_advice_is_measured_on_the_fourth_hold_out() {
  held_to_floors(
    "fourth hold-out",
    &holdout4(),
    (120, 4),
    Some((&HOLDOUT4_FLOORS, &HOLDOUT4_ADVICE_FLOORS)),
    HOLDOUT4_SHORTFALLS,
  );
}

#[test]
fn the_advice_is_measured_on_the_shapes() {
  let pairs = shapes();
  let m = Measured::of(&pairs);
  println!(
    "similarity on the shapes ({})\n{}\n{}\n{}",
    pairs.len(),
    m.advice_table(),
    m.table(),
    m.report
  );
}

/// Whether one of `text`'s search terms occurs in `old` (ASCII-folded), as the store's trigram
/// index would find it.
fn found_by_terms(new: &str, old: &str, max: usize) -> bool {
  let old = old.to_ascii_lowercase();
  search_terms(new, max)
    .iter()
    .any(|t| old.contains(t.as_str()))
}

/// How many terms the store asks for (the candidates' query).
const MAX_TERMS: usize = 6;

#[test]
fn search_terms_find_the_stored_text_of_duplicates_and_updates() {
  let mut failed = Vec::new();
  for (name, pairs, goals) in [
    ("tuned", tuned(), true),
    ("hold-out", holdout(), true),
    // Printed, not held: the candidates' lookup is being rebuilt on the store's index.
    ("third hold-out", holdout3(), false),
    ("fourth hold-out", holdout4(), false),
  ] {
    let mut lines = String::new();
    for (kind, goal) in [("dup", 0.95), ("update", 0.90)] {
      let of_kind: Vec<&Pair> = pairs.iter().filter(|p| p.kind == kind).collect();
      let found = of_kind
        .iter()
        .filter(|p| found_by_terms(p.new, p.old, MAX_TERMS))
        .count();
      let rate = found as f64 / of_kind.len().max(1) as f64;
      let _ = writeln!(
        lines,
        "  {kind}: {found} of {} ({:.1}%)",
        of_kind.len(),
        100.0 * rate
      );
      for p in of_kind
        .iter()
        .filter(|p| !found_by_terms(p.new, p.old, MAX_TERMS))
      {
        let terms = search_terms(p.new, MAX_TERMS);
        let _ = writeln!(
          lines,
          "    not found [{} {}] {:?} ~ {:?}: {terms:?}",
          kind, p.at, p.new, p.old
        );
      }
      if goals && rate < goal {
        failed.push(format!(
          "{name} {kind}: {rate:.3} found by terms, below {goal}"
        ));
      }
    }
    println!("search terms ({MAX_TERMS}) find the stored text, {name} pairs:\n{lines}");
  }
  assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn search_terms_are_phrases_the_index_can_take() {
  let texts = tuned()
    .into_iter()
    .flat_map(|p| [p.new, p.old])
    .chain(layers().into_iter().map(|e| e.2));
  for text in texts {
    let terms = search_terms(text, 8);
    assert!(!terms.is_empty() || text.chars().count() < 3, "{text:?}");
    for t in terms {
      assert!(t.chars().count() >= 3, "{t:?} of {text:?}");
      assert!(!t.contains('"'), "{t:?} of {text:?}");
      assert_eq!(t, t.to_ascii_lowercase(), "{t:?} of {text:?}");
      assert!(text.to_ascii_lowercase().contains(&t), "{t:?} of {text:?}");
    }
  }
}

#[test]
fn profiling_and_comparing_are_linear() {
  // A 100 KB text of entry-like lines, another of one repeated token, and one of CJK.
  let line = "Deploys go through `make ship` on port 8080, Node 20.11.1, ~/.config/app/x.toml; ";
  let big = line.repeat(100_000 / line.len());
  let same = "a".repeat(100_000);
  let cjk = "用户喜欢简洁的回答，テストはvitestで実行する。".repeat(100_000 / 60);
  for text in [&big, &same, &cjk] {
    let start = Instant::now();
    let half = text
      .char_indices()
      .nth(text.chars().count() / 2)
      .map_or(0, |c| c.0);
    let (p, q) = (Profile::of(text), Profile::of(&text[..half]));
    let _ = compare(&p, &q);
    let _ = search_terms(text, 8);
    let secs = start.elapsed().as_secs_f64();
    println!("{} bytes: {secs:.3} s", text.len());
    assert!(secs < 1.0, "{} bytes took {secs:.2} s", text.len());
  }
}
