use ember_runtime::interpreter::{run, Code};
use ember_runtime::ivalue::IValue;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let g = ember_dialects::parse::parse_graph(&std::fs::read_to_string(&a[1]).unwrap()).unwrap();
    let code = Code::new(&g).unwrap();
    let n: i64 = a[2].parse().unwrap();
    let calls: usize = a[3].parse().unwrap();
    let mut t = Vec::new();
    let mut out = None;
    for _ in 0..calls {
        let s = std::time::Instant::now();
        out = Some(run(&code, vec![IValue::Int(n)]).unwrap());
        t.push(s.elapsed().as_secs_f64());
    }
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{} median {:.1} ns/iter min {:.1}",
        ember_runtime::repr::repr(&out.unwrap()[0]),
        t[calls / 2] * 1e9 / n as f64,
        t[0] * 1e9 / n as f64
    );
}
