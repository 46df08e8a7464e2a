//! Print the random affine program of a seed: `cargo run -p polybench --example random_program -- 35`.
fn main() {
    let seed = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    print!("{}", polybench::random::program(seed));
}
