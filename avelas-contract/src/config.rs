//! The run-time configuration of a generated program, from its environment (design.md):
//! `POLYC_TILE_SIZES`, `POLYC_MIN_POINTS`, `POLYC_DEVICE`, `POLYC_PROFILE`, `POLYC_TRACE`,
//! `POLYC_LOCAL_MEM`. Every value is validated; a malformed one is an error that names the
//! variable and says what was expected. This is the grammar's one statement: avelas-rt parses
//! with it, and the C target's parsers ([`crate::c_config`]) are printed from its constants and
//! checked against it (`tests/runtime_contract.rs`).

use std::fmt;

/// The tile size of every dimension when `POLYC_TILE_SIZES` is unset or empty.
pub const DEFAULT_TILE_SIZE: i64 = 32;
/// The largest tile size accepted.
pub const MAX_TILE_SIZE: i64 = 1_000_000_000;
/// The most values `POLYC_TILE_SIZES` may list (the C target's parser holds as many).
pub const MAX_TILE_SIZES: usize = 64;
/// The variables a generated program reads.
pub const VARIABLES: &[&str] = &[
    "POLYC_TILE_SIZES",
    "POLYC_MIN_POINTS",
    "POLYC_PROFILE",
    "POLYC_TRACE",
    "POLYC_DEVICE",
    "POLYC_LOCAL_MEM",
];

/// What each variable expects, as its error messages say.
pub const TILE_SIZES_EXPECTED: &str = "positive integers separated by commas, e.g. 16,32,32";
pub const MIN_POINTS_EXPECTED: &str = "a number of points, e.g. 0 to always tile";
pub const SWITCH_EXPECTED: &str = "1 to turn it on, 0 or unset to turn it off";
pub const DEVICE_EXPECTED: &str = "PLATFORM:DEVICE indices (0:1), a device number (1), or part of a device name (pthread, nvidia, gpu)";
pub const LOCAL_MEM_EXPECTED: &str = "a number of bytes, e.g. 16384";

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
    /// Outermost tiled dimension first; empty: [`DEFAULT_TILE_SIZE`] everywhere.
    pub tile_sizes: Vec<i64>,
    /// SCoPs with fewer points run untiled (the C+OpenMP target; GPU targets always tile);
    /// `None`: the generated program's cost model decides.
    pub min_points: Option<i64>,
    pub profile: bool,
    pub trace: bool,
    pub device: DeviceChoice,
    /// Bytes of local memory per work-group the buffer buckets may use (thesis §6.4: `L_w`);
    /// `None`: what the device offers a work-group (avelas-rt asks it).
    pub local_mem: Option<u64>,
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
            tile_sizes: tile_sizes(get("POLYC_TILE_SIZES").as_deref())?,
            min_points: min_points(get("POLYC_MIN_POINTS").as_deref())?,
            profile: switch("POLYC_PROFILE", get("POLYC_PROFILE").as_deref())?,
            trace: switch("POLYC_TRACE", get("POLYC_TRACE").as_deref())?,
            device: device(get("POLYC_DEVICE").as_deref())?,
            local_mem: local_mem(get("POLYC_LOCAL_MEM").as_deref())?,
        })
    }

    /// The size of tiled dimension `k`: a shorter list repeats its last value.
    pub fn tile_size(&self, k: usize) -> i64 {
        match self.tile_sizes.as_slice() {
            [] => DEFAULT_TILE_SIZE,
            s => s[k.min(s.len() - 1)],
        }
    }
}

/// `POLYC_TILE_SIZES`' value: unset or empty is the empty list (every size the default).
/// polyc's `--fixed-tile-sizes` reads the same grammar.
pub fn tile_sizes(v: Option<&str>) -> Result<Vec<i64>, ConfigError> {
    let Some(text) = v.filter(|t| !t.is_empty()) else {
        return Ok(Vec::new());
    };
    let bad = || ConfigError {
        variable: "POLYC_TILE_SIZES",
        value: text.to_string(),
        expected: TILE_SIZES_EXPECTED,
    };
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

fn local_mem(v: Option<&str>) -> Result<Option<u64>, ConfigError> {
    let Some(text) = v.filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ConfigError {
            variable: "POLYC_LOCAL_MEM",
            value: text.to_string(),
            expected: LOCAL_MEM_EXPECTED,
        });
    }
    text.parse().map(Some).map_err(|_| ConfigError {
        variable: "POLYC_LOCAL_MEM",
        value: text.to_string(),
        expected: LOCAL_MEM_EXPECTED,
    })
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
            (c.tile_size(0), c.tile_size(1), c.tile_size(5)),
            (16, 32, 32)
        );
        assert_eq!(config(&[]).unwrap().tile_size(3), DEFAULT_TILE_SIZE);
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
