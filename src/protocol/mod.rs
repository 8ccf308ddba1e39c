//! The protocol's rules, with no storage: the data model and its validation, workspace and agent
//! keys, text measures, the credential screen, similarity hints between entries and the snapshot's
//! rendering.
pub mod change;
pub mod keys;
pub mod model;
pub mod paths;
pub mod pending;
pub mod policy;
pub mod screen;
pub mod snapshot;
