#![no_main]
//! libFuzzer entry for [`polyc_fuzz::config_values`] (see scripts/fuzz.sh).

libfuzzer_sys::fuzz_target!(|data: &[u8]| polyc_fuzz::config_values(data));
