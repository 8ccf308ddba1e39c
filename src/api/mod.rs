//! The provider's API as the binding calls it, above the engine: call arguments and options
//! (JSON values the binding converted), the reads and the rules by name, the plugin's and the
//! provider's configuration, a batch of entry inputs screened before an import asks, and
//! opening the engine from the options.
pub mod calls;
pub mod config;
pub mod inputs;
pub mod open;
pub mod reads;
pub mod rules;
pub mod writes;
