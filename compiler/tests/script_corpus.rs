//! The TorchScript frontend conformance corpus: test/script/<group>/<case>.py with what PyTorch
//! made of it beside it (tools/gen/gen_script_corpus.py): `.graph` (str(graph) of the entry, the
//! file's last top-level def), `.code`, `.npz` / `.runN.npz` (inputs and outputs, the encoding
//! of ember_runtime::npz_case), or `.error` for programs PyTorch refuses.
//!
//! For each case:
//! - Ember's frontend (`frontend::compile_source`) must compile the file, and the entry's graph
//!   must equal PyTorch's after both are put in normal form (frontend::normalize: source
//!   ranges stripped, DCE, constant pooling, canonical value numbers, class names without
//!   PyTorch's module path) ("graphs equal");
//! - Ember's compiled entry must run to PyTorch's outputs on every run, calls and objects
//!   resolved through its compilation unit ("runs equal");
//! - for a `.error` case, compiling must fail, and the first line of PyTorch's message must be
//!   part of Ember's ("errors");
//! - PyTorch's graph must parse, and it must run to PyTorch's outputs in the interpreter, the
//!   functions and classes it names taken from Ember's unit and Ember's function constants
//!   ("reference runs");
//! - its `.code` must be what Ember's Python printer prints for PyTorch's graph, with the
//!   signature from `.schema` ("code");
//! - the code Ember prints for PyTorch's graph must compile with Ember's frontend and run to
//!   PyTorch's outputs ("printed code reads back").
//!
//! Every case that fails a check is listed in test/script/expected-failures.txt
//! (`group/case: reason`); the test fails only for failures not listed there, and names the
//! listed cases that pass now. `EMBER_SCRIPT_FILTER=substring` runs only the cases whose path
//! contains it; `EMBER_SCRIPT_SHOW=substring` prints both normalized graphs of those cases;
//! `EMBER_SCRIPT_VERBOSE=1` prints every failure, listed or not; `EMBER_SCRIPT_ROOT=dir` reads
//! another corpus laid out the same way (its expected failures from `dir/expected-failures.txt`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ember_compiler::frontend::normalize::{normalized_text, strip_module_path};
use ember_compiler::frontend::python_print::{print_function, print_function_in};
use ember_compiler::frontend::{compile_into, compile_source};
use ember_dialects::attr::AttrValue;
use ember_dialects::schema::parse_function_schema;
use ember_dialects::symbol::sym;
use ember_dialects::{Graph, Symbol, Type};
use ember_runtime::interpreter::{run, Code, RuntimeError};
use ember_runtime::ivalue::IValue;
use ember_runtime::npz_case::{check_result, Arrays};
use ember_runtime::tensor::Tensor;
use ember_runtime::unit::CompilationUnit;

fn corpus_dir() -> PathBuf {
    std::env::var("EMBER_SCRIPT_ROOT").map_or_else(
        |_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/script"),
        PathBuf::from,
    )
}

/// One case of the corpus.
struct Case {
    /// `group/name`.
    id: String,
    /// The `.py` file.
    py: PathBuf,
    /// The module name PyTorch saw (`case_<group>_<name>`), whose path qualifies its classes.
    module: String,
}

impl Case {
    /// The file name diagnostics show: repo-relative, as in PyTorch's messages.
    fn display_name(&self) -> String {
        format!("test/script/{}.py", self.id)
    }

    fn sibling(&self, ext: &str) -> PathBuf {
        self.py.with_extension(ext)
    }

    /// The npz files of the case's runs, first run first.
    fn runs(&self) -> Vec<PathBuf> {
        let mut runs = Vec::new();
        let first = self.sibling("npz");
        if first.exists() {
            runs.push(first);
            while let Some(p) =
                Some(self.sibling(&format!("run{}.npz", runs.len()))).filter(|p| p.exists())
            {
                runs.push(p);
            }
        }
        runs
    }

    /// PyTorch's text `ext` with the module path stripped from qualified names.
    fn pytorch_text(&self, ext: &str) -> Result<String, String> {
        let path = self.sibling(ext);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(strip_module_path(&text, &self.module))
    }
}

