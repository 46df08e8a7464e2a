#![no_main]
//! libFuzzer entry for [`polyc_fuzz::syntax`] (see scripts/fuzz.sh).

libfuzzer_sys::fuzz_target!(|data: &[u8]| polyc_fuzz::syntax(data));
