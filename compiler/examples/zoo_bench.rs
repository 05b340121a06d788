//! Times one zoo model in Ember: `zoo_bench LOADS CALLS MODEL.pt INPUTS.npz SPEC` loads the
//! archive LOADS times (after one warm-up load) and calls `forward` CALLS times (after three
//! warm-up calls) on the npz's `input_N` tensors, arranged by SPEC (`T,T` two tensors, `[T]` a
//! list of one), on the kernel pool as ember-run runs it. Prints
//! `load_median_ms<TAB>load_min_ms<TAB>call_median_ms<TAB>call_min_ms`, or `error: ...`.
//! tools/bench/zoo.py runs it beside torch.jit.load and the loaded module's call.

use std::path::Path;
use std::time::Instant;

use ember_compiler::import::{load_module, LoadOptions};
use ember_runtime::ivalue::IValue;
use ember_runtime::npz_case::Arrays;

fn median_min(mut times: Vec<f64>) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[0])
}

fn run(args: &[String]) -> Result<String, String> {
    let [loads, calls, pt, npz, spec] = args else {
        return Err("usage: zoo_bench LOADS CALLS MODEL.pt INPUTS.npz SPEC".into());
    };
    let loads: usize = loads.parse().map_err(|_| "LOADS is not a count")?;
    let calls: usize = calls.parse().map_err(|_| "CALLS is not a count")?;
    if loads == 0 || calls == 0 {
        return Err("LOADS and CALLS must be positive".into());
    }
    let opts = LoadOptions::default();
    let load = || -> Result<_, String> {
        let bytes = ember_compiler::model::read_mapped(pt)?;
        load_module(&bytes, &opts).map_err(|e| format!("{pt}: {e}"))
    };
    load()?;
    let mut load_times = Vec::new();
    for _ in 0..loads {
        let start = Instant::now();
        let module = load()?;
        load_times.push(start.elapsed().as_secs_f64() * 1e3);
        drop(module);
    }
    let module = load()?;
    let arrays = Arrays::load(Path::new(npz))?;
    let mut tensors = (0..).map_while(|i| arrays.get(&format!("input_{i}")).cloned());
    let mut inputs = Vec::new();
    for s in spec.split(',') {
        let t = IValue::Tensor(tensors.next().ok_or("fewer inputs than SPEC names")?);
        inputs.push(if s == "[T]" { IValue::list(vec![t]) } else { t });
    }
    let call_times = {
        for _ in 0..3 {
            module.forward(inputs.clone()).map_err(|e| e.message)?;
        }
        (0..calls)
            .map(|_| {
                let start = Instant::now();
                module.forward(inputs.clone()).map_err(|e| e.message)?;
                Ok(start.elapsed().as_secs_f64() * 1e3)
            })
            .collect::<Result<Vec<f64>, String>>()
    }?;
    let (lm, lmin) = median_min(load_times);
    let (cm, cmin) = median_min(call_times);
    Ok(format!("{lm:.2}\t{lmin:.2}\t{cm:.3}\t{cmin:.3}"))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(line) => println!("{line}"),
        Err(e) => println!("error: {}", e.lines().next().unwrap_or("")),
    }
}
