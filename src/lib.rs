//! dsh-memento: bounded, layered, approval-gated, auditable cross-session memory for DeepSeek
//! Harness, implementing `dsh-memory-protocol/v1` over a local SQLite file.
//!
//! ## Layout
//!
//! The layers run one way, each calling only those below it:
//!
//! - `binding` (feature `node`, on by default): the only napi code; it converts arguments,
//!   calls the API, awaits the gate and maps [`MemoryError`] to JS errors with `.code` and
//!   `.details`. Everything else is plain Rust, tested by `cargo test --no-default-features`.
//! - [`api`]: the provider's calls as the binding hands them over — arguments, options, the
//!   configuration — and opening the engine from them.
//! - [`engine`]: the write pipeline, the reads, history and undo over one store ([`Memory`]).
//! - [`store`]: SQLite — opening, the schema and its migrations ([`store::schema`], each step's
//!   SQL in `src/store/schema/`), the hash-chained audit ledger ([`store::chain`], checked by
//!   [`store::ledger`]), entry reads ([`store::reads`]) and an entry's rows in the ledger
//!   ([`store::history`]).
//! - [`protocol`]: the rules without storage (model and input validation, keys, policies, the
//!   paths a text names) and the renderings (the approval's change, the snapshot and its notice
//!   of pending proposals).
//! - The leaves: [`text`] (lengths, excerpts, the characters a person cannot see), [`screen`]
//!   (the credential screen, which reads text through [`text`]), [`similar`] (the similarity
//!   scorer of similar-write hints, which calls nothing else), and [`error`] at the bottom.
//!
//! ## Design
//!
//! - **The gate lives inside the provider.** A write is planned ([`Memory::plan_add`] and
//!   siblings: validate, resolve, pre-check, build the payload), the binding asks the JS
//!   approval callback and awaits it, and [`Memory::finish`] consumes the plan and commits only
//!   on `allowed-once`, in one `BEGIN IMMEDIATE` transaction per operation: re-find the approved
//!   id at the approved version, re-check the budget, mutate, append the audit rows. There is no
//!   other write path.
//! - **SQLite is the only model.** There is no in-memory copy of the entries: a search is a
//!   phrase query on the FTS5 trigram index (needles of 3+ characters), a range of its
//!   trigrams (1–2 characters), or — for a needle the index matches often — a `LIKE` over the
//!   covering index ranges of the entry groups (track, scope, workspace, agent) a session sees,
//!   with its exact total counted in the FTS index when the session sees much of the store.
//!   Targeting goes the same way. Another process's commits are visible to the next statement.
//! - **A query's recall bump** is written in the same short write transaction as its
//!   `recalled` audit row; nothing is deferred and nothing is written on drop.
//! - **Errors**: one enum, [`MemoryError`], one variant per protocol code.
//! - **Schema version 14** ([`store::schema::SCHEMA_VERSION`]): versions 1–4 are the JS
//!   plugin's, migrated forward one transaction per step; 10, reached from 4 in one step (5–9
//!   were only written by unreleased builds), adds maintained per-layer usage, the audit hash
//!   chain, deduplicated snapshots, the FTS5 trigram index keyed by entry group, and the index
//!   set the SQL search reads; 11 records each entry's keys and tags in its audit rows and the
//!   chain's head, and adopts what the ledger did not yet account for; 12 finds an entry's rows
//!   by its id (history, undo) and keeps the keys each frozen snapshot was recorded with; 13
//!   keeps usage and the search index in the store's writes instead of triggers; 14 has the
//!   search index merge a level's segments as soon as it holds four.
//! - **Nothing is final.** Every landed change can be read back ([`Memory::history`]) and
//!   undone through the gate ([`Memory::plan_revert`]); a revert never overwrites a later change.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod api;
pub mod engine;
pub mod error;
pub mod protocol;
pub mod screen;
pub mod similar;
pub mod store;
pub mod text;

#[cfg(all(feature = "node", not(test)))]
mod binding;

pub use engine::{Config, Memory};
pub use error::{MemoryError, Result};
