//! The `POLYC_*` grammar of [`crate::config`] as C, for programs of the C+OpenMP target (which
//! do not link avelas-rt). Printed from the same constants and messages; that both accept and
//! reject the same values is checked by running them (`tests/runtime_contract.rs`).

use crate::config::{
    DEFAULT_TILE_SIZE, MAX_TILE_SIZE, MAX_TILE_SIZES, MIN_POINTS_EXPECTED, SWITCH_EXPECTED,
    TILE_SIZES_EXPECTED,
};
use crate::C_TARGET_FNS;

/// C definitions of `polyc_profile()`, `polyc_trace()`, `polyc_tile_size(k)` and
/// `polyc_min_points()`; each reads its variable once and ends the program with a message and
/// exit status 1 when the value is malformed. Needs `<errno.h>`, `<stdio.h>`, `<stdlib.h>`
/// and `<string.h>`.
pub fn definitions() -> String {
    let (tile_size, profile, trace) = (
        C_TARGET_FNS.tile_size,
        C_TARGET_FNS.profile,
        C_TARGET_FNS.trace,
    );
    format!(
        r#"/* A switch variable: unset, empty or 0 is off, 1 is on; anything else is an error. */
static inline __attribute__((unused)) int polyc_switch(const char *name, int *cache) {{
  if (*cache < 0) {{
    const char *v = getenv(name);
    if (!v || !*v || !strcmp(v, "0")) *cache = 0;
    else if (!strcmp(v, "1")) *cache = 1;
    else {{
      fprintf(stderr, "polyc: %s=\"%s\" is malformed: expected {SWITCH_EXPECTED}\n", name, v);
      exit(1);
    }}
  }}
  return *cache;
}}
static int polyc_profile_cache = -1, polyc_trace_cache = -1;
static inline __attribute__((unused)) int {profile}(void) {{ return polyc_switch("POLYC_PROFILE", &polyc_profile_cache); }}
static inline __attribute__((unused)) int {trace}(void) {{ return polyc_switch("POLYC_TRACE", &polyc_trace_cache); }}
/* POLYC_TILE_SIZES: comma-separated positive integers, outermost tiled dimension first; a shorter
   list repeats its last value. Unset or empty: {DEFAULT_TILE_SIZE} for every dimension. */
static inline __attribute__((unused)) long {tile_size}(int k) {{
  static long sizes[{MAX_TILE_SIZES}];
  static int n = -1;
  if (n < 0) {{
    const char *s = getenv("POLYC_TILE_SIZES");
    const char *p = s;
    n = 0;
    while (p && *p) {{
      char *end;
      long v;
      if (*p < '0' || *p > '9' || n == {MAX_TILE_SIZES}) goto bad;
      v = strtol(p, &end, 10);
      if (v <= 0 || v > {MAX_TILE_SIZE}L) goto bad;
      sizes[n++] = v;
      p = end;
      if (*p == ',') {{
        p++;
        if (!*p) goto bad;
      }} else if (*p) goto bad;
    }}
    if (0) {{
    bad:
      fprintf(stderr, "polyc: POLYC_TILE_SIZES=\"%s\" is malformed: expected {TILE_SIZES_EXPECTED}\n", s);
      exit(1);
    }}
  }}
  if (n == 0) return {DEFAULT_TILE_SIZE};
  return sizes[k < n ? k : n - 1];
}}
/* POLYC_MIN_POINTS: SCoPs whose tiled bands span fewer points run untiled, in their original
   order (tiles and threads do not pay there); 0: always tile. Unset or empty: -1, the generated
   program's cost model decides. */
static inline __attribute__((unused)) long polyc_min_points(void) {{
  static long v = -2;
  if (v == -2) {{
    const char *s = getenv("POLYC_MIN_POINTS");
    char *end;
    if (!s || !*s) v = -1;
    else {{
      errno = 0;
      v = strtol(s, &end, 10);
      if (*s < '0' || *s > '9' || *end || errno == ERANGE || v < 0) {{
        fprintf(stderr, "polyc: POLYC_MIN_POINTS=\"%s\" is malformed: expected {MIN_POINTS_EXPECTED}\n", s);
        exit(1);
      }}
    }}
  }}
  return v;
}}
"#
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn messages_and_limits_come_from_the_grammar() {
        let c = super::definitions();
        assert!(c.contains(crate::config::TILE_SIZES_EXPECTED));
        assert!(c.contains(&format!("sizes[{}]", crate::config::MAX_TILE_SIZES)));
        assert!(c.contains(&format!("{}L", crate::config::MAX_TILE_SIZE)));
    }
}