fn cases() -> Vec<Case> {
    let filter = std::env::var("EMBER_SCRIPT_FILTER").unwrap_or_default();
    let root = corpus_dir();
    let mut out: Vec<Case> = walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .filter_map(|py| {
            let rel = py.strip_prefix(&root).ok()?.with_extension("");
            let id = rel.to_string_lossy().replace('\\', "/");
            let module = format!("case_{}", id.replace('/', "_"));
            Some(Case { id, py, module })
        })
        .filter(|c| c.id.contains(&filter))
        .collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// The cases with runs that are not expected to fail, with their source and entry def.
fn runnable_cases() -> Vec<(Case, String, String)> {
    let expected = expected_failures();
    cases()
        .into_iter()
        .filter(|c| !expected.contains_key(&c.id) && !c.runs().is_empty())
        .filter_map(|c| {
            let source = std::fs::read_to_string(&c.py).expect("readable case");
            let entry = entry_name(&source)?;
            Some((c, source, entry))
        })
        .collect()
}

/// The name of the last top-level def of a source file: the case's entry point.
fn entry_name(source: &str) -> Option<String> {
    source
        .lines()
        .filter_map(|l| l.strip_prefix("def "))
        .filter_map(|rest| rest.split('(').next())
        .map(|name| name.trim().to_string())
        .next_back()
}

/// The cases expected to fail, with the reason for each.
fn expected_failures() -> BTreeMap<String, String> {
    expected_list(&corpus_dir().join("expected-failures.txt"))
}

/// `id: reason` lines (comments with `#`), by id; a missing file is an empty list.
fn expected_list(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(':'))
        .map(|(id, why)| (id.trim().to_string(), why.trim().to_string()))
        .collect()
}

/// The outcome of one check of one case: `None` when it was not applicable.
type Check = Option<Result<(), String>>;

#[derive(Default)]
struct Outcome {
    graph: Check,
    runs: Check,
    error: Check,
    reference_parse: Check,
    reference_runs: Check,
    code: Check,
    code_reads_back: Check,
}

impl Outcome {
    fn failures(&self) -> Vec<String> {
        [
            ("graph", &self.graph),
            ("run", &self.runs),
            ("error", &self.error),
            ("PyTorch's graph", &self.reference_parse),
            ("reference run", &self.reference_runs),
            ("code", &self.code),
            ("code read back", &self.code_reads_back),
        ]
        .into_iter()
        .filter_map(|(what, c)| match c {
            Some(Err(m)) => Some(format!("{what}: {m}")),
            _ => None,
        })
        .collect()
    }
}

/// Runs PyTorch's graph on every run of the case and compares with PyTorch's results. The
/// graph names its callees and classes; their bodies come from Ember's unit and from the
/// function constants of Ember's graph (F.*, static methods).
fn check_reference_runs(
    case: &Case,
    reference: &Graph,
    ember: Option<&(Arc<CompilationUnit>, Graph)>,
    name: &str,
) -> Result<(), String> {
    let mut graph = reference.clone();
    if let Some((_, ember_graph)) = ember {
        borrow_callee_bodies(&mut graph, ember_graph);
    }
    let code =
        Code::build(&graph, ember.map(|(unit, _)| unit), name).map_err(|e| format!("load: {e}"))?;
    check_code_runs(case, &graph, &code)
}

/// Gives each function constant of `reference` that carries no body (`prim::Constant[name=
/// "relu"]`) the body of the constant of the same name in `ember` (its `attr::Subgraph`).
fn borrow_callee_bodies(reference: &mut Graph, ember: &Graph) {
    let name_of = |g: &Graph, n| match g.attr(n, Symbol::new("attr::name")) {
        Some(AttrValue::Str(s)) if g.kind(n) == sym::constant() => Some(s.clone()),
        _ => None,
    };
    let bodies: BTreeMap<String, AttrValue> = ember
        .nodes()
        .into_iter()
        .filter_map(|n| {
            Some((
                name_of(ember, n)?,
                ember.attr(n, sym::attr_subgraph())?.clone(),
            ))
        })
        .collect();
    for n in reference.nodes() {
        if reference.attr(n, sym::attr_subgraph()).is_some() {
            continue;
        }
        if let Some(body) = name_of(reference, n).and_then(|name| bodies.get(&name)) {
            reference.set_attr(n, sym::attr_subgraph(), body.clone());
        }
    }
}

/// Gives PyTorch's graph the qualified names its text leaves out, which the printer needs:
/// function constants print only their short name (`prim::Constant[name="relu"]`), and
/// NamedTuple types only their fields (`NamedTuple(x : int, y : int)`). They are the names
/// Ember gives the same callee (its constant of that name, when qualified:
/// `__torch__.torch.nn.functional.relu`) and the same type (the unit's NamedTuple of those
/// fields and types); the file's own types move to module `namespace` as PyTorch's do.
fn restore_names(
    reference: &mut Graph,
    (unit, ember): &(Arc<CompilationUnit>, Graph),
    namespace: &str,
) {
    let qualnames: BTreeMap<String, String> = ember
        .nodes()
        .into_iter()
        .filter_map(
            |n| match (constant_name(ember, n)?, ember.ty(ember.output(n, 0))) {
                (name, Type::Function(q)) if q.starts_with("__torch__.") => Some((name, q.clone())),
                _ => None,
            },
        )
        .collect();
    let named: Vec<Type> = unit
        .named_types()
        .into_iter()
        .filter(|t| matches!(t, Type::Tuple(_)))
        .map(|t| in_namespace(t, namespace))
        .collect();
    for n in reference.nodes() {
        if let Some(q) = constant_name(reference, n).and_then(|name| qualnames.get(&name)) {
            let out = reference.output(n, 0);
            if matches!(reference.ty(out), Type::Function(known) if known.is_empty()) {
                reference.set_ty(out, Type::Function(q.clone()));
            }
        }
        for out in reference.node_outputs(n).to_vec() {
            let t = name_tuples(reference.ty(out), &named);
            reference.set_ty(out, t);
        }
        for b in reference.node_blocks(n).to_vec() {
            for v in reference.block_inputs(b).to_vec() {
                let t = name_tuples(reference.ty(v), &named);
                reference.set_ty(v, t);
            }
        }
    }
    for v in reference.inputs().to_vec() {
        let t = name_tuples(reference.ty(v), &named);
        reference.set_ty(v, t);
    }
}

