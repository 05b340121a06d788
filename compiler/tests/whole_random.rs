//! Random TorchScript programs (random_programs.rs, fixed seed) compiled whole and run in
//! process against the interpreter. `EMBER_WHOLE_RANDOM_PROGRAMS=N` runs more programs (and
//! `EMBER_WHOLE_RANDOM_SEED` another seed).

use crate::jit_support::Rng;
use crate::random_programs::{check_program, input_tensor, outcome, Gen};

use ember_compiler::codegen::whole;
use ember_compiler::model::Model;
use ember_runtime::ivalue::IValue;

#[test]
fn random_programs_compiled_whole_agree_with_the_interpreter() {
    let count: u64 = std::env::var("EMBER_WHOLE_RANDOM_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    let seed: u64 = std::env::var("EMBER_WHOLE_RANDOM_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(14);
    let (mut runs, mut errors, mut problems) = (0, 0, Vec::new());
    for p in 0..count {
        let source = Gen::program(Rng::new(seed.wrapping_mul(1000).wrapping_add(p)));
        match check_program(&source) {
            Ok((r, e)) => {
                runs += r;
                errors += e;
            }
            Err(e) => problems.push(format!("program {p}: {e}\n{source}")),
        }
    }
    println!("{count} random programs, {runs} calls compiled and interpreted ({errors} raised)");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    assert!(
        errors > 0 && errors < runs,
        "{errors} of {runs} calls raised"
    );
}

/// One compiled model called from four threads at once gives every thread the results it gives
/// alone (each call has its own registers; operators are built once and shared).
#[test]
fn compiled_models_run_concurrently() {
    let x = input_tensor();
    for p in 0..10 {
        let source = Gen::program(Rng::new(7000 + p));
        let mut model = Model::from_source("random.py", &source).unwrap();
        let (graph, is_method) = whole::method_graph(&mut model, "prog").unwrap();
        let program = whole::prepare(&graph, is_method, &[], &[]).unwrap();
        let compiled = whole::compile_in_process(&program).unwrap();
        let call = |a: i64| {
            let inputs = vec![
                IValue::Tensor(x.clone()),
                IValue::Int(a),
                IValue::Int(a - 3),
                IValue::Double(a as f64 * 0.25),
            ];
            outcome(compiled.run(inputs))
        };
        let alone: Vec<String> = (0..8).map(call).collect();
        std::thread::scope(|s| {
            let threads: Vec<_> = (0..4)
                .map(|t| {
                    s.spawn(move || {
                        (0..50)
                            .map(|i| ((i + t) % 8) as i64)
                            .map(|a| (a, call(a)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            for t in threads {
                for (a, got) in t.join().unwrap() {
                    assert_eq!(got, alone[a as usize], "program {p}, a = {a}\n{source}");
                }
            }
        });
    }
}
