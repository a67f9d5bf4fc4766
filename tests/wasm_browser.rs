//! The wasm tests in headless Chromium (the same tests run in Node: tests/wasm_node.rs).
#![cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[path = "wasm/shared.rs"]
mod shared;