/// The `name` of a function constant.
fn constant_name(g: &Graph, n: ember_dialects::Node) -> Option<String> {
    match g.attr(n, Symbol::new("attr::name")) {
        Some(AttrValue::Str(s)) if g.kind(n) == sym::constant() => Some(s.clone()),
        _ => None,
    }
}

/// A NamedTuple of the file (`__torch__.Point`) under module `namespace`.
fn in_namespace(t: Type, namespace: &str) -> Type {
    match t {
        Type::Tuple(mut tt) => {
            if let Some(info) = tt.names.as_mut() {
                if let Some(name) = info.qualified_name.strip_prefix("__torch__.") {
                    info.qualified_name = format!("{namespace}.{name}");
                }
            }
            Type::Tuple(tt)
        }
        t => t,
    }
}

/// `t` with each NamedTuple that has no qualified name replaced by the one of `named` with
/// the same fields and element types, when there is exactly one.
fn name_tuples(t: &Type, named: &[Type]) -> Type {
    let each = |ts: &[Type]| ts.iter().map(|e| name_tuples(e, named)).collect::<Vec<_>>();
    match t {
        Type::List(e) => Type::list(name_tuples(e, named)),
        Type::Optional(e) => Type::Optional(Box::new(name_tuples(e, named))),
        Type::Dict(k, v) => Type::Dict(
            Box::new(name_tuples(k, named)),
            Box::new(name_tuples(v, named)),
        ),
        Type::Union(ms) => Type::Union(each(ms)),
        Type::Tuple(tt) => {
            let elements = each(&tt.elements);
            let unnamed = tt.names.as_ref().filter(|i| i.qualified_name.is_empty());
            if let Some(info) = unnamed {
                let same = |c: &&Type| match c {
                    Type::Tuple(c) => {
                        c.elements == elements
                            && c.names.as_ref().is_some_and(|ci| ci.fields == info.fields)
                    }
                    _ => false,
                };
                if let [one] = named.iter().filter(same).collect::<Vec<_>>().as_slice() {
                    return (*one).clone();
                }
            }
            let mut tt = tt.clone();
            tt.elements = elements;
            Type::Tuple(tt)
        }
        t => t.clone(),
    }
}

/// Runs the entry of `unit` (its calls, objects and attributes resolved through the unit).
fn check_unit_runs(case: &Case, unit: &Arc<CompilationUnit>, name: &str) -> Result<(), String> {
    let f = unit
        .function(name)
        .ok_or_else(|| format!("the unit has no function {name}"))?;
    let code = f.code(Some(unit)).map_err(|e| format!("load: {e}"))?;
    check_code_runs(case, &f.graph, &code)
}

/// Runs `code` (the code of `graph`) on every run of the case.
fn check_code_runs(case: &Case, graph: &Graph, code: &Code) -> Result<(), String> {
    let types: Vec<_> = graph
        .inputs()
        .iter()
        .map(|&v| graph.ty(v).clone())
        .collect();
    check_calls(&case.runs(), &types, |inputs| run(code, inputs)).map(|_| ())
}

/// Calls `call` with the inputs of each run in `runs` (inputs of types `types`) and checks
/// what it returns against PyTorch's results; the number of calls.
fn check_calls(
    runs: &[PathBuf],
    types: &[Type],
    mut call: impl FnMut(Vec<IValue>) -> Result<Vec<IValue>, RuntimeError>,
) -> Result<usize, String> {
    for npz in runs {
        let name = npz
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let arrays = Arrays::load(npz)?;
        let inputs = arrays.inputs(types).map_err(|e| format!("{name}: {e}"))?;
        let tensor_inputs: Vec<(usize, Tensor)> = inputs
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.as_tensor().map(|t| (i, t.clone())))
            .collect();
        check_result(&arrays, call(inputs), &tensor_inputs).map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(runs.len())
}

