//! The protocol's rules, with no storage: the data model and its validation, workspace and agent
//! keys, write policies, the paths an entry names, and the renderings — the change an approver
//! sees, the snapshot and its notice of pending proposals.
pub mod change;
pub mod keys;
pub mod model;
pub mod paths;
pub mod pending;
pub mod policy;
pub mod snapshot;
