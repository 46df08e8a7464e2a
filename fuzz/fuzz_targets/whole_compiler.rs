#![no_main]
//! libFuzzer entry for [`polyc_fuzz::whole_compiler`] (see scripts/fuzz.sh).

libfuzzer_sys::fuzz_target!(|data: &[u8]| polyc_fuzz::whole_compiler(data));