/// The first line of PyTorch's error message, as Ember is expected to word it.
fn pytorch_error_line(case: &Case) -> Result<String, String> {
    let text = case.pytorch_text("error")?;
    let first = text.lines().next().unwrap_or_default().trim();
    Ok(first.strip_suffix(':').unwrap_or(first).trim().to_string())
}

fn check_error(case: &Case, source: &str) -> Result<(), String> {
    let want = pytorch_error_line(case)?;
    match compile_source(&case.display_name(), source) {
        Ok(_) => Err(format!("compiles, but PyTorch refuses it: {want}")),
        Err(message) if message.contains(&want) => Ok(()),
        Err(message) => Err(format!(
            "PyTorch says {want:?}, Ember says {:?}",
            message.lines().next().unwrap_or_default()
        )),
    }
}

/// The entry's graph as Ember's frontend compiles it.
/// The unit Ember's frontend compiles for a source text.
fn ember_unit(file_name: &str, source: &str) -> Result<Arc<CompilationUnit>, String> {
    compile_source(file_name, source)
        .map(Arc::new)
        .map_err(|e| format!("does not compile: {}", e.lines().next().unwrap_or_default()))
}

/// The entry's graph as Ember's frontend compiles it, and its unit.
fn ember_graph(case: &Case, source: &str) -> Result<(Arc<CompilationUnit>, Graph), String> {
    let name = entry_name(source).ok_or("no top-level def")?;
    let unit = ember_unit(&case.display_name(), source)?;
    let f = unit
        .function(&name)
        .ok_or_else(|| format!("the unit has no function {name}"))?;
    Ok((unit.clone(), f.graph.clone()))
}

fn compare_graphs(case: &Case, ember: &Graph, reference: &Graph) -> Result<(), String> {
    let (got, want) = (normalized_text(ember)?, normalized_text(reference)?);
    if std::env::var("EMBER_SCRIPT_SHOW").is_ok_and(|v| !v.is_empty() && case.id.contains(&v)) {
        println!(
            "== {} (Ember, normalized)\n{got}== {} (PyTorch, normalized)\n{want}",
            case.id, case.id
        );
    }
    if got == want {
        return Ok(());
    }
    Err(first_difference(&got, &want))
}

fn check_case(case: &Case) -> Outcome {
    let mut out = Outcome::default();
    let source = match std::fs::read_to_string(&case.py) {
        Ok(s) => s,
        Err(e) => {
            out.graph = Some(Err(e.to_string()));
            return out;
        }
    };
    if case.sibling("error").exists() {
        out.error = Some(check_error(case, &source));
        return out;
    }
    let ember = ember_graph(case, &source);
    let name = entry_name(&source).unwrap_or_default();
    let reference = case.pytorch_text("graph").and_then(|text| {
        ember_dialects::parse::parse_graph(&text).map_err(|d| format!("parse: {d}"))
    });
    let reference = match reference {
        Ok(g) => g,
        Err(e) => {
            out.reference_parse = Some(Err(e));
            return out;
        }
    };
    out.reference_parse = Some(normalized_text(&reference).map(|_| ()));
    out.graph = Some(
        ember
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|(_, g)| compare_graphs(case, g, &reference)),
    );
    if !case.runs().is_empty() {
        out.runs = Some(
            ember
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|(unit, _)| check_unit_runs(case, unit, &name)),
        );
    }
    if !case.runs().is_empty() {
        out.reference_runs = Some(check_reference_runs(
            case,
            &reference,
            ember.as_ref().ok(),
            &name,
        ));
    }
    out.code = Some(check_code(case, ember.as_ref().ok()));
    out.code_reads_back = Some(check_code_reads_back(
        case,
        &source,
        &reference,
        ember.as_ref().ok(),
    ));
    out
}

/// Prints PyTorch's graph with Ember's Python printer and compares with PyTorch's `.code`.
///
/// Both keep PyTorch's module path: the printer decides where to split lines by their length.
fn check_code(case: &Case, ember: Option<&(Arc<CompilationUnit>, Graph)>) -> Result<(), String> {
    let source = std::fs::read_to_string(&case.py).map_err(|e| e.to_string())?;
    let name = entry_name(&source).ok_or("no top-level def")?;
    let read = |ext: &str| std::fs::read_to_string(case.sibling(ext)).map_err(|e| e.to_string());
    let mut graph =
        ember_dialects::parse::parse_graph(&read("graph")?).map_err(|d| format!("parse: {d}"))?;
    let schema =
        parse_function_schema(read("schema")?.trim()).map_err(|d| format!("schema: {d}"))?;
    let namespace = format!("__torch__.{}", case.module);
    if let Some(ember) = ember {
        restore_names(&mut graph, ember, &namespace);
    }
    let printed = print_function_in(&graph, &name, Some(&schema), &namespace)?;
    let want = read("code")?;
    if printed == want {
        return Ok(());
    }
    Err(first_difference(&printed, &want))
}

