//! Passes the resolved kafka-protocol version (from this crate's Cargo.lock) to the binary, so
//! the figures it prints name the exact release that was measured.

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    let version = lock
        .split("[[package]]")
        .find(|p| p.contains("\nname = \"kafka-protocol\"\n"))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or("unknown");
    println!("cargo:rustc-env=KAFKA_PROTOCOL_VERSION={version}");
}
