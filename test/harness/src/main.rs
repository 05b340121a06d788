//! `ember-lit [-j N] [--timeout SECS] [-v] [--no-build] [PATHS...]`: runs the lit-style tests
//! under PATHS (default: the repository's `test/`) with the Ember tools built next to this
//! binary. Run by cargo (`cargo run -p ember-lit`), it first builds those tools.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use ember_lit::build::build_tools;
use ember_lit::config::default_test_root;
use ember_lit::{find_tests, run_tests, Config};

const USAGE: &str = "usage: ember-lit [-j N] [--timeout SECS] [-v] [--no-build] [PATHS...]
  Runs the RUN lines of every test file under PATHS (default: the repository's test/) with
  the tools next to ember-lit; run by cargo, it first builds them (cargo build --bins).
  -j N            run N test files at once (default: the number of cores)
  --timeout SECS  time limit per test file (default: 120)
  -v              also list the tests that pass
  --no-build      do not build the tools first";

struct Args {
    paths: Vec<PathBuf>,
    jobs: Option<usize>,
    timeout: Option<Duration>,
    verbose: bool,
    no_build: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        paths: Vec::new(),
        jobs: None,
        timeout: None,
        verbose: false,
        no_build: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut number = |name: &str, inline: Option<&str>| -> Result<u64, String> {
            let text = match inline {
                Some(t) => t.to_string(),
                None => it.next().ok_or_else(|| format!("{name} needs a number"))?,
            };
            text.parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("{name}: not a positive number: {text}"))
        };
        match arg.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "-v" | "--verbose" => args.verbose = true,
            "--no-build" => args.no_build = true,
            "-j" | "--jobs" => args.jobs = Some(number("-j", None)? as usize),
            "--timeout" => args.timeout = Some(Duration::from_secs(number("--timeout", None)?)),
            _ if arg.starts_with("-j") && arg.len() > 2 => {
                args.jobs = Some(number("-j", Some(&arg[2..]))? as usize)
            }
            _ if arg.starts_with("--timeout=") => {
                args.timeout = Some(Duration::from_secs(number("--timeout", Some(&arg[10..]))?))
            }
            _ if arg.starts_with('-') && arg != "-" => return Err(format!("unknown option {arg}")),
            _ => args.paths.push(PathBuf::from(arg)),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("ember-lit: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(if e.is_empty() { 0 } else { 2 });
        }
    };
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(PathBuf::from));
    let exe_dir = exe_dir.unwrap_or_else(|| PathBuf::from("."));
    // `cargo run` sets CARGO: build the tools it would otherwise leave stale.
    if let (false, Some(cargo)) = (args.no_build, std::env::var_os("CARGO")) {
        if let Err(e) = build_tools(&cargo, &exe_dir) {
            eprintln!("ember-lit: {e}");
            return ExitCode::FAILURE;
        }
    }
    let mut cfg = Config::for_profile_dir(&exe_dir);
    if let Some(j) = args.jobs {
        cfg.jobs = j;
    }
    if let Some(t) = args.timeout {
        cfg.timeout = t;
    }
    let roots = if args.paths.is_empty() {
        vec![default_test_root()]
    } else {
        args.paths
    };
    let tests = match find_tests(&roots) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ember-lit: {e}");
            return ExitCode::FAILURE;
        }
    };
    if tests.is_empty() {
        let shown: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
        eprintln!("ember-lit: no test files found in {}", shown.join(" "));
        return ExitCode::FAILURE;
    }
    let summary = run_tests(&cfg, &tests, |r| {
        if args.verbose && r.passed() {
            println!("PASS: {}", r.shown);
        }
    });
    print!("{}", summary.report());
    if summary.failed() > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