/// Prints PyTorch's graph with Ember's Python printer, compiles the code with Ember's frontend
/// and runs it: the printed code must read back to a graph that computes what PyTorch's does.
fn check_code_reads_back(
    case: &Case,
    source: &str,
    reference: &Graph,
    ember: Option<&(Arc<CompilationUnit>, Graph)>,
) -> Result<(), String> {
    let name = entry_name(source).ok_or("no top-level def")?;
    let schema = parse_function_schema(case.pytorch_text("schema")?.trim())
        .map_err(|d| format!("schema: {d}"))?;
    let mut reference = reference.clone();
    if let Some(ember) = ember {
        restore_names(&mut reference, ember, "__torch__");
    }
    let code = print_function(&reference, &name, Some(&schema))?;
    // The code names the file's other functions and classes (`__torch__.helper`): it reads
    // back into the unit of the file, which it replaces the entry of.
    let unit = ember_unit(&case.display_name(), source)?;
    compile_into(&format!("{}.code", case.display_name()), &code, &unit)
        .map_err(|e| format!("does not compile: {}", e.lines().next().unwrap_or_default()))?;
    if unit.function(&name).is_none() {
        return Err(format!("the printed code defines no {name}"));
    }
    if case.runs().is_empty() {
        return Ok(());
    }
    check_unit_runs(case, &unit, &name)
}

/// The first line where `got` and `want` differ.
fn first_difference(got: &str, want: &str) -> String {
    let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
    let i = (0..g.len().max(w.len()))
        .find(|&i| g.get(i) != w.get(i))
        .unwrap_or(0);
    format!(
        "line {}: printed {:?}, PyTorch {:?}",
        i + 1,
        g.get(i).unwrap_or(&"<end>"),
        w.get(i).unwrap_or(&"<end>")
    )
}

fn count(outcomes: &[(&Case, Outcome)], pick: impl Fn(&Outcome) -> &Check) -> String {
    let applicable: Vec<&Result<(), String>> = outcomes
        .iter()
        .filter_map(|(_, o)| pick(o).as_ref())
        .collect();
    let ok = applicable.iter().filter(|r| r.is_ok()).count();
    format!("{ok}/{}", applicable.len())
}

