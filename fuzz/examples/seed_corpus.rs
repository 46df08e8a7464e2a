//! Writes the seed corpora of the fuzz targets into `DIR/<target>/` (scripts/fuzz.sh):
//! the suite's preprocessed kernels for `front_end`, sample values and a tuning file for
//! `config_values`, a few generator seeds for `whole_compiler`.

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: seed_corpus DIR");
        std::process::exit(2);
    };
    let write = |target: &str, name: &str, bytes: &[u8]| -> std::io::Result<()> {
        let d = dir.join(target);
        std::fs::create_dir_all(&d)?;
        std::fs::write(d.join(name), bytes)
    };
    let seeds = polyc_fuzz::suite_seeds();
    for (name, text) in &seeds {
        write("front_end", name, text)?;
        write("syntax", name, text)?;
    }
    for (i, v) in polyc_fuzz::CONFIG_SEEDS.iter().enumerate() {
        write("config_values", &format!("seed-{i}"), v.as_bytes())?;
    }
    for seed in 0u64..16 {
        let mut bytes = seed.to_le_bytes().to_vec();
        bytes.push((seed * 37) as u8);
        write("whole_compiler", &format!("seed-{seed}"), &bytes)?;
    }
    println!(
        "{} front-end seeds, {} config seeds, 16 program seeds in {}",
        seeds.len(),
        polyc_fuzz::CONFIG_SEEDS.len(),
        dir.display()
    );
    Ok(())
}
