//! What a frame most likely is when it does not decode as asked (or leaves bytes over): the
//! 4-byte size prefix still in front, another api version, or the response header on or off.
//! Only run on failure: it parses the structure again with other settings, and calls a setting
//! plausible when the whole input is one response whose record sets start with well-formed
//! entries.

use crate::fetch::{self, MAX_API_VERSION, MIN_API_VERSION};
use crate::record_set::context::LOG_OVERHEAD;

/// A sentence naming the likely fix, or `None` when no other reading is plausible.
pub(crate) fn for_frame(input: &[u8], api_version: i16, with_header: bool) -> Option<String> {
    // read as asked, the frame looks right: whatever failed is inside it, not a misreading
    if plausible(input, api_version, with_header) {
        return None;
    }
    // read as asked, with bytes over that are the next size-prefixed response (captures glued)
    if let Ok(response) = fetch::parse(input, api_version, with_header, false)
        && response.trailing_bytes > 0
        && let [a, b, c, d, next @ ..] = &input[input.len() - response.trailing_bytes..]
        && let Some(next) = next.get(..u32::from_be_bytes([*a, *b, *c, *d]) as usize)
        && plausible(next, api_version, with_header)
    {
        return Some(
            "the response is followed by another size-prefixed response: pass one frame at a time".into(),
        );
    }
    if let [a, b, c, d, rest @ ..] = input
        && u32::from_be_bytes([*a, *b, *c, *d]) as usize == rest.len()
        && (plausible(rest, api_version, with_header)
            || other_versions(rest, api_version, with_header).is_some())
    {
        return Some("the frame starts with its 4-byte size prefix: pass the bytes after it".into());
    }
    if let Some(versions) = other_versions(input, api_version, with_header) {
        return Some(format!(
            "this frame decodes as Fetch {versions}; you passed v{api_version}"
        ));
    }
    for version in MIN_API_VERSION..=MAX_API_VERSION {
        if plausible(input, version, !with_header) {
            let what = if with_header {
                "without the response header (header: false)"
            } else {
                "with the response header (header: true)"
            };
            let version = if version == api_version {
                String::new()
            } else {
                format!(" as Fetch v{version}")
            };
            return Some(format!("this frame decodes{version} {what}"));
        }
    }
    None
}

/// "v12" or "v11 or v12": the other versions that read the input plausibly.
fn other_versions(input: &[u8], api_version: i16, with_header: bool) -> Option<String> {
    let versions: Vec<String> = (MIN_API_VERSION..=MAX_API_VERSION)
        .filter(|&v| v != api_version && plausible(input, v, with_header))
        .map(|v| format!("v{v}"))
        .collect();
    (!versions.is_empty()).then(|| versions.join(" or "))
}

fn plausible(input: &[u8], api_version: i16, with_header: bool) -> bool {
    let Ok(response) = fetch::parse(input, api_version, with_header, false) else {
        return false;
    };
    response.trailing_bytes == 0
        && response
            .topics
            .iter()
            .flat_map(|t| &t.partitions)
            .all(|p| p.records.is_none_or(entries_look_right))
}

/// Every entry has a sane size and magic byte, and the last one ends the set (or is cut short).
fn entries_look_right(mut set: &[u8]) -> bool {
    while set.len() >= LOG_OVERHEAD + 5 {
        let size = i32::from_be_bytes([set[8], set[9], set[10], set[11]]);
        if size < 14 || set[16] > 2 {
            return false;
        }
        match set.get(LOG_OVERHEAD + size as usize..) {
            Some(rest) => set = rest,
            None => return true,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME: &[u8] = include_bytes!("../samples/tansu_v12_multibatch.bin");

    #[test]
    fn a_frame_decoded_at_the_wrong_version_names_the_right_one() {
        assert!(plausible(FRAME, 12, true));
        for wrong in [11, 13] {
            let hint = for_frame(FRAME, wrong, true).unwrap();
            assert!(hint.contains("decodes as Fetch v12; you passed"), "{hint}");
        }
    }

    #[test]
    fn a_frame_with_its_size_prefix_says_so() {
        let mut prefixed = (FRAME.len() as u32).to_be_bytes().to_vec();
        prefixed.extend_from_slice(FRAME);
        assert_eq!(
            for_frame(&prefixed, 12, true).unwrap(),
            "the frame starts with its 4-byte size prefix: pass the bytes after it"
        );
    }

    #[test]
    fn a_frame_glued_to_the_next_one_says_so() {
        let mut glued = FRAME.to_vec();
        glued.extend_from_slice(&(FRAME.len() as u32).to_be_bytes());
        glued.extend_from_slice(FRAME);
        let hint = for_frame(&glued, 12, true).unwrap();
        assert!(
            hint.contains("followed by another size-prefixed response"),
            "{hint}"
        );
        // bytes over that are not a frame: no such hint
        let mut padded = FRAME.to_vec();
        padded.extend_from_slice(&[0; 64]);
        assert!(for_frame(&padded, 12, true).is_none_or(|h| !h.contains("followed by")));
    }

    #[test]
    fn a_body_without_its_header_says_so() {
        // response header v1: correlation id and an empty tagged-field section
        let hint = for_frame(&FRAME[5..], 12, true).unwrap();
        assert!(hint.contains("without the response header"), "{hint}");
    }
}
