//! `ember-run`: runs a TorchScript model on the given arguments and prints the result the way
//! Python would. It parses its flags and calls the driver; it holds no logic of its own.

use std::io::Write;
use std::process::ExitCode;

use clap::{Arg, ArgAction, Command};
use ember_compiler::driver::run::{run, RunOptions};

fn command() -> Command {
    Command::new("ember-run")
        .about("Runs a TorchScript model (.pt archive, .py source or .ir graph text) on the given arguments")
        .arg(Arg::new("model").value_name("MODEL").required(true).help("the model: .ir, .py or .pt"))
        .arg(
            Arg::new("args")
                .value_name("ARG")
                .num_args(0..)
                .allow_negative_numbers(true)
                .help("x.npy (tensor), 3, -2 (int), 2.5 (float), true/false, none, [a, b], (a, b), \"text\""),
        )
        .arg(Arg::new("method").long("method").value_name("NAME").help("the method to run of the module: a .pt's, or the nn.Module a .py defines (default: forward)"))
        .arg(Arg::new("entry").long("entry").value_name("FUNC").help("the function of a .py file to run (default: the forward of the nn.Module the file defines, else its last def)"))
        .arg(
            Arg::new("allow-file-ops")
                .long("allow-file-ops")
                .action(ArgAction::SetTrue)
                .help("load .pt code that calls file or process operators (aten::save, aten::from_file, ...)"),
        )
        .arg(
            Arg::new("strict")
                .long("strict")
                .action(ArgAction::SetTrue)
                .help("refuse a model that calls an operator Ember lacks anywhere (by default the model runs, and only reaching such a call is an error)"),
        )
        .arg(Arg::new("out").long("out").value_name("DIR").help("also write DIR/result.json and one .npy per tensor"))
        .arg(
            Arg::new("no-jit")
                .long("no-jit")
                .action(ArgAction::SetTrue)
                .help("run every node in the interpreter (no profiling, no fusion, no compiled kernels)"),
        )
        .arg(
            Arg::new("compile")
                .long("compile")
                .value_name("MODE")
                .value_parser(["whole"])
                .conflicts_with("no-jit")
                .help("whole: compile the whole method in process, as emberc compiles it (control flow and scalars native, pointwise chains fusion groups profiled on this call's inputs, every other op a call into the runtime); inputs its guards refuse run in the interpreter"),
        )
        .arg(
            Arg::new("profiling-runs")
                .long("profiling-runs")
                .value_name("N")
                .value_parser(clap::value_parser!(usize))
                .help("calls profiled before the graph is specialized and fused (default 1, as PyTorch)"),
        )
        .arg(
            Arg::new("freeze")
                .long("freeze")
                .action(ArgAction::SetTrue)
                .conflicts_with("no-freeze")
                .help("freeze the module method even if it writes attributes (they stay attributes). By default a .pt module's method is frozen (as torch.jit.freeze does: submodule calls inlined, parameters and attributes folded into constants, inference rewrites) when it writes no attribute"),
        )
        .arg(
            Arg::new("no-freeze")
                .long("no-freeze")
                .action(ArgAction::SetTrue)
                .help("do not freeze the module method"),
        )
        .arg(
            Arg::new("eval")
                .long("eval")
                .action(ArgAction::SetTrue)
                .help("put the module in eval mode first (training false in it and its submodules), as module.eval() does: a module a .py defines is constructed in training mode, as M() is"),
        )
        .arg(
            Arg::new("print-optimized-graph")
                .long("print-optimized-graph")
                .action(ArgAction::SetTrue)
                .help("print the graph that ran last to stderr (after profiling, fusion and guards, as torch.jit.last_executed_optimized_graph() prints it; with --no-jit, the optimized graph; with --compile=whole, the graph compiled)"),
        )
        .arg(
            Arg::new("bench")
                .long("bench")
                .value_name("N")
                .value_parser(clap::value_parser!(usize))
                .help("time N calls after warm-up and report the time per call on stderr, and separately the first call (profiling and compiling)"),
        )
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
    let options = RunOptions {
        model: m.get_one::<String>("model").unwrap().clone(),
        method: m.get_one::<String>("method").cloned(),
        entry: m.get_one::<String>("entry").cloned(),
        args: m
            .get_many::<String>("args")
            .map(|v| v.cloned().collect())
            .unwrap_or_default(),
        out: m.get_one::<String>("out").map(Into::into),
        bench: m.get_one::<usize>("bench").copied(),
        allow_file_ops: m.get_flag("allow-file-ops"),
        freeze: if m.get_flag("freeze") {
            Some(true)
        } else if m.get_flag("no-freeze") {
            Some(false)
        } else {
            None
        },
        eval: m.get_flag("eval"),
        print_optimized_graph: m.get_flag("print-optimized-graph"),
        strict: m.get_flag("strict"),
        jit: !m.get_flag("no-jit"),
        profiling_runs: m.get_one::<usize>("profiling-runs").copied(),
        compile_whole: m.get_one::<String>("compile").is_some_and(|c| c == "whole"),
    };
    match run(&options) {
        Ok(output) => {
            // A closed pipe (`| head`) is not an error worth a panic.
            let _ = std::io::stdout().write_all(output.stdout.as_bytes());
            let _ = std::io::stderr().write_all(output.stderr.as_bytes());
            ExitCode::SUCCESS
        }
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "ember-run: error: {message}");
            ExitCode::FAILURE
        }
    }
}
