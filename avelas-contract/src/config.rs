//! The run-time configuration of a generated program, from its environment (design.md):
//! `POLYC_TILE_SIZES`, `POLYC_MIN_POINTS`, `POLYC_DEVICE`, `POLYC_PROFILE`, `POLYC_TRACE`,
//! `POLYC_LOCAL_MEM`, `POLYC_BATCH_TILES`. Every value is validated; a malformed one is an error that names the
//! variable and says what was expected. This is the grammar's one statement: avelas-rt parses
//! with it, and the C target's parsers ([`crate::c_config`]) are printed from its constants and
//! checked against it (`tests/runtime_contract.rs`).

use std::fmt;

/// The tile size of every dimension when `POLYC_TILE_SIZES` is unset or empty.
pub const DEFAULT_TILE_SIZE: i64 = 32;
/// The largest tile size accepted.
pub const MAX_TILE_SIZE: i64 = 1_000_000_000;
/// The most values one list of `POLYC_TILE_SIZES` may hold (the C target's parser holds as
/// many).
pub const MAX_TILE_SIZES: usize = 64;
/// The most lists `POLYC_TILE_SIZES` may hold (one for every SCoP, the others per SCoP).
pub const MAX_TILE_SIZE_LISTS: usize = 64;
/// The largest SCoP number a list of `POLYC_TILE_SIZES` may name.
pub const MAX_SCOP_NUMBER: usize = 9999;
/// The variables a generated program reads.
pub const VARIABLES: &[&str] = &[
    "POLYC_TILE_SIZES",
    "POLYC_MIN_POINTS",
    "POLYC_PROFILE",
    "POLYC_TRACE",
    "POLYC_DEVICE",
    "POLYC_LOCAL_MEM",
    "POLYC_BATCH_TILES",
];

/// What each variable expects, as its error messages say.
pub const TILE_SIZES_EXPECTED: &str = "positive integers up to 1000000000 separated by commas, e.g. 16,32,32, for every SCoP, or per SCoP as SCOP:SIZES, lists separated by semicolons, e.g. 32;1:16,8";
pub const MIN_POINTS_EXPECTED: &str = "a number of points, e.g. 0 to always tile";
pub const SWITCH_EXPECTED: &str = "1 to turn it on, 0 or unset to turn it off";
pub const DEVICE_EXPECTED: &str = "PLATFORM:DEVICE indices (0:1), a device number (1), or part of a device name (pthread, nvidia, gpu)";
pub const LOCAL_MEM_EXPECTED: &str = "a number of bytes, e.g. 16384";
pub const BATCH_TILES_EXPECTED: &str = "a number of tiles, e.g. 0 for a launch per wavefront";

/// Which device `POLYC_DEVICE` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceChoice {
    /// The first GPU, else the first device of any kind.
    Default,
    /// `P:D`: device `D` of OpenCL platform `P`.
    Index { platform: usize, device: usize },
    /// `N`: the `N`-th device over all platforms (for CUDA, the device ordinal).
    Ordinal(usize),
    /// Any other text: the first device whose platform or device name contains it (case
    /// insensitive), or `cpu`, `gpu`, `accelerator` for the first device of that type.
    Name(String),
}

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceChoice::Default => f.write_str("(unset)"),
            DeviceChoice::Index { platform, device } => write!(f, "{platform}:{device}"),
            DeviceChoice::Ordinal(n) => write!(f, "{n}"),
            DeviceChoice::Name(n) => f.write_str(n),
        }
    }
}

/// A generated program's configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Per SCoP (`Some(number)`) or for every SCoP (`None`), outermost tiled dimension first;
    /// none that applies: [`DEFAULT_TILE_SIZE`] everywhere.
    pub tile_sizes: Vec<SizeList>,
    /// SCoPs with fewer points run untiled (the C+OpenMP target; GPU targets always tile);
    /// `None`: the generated program's cost model decides.
    pub min_points: Option<i64>,
    pub profile: bool,
    pub trace: bool,
    pub device: DeviceChoice,
    /// Bytes of local memory per work-group the buffer buckets may use (thesis §6.4: `L_w`);
    /// `None`: what the device offers a work-group (avelas-rt asks it).
    pub local_mem: Option<u64>,
    /// GPU targets: a wavefront of at most this many tiles joins a batch that one work-group
    /// runs in order (`avelas_rt::tile_bucket`); `None`: the device's default.
    pub batch_tiles: Option<u64>,
}

