//! dsh-memento: bounded, layered, approval-gated, auditable cross-session memory for DeepSeek
//! Harness, implementing `dsh-memory-protocol/v1` over a local SQLite file.
//!
//! ## Design
//!
//! - **Core / binding split.** Everything but `binding.rs` is plain Rust with no napi types and
//!   is tested by `cargo test --no-default-features`. `binding.rs` (feature `node`, on by
//!   default) and its child `binding/gate.rs` are the only files that name napi: they convert
//!   arguments, call the core, await the gate, and map errors to JS `Error`s carrying `.code`
//!   and `.details`.
//! - **The gate lives inside the provider.** A write is planned ([`protocol::Memory::plan_add`]
//!   and siblings: validate, resolve, pre-check, build the payload), the binding calls the JS
//!   approval callback on the main thread and awaits it, and [`protocol::Memory::finish`]
//!   commits only on `allowed-once` — re-finding the approved id, re-checking the budget,
//!   mutating and auditing in one `BEGIN IMMEDIATE` transaction. There is no other write path.
//! - **Reads are synchronous**: SQLite is local and a query is microseconds to milliseconds.
//! - **Errors**: one enum, [`error::MemoryError`], one variant per protocol code.
//! - **Schema**: versions 1–4 are the JS plugin's, migrated forward one transaction per step
//!   ([`schema`]); version 5 adds maintained per-layer usage and indexes.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod engine;
pub mod error;
pub mod protocol;
pub mod store;

#[cfg(all(feature = "node", not(test)))]
mod binding;

pub use engine::{Config, Memory};
pub use error::{MemoryError, Result};
