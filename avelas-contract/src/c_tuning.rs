//! The tuning file's reader ([`crate::tuning`]) as C, for programs of the C+OpenMP target.
//! Printed from the same constants; that it accepts, rejects and applies the same files as the
//! contract's parser is checked by running programs (`tests/tuning.rs`).

use crate::config::{
    MAX_SCOP_NUMBER, MAX_TILE_SIZE, MAX_TILE_SIZES, SIZES_FROM_DEFAULT, SIZES_FROM_ENV,
};
use crate::tuning::{
    CUTOFF, HEADER, MAX_ENTRIES, MAX_LINE, SIZES_FROM_TUNED, SUFFIX, TRIALS, UNTILED, VARIABLE,
};
use crate::C_TARGET_FNS;

/// C definitions of `polyc_tuning(scop, key, params)` (the entry of the tuning file for this
/// SCoP, or -1), `polyc_tuned_untiled(tuned)`, the in-process trials of `polyc tune`
/// (`polyc_trials_begin`, `polyc_trial_start`, `polyc_trial_done`), and of the size functions that take the entry
/// (`polyc_tile_size(scop, tuned, k)`, `polyc_sizes_from(scop, tuned)`). Needs
/// [`crate::c_config::definitions`] before it.
pub fn definitions() -> String {
    let (tuning, tile_size, sizes_from) = (
        C_TARGET_FNS.tuning,
        C_TARGET_FNS.tile_size,
        C_TARGET_FNS.sizes_from,
    );
    let fields = crate::tuning::KEY_FIELDS;
    let field_list: Vec<String> = fields
        .iter()
        .chain(&["sizes"])
        .map(|f| format!("\"{f}\""))
        .collect();
    let field_list = field_list.join(", ");
    let nfields = fields.len();
    format!(
        r#"#include <signal.h>
#include <sys/time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
/* The tuning file (POLYC_TUNING, else the executable's path and "{SUFFIX}"): per line, a SCoP's
   key (program, scop, id, target, device, params) and the sizes tuned for it. Read once. */
static int polyc_tu_n = -1, polyc_tu_len[{MAX_ENTRIES}];
static char *polyc_tu_key[{MAX_ENTRIES}];
static long polyc_tu_val[{MAX_ENTRIES}][{MAX_TILE_SIZES}];
static __attribute__((unused)) void polyc_tu_bad(const char *path, int line, const char *what, const char *text) {{
  fprintf(stderr, "polyc: tuning file %s: line %d: %s%s\n", path, line, what, text);
  exit(1);
}}
/* Reads `s`, "{UNTILED}" (no sizes) or sizes separated by commas, into the next entry's sizes;
   whether it is well formed. */
static __attribute__((unused)) int polyc_tu_sizes(const char *s) {{
  int k = 0;
  if (strcmp(s, "{UNTILED}")) {{
    for (;;) {{
      char *end;
      long v;
      if (*s < '0' || *s > '9' || k == {MAX_TILE_SIZES}) return 0;
      errno = 0;
      v = strtol(s, &end, 10);
      if (errno == ERANGE || v <= 0 || v > {MAX_TILE_SIZE}L) return 0;
      polyc_tu_val[polyc_tu_n][k++] = v;
      s = end;
      if (!*s) break;
      if (*s++ != ',') return 0;
    }}
  }}
  polyc_tu_len[polyc_tu_n] = k;
  return 1;
}}
/* One entry's line, checked as the contract's parser checks it. */
static __attribute__((unused)) void polyc_tu_entry(const char *path, int line, char *text) {{
  static const char *const names[] = {{{field_list}, "local_mem"}};
  char *field[{nfields} + 3], *p = text, *q, *key_end = 0;
  int n = 0, e;
  for (;;) {{
    if (n == {nfields} + 3) break;
    field[n++] = p;
    q = strchr(p, ' ');
    if (!q) break;
    *q = 0;
    p = q + 1;
  }}
  if (n < {nfields} + 1 || n > {nfields} + 2)
    polyc_tu_bad(path, line, "expected the key's fields, sizes= and maybe local_mem=, separated by single spaces", "");
  for (e = 0; e < n; e++) {{
    const size_t len = strlen(names[e]);
    const char *v;
    if (strncmp(field[e], names[e], len) || field[e][len] != '=' || !field[e][len + 1])
      polyc_tu_bad(path, line, "expected a field and a value: ", field[e]);
    v = field[e] + len + 1;
    for (; *v; v++)
      if (*v <= ' ' || *v > '~') polyc_tu_bad(path, line, "a value holds a character that is not printable ASCII: ", field[e]);
  }}
  {{
    const char *s = field[1] + 5;
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (*s < '0' || *s > '9' || *end || errno == ERANGE || v > {MAX_SCOP_NUMBER}L)
      polyc_tu_bad(path, line, "expected a SCoP number up to {MAX_SCOP_NUMBER}: ", field[1]);
    s = field[2] + 3;
    if (strlen(s) != 16 || strspn(s, "0123456789abcdefABCDEF") != 16)
      polyc_tu_bad(path, line, "expected 16 hexadecimal digits: ", field[2]);
    s = field[3] + 7;
    if (strcmp(s, "c") && strcmp(s, "opencl") && strcmp(s, "cuda"))
      polyc_tu_bad(path, line, "expected c, opencl or cuda: ", field[3]);
  }}
  if (polyc_tu_n == {MAX_ENTRIES}) polyc_tu_bad(path, line, "more than {MAX_ENTRIES} entries", "");
  if (!polyc_tu_sizes(field[{nfields}] + 6))
    polyc_tu_bad(path, line, "expected {UNTILED} or positive integers separated by commas: ", field[{nfields}]);
  if (n > {nfields} + 1) {{
    const char *s = field[{nfields} + 1] + 10;
    char *end;
    errno = 0;
    (void)strtoll(s, &end, 10);
    if (*s < '0' || *s > '9' || *end || errno == ERANGE)
      polyc_tu_bad(path, line, "expected a number of bytes: ", field[{nfields} + 1]);
  }}
  /* The key: the line up to " sizes=" (the fields were cut at their spaces). */
  for (e = 0; e + 1 < {nfields}; e++) field[e][strlen(field[e])] = ' ';
  key_end = field[{nfields} - 1] + strlen(field[{nfields} - 1]);
  *key_end = 0;
  for (e = 0; e < polyc_tu_n; e++)
    if (!strcmp(polyc_tu_key[e], text)) polyc_tu_bad(path, line, "this key is given twice", "");
  polyc_tu_key[polyc_tu_n] = (char *)malloc(strlen(text) + 1);
  if (!polyc_tu_key[polyc_tu_n]) polyc_tu_bad(path, line, "out of memory", "");
  strcpy(polyc_tu_key[polyc_tu_n], text);
  polyc_tu_n++;
}}
static __attribute__((unused)) void polyc_tu_read(void) {{
  static char buf[{MAX_LINE} + 2];
  char exe[4096];
  const char *path = getenv("{VARIABLE}");
  FILE *f;
  int line = 0;
  polyc_tu_n = 0;
  if (path && *path) {{
    f = fopen(path, "r");
    if (!f) {{
      fprintf(stderr, "polyc: {VARIABLE}=\"%s\": cannot read the tuning file: %s\n", path, strerror(errno));
      exit(1);
    }}
  }} else {{
    const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - sizeof "{SUFFIX}");
    if (len <= 0 || (size_t)len >= sizeof exe - sizeof "{SUFFIX}") return;
    exe[len] = 0;
    strcat(exe, "{SUFFIX}");
    path = exe;
    f = fopen(path, "r");
    if (!f) {{
      if (errno == ENOENT) return;
      fprintf(stderr, "polyc: cannot read the tuning file %s: %s\n", path, strerror(errno));
      exit(1);
    }}
  }}
  while (fgets(buf, sizeof buf, f)) {{
    size_t len = strlen(buf);
    line++;
    if (len > 0 && buf[len - 1] == '\n') buf[--len] = 0;
    else if (!feof(f)) polyc_tu_bad(path, line, "the line is longer than {MAX_LINE} bytes", "");
    if (line == 1) {{
      if (strcmp(buf, "{HEADER}")) polyc_tu_bad(path, 1, "expected the first line \"{HEADER}\"", "");
      continue;
    }}
    if (len > {MAX_LINE}) polyc_tu_bad(path, line, "the line is longer than {MAX_LINE} bytes", "");
    if (!len || buf[0] == '#') continue;
    polyc_tu_entry(path, line, buf);
  }}
  if (line == 0) polyc_tu_bad(path, 1, "expected the first line \"{HEADER}\"", "");
  fclose(f);
}}
/* In-process trials (polyc tune): {TRIALS} names a file of lines "SCOP SIZES" (SIZES as in a
   tuning file, or {UNTILED}). The first execution of each SCoP listed runs with its default
   configuration, then once per line, restoring the data it writes (`polyc_trials_begin` saved
   them) before each; after each trial it prints "polyc-trial: scop=K trial=T match=0|1", whether
   the data equal the first run's. The data are then left as the first run left them. A SCoP whose
   written data have no declared size, or would take more than a quarter of the memory twice,
   prints "polyc-trial: scop=K unavailable" and runs once.
   A line "SCOP {CUTOFF} FACTOR MS" stops the SCoP's trials that run FACTOR times as long as its
   fastest whole run so far in this process (0: never), and at least MS milliseconds: a timer
   (SIGALRM, while the trials run) sets `polyc_tr_late`, the tile walks then visit no more tiles,
   and the trial prints "polyc-trial: scop=K trial=T late=1" instead of its match. */
static int polyc_tr_n = -1, polyc_tr_scop[{MAX_ENTRIES}], polyc_tr_entry[{MAX_ENTRIES}];
static int polyc_tr_active = -1, polyc_tr_first = 0, polyc_tr_saves = 0;
static volatile sig_atomic_t polyc_tr_late = 0;
static double polyc_tr_cut_factor[{MAX_SCOP_NUMBER} + 1], polyc_tr_cut_ms[{MAX_SCOP_NUMBER} + 1];
static double polyc_tr_started = 0, polyc_tr_fastest = 0;
static int polyc_tr_timer = 0;
static struct sigaction polyc_tr_old_alarm;
static __attribute__((unused)) void polyc_tr_alarm(int sig) {{
  (void)sig;
  polyc_tr_late = 1;
}}
/* Reads "FACTOR MS" of a cutoff line for SCoP `scop`; whether it is well formed. */
static __attribute__((unused)) int polyc_tr_cutoff(int scop, const char *s) {{
  char *end;
  double f, ms;
  errno = 0;
  f = strtod(s, &end);
  if (end == s || *end != ' ' || errno || !(f >= 0 && f <= 1e9)) return 0;
  s = end + 1;
  ms = strtod(s, &end);
  if (end == s || *end || errno || !(ms >= 0 && ms <= 1e12)) return 0;
  polyc_tr_cut_factor[scop] = f;
  polyc_tr_cut_ms[scop] = ms;
  return 1;
}}
static char polyc_tr_done[{MAX_SCOP_NUMBER} + 1];
static void **polyc_tr_ptr;
static const size_t *polyc_tr_bytes;
static unsigned char *polyc_tr_initial, *polyc_tr_expected;
static __attribute__((unused)) void polyc_tr_load(void) {{
  static char buf[{MAX_LINE} + 2];
  const char *path = getenv("{TRIALS}");
  FILE *f;
  int line = 0;
  polyc_tr_n = 0;
  if (!path || !*path) return;
  if (polyc_tu_n < 0) polyc_tu_read();
  f = fopen(path, "r");
  if (!f) {{
    fprintf(stderr, "polyc: {TRIALS}=\"%s\": cannot read it: %s\n", path, strerror(errno));
    exit(1);
  }}
  while (fgets(buf, sizeof buf, f)) {{
    char *end;
    long scop;
    line++;
    if (!strchr(buf, '\n') && !feof(f)) polyc_tu_bad(path, line, "the line is longer than {MAX_LINE} bytes", "");
    buf[strcspn(buf, "\n")] = 0;
    errno = 0;
    scop = strtol(buf, &end, 10);
    if (end == buf || *end != ' ' || scop < 0 || scop > {MAX_SCOP_NUMBER}L || polyc_tu_n == {MAX_ENTRIES} || polyc_tr_n == {MAX_ENTRIES})
      polyc_tu_bad(path, line, "expected SCOP SIZES", "");
    if (!strncmp(end + 1, "{CUTOFF} ", sizeof "{CUTOFF}")) {{
      if (!polyc_tr_cutoff((int)scop, end + sizeof "{CUTOFF} ")) polyc_tu_bad(path, line, "expected SCOP {CUTOFF} FACTOR MS", "");
      continue;
    }}
    if (!polyc_tu_sizes(end + 1)) polyc_tu_bad(path, line, "expected SCOP SIZES", "");
    polyc_tu_key[polyc_tu_n] = (char *)"";
    polyc_tr_scop[polyc_tr_n] = (int)scop;
    polyc_tr_entry[polyc_tr_n++] = polyc_tu_n++;
  }}
  fclose(f);
}}
/* How many trials the SCoP's block runs after its first run (0: none); saves the `n` blocks of
   written data `ptr[i]` (`bytes[i]` bytes each; a null pointer: size unknown). */
static inline __attribute__((unused)) int polyc_trials_begin(int scop, int n, void **ptr, const size_t *bytes) {{
  int e, count = 0;
  size_t total = 0, at = 0;
  if (polyc_tr_n < 0) polyc_tr_load();
  if (!polyc_tr_n || scop < 0 || scop > {MAX_SCOP_NUMBER} || polyc_tr_done[scop]) return 0;
  polyc_tr_done[scop] = 1;
  for (e = 0; e < polyc_tr_n; e++)
    if (polyc_tr_scop[e] == scop && count++ == 0) polyc_tr_first = e;
  if (!count) return 0;
  for (e = 0; e < n; e++) {{
    if (!ptr[e]) total = (size_t)-1;
    if (total != (size_t)-1) total += bytes[e];
  }}
  {{
    const double memory = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (total == (size_t)-1 || (memory > 0 && 2.0 * (double)total > memory / 4)) {{
      fprintf(stderr, "polyc-trial: scop=%d unavailable\n", scop);
      return 0;
    }}
  }}
  polyc_tr_initial = (unsigned char *)malloc(total + 1);
  polyc_tr_expected = (unsigned char *)malloc(total + 1);
  if (!polyc_tr_initial || !polyc_tr_expected) {{
    free(polyc_tr_initial);
    free(polyc_tr_expected);
    fprintf(stderr, "polyc-trial: scop=%d unavailable\n", scop);
    return 0;
  }}
  for (e = 0; e < n; e++) {{
    memcpy(polyc_tr_initial + at, ptr[e], bytes[e]);
    at += bytes[e];
  }}
  polyc_tr_ptr = ptr;
  polyc_tr_bytes = bytes;
  polyc_tr_saves = n;
  polyc_tr_fastest = 0;
  polyc_tr_timer = polyc_tr_cut_factor[scop] > 0;
  if (polyc_tr_timer) {{
    struct sigaction a;
    memset(&a, 0, sizeof a);
    a.sa_handler = polyc_tr_alarm;
    sigemptyset(&a.sa_mask);
#ifdef SA_RESTART
    a.sa_flags = SA_RESTART; /* strict ISO C modes lack it: the SCoP makes no system call but OpenMP's, which retry */
#endif
    if (sigaction(SIGALRM, &a, &polyc_tr_old_alarm)) polyc_tr_timer = 0;
  }}
  return count;
}}
/* Copies the saved data `from` into the SCoP's data (`back`), or the SCoP's data into `from`
   (`!back`), or compares them (`compare`: whether equal). */
static inline __attribute__((unused)) int polyc_tr_copy(unsigned char *from, int back, int compare) {{
  size_t at = 0;
  int e, same = 1;
  for (e = 0; e < polyc_tr_saves; e++) {{
    if (compare) same &= !memcmp(polyc_tr_ptr[e], from + at, polyc_tr_bytes[e]);
    else if (back) memcpy(polyc_tr_ptr[e], from + at, polyc_tr_bytes[e]);
    else memcpy(from + at, polyc_tr_ptr[e], polyc_tr_bytes[e]);
    at += polyc_tr_bytes[e];
  }}
  return same;
}}
/* Arms the timer that stops trial runs of SCoP `scop` (see "{CUTOFF}" above). */
static __attribute__((unused)) void polyc_tr_arm(int scop) {{
  double limit = polyc_tr_cut_ms[scop];
  struct itimerval t;
  if (polyc_tr_cut_factor[scop] * polyc_tr_fastest > limit) limit = polyc_tr_cut_factor[scop] * polyc_tr_fastest;
  if (limit <= 0) return;
  memset(&t, 0, sizeof t);
  t.it_value.tv_sec = (time_t)(limit / 1e3);
  t.it_value.tv_usec = (suseconds_t)(1e3 * (limit - 1e3 * (double)t.it_value.tv_sec));
  if (!t.it_value.tv_sec && !t.it_value.tv_usec) t.it_value.tv_usec = 1;
  setitimer(ITIMER_REAL, &t, 0);
}}
/* Before run `trial` of the block (0: the default configuration). */
static inline __attribute__((unused)) void polyc_trial_start(int scop, int trial) {{
  if (polyc_tr_n <= 0) return;
  polyc_tr_late = 0;
  if (trial > 0) {{
    polyc_tr_copy(polyc_tr_initial, 1, 0);
    /* The SCoP's `trial`-th line (the lines of several SCoPs may interleave). */
    {{
      int e, k = 0;
      for (e = polyc_tr_first; e < polyc_tr_n; e++)
        if (polyc_tr_scop[e] == scop && ++k == trial) break;
      polyc_tr_active = polyc_tr_entry[e];
    }}
    if (polyc_tr_timer) polyc_tr_arm(scop);
  }}
  polyc_tr_started = polyc_now();
}}
/* After run `trial` of `trials`. */
static inline __attribute__((unused)) void polyc_trial_done(int scop, int trial, int trials) {{
  double ms;
  if (trials == 0) return;
  ms = 1e3 * (polyc_now() - polyc_tr_started);
  if (polyc_tr_timer) {{
    struct itimerval off;
    memset(&off, 0, sizeof off);
    setitimer(ITIMER_REAL, &off, 0);
  }}
  if (trial == 0) polyc_tr_copy(polyc_tr_expected, 0, 0);
  else if (polyc_tr_late) fprintf(stderr, "polyc-trial: scop=%d trial=%d late=1\n", scop, trial);
  else fprintf(stderr, "polyc-trial: scop=%d trial=%d match=%d\n", scop, trial, polyc_tr_copy(polyc_tr_expected, 0, 1));
  if (!polyc_tr_late && (polyc_tr_fastest <= 0 || ms < polyc_tr_fastest)) polyc_tr_fastest = ms;
  polyc_tr_late = 0;
  if (trial == trials) {{
    polyc_tr_copy(polyc_tr_expected, 1, 0);
    free(polyc_tr_initial);
    free(polyc_tr_expected);
    polyc_tr_active = -1;
    if (polyc_tr_timer) sigaction(SIGALRM, &polyc_tr_old_alarm, 0);
  }}
}}
/* The entry of the tuning file for SCoP `scop` (its key's first four fields `key`, the
   parameters' comma-separated `names` and their `n` `values`), or -1; -1 too when
   POLYC_TILE_SIZES has a list for the SCoP (the environment overrides the file). With
   POLYC_PROFILE=1 it prints the SCoP's whole key. */
static inline __attribute__((unused)) int {tuning}(int scop, const char *key, const char *names, int n, const long *values) {{
  char full[{MAX_LINE} + 1];
  int threads = 1, e;
  size_t at;
  if (polyc_tu_n < 0) polyc_tu_read();
  /* Without a tuning file, trials or profile there is nothing to look up: the common case
     formats no key (the smallest kernels run for microseconds). */
  if (!polyc_tu_n && !polyc_profile()) return -1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  snprintf(full, sizeof full, "%s device=openmp-%d params=%s", key, threads, n ? "" : "-");
  at = strlen(full);
  for (e = 0; e < n && at < sizeof full; e++) {{
    const size_t len = strcspn(names, ",");
    snprintf(full + at, sizeof full - at, "%s%.*s=%ld", e ? "," : "", (int)len, names, values[e]);
    at += strlen(full + at);
    names += len + (names[len] == ',');
  }}
  if (polyc_profile()) fprintf(stderr, "polyc-key: %s\n", full);
  if (polyc_tr_active >= 0) return polyc_tr_active;
  if (polyc_ts_list(scop) >= 0) return -1;
  for (e = 0; e < polyc_tu_n; e++)
    if (!strcmp(polyc_tu_key[e], full)) return e;
  return -1;
}}
/* The tuning file, the trials and the POLYC_* variables are read when the program starts, not
   at a SCoP's first execution: finding out that there is no file costs a readlink and a failed
   open, tens of microseconds on some machines, and the variables' first reads cost about 3 us
   more (jacobi-1d MEDIUM, a 13 us kernel, ran 17 us), all of which counted in the first SCoP's
   time. A malformed file or value is reported before any work, too. */
static __attribute__((constructor, unused)) void polyc_tuning_load(void) {{
  if (polyc_tu_n < 0) polyc_tu_read();
  if (polyc_tr_n < 0) polyc_tr_load();
  (void)polyc_profile();
  (void)polyc_trace();
  (void)polyc_ts_list(0);
  (void)polyc_min_points();
}}
/* Whether the tuning file's entry `tuned` runs its SCoP untiled. */
static inline __attribute__((unused)) int polyc_tuned_untiled(int tuned) {{
  return tuned >= 0 && polyc_tu_len[tuned] == 0;
}}
static inline __attribute__((unused)) long {tile_size}(int scop, int tuned, int k) {{
  if (tuned >= 0 && polyc_tu_len[tuned] > 0)
    return polyc_tu_val[tuned][k < polyc_tu_len[tuned] ? k : polyc_tu_len[tuned] - 1];
  return polyc_env_tile_size(scop, k);
}}
static inline __attribute__((unused)) const char *{sizes_from}(int scop, int tuned) {{
  if (tuned >= 0) return "{SIZES_FROM_TUNED}";
  return polyc_ts_list(scop) < 0 ? "{SIZES_FROM_DEFAULT}" : "{SIZES_FROM_ENV}";
}}
"#
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn limits_come_from_the_contract() {
        let c = super::definitions();
        assert!(c.contains(crate::tuning::HEADER));
        assert!(c.contains(&format!("[{}]", crate::tuning::MAX_ENTRIES)));
        assert!(c.contains("\"params\", \"sizes\""));
    }
}