/// A malformed variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub variable: &'static str,
    pub value: String,
    pub expected: &'static str,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}=\"{}\" is malformed: expected {}",
            self.variable, self.value, self.expected
        )
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// The configuration from the process environment. A value that is not text (invalid
    /// UTF-8) is malformed, not unset.
    pub fn from_env() -> Result<Config, ConfigError> {
        for &variable in VARIABLES {
            if let Some(v) = std::env::var_os(variable) {
                if let Err(raw) = v.into_string() {
                    return Err(ConfigError {
                        variable,
                        value: raw.to_string_lossy().into_owned(),
                        expected: "text (this value is not valid UTF-8)",
                    });
                }
            }
        }
        Config::from_vars(|name| std::env::var(name).ok())
    }

    /// The configuration from any source of variables (tests use a map).
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        Ok(Config {
            tile_sizes: tile_size_lists(get("POLYC_TILE_SIZES").as_deref())?,
            min_points: min_points(get("POLYC_MIN_POINTS").as_deref())?,
            profile: switch("POLYC_PROFILE", get("POLYC_PROFILE").as_deref())?,
            trace: switch("POLYC_TRACE", get("POLYC_TRACE").as_deref())?,
            device: device(get("POLYC_DEVICE").as_deref())?,
            local_mem: count(
                "POLYC_LOCAL_MEM",
                LOCAL_MEM_EXPECTED,
                get("POLYC_LOCAL_MEM"),
            )?,
            batch_tiles: count(
                "POLYC_BATCH_TILES",
                BATCH_TILES_EXPECTED,
                get("POLYC_BATCH_TILES"),
            )?,
        })
    }

    /// The list that applies to SCoP `scop`: its own, else the one for every SCoP.
    pub fn sizes_of(&self, scop: usize) -> Option<&[i64]> {
        let find = |key: Option<usize>| {
            self.tile_sizes
                .iter()
                .find(|(s, _)| *s == key)
                .map(|(_, v)| v.as_slice())
        };
        find(Some(scop)).or_else(|| find(None))
    }

    /// The size of SCoP `scop`'s tiled dimension `k`: a shorter list repeats its last value.
    pub fn tile_size(&self, scop: usize, k: usize) -> i64 {
        match self.sizes_of(scop) {
            None => DEFAULT_TILE_SIZE,
            Some(s) => s[k.min(s.len() - 1)],
        }
    }

    /// Where SCoP `scop`'s sizes come from, as the profile line says it.
    pub fn sizes_from(&self, scop: usize) -> &'static str {
        if self.sizes_of(scop).is_some() {
            SIZES_FROM_ENV
        } else {
            SIZES_FROM_DEFAULT
        }
    }
}

/// One list of `POLYC_TILE_SIZES`: the SCoP it is for (`None`: every SCoP) and its sizes.
pub type SizeList = (Option<usize>, Vec<i64>);

/// The profile's `sizes_from=` values.
pub const SIZES_FROM_ENV: &str = "env";
pub const SIZES_FROM_DEFAULT: &str = "default";

/// `POLYC_TILE_SIZES`' value: lists separated by `;`, each `SIZES` (every SCoP, once at most)
/// or `SCOP:SIZES` (that SCoP, once at most), `SCOP` decimal digits up to
/// [`MAX_SCOP_NUMBER`]; unset or empty is no list.
pub fn tile_size_lists(v: Option<&str>) -> Result<Vec<SizeList>, ConfigError> {
    let Some(text) = v.filter(|t| !t.is_empty()) else {
        return Ok(Vec::new());
    };
    let bad = || malformed_tile_sizes(text);
    let mut lists: Vec<SizeList> = Vec::new();
    for entry in text.split(';') {
        let (scop, sizes) = match entry.split_once(':') {
            Some((n, sizes)) => {
                if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad());
                }
                match n.parse::<usize>() {
                    Ok(n) if n <= MAX_SCOP_NUMBER => (Some(n), sizes),
                    _ => return Err(bad()),
                }
            }
            None => (None, entry),
        };
        if sizes.is_empty()
            || lists.len() == MAX_TILE_SIZE_LISTS
            || lists.iter().any(|(s, _)| *s == scop)
        {
            return Err(bad());
        }
        lists.push((scop, tile_sizes(Some(sizes)).map_err(|_| bad())?));
    }
    Ok(lists)
}

