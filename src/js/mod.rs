//! Everything that crosses to JavaScript, in one place: the contract (the layout of what a call
//! hands over, defined once and read by the JS layer at load), the JSON documents (a call's
//! metadata and errors, the protocol layer's responses) and the JSON writer they share, and the
//! wasm-bindgen surface that exports them. The core above it (`decoder`, `protocol`, ...) knows
//! nothing of JavaScript.
//!
//! ```text
//! js
//! ├─ contract        columns, batch fields, enum names, option bits, Kafka's names: described once
//! ├─ arrow           with the arrow flag, each record set's Arrow arrays (views onto the bytes)
//! ├─ call_json       one decode call's metadata document (response structure, record-set ranges) and errors
//! ├─ protocol_json   the protocol layer's responses, version tables and request checks as JSON
//! ├─ cluster_json    the same for the cluster's reads (groups, offsets, configs, brokers)
//! ├─ json_fields     their members by type (an error code with its name, bytes as base64, ...)
//! ├─ json            JsonWriter: the writer all of them use
//! └─ wasm            the wasm-bindgen exports (wasm32 only): the decoder, and `wasm::protocol`
//! ```

pub mod arrow;
#[cfg(any(target_arch = "wasm32", test))]
pub(crate) mod call_json;
pub mod contract;
// Natively only `contract::describe` writes JSON; the wasm exports use the rest.
#[cfg(any(target_arch = "wasm32", test, feature = "internals"))]
pub(crate) mod cluster_json;
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) mod json;
#[cfg(any(target_arch = "wasm32", test, feature = "internals"))]
pub(crate) mod json_fields;
#[cfg(any(target_arch = "wasm32", test, feature = "internals"))]
pub(crate) mod protocol_json;
#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod wasm;
