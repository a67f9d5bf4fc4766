//! What the last panic said, kept for JS. A panic is a bug (decoding errors are values); in wasm it
//! aborts, and JS sees only a bare "unreachable" trap. The JS layer asks for this message when a call
//! traps and puts it in the error it throws (pkg-template/decoder/engine.mjs), so a bug report carries
//! the panic's place and text. A trap with no message here is not a panic: memory that ran out, or
//! the engine's own fault.

use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keeps each panic's message, and still prints it to the console as before.
pub(super) fn install_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        // a panic while the message is being taken leaves the older one: never a second panic here
        LAST_PANIC.with(|last| {
            if let Ok(mut last) = last.try_borrow_mut() {
                *last = Some(message);
            }
        });
        console_error_panic_hook::hook(info);
    }));
}

/// The message of the panic since the last call, if one happened ("panicked at src/…: …").
#[wasm_bindgen(js_name = takePanicMessage)]
pub fn take_panic_message() -> Option<String> {
    LAST_PANIC.with(|last| last.try_borrow_mut().ok().and_then(|mut last| last.take()))
}
