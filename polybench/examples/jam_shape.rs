//! Prints the random program of jammed-rows shape of a seed (`polybench::jam_shapes`), or with
//! `--folds` of folded jammed-rows shape (`polybench::fold_shapes`), for
//! `scripts/jam-shapes.sh`:
//!
//!     cargo run --release -p polybench --example jam_shape -- SEED [--folds]

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seed = args.first().and_then(|s| s.parse::<u64>().ok());
    let folds = match args.get(1).map(String::as_str) {
        None => false,
        Some("--folds") => true,
        Some(_) => usage(),
    };
    let Some(seed) = seed.filter(|_| args.len() <= 2) else {
        usage()
    };
    if folds {
        print!("{}", polybench::fold_shapes::program(seed));
    } else {
        print!("{}", polybench::jam_shapes::program(seed));
    }
}

fn usage() -> ! {
    eprintln!("usage: jam_shape SEED [--folds] (SEED a non-negative integer)");
    std::process::exit(2);
}
