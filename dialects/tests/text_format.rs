//! PyTorch's graph text: hand-written cases and a byte-for-byte round trip of every real dump
//! (dialects/tests/data/graphs from tools/gen/gen_text_samples.py, and test/corpus/graphs).

use std::path::{Path, PathBuf};

use ember_dialects::parse::parse_graph;
use ember_dialects::print::print_graph;
use expect_test::{expect, Expect};

fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "ir"))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    files
}

/// Every `.ir` file of our samples and, once it has landed, of the shared corpus. The samples
/// are committed, so the walk never comes up empty and cannot pass vacuously.
fn all_graph_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let samples = corpus_files(&root.join("tests/data/graphs"));
    assert!(
        samples.len() >= 20,
        "the committed samples under tests/data/graphs are missing"
    );
    let mut files = samples;
    let corpus = root.join("../test/corpus/graphs");
    if corpus.is_dir() {
        files.extend(corpus_files(&corpus));
    }
    files
}

#[test]
fn every_real_graph_round_trips() {
    let files = all_graph_files();
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        match parse_graph(&text) {
            Ok(g) => {
                let printed = print_graph(&g);
                if printed != text {
                    let line = printed
                        .lines()
                        .zip(text.lines())
                        .position(|(a, b)| a != b)
                        .unwrap_or(printed.lines().count().min(text.lines().count()));
                    failures.push(format!(
                        "{}: differs at line {}:\n  want: {}\n  got:  {}",
                        file.display(),
                        line + 1,
                        text.lines().nth(line).unwrap_or("<end>"),
                        printed.lines().nth(line).unwrap_or("<end>")
                    ));
                }
            }
            Err(e) => failures.push(e.render(&file.display().to_string())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files do not round-trip:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// Truncated and garbled versions of every sample must give a Diagnostic (or a graph), never a
/// panic, and a Diagnostic's position must lie inside the text.
#[test]
fn garbled_input_never_panics() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = corpus_files(&root.join("tests/data/graphs"));
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let junk = [
        "", "%", "(", ")", "[", "]", "{", "}", "\"", "\\", ",", ":", " ", "\n", "=", "é", "0", "-",
    ];
    let mut errors = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let bytes = text.len();
        let mut variants = Vec::new();
        for i in 0..24 {
            let mut cut = (next() as usize) % bytes.max(1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            variants.push(text[..cut].to_string());
            let mut at = (next() as usize) % bytes.max(1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let mut end = (at + 1 + (next() as usize) % 4).min(bytes);
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let piece = junk[(next() as usize + i) % junk.len()];
            variants.push(format!("{}{}{}", &text[..at], piece, &text[end..]));
        }
        for v in variants {
            let lines = v.lines().count() as u32 + 1;
            if let Err(d) = parse_graph(&v) {
                errors += 1;
                assert!(
                    d.pos.line >= 1 && d.pos.line <= lines,
                    "{}: {d} out of range",
                    file.display()
                );
                assert!(d.pos.col >= 1);
            }
        }
    }
    assert!(errors > 0, "garbling never produced an error");
}

#[test]
fn errors_name_line_and_column() {
    let cases = [
        (
            "graph(%x : Tensor):\n  %y : Tensor = aten::relu(%z)\n  return (%y)\n",
            "2:28: error: use of undefined value %z",
        ),
        (
            "graph(%x : Tensor):\n  return (%x)\nwith",
            "3:1: error: unexpected 'with' after the graph",
        ),
        (
            "graph(%x : Tensor):\n  %y : Tensor = relu(%x)\n  return (%y)\n",
            "2:17: error: expected an operator 'namespace::name' but found 'relu'",
        ),
        (
            "graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x\n",
            "2:30: error: expected ', ' but found end of line",
        ),
        (
            "graph(%x : Flaot(2)):\n  return (%x)\n",
            "1:12: error: unknown type 'Flaot'",
        ),
        (
            "graph(%x : Tensor):\n  %y : str = prim::Constant[value=\"ab]()\n  return (%y)\n",
            "2:35: error: unterminated string",
        ),
        // A name defined again is PyTorch's parser's value reuse (pytorch_irparser.rs), not an
        // error; attributes still need their separators.
        (
            "graph(%x : Tensor):\n  %y : Tensor = aten::relu[a=1 b=2](%x)\n  return (%y)\n",
            "2:32: error: expected ', ' but found 'b=2](%x)'",
        ),
        ("", "1:1: error: expected 'graph(' but found end of input"),
    ];
    for (text, want) in cases {
        let got = parse_graph(text).err().map(|d| d.to_string());
        assert_eq!(got.as_deref(), Some(want), "for {text:?}");
    }
}

#[test]
fn deep_nesting_is_refused_not_a_crash() {
    let list = format!(
        "graph():\n  %a : int[] = prim::Constant[value={}1{}]()\n  return (%a)\n",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    assert!(parse_graph(&list).is_err());
    let mut blocks = String::from("graph(%c : bool):\n");
    for depth in 0..200 {
        let pad = "  ".repeat(1 + 2 * depth);
        blocks.push_str(&format!("{pad} = prim::If(%c)\n{pad}  block0():\n"));
    }
    assert!(parse_graph(&blocks).is_err());
    let types = format!(
        "graph(%x : {}int{}):\n  return (%x)\n",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    assert!(parse_graph(&types).is_err());
}

/// Our copy of the C++ tensor printer against what PyTorch printed for the same tensors.
#[test]
fn tensor_printer_matches_pytorch() {
    use ember_dialects::attr::Scalar;
    use ember_dialects::tensorfmt::format_tensor;
    use ember_dialects::types::ScalarType;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tensor_prints.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let mut mismatches = Vec::new();
    for line in text.lines() {
        let mut parts = line.splitn(4, '|');
        let (dtype, sizes, values, want) = (
            parts.next().unwrap(),
            parts.next().unwrap(),
            parts.next().unwrap(),
            parts.next().unwrap(),
        );
        let dtype = match dtype {
            "int64" => ScalarType::Long,
            "int16" => ScalarType::Short,
            "bool" => ScalarType::Bool,
            "float32" => ScalarType::Float,
            "float64" => ScalarType::Double,
            "float16" => ScalarType::Half,
            "bfloat16" => ScalarType::BFloat16,
            other => panic!("unexpected dtype {other}"),
        };
        let sizes: Vec<i64> = sizes.split(',').map(|d| d.parse().unwrap()).collect();
        let values: Vec<Scalar> = values
            .split(' ')
            .map(|v| {
                let x: f64 = v.parse().unwrap();
                if matches!(
                    dtype,
                    ScalarType::Long | ScalarType::Short | ScalarType::Bool
                ) {
                    Scalar::Int(x as i64)
                } else {
                    Scalar::Float(x)
                }
            })
            .collect();
        let got = format_tensor(dtype, &sizes, &values);
        if got != want {
            mismatches.push(format!("want {want:?}\n got {got:?}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

fn check_round_trip(text: &str, expect: Expect) {
    let g = parse_graph(text).unwrap_or_else(|e| panic!("{}", e.render("input")));
    let printed = print_graph(&g);
    expect.assert_eq(&printed);
    let again = parse_graph(&printed).unwrap();
    assert_eq!(
        print_graph(&again),
        printed,
        "printing is not a fixed point"
    );
}

#[test]
fn built_graph_prints_every_attribute_kind() {
    use ember_dialects::attr::{ConstValue, Scalar, TensorLiteral};
    use ember_dialects::types::{ScalarType, Type};
    use ember_dialects::{AttrValue, Graph, SourceRange, Symbol};
    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    g.set_debug_name(x, "x");
    let n = g.create_and_insert(Symbol::new("foo::bar"), &[x, x], 2);
    let attrs = [
        ("i", AttrValue::Int(-3)),
        ("f", AttrValue::Float(0.1)),
        ("g", AttrValue::Float(2.0)),
        ("c", AttrValue::Complex(1.0, -2.5)),
        ("s", AttrValue::Str("a\"b\n\u{e9}".into())),
        ("is", AttrValue::Ints(vec![1, 2])),
        ("fs", AttrValue::Floats(vec![1.0, 1e-5])),
        ("ss", AttrValue::Strs(vec!["p".into(), "q".into()])),
        ("ty", AttrValue::Type(Type::list(Type::Int))),
        (
            "tys",
            AttrValue::Types(vec![Type::Int, Type::optional(Type::tensor())]),
        ),
        (
            "t1",
            AttrValue::Tensor(
                TensorLiteral::from_values(ScalarType::Float, vec![], &[Scalar::Float(2.5)])
                    .unwrap(),
            ),
        ),
        (
            "t2",
            AttrValue::Tensor(
                TensorLiteral::from_values(
                    ScalarType::Long,
                    vec![3],
                    &[Scalar::Int(1), Scalar::Int(-20), Scalar::Int(3)],
                )
                .unwrap(),
            ),
        ),
        (
            "t3",
            AttrValue::Tensor(TensorLiteral {
                dtype: ScalarType::Float,
                sizes: vec![100],
                data: None,
                printed: None,
                handle: None,
            }),
        ),
        ("ts", AttrValue::Tensors(vec![])),
        ("gs", AttrValue::Graphs(vec![])),
        (
            "v",
            AttrValue::IValue(ConstValue::List(vec![
                ConstValue::Bool(true),
                ConstValue::None,
            ])),
        ),
        (
            "tup",
            AttrValue::IValue(ConstValue::Tuple(vec![ConstValue::Int(1)])),
        ),
        (
            "dev",
            AttrValue::IValue(ConstValue::Device("cuda:0".into())),
        ),
    ];
    for (name, value) in attrs {
        g.set_attr(n, Symbol::attr(name), value);
    }
    g.set_scope(n, Some("__module.fc".into()));
    g.set_source_range(
        n,
        Some(SourceRange {
            file: "m.py".into(),
            line: 3,
            col: 7,
        }),
    );
    let (a, b) = (g.output(n, 0), g.output(n, 1));
    g.set_ty(b, Type::Int);
    g.register_output(a);
    g.register_output(b);
    expect![[r#"
        graph(%x : Tensor):
          %1 : Tensor, %2 : int = foo::bar[i=-3, f=0.10000000000000001, g=2., c=1.-2.5j, s="a\"b\n\0)+\/.)", is=[1, 2], fs=[1., 1.0000000000000001e-05], ss=["p", "q"], ty=int[], tys=[int, Tensor?], t1={2.5}, t2= 1 -20  3 [ CPULongType{3} ], t3=<Tensor>, ts=[<Tensors>], gs=[<Graphs>], v=[True, None], tup=(1,), dev=torch.device("cuda:0")](%x, %x), scope: __module.fc # m.py:3:7
          return (%1, %2)
    "#]]
    .assert_eq(&print_graph(&g));
    let back = parse_graph(&print_graph(&g)).unwrap();
    assert_eq!(back, g);
}

#[test]
fn subgraphs_are_numbered_and_attached_like_pytorch() {
    use ember_dialects::{symbol::sym, AttrValue, Symbol};
    let text = "graph(%x : Tensor,
      %c : bool):
  %y : Tensor = prim::DifferentiableGraph_0(%x)
  %z : Tensor = prim::If(%c)
    block0():
      %a : Tensor = prim::FusionGroup_1(%y)
      -> (%a)
    block1():
      -> (%y)
  return (%z)
with prim::DifferentiableGraph_0 = graph(%0 : Tensor):
  %1 : Tensor = prim::TensorExprGroup_0[symbolic_shape_inputs=[-2]](%0)
  return (%1)
with prim::TensorExprGroup_0 = graph(%0 : Tensor):
  %1 : Tensor = aten::relu(%0)
  return (%1)
with prim::FusionGroup_1 = graph(%p : Tensor):
  %q : Tensor = aten::neg(%p)
  return (%q)
";
    let g = parse_graph(text).unwrap();
    assert_eq!(print_graph(&g), text);
    let nodes = g.nodes();
    assert_eq!(g.kind(nodes[0]), sym::differentiable_graph());
    let Some(AttrValue::Graph(diff)) = g.attr(nodes[0], sym::attr_subgraph()) else {
        panic!("no subgraph on the differentiable graph")
    };
    let inner = diff.nodes()[0];
    assert_eq!(g.kind(nodes[2]), sym::fusion_group());
    assert_eq!(diff.kind(inner), sym::tensor_expr_group());
    assert!(matches!(
        diff.attr(inner, sym::attr_subgraph()),
        Some(AttrValue::Graph(_))
    ));
    assert_eq!(
        diff.attr(inner, Symbol::attr("symbolic_shape_inputs")),
        Some(&AttrValue::Ints(vec![-2]))
    );
    let Some(AttrValue::Graph(fusion)) = g.attr(nodes[2], sym::attr_subgraph()) else {
        panic!("no subgraph on the fusion group")
    };
    assert_eq!(fusion.kind(fusion.nodes()[0]), Symbol::aten("neg"));
}

#[test]
fn reads_the_2018_brace_format() {
    check_round_trip(
        "graph(%x : Dynamic
      %y : Float(2, 3)
      %c : Dynamic) {
  %2 : Dynamic = aten::add[alpha={1}](%x, %y)
  %5 : Long(2) = prim::Constant[value= 1  2 [ Variable[CPULongType]{2} ]]()
  %3 : Dynamic = prim::If(%c)
    block0() {
      %4 : Dynamic = prim::FusionGroup_0[device=-1](%2)
      -> (%4)
    }
    block1() {
      -> (%2)
    }
  return (%3);
}
with prim::FusionGroup_0 = graph(%0 : Dynamic) {
  %1 : Dynamic = aten::neg(%0)
  return (%1);
}
",
        expect![[r#"
            graph(%x : Tensor,
                  %y : Float(2, 3),
                  %c : Tensor):
              %2 : Tensor = aten::add[alpha={1}](%x, %y)
              %5 : Long(2) = prim::Constant[value= 1  2 [ Variable[CPULongType]{2} ]]()
              %3 : Tensor = prim::If(%c)
                block0():
                  %4 : Tensor = prim::FusionGroup_0[device=-1](%2)
                  -> (%4)
                block1():
                  -> (%2)
              return (%3)
            with prim::FusionGroup_0 = graph(%0 : Tensor):
              %1 : Tensor = aten::neg(%0)
              return (%1)
        "#]],
    );
}

#[test]
fn parsed_nodes_keep_names_sources_scopes_and_constants() {
    use ember_dialects::attr::Scalar;
    use ember_dialects::{AttrValue, Symbol};
    let text = "graph(%x.1 : Tensor):
  %7 : Long(requires_grad=0, device=cpu) = prim::Constant[value={3}]()
  %8 : Long(3, strides=[1], requires_grad=0, device=cpu) = prim::Constant[value= 1  2  3 [ CPULongType{3} ]]()
  %y : Tensor = aten::mul(%x.1, %7), scope: __module.a/__module.a.b # some dir/f.py:12:4
  return (%y, %8)
";
    let g = parse_graph(text).unwrap();
    assert_eq!(print_graph(&g), text);
    let n = g.nodes();
    assert_eq!(g.unique(g.output(n[0], 0)), 7);
    assert_eq!(g.debug_name(g.inputs()[0]), Some("x.1"));
    let src = g.source_range(n[2]).unwrap();
    assert_eq!((&*src.file, src.line, src.col), ("some dir/f.py", 12, 4));
    assert_eq!(g.scope(n[2]), Some("__module.a/__module.a.b"));
    let value = Symbol::attr("value");
    let Some(AttrValue::Tensor(t)) = g.attr(n[1], value) else {
        panic!("not a tensor")
    };
    assert_eq!(t.sizes, vec![3]);
    assert_eq!(
        t.scalar_values(),
        Some(vec![Scalar::Int(1), Scalar::Int(2), Scalar::Int(3)])
    );
    let Some(AttrValue::Tensor(t)) = g.attr(n[0], value) else {
        panic!("not a tensor")
    };
    assert_eq!(t.scalar_values(), Some(vec![Scalar::Int(3)]));
}

#[test]
fn named_values_never_share_a_number_with_numbered_ones() {
    let g = parse_graph("graph(%x : Tensor):\n  %y : Tensor = aten::neg(%x)\n  %0 : Tensor = aten::neg(%y)\n  %1 : Tensor = aten::neg(%0)\n  return (%1)\n").unwrap();
    let mut uniques: Vec<u64> = g
        .nodes()
        .iter()
        .map(|&n| g.unique(g.output(n, 0)))
        .collect();
    uniques.push(g.unique(g.inputs()[0]));
    uniques.sort();
    uniques.dedup();
    assert_eq!(uniques.len(), 4, "{uniques:?}");
}

#[test]
fn operators_ending_in_digits_are_not_taken_for_subgraphs() {
    use ember_dialects::{symbol::sym, Symbol};
    let text = "graph(%x : Tensor):
  %a : Tensor = _native::bmm_triton_0(%x, %x)
  %b : Tensor = prim::FusionGroup_0(%a)
  %c : Tensor = mylib::op_1(%b)
  return (%c)
with prim::FusionGroup_0 = graph(%0 : Tensor):
  %1 : Tensor = aten::neg(%0)
  return (%1)
";
    let g = parse_graph(text).unwrap();
    assert_eq!(print_graph(&g), text);
    let kinds: Vec<Symbol> = g.nodes().iter().map(|&n| g.kind(n)).collect();
    assert_eq!(
        kinds,
        [
            Symbol::new("_native::bmm_triton_0"),
            sym::fusion_group(),
            Symbol::new("mylib::op_1")
        ]
    );
}
