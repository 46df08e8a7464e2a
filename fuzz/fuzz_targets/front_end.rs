#![no_main]
//! libFuzzer entry for [`polyc_fuzz::front_end`] (see scripts/fuzz.sh).

libfuzzer_sys::fuzz_target!(|data: &[u8]| polyc_fuzz::front_end(data));
