//! The `POLYC_*` grammar of [`crate::config`] as C, for programs of the C+OpenMP target (which
//! do not link avelas-rt). Printed from the same constants and messages; that both accept and
//! reject the same values is checked by running them (`tests/runtime_contract.rs`).

use crate::config::{
    DEFAULT_TILE_SIZE, MAX_SCOP_NUMBER, MAX_TILE_SIZE, MAX_TILE_SIZES, MAX_TILE_SIZE_LISTS,
    MIN_POINTS_EXPECTED, SWITCH_EXPECTED, TILE_SIZES_EXPECTED,
};
use crate::C_TARGET_FNS;

/// C definitions of `polyc_profile()`, `polyc_trace()`, `polyc_ts_list(scop)` and
/// `polyc_env_tile_size(scop, k)` (the sizes `POLYC_TILE_SIZES` gives; the size functions proper,
/// which consult the tuning file first, are [`crate::c_tuning`]'s) and `polyc_min_points()`; each reads its variable once and ends the program with a message and
/// exit status 1 when the value is malformed. Needs `<errno.h>`, `<stdio.h>`, `<stdlib.h>`
/// and `<string.h>`.
pub fn definitions() -> String {
    let (profile, trace) = (C_TARGET_FNS.profile, C_TARGET_FNS.trace);
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
/* POLYC_TILE_SIZES: lists separated by ';', each SIZES (every SCoP) or SCOP:SIZES (that SCoP),
   SIZES comma-separated positive integers, outermost tiled dimension first; a shorter list
   repeats its last value. No list that applies: {DEFAULT_TILE_SIZE} for every dimension. */
static int polyc_ts_n = -1, polyc_ts_len[{MAX_TILE_SIZE_LISTS}];
static long polyc_ts_scop[{MAX_TILE_SIZE_LISTS}], polyc_ts_val[{MAX_TILE_SIZE_LISTS}][{MAX_TILE_SIZES}];
/* The list that applies to SCoP `scop` (its own, else the one for every SCoP), or -1. */
static inline __attribute__((unused)) int polyc_ts_list(int scop) {{
  int e, all = -1;
  if (polyc_ts_n < 0) {{
    const char *s = getenv("POLYC_TILE_SIZES");
    const char *p = s;
    polyc_ts_n = 0;
    while (p && *p) {{
      long scop_of = -1;
      int n = 0;
      const char *q = p;
      while (*q >= '0' && *q <= '9') q++;
      if (*q == ':') {{
        char *end;
        if (q == p) goto bad;
        errno = 0;
        scop_of = strtol(p, &end, 10);
        if (errno == ERANGE || scop_of > {MAX_SCOP_NUMBER}L) goto bad;
        p = q + 1;
      }}
      if (polyc_ts_n == {MAX_TILE_SIZE_LISTS}) goto bad;
      for (e = 0; e < polyc_ts_n; e++)
        if (polyc_ts_scop[e] == scop_of) goto bad;
      for (;;) {{
        char *end;
        long v;
        if (*p < '0' || *p > '9' || n == {MAX_TILE_SIZES}) goto bad;
        errno = 0;
        v = strtol(p, &end, 10);
        if (errno == ERANGE || v <= 0 || v > {MAX_TILE_SIZE}L) goto bad;
        polyc_ts_val[polyc_ts_n][n++] = v;
        p = end;
        if (*p != ',') break;
        p++;
      }}
      polyc_ts_scop[polyc_ts_n] = scop_of;
      polyc_ts_len[polyc_ts_n++] = n;
      if (*p == ';') {{
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
  for (e = 0; e < polyc_ts_n; e++) {{
    if (polyc_ts_scop[e] == scop) return e;
    if (polyc_ts_scop[e] < 0) all = e;
  }}
  return all;
}}
/* The size of SCoP `scop`'s tiled dimension `k` by POLYC_TILE_SIZES (or the default); the
   tuning file's entries come first ([`crate::c_tuning`]). */
static inline __attribute__((unused)) long polyc_env_tile_size(int scop, int k) {{
  const int e = polyc_ts_list(scop);
  if (e < 0) return {DEFAULT_TILE_SIZE};
  return polyc_ts_val[e][k < polyc_ts_len[e] ? k : polyc_ts_len[e] - 1];
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
        assert!(c.contains(&format!("[{}];", crate::config::MAX_TILE_SIZES)));
        assert!(c.contains(&format!("{}L", crate::config::MAX_SCOP_NUMBER)));
        assert!(c.contains(&format!("{}L", crate::config::MAX_TILE_SIZE)));
    }
}
