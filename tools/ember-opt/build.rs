// ember-opt is linked as a position-dependent executable: as a PIE, the loader applies about
// 290,000 relocations (LLVM's and MLIR's tables) at every start, most of a trivial run's time.
fn main() {
    println!("cargo:rustc-link-arg-bins=-no-pie");
}
