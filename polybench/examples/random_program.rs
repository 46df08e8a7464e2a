//! Print the random affine program of a seed: `cargo run -p polybench --example random_program -- 35`;
//! with `--main` after the seed, the program with the `main` the random-program tests run.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seed = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    if args.get(2).map(String::as_str) == Some("--main") {
        print!("{}", polybench::random::program_with_main(seed));
    } else {
        print!("{}", polybench::random::program(seed));
    }
}
