//! wasm-bindgen surface (written next).
