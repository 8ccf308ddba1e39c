//! Build script: napi link setup for the Node addon.
fn main() {
  #[cfg(feature = "node")]
  napi_build::setup();
}