fn malformed_tile_sizes(text: &str) -> ConfigError {
    ConfigError {
        variable: "POLYC_TILE_SIZES",
        value: text.to_string(),
        expected: TILE_SIZES_EXPECTED,
    }
}

/// One list of sizes: unset or empty is the empty list (every size the default). polyc's
/// `--fixed-tile-sizes` reads this grammar.
pub fn tile_sizes(v: Option<&str>) -> Result<Vec<i64>, ConfigError> {
    let Some(text) = v.filter(|t| !t.is_empty()) else {
        return Ok(Vec::new());
    };
    let bad = || malformed_tile_sizes(text);
    let sizes = text
        .split(',')
        .map(|s| {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            match s.parse::<i64>() {
                Ok(n) if (1..=MAX_TILE_SIZE).contains(&n) => Ok(n),
                _ => Err(bad()),
            }
        })
        .collect::<Result<Vec<i64>, ConfigError>>()?;
    if sizes.len() > MAX_TILE_SIZES {
        return Err(bad());
    }
    Ok(sizes)
}

fn switch(variable: &'static str, v: Option<&str>) -> Result<bool, ConfigError> {
    match v {
        None | Some("") | Some("0") => Ok(false),
        Some("1") => Ok(true),
        Some(other) => Err(ConfigError {
            variable,
            value: other.to_string(),
            expected: SWITCH_EXPECTED,
        }),
    }
}

fn device(v: Option<&str>) -> Result<DeviceChoice, ConfigError> {
    let Some(text) = v.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(DeviceChoice::Default);
    };
    let bad = || ConfigError {
        variable: "POLYC_DEVICE",
        value: text.to_string(),
        expected: DEVICE_EXPECTED,
    };
    if let Some((p, d)) = text.split_once(':') {
        let (Ok(platform), Ok(device)) = (p.parse(), d.parse()) else {
            return Err(bad());
        };
        return Ok(DeviceChoice::Index { platform, device });
    }
    if text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().map(DeviceChoice::Ordinal).map_err(|_| bad());
    }
    Ok(DeviceChoice::Name(text.to_lowercase()))
}

/// A number of bytes or tiles: decimal digits only, within `u64`; unset or empty: `None`.
fn count(
    variable: &'static str,
    expected: &'static str,
    v: Option<String>,
) -> Result<Option<u64>, ConfigError> {
    let Some(text) = v.filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let bad = || ConfigError {
        variable,
        value: text.clone(),
        expected,
    };
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    text.parse().map(Some).map_err(|_| bad())
}

