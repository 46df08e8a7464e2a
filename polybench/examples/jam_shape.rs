//! Prints the random program of jammed-rows shape of a seed (`polybench::jam_shapes`), for
//! `scripts/jam-shapes.sh`:
//!
//!     cargo run --release -p polybench --example jam_shape -- SEED

fn main() {
    let seed = std::env::args().nth(1).and_then(|s| s.parse::<u64>().ok());
    let Some(seed) = seed else {
        eprintln!("usage: jam_shape SEED (a non-negative integer)");
        std::process::exit(2);
    };
    print!("{}", polybench::jam_shapes::program(seed));
}
