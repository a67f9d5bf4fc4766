//! The wasm tests in Node (the same file runs in Chromium: tests/wasm_browser.rs).
#![cfg(target_arch = "wasm32")]
include!("wasm/shared.rs");
