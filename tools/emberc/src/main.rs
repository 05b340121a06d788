//! `emberc MODEL -o OUT ...`: see the crate documentation (lib.rs) for the options.

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(emberc::main_with(&argv, ember_dialects::parse::parse_graph));
}