#[test]
fn script_corpus_matches_pytorch() {
    let cases = cases();
    assert!(
        !cases.is_empty(),
        "no cases under {}",
        corpus_dir().display()
    );
    for c in &cases {
        let source = std::fs::read_to_string(&c.py).expect("readable case");
        assert!(entry_name(&source).is_some(), "{}: no top-level def", c.id);
    }
    let outcomes: Vec<(&Case, Outcome)> = cases
        .iter()
        .map(|c| {
            let o = std::panic::catch_unwind(|| check_case(c)).unwrap_or_else(|_| Outcome {
                graph: Some(Err("panicked".into())),
                ..Outcome::default()
            });
            (c, o)
        })
        .collect();
    let expected = expected_failures();
    let verbose = std::env::var("EMBER_SCRIPT_VERBOSE").is_ok_and(|v| v == "1");
    let mut unexpected = Vec::new();
    let mut fixed = Vec::new();
    for (case, outcome) in &outcomes {
        let failures = outcome.failures();
        match (failures.is_empty(), expected.get(&case.id)) {
            (false, None) => unexpected.push(format!("FAIL {}: {}", case.id, failures.join("; "))),
            (false, Some(_)) if verbose => {
                println!("expected FAIL {}: {}", case.id, failures.join("; "))
            }
            (true, Some(_)) => fixed.push(case.id.clone()),
            _ => {}
        }
    }
    println!(
        "script corpus: {} cases; graphs equal {}, runs equal {}, errors {}; \
         PyTorch graphs parsed {}, reference runs equal {}, code printed equal {}, \
         printed code reads back and runs equal {}",
        cases.len(),
        count(&outcomes, |o| &o.graph),
        count(&outcomes, |o| &o.runs),
        count(&outcomes, |o| &o.error),
        count(&outcomes, |o| &o.reference_parse),
        count(&outcomes, |o| &o.reference_runs),
        count(&outcomes, |o| &o.code),
        count(&outcomes, |o| &o.code_reads_back),
    );
    if !fixed.is_empty() {
        println!(
            "these cases pass now; remove them from test/script/expected-failures.txt:\n  {}",
            fixed.join("\n  ")
        );
    }
    assert!(
        unexpected.is_empty(),
        "{} cases fail and are not in test/script/expected-failures.txt:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
}

/// Every pass alone, then the optimization pipeline ember-run uses, over every function of
/// every program of the corpus (verified after each): the runs give PyTorch's results still.
#[test]
fn passes_keep_script_outputs() {
    use ember_compiler::model::Model;
    use ember_compiler::passes::{lookup, PassContext, OPTIMIZATION_PIPELINE, PASSES};
    const PRE_SSA: &[&str] = &[
        "convert-to-ssa",
        "exit-transform",
        "inline-loop-condition",
        "canonicalize-modified-loops",
    ];
    let mut pipelines: Vec<Vec<&str>> = PASSES
        .iter()
        .filter(|p| !PRE_SSA.contains(&p.name))
        .map(|p| vec![p.name])
        .collect();
    pipelines.push(OPTIMIZATION_PIPELINE.to_vec());
    let (mut runs, mut problems) = (0, Vec::new());
    for (case, source, entry) in runnable_cases() {
        for passes in &pipelines {
            let outcome = (|| -> Result<(), String> {
                let mut model = Model::from_source(&case.display_name(), &source)?;
                model.transform_graphs(&mut |name, g| {
                    for &p in passes {
                        let pass = lookup(p).expect("a pass");
                        (pass.run)(g, &mut PassContext::unlimited(pass.name))?;
                        ember_dialects::verify::verify(g)
                            .map_err(|e| format!("{name} after {p}: {}", e[0].message))?;
                    }
                    Ok(())
                })?;
                check_unit_runs(&case, &model.unit, &entry)
            })();
            runs += 1;
            if let Err(e) = outcome {
                problems.push(format!("{} with {passes:?}: {e}", case.id));
            }
        }
    }
    println!("{runs} runs of script-corpus programs with passes");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every program of the corpus through the profiling executor — profiled once and twice, and
/// with guards failing at random (`EMBER_JIT_CHAOS`) — gives PyTorch's results on every run,
/// on the profiling calls and on the calls of the specialized plan alike.
#[test]
fn executor_keeps_script_outputs() {
    use ember_compiler::executor::guards::Chaos;
    use ember_compiler::executor::{ExecutorOptions, GraphExecutor};
    use ember_compiler::model::Model;
    use ember_compiler::passes::PassConfig;
    let configs = [(1, None), (2, None), (1, Some(7u64))];
    let (mut calls, mut fused, mut problems) = (0, 0, Vec::new());
    for (case, source, entry) in runnable_cases() {
        for &(profiling_runs, chaos) in &configs {
            let outcome = (|| -> Result<(), String> {
                let model = Model::from_source(&case.display_name(), &source)?;
                let f = model
                    .unit
                    .function(&entry)
                    .ok_or_else(|| format!("no function {entry}"))?;
                let options = ExecutorOptions {
                    profiling_runs,
                    jit: true,
                    max_plans: 4,
                    chaos: chaos.map(|seed| Arc::new(Chaos::new(seed))),
                    config: PassConfig::default(),
                };
                let types: Vec<_> = f
                    .graph
                    .inputs()
                    .iter()
                    .map(|&v| f.graph.ty(v).clone())
                    .collect();
                let executor =
                    GraphExecutor::new(f.graph.clone(), Some(model.unit.clone()), &entry, options)
                        .map_err(|e| e.message)?;
                // Twice over the runs: the first calls profile, the later ones run the plan.
                let runs = [case.runs(), case.runs()].concat();
                calls += check_calls(&runs, &types, |inputs| executor.run(inputs))?;
                let plan = executor.last_executed_graph().to_string();
                fused += usize::from(plan.contains("prim::TensorExprGroup"));
                Ok(())
            })();
            if let Err(e) = outcome {
                problems.push(format!(
                    "{} (profiling runs {profiling_runs}, chaos {chaos:?}): {e}",
                    case.id
                ));
            }
        }
    }
    println!("{calls} executor calls of script-corpus programs, {fused} plans with fusion groups");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(fused >= 15, "only {fused} plans fused anything");
}

/// Every program of the corpus written as an archive (its last def, as PyTorch saves a
/// scripted function), loaded back by Ember and run to PyTorch's results. Whether PyTorch
/// loads the archive to the same results is recorded in test/script/WRITTEN.tsv by
/// tools/gen/check_written_archives.py; every program written must be listed there.
#[test]
fn written_archives_round_trip() {
    use ember_compiler::export::{placeholder_model, write_archive};
    use ember_compiler::model::{Model, ModelKind, OpenOptions};
    let recorded = crate::source_modules::written_statuses(&corpus_dir().join("WRITTEN.tsv"));
    let (mut written, mut problems) = (0, Vec::new());
    for (case, source, _) in runnable_cases() {
        let outcome = (|| -> Result<(), String> {
            let model = Model::from_source(&case.display_name(), &source)?;
            let entry = model.entry(None)?.name.clone();
            let bytes = write_archive(&placeholder_model(&model, &entry)?, "program")?;
            let back = Model::from_bytes(
                "program.pt",
                ModelKind::Archive,
                &bytes,
                &OpenOptions::default(),
            )?;
            let e = back.entry(None)?;
            let graph = e.graph();
            let types: Vec<_> = graph.inputs()[1..]
                .iter()
                .map(|&v| graph.ty(v).clone())
                .collect();
            let code = e.function.code(Some(&back.unit)).map_err(|e| e.message)?;
            check_calls(&case.runs(), &types, |inputs| {
                run(&code, back.call_inputs(e, inputs))
            })?;
            Ok(())
        })();
        match (outcome, recorded.get(&case.id)) {
            (Ok(()), Some(_)) => written += 1,
            (Ok(()), None) => problems.push(format!(
                "{}: written, but not in test/script/WRITTEN.tsv (run tools/gen/check_written_archives.py)",
                case.id
            )),
            (Err(e), Some(status)) if status != "ok" => {
                eprintln!("  {}: {e} (PyTorch: {status})", case.id)
            }
            (Err(e), _) => problems.push(format!("{}: {e}", case.id)),
        }
    }
    println!("{written} programs written as archives and run back");
    assert!(written >= 200, "only {written} programs written");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every program of the corpus compiled whole (`ember-run --compile=whole`: control flow and
/// scalars native, every other node a call into the runtime) gives PyTorch's results on every
/// run, and so does the interpreter the compiled model falls back to when its guards fail.
/// Each is compiled again profiled on its first run's inputs (pointwise chains become fusion
/// groups, run as kernels compiled into the method) and checked on every run too; a program
/// whose first run raises is not profiled. Programs that cannot be compiled whole are listed
/// with the reason in whole_expected_refusals.txt; any other refusal fails.
#[test]
fn whole_compiled_keeps_script_outputs() {
    use ember_compiler::codegen::whole;
    use ember_compiler::model::Model;
    use ember_compiler::passes::PassConfig;
    let expected = expected_list(&corpus_dir().join("whole_expected_refusals.txt"));
    let (mut calls, mut compiled, mut problems) = (0, 0, Vec::new());
    let (mut profiled, mut fused) = (0, 0);
    let mut refused = BTreeMap::new();
    for (case, source, entry) in runnable_cases() {
        let outcome = (|| -> Result<(), String> {
            let mut model = Model::from_source(&case.display_name(), &source)?;
            let types: Vec<_> = {
                let g = model.entry(Some(&entry))?.graph();
                g.inputs().iter().map(|&v| g.ty(v).clone()).collect()
            };
            let built = whole::method_graph(&mut model, &entry).and_then(|(graph, is_method)| {
                let program = whole::prepare(&graph, is_method, &[], &[]).map_err(|e| e.message)?;
                let model = whole::compile_in_process(&program).map_err(|e| e.message)?;
                Ok((model, program))
            });
            let (model, mut program) = match built {
                Ok(m) => m,
                Err(why) => {
                    refused.insert(case.id.clone(), why);
                    return Ok(());
                }
            };
            compiled += 1;
            let runs = case.runs();
            calls += check_calls(&runs, &types, |inputs| {
                model
                    .run(inputs)
                    .map(|v| vec![v])
                    .map_err(RuntimeError::new)
            })
            .map_err(|e| format!("compiled: {e}"))?;
            calls += check_calls(&runs, &types, |inputs| {
                model
                    .run_interpreted(inputs)
                    .map(|v| vec![v])
                    .map_err(RuntimeError::new)
            })
            .map_err(|e| format!("interpreted fallback: {e}"))?;
            let Some(first) = runs.first() else {
                return Ok(());
            };
            let sample = Arrays::load(first)?.inputs(&types)?;
            match whole::fuse(&mut program, &[sample], &PassConfig::default()) {
                Ok(groups) => fused += usize::from(groups > 0),
                // The first run raises (as PyTorch does): nothing to profile.
                Err(e) if e.message.starts_with("profiling on sample") => return Ok(()),
                Err(e) => return Err(format!("fusing: {}", e.message)),
            }
            profiled += 1;
            let model = whole::compile_in_process(&program)
                .map_err(|e| format!("profiled: {}", e.message))?;
            for interpreted in [false, true] {
                calls += check_calls(&runs, &types, |inputs| {
                    match interpreted {
                        false => model.run(inputs),
                        true => model.run_interpreted(inputs),
                    }
                    .map(|v| vec![v])
                    .map_err(RuntimeError::new)
                })
                .map_err(|e| format!("profiled (interpreted: {interpreted}): {e}"))?;
            }
            Ok(())
        })();
        if let Err(e) = outcome {
            problems.push(format!("{}: {e}", case.id));
        }
    }
    for (id, why) in &refused {
        if !expected.contains_key(id) {
            problems.push(format!(
                "{id}: refused, and not in whole_expected_refusals.txt: {why}"
            ));
        }
    }
    for id in expected.keys() {
        if !refused.contains_key(id) {
            problems.push(format!(
                "{id}: compiles whole now; remove it from whole_expected_refusals.txt"
            ));
        }
    }
    println!(
        "{compiled} script-corpus programs compiled whole ({} refused), {profiled} profiled, \
         {fused} of them with fusion groups, {calls} calls",
        refused.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        fused >= MIN_WHOLE_FUSED,
        "only {fused} programs compiled whole with groups"
    );
}

/// Programs of the corpus compiled whole with fusion groups (at least).
const MIN_WHOLE_FUSED: usize = 15;

/// A whole-compiled function whose group was built for one shape, called with another that the
/// entry guards let through (the shape comes from an int): the group's guard fails and its
/// subgraph runs in the interpreter, with the same results as the kernel for the shape seen.
#[test]
fn whole_compiled_group_guard_falls_back() {
    use ember_compiler::codegen::whole;
    use ember_compiler::model::Model;
    use ember_compiler::passes::PassConfig;
    let source = "def f(x: Tensor, n: int):\n    y = torch.ones(n, 3) * 0.5\n    return torch.relu(x * y + 1.0) * 2.0\n";
    let mut model = Model::from_source("group_guard.py", source).unwrap();
    let (graph, is_method) = whole::method_graph(&mut model, "f").unwrap();
    let mut program = whole::prepare(&graph, is_method, &[], &[]).unwrap();
    let x = || IValue::Tensor(Tensor::from_vec(vec![-4f32, 0.5, 3.0], &[1, 3]).unwrap());
    let groups = whole::fuse(
        &mut program,
        &[vec![x(), IValue::Int(2)]],
        &PassConfig::default(),
    )
    .unwrap();
    assert!(groups >= 1, "no fusion group:\n{}", program.text);
    let compiled = whole::compile_in_process(&program).unwrap();
    for n in [2, 5, 2] {
        let inputs = vec![x(), IValue::Int(n)];
        assert!(
            compiled.guards_hold(&inputs),
            "the entry guards refuse n = {n}"
        );
        let IValue::Tensor(out) = compiled.run(inputs).unwrap() else {
            panic!("not a tensor")
        };
        assert_eq!(out.sizes().to_vec(), vec![n, 3]);
        let row = [0f32, 2.5, 5.0];
        assert_eq!(out.to_vec::<f32>(), row.repeat(n as usize), "n = {n}");
    }
}

/// Profiled on several samples whose sizes differ (`emberc --example-set`), a group is
/// compiled for unknown sizes: its entry guards hold for each sample's shape and for others
/// of that rank, and the results are the interpreter's; profiled on one sample, the guards
/// hold for that shape only.
#[test]
fn whole_compiled_from_several_samples_serves_each_shape() {
    use ember_compiler::codegen::whole;
    use ember_compiler::model::Model;
    use ember_compiler::passes::PassConfig;
    let source = "def f(x: Tensor, y: Tensor):\n    return torch.tanh(x * y + 1.0) + x * 0.5\n";
    let tensor = |rows: i64, cols: i64| {
        let data = (0..rows * cols).map(|i| i as f32 / 8.0 - 0.5).collect();
        IValue::Tensor(Tensor::from_vec(data, &[rows, cols]).unwrap())
    };
    let sample = |rows, cols| vec![tensor(rows, cols), tensor(rows, cols)];
    let compile = |samples: &[Vec<IValue>]| {
        let mut model = Model::from_source("samples.py", source).unwrap();
        let (graph, is_method) = whole::method_graph(&mut model, "f").unwrap();
        let mut program = whole::prepare(&graph, is_method, &[], &[]).unwrap();
        let groups = whole::fuse(&mut program, samples, &PassConfig::default()).unwrap();
        assert!(groups >= 1, "no fusion group:\n{}", program.text);
        (model, whole::compile_in_process(&program).unwrap())
    };
    let (model, several) = compile(&[sample(2, 3), sample(3, 4)]);
    let f = model.entry(Some("f")).unwrap();
    let code = f.function.code(Some(&model.unit)).unwrap();
    for (rows, cols) in [(2, 3), (3, 4), (5, 2)] {
        let inputs = sample(rows, cols);
        assert!(
            several.guards_hold(&inputs),
            "the guards refuse {rows}x{cols}"
        );
        let IValue::Tensor(got) = several.run(inputs.clone()).unwrap() else {
            panic!("not a tensor")
        };
        let want = run(&code, inputs).unwrap();
        let IValue::Tensor(want) = &want[0] else {
            panic!("not a tensor")
        };
        assert_eq!(got.to_vec::<f32>(), want.to_vec::<f32>(), "{rows}x{cols}");
    }
    let (_, one) = compile(&[sample(2, 3)]);
    assert!(one.guards_hold(&sample(2, 3)));
    assert!(!one.guards_hold(&sample(3, 4)));
}
