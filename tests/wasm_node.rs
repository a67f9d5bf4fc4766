//! The wasm tests in Node (the same tests run in Chromium: tests/wasm_browser.rs).
#![cfg(target_arch = "wasm32")]

#[path = "wasm/shared.rs"]
mod shared;
