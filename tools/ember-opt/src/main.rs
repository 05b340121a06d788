//! `ember-opt`: runs passes over TorchScript graphs, like `opt` and `mlir-opt`.
//! It registers the passes as flags and calls the driver; it holds no logic of its own.

use std::io::{Read, Write};
use std::process::ExitCode;

use clap::{Arg, ArgAction, Command};
use ember_compiler::driver::opt::{run, run_archive, run_source_to_archive, Emit, OptOptions};
use ember_compiler::passes::{self, PassConfig, PASSES};

fn command() -> Command {
    let mut cmd = Command::new("ember-opt")
        .about("Runs passes over TorchScript graphs (.ir graph text) and prints the result")
        .arg(
            Arg::new("input")
                .value_name("INPUT")
                .default_value("-")
                .help("input file, or - for stdin"),
        )
        .arg(
            Arg::new("output")
                .short('o')
                .value_name("OUT")
                .help("output file (default: stdout)"),
        )
        .arg(
            Arg::new("pass-pipeline")
                .long("pass-pipeline")
                .value_name("PASS,PASS,...")
                .action(ArgAction::Append)
                .help("passes to run, in order, separated by commas"),
        )
        .arg(flag(
            "split-input-file",
            "process chunks separated by `// -----` or `# -----` independently",
        ))
        .arg(flag(
            "verify-diagnostics",
            "check errors against expected-error comments",
        ))
        .arg(flag(
            "print-ir-after-all",
            "print the graph to stderr after every pass",
        ))
        .arg(flag(
            "freeze",
            "freeze a .pt module's forward as torch.jit.freeze does (submodule calls inlined, parameters and attributes folded into constants, inference rewrites) and print it",
        ))
        .arg(flag(
            "eval",
            "put the module (a .pt's, or the one a .py defines, with -o OUT.pt) in eval mode first, as module.eval() does",
        ))
        .arg(flag(
            "print-alias-db",
            "after the output, print what alias analysis finds: each value's memory locations and what each node writes",
        ))
        .arg(flag(
            "check-ops",
            "list the operators the input calls that Ember cannot run, instead of printing it",
        ))
        .arg(flag(
            "strict",
            "refuse an input that calls an operator Ember cannot run (node, location, schema)",
        ))
        .arg(flag(
            "no-verify",
            "do not run the verifier after parsing and after every pass",
        ))
        .arg(
            Arg::new("emit")
                .long("emit")
                .value_name("KIND")
                .default_value("ir")
                .value_parser(["ir", "code", "dot", "mlir", "llvm", "ptx"])
                .help("what to print"),
        );
    for pass in PASSES {
        cmd = cmd.arg(
            Arg::new(pass.name)
                .long(pass.name)
                .action(ArgAction::Count)
                .help(pass.description),
        );
    }
    cmd
}

fn flag(name: &'static str, help: &'static str) -> Arg {
    Arg::new(name)
        .long(name)
        .action(ArgAction::SetTrue)
        .help(help)
}

/// The passes in command-line order: individual flags and pipeline entries interleave by
/// their positions.
fn pass_order(m: &clap::ArgMatches) -> Result<Vec<&'static passes::PassInfo>, String> {
    let mut ordered: Vec<(usize, &'static passes::PassInfo)> = Vec::new();
    for pass in PASSES {
        // A count flag always has a value (0 by default); only flags given on the command line
        // name a pass.
        if m.value_source(pass.name) != Some(clap::parser::ValueSource::CommandLine) {
            continue;
        }
        if let Some(indices) = m.indices_of(pass.name) {
            ordered.extend(indices.map(|i| (i, pass)));
        }
    }
    if let (Some(values), Some(indices)) = (
        m.get_many::<String>("pass-pipeline"),
        m.indices_of("pass-pipeline"),
    ) {
        for (pipeline, index) in values.zip(indices) {
            for name in pipeline.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                let pass = passes::lookup(name)
                    .ok_or_else(|| format!("unknown pass '{name}' in --pass-pipeline"))?;
                // Entries of one pipeline share its position; the stable sort keeps their order.
                ordered.push((index, pass));
            }
        }
    }
    ordered.sort_by_key(|(i, _)| *i);
    Ok(ordered.into_iter().map(|(_, p)| p).collect())
}

/// Whether `-o PATH` names an archive (written by the driver, not as text).
fn options_wrote_archive(path: &str) -> bool {
    path.ends_with(".pt")
}

fn main() -> ExitCode {
    let m = match command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match real_main(&m) {
        Ok(code) => code,
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "ember-opt: error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn real_main(m: &clap::ArgMatches) -> Result<ExitCode, String> {
    let input = m.get_one::<String>("input").unwrap().clone();
    let is_archive = input.ends_with(".pt");
    // A .py's module is constructed only to be written (`-o OUT.pt`).
    let writes_module = input.ends_with(".py")
        && m.get_one::<String>("output")
            .is_some_and(|o| o.ends_with(".pt"));
    for flag in ["freeze", "eval"] {
        if m.get_flag(flag) && !is_archive && !writes_module {
            return Err(format!(
                "{input}: --{flag} needs a module: a .pt archive, or a .py written with -o OUT.pt"
            ));
        }
    }
    let mut archive = Vec::new();
    let text = if input == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("reading stdin: {e}"))?;
        s
    } else {
        let bytes = std::fs::read(&input).map_err(|e| format!("cannot read '{input}': {e}"))?;
        if is_archive {
            archive = bytes;
            String::new()
        } else {
            String::from_utf8(bytes).map_err(|e| {
                format!(
                    "{input}: input is not UTF-8 (byte {})",
                    e.utf8_error().valid_up_to()
                )
            })?
        }
    };
    let options = OptOptions {
        input_name: input,
        passes: pass_order(m)?,
        split_input_file: m.get_flag("split-input-file"),
        verify_diagnostics: m.get_flag("verify-diagnostics"),
        print_ir_after_all: m.get_flag("print-ir-after-all"),
        verify_each: !m.get_flag("no-verify"),
        emit: Emit::parse(m.get_one::<String>("emit").unwrap()).unwrap(),
        config: PassConfig::from_env()?,
        print_alias_db: m.get_flag("print-alias-db"),
        freeze: m.get_flag("freeze"),
        eval: m.get_flag("eval"),
        check_ops: m.get_flag("check-ops"),
        strict: m.get_flag("strict"),
        archive_out: m
            .get_one::<String>("output")
            .filter(|o| o.ends_with(".pt"))
            .map(Into::into),
    };
    let result = if is_archive {
        run_archive(&options, &archive)
    } else if let Some(out) = &options.archive_out {
        run_source_to_archive(&options, &text, out)
    } else {
        run(&options, &text)
    };
    let _ = std::io::stderr().write_all(result.errors.as_bytes());
    match m.get_one::<String>("output") {
        // Written already, as an archive.
        Some(path) if options_wrote_archive(path) => {}
        Some(path) if path != "-" => std::fs::write(path, &result.output)
            .map_err(|e| format!("cannot write '{path}': {e}"))?,
        // A closed pipe (`| head`) is not an error worth a panic.
        _ => {
            let _ = std::io::stdout().write_all(result.output.as_bytes());
        }
    }
    Ok(if result.failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
