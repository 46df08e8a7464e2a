//! Print the random affine program of a seed: `cargo run -p polybench --example random_program -- 35`;
//! with `--main` after the seed, the program with the `main` the random-program tests run; with
//! `--all` too, with every construct the differential test draws (`random::Features::ALL`).
use polybench::random::{self, Features};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seed = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let has = |flag: &str| args.iter().skip(2).any(|a| a == flag);
    let features = if has("--all") {
        Features::ALL
    } else {
        Features::BASE
    };
    if has("--main") {
        print!("{}", random::program_with_main_of(seed, features));
    } else {
        print!("{}", random::program_with(seed, features));
    }
}
