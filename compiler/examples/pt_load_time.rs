//! Times `import::load_module` on `.pt` archives: `pt_load_time N FILE...` loads each file N
//! times (after one warm-up load) and prints, per file, the median and the fastest load in
//! milliseconds, as `name<TAB>median_ms<TAB>min_ms`. tools/bench/pt_load.sh runs it beside
//! torch.jit.load.

use std::time::Instant;

use ember_compiler::import::{load_module, LoadOptions};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(n), files) = (
        args.first().and_then(|a| a.parse::<usize>().ok()),
        &args[1.min(args.len())..],
    ) else {
        eprintln!("usage: pt_load_time N FILE...");
        std::process::exit(2);
    };
    if n == 0 || files.is_empty() {
        eprintln!("usage: pt_load_time N FILE...");
        std::process::exit(2);
    }
    for path in files {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("pt_load_time: cannot read {path}: {e}");
                std::process::exit(1);
            }
        };
        let opts = LoadOptions::default();
        if let Err(e) = load_module(&bytes, &opts) {
            eprintln!("pt_load_time: {path}: {e}");
            std::process::exit(1);
        }
        let mut times: Vec<f64> = (0..n)
            .map(|_| {
                let start = Instant::now();
                let module = load_module(&bytes, &opts).expect("loaded once already");
                let ms = start.elapsed().as_secs_f64() * 1e3;
                drop(module);
                ms
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let name = std::path::Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        println!("{name}\t{:.1}\t{:.1}", times[n / 2], times[0]);
    }
}