/// A count: decimal digits only, within `i64`.
fn min_points(v: Option<&str>) -> Result<Option<i64>, ConfigError> {
    let Some(text) = v.filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let digits = text.bytes().all(|b| b.is_ascii_digit());
    match text.parse::<i64>() {
        Ok(n) if digits => Ok(Some(n)),
        _ => Err(ConfigError {
            variable: "POLYC_MIN_POINTS",
            value: text.to_string(),
            expected: MIN_POINTS_EXPECTED,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let m: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_vars(|k| m.get(k).cloned())
    }

    #[test]
    fn tile_sizes_repeat_their_last_value() {
        let c = config(&[("POLYC_TILE_SIZES", "16,32")]).unwrap();
        assert_eq!(
            (c.tile_size(0, 0), c.tile_size(0, 1), c.tile_size(7, 5)),
            (16, 32, 32)
        );
        assert_eq!(config(&[]).unwrap().tile_size(0, 3), DEFAULT_TILE_SIZE);
        assert_eq!(config(&[]).unwrap().sizes_from(0), SIZES_FROM_DEFAULT);
    }

    #[test]
    fn a_scop_may_have_its_own_sizes() {
        let c = config(&[("POLYC_TILE_SIZES", "8;1:16,4;3:5")]).unwrap();
        assert_eq!((c.tile_size(0, 0), c.tile_size(2, 1)), (8, 8));
        assert_eq!(
            (c.tile_size(1, 0), c.tile_size(1, 1), c.tile_size(1, 9)),
            (16, 4, 4)
        );
        assert_eq!(c.tile_size(3, 2), 5);
        assert_eq!(c.sizes_from(2), SIZES_FROM_ENV);
        let c = config(&[("POLYC_TILE_SIZES", "1:16")]).unwrap();
        assert_eq!(
            (c.tile_size(1, 0), c.tile_size(0, 0)),
            (16, DEFAULT_TILE_SIZE)
        );
        assert_eq!(
            (c.sizes_from(1), c.sizes_from(0)),
            (SIZES_FROM_ENV, SIZES_FROM_DEFAULT)
        );
        for bad in [
            ";", "8;", ";8", "8;9", "1:8;1:9", ":8", "1:", "a:8", "-1:8", "10000:8", "1:2:3",
            "1:0", "1;2", "0:8;x",
        ] {
            assert!(config(&[("POLYC_TILE_SIZES", bad)]).is_err(), "{bad}");
        }
        let many: Vec<String> = (0..=MAX_TILE_SIZE_LISTS)
            .map(|i| format!("{i}:2"))
            .collect();
        assert!(config(&[("POLYC_TILE_SIZES", &many.join(";"))]).is_err());
    }

    #[test]
    fn the_message_states_the_largest_size() {
        assert!(TILE_SIZES_EXPECTED.contains(&format!("up to {MAX_TILE_SIZE} ")));
    }

    #[test]
    fn malformed_values_are_errors() {
        for bad in [
            "0",
            "-4",
            "16,",
            ",16",
            "16,,32",
            "abc",
            "1e3",
            "16 32",
            "2000000000",
        ] {
            let e = config(&[("POLYC_TILE_SIZES", bad)]).unwrap_err();
            assert_eq!(e.variable, "POLYC_TILE_SIZES", "{bad}");
        }
        assert!(config(&[("POLYC_PROFILE", "yes")]).is_err());
        for bad in ["-1", "+1", " 1", "1k", "99999999999999999999"] {
            assert!(config(&[("POLYC_MIN_POINTS", bad)]).is_err(), "{bad}");
        }
        assert_eq!(
            config(&[("POLYC_MIN_POINTS", "0")]).unwrap().min_points,
            Some(0)
        );
        assert_eq!(config(&[]).unwrap().min_points, None);
        assert!(config(&[("POLYC_DEVICE", "a:b")]).is_err());
        for bad in ["lots", "-1", "+2048", "2k"] {
            assert!(config(&[("POLYC_LOCAL_MEM", bad)]).is_err(), "{bad}");
        }
        assert_eq!(config(&[]).unwrap().local_mem, None);
        assert_eq!(
            config(&[("POLYC_LOCAL_MEM", "0")]).unwrap().local_mem,
            Some(0)
        );
        for bad in ["many", "-1", "1.5", " 4"] {
            let e = config(&[("POLYC_BATCH_TILES", bad)]).unwrap_err();
            assert_eq!(e.variable, "POLYC_BATCH_TILES", "{bad}");
        }
        assert_eq!(config(&[]).unwrap().batch_tiles, None);
        assert_eq!(
            config(&[("POLYC_BATCH_TILES", "0")]).unwrap().batch_tiles,
            Some(0)
        );
    }

    #[test]
    fn device_choices() {
        let d = |v| config(&[("POLYC_DEVICE", v)]).unwrap().device;
        assert_eq!(
            d("0:1"),
            DeviceChoice::Index {
                platform: 0,
                device: 1
            }
        );
        assert_eq!(d("2"), DeviceChoice::Ordinal(2));
        assert_eq!(d("PThread"), DeviceChoice::Name("pthread".into()));
        assert_eq!(d(""), DeviceChoice::Default);
    }
}
