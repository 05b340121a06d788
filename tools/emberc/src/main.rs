//! `emberc MODEL -o OUT ...`: see `ember_compiler::driver::emberc` for the options.

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(ember_compiler::driver::emberc::main_with(&argv));
}
