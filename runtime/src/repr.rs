//! Python's `repr` of values, as `print(result)` shows them in Python: tensors formatted by the
//! rules of `torch._tensor_str` (precision 4, line width 80, summaries over 1000 elements with
//! 3 edge items, int/fixed/scientific modes, dtype suffixes), and Python's forms of ints,
//! floats, strings, lists, tuples and dicts.

use crate::ivalue::{format_float, IValue};
use crate::tensor::{DType, Tensor};

const PRECISION: usize = 4;
const LINE_WIDTH: usize = 80;
const THRESHOLD: usize = 1000;
const EDGE_ITEMS: usize = 3;

/// Python's `repr(value)`.
pub fn repr(v: &IValue) -> String {
    match v {
        IValue::None => "None".into(),
        IValue::Bool(b) => if *b { "True" } else { "False" }.into(),
        IValue::Int(i) => i.to_string(),
        IValue::Double(d) => format_float(*d),
        IValue::Complex(c) => format!("({}+{}j)", format_float(c.0), format_float(c.1)),
        IValue::Str(s) => repr_str(s),
        IValue::Tensor(t) => repr_tensor(t),
        IValue::Device(d) => format!("device(type='{d}')"),
        IValue::ScalarType(d) => d.to_string(),
        IValue::List(l) => format!(
            "[{}]",
            l.to_vec().iter().map(repr).collect::<Vec<_>>().join(", ")
        ),
        IValue::Tuple(items) if items.len() == 1 => format!("({},)", repr(&items[0])),
        IValue::Tuple(items) => format!(
            "({})",
            items.iter().map(repr).collect::<Vec<_>>().join(", ")
        ),
        IValue::Dict(d) => format!(
            "{{{}}}",
            d.items()
                .iter()
                .map(|(k, v)| format!("{}: {}", repr(&k.to_ivalue()), repr(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => format!("{other:?}"),
    }
}

/// Python's repr of a str: single quotes unless the text has a single quote and no double.
pub fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// `repr(tensor)`.
pub fn repr_tensor(t: &Tensor) -> String {
    let prefix = "tensor(";
    let indent = prefix.len();
    let dtype = t.dtype();
    let mut suffixes = Vec::new();
    let body = if t.numel() == 0 {
        if t.dim() != 1 {
            suffixes.push(format!("size={}", python_tuple(&t.sizes())));
        }
        if dtype != DType::F32 {
            suffixes.push(format!("dtype={dtype}"));
        }
        "[]".to_string()
    } else {
        if !matches!(dtype, DType::F32 | DType::I64 | DType::Bool) {
            suffixes.push(format!("dtype={dtype}"));
        }
        tensor_str(t, indent)
    };
    let mut out = format!("{prefix}{body}");
    let mut last_line_len = out.len() - out.rfind('\n').map_or(0, |i| i) + 1;
    if !out.contains('\n') {
        last_line_len = out.len() + 1;
    }
    for s in suffixes {
        if last_line_len + s.len() + 2 > LINE_WIDTH {
            out.push_str(&format!(",\n{}{s}", " ".repeat(indent)));
            last_line_len = indent + s.len();
        } else {
            out.push_str(&format!(", {s}"));
            last_line_len += s.len() + 2;
        }
    }
    out.push(')');
    out
}

fn python_tuple(v: &[i64]) -> String {
    match v.len() {
        1 => format!("({},)", v[0]),
        _ => format!(
            "({})",
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// One element as the formatter sees it.
#[derive(Copy, Clone)]
enum Elem {
    Float(f64),
    Int(i64),
    Bool(bool),
}

/// The values of `t` in row-major order, summarized or not.
struct Values {
    sizes: Vec<i64>,
    elems: Vec<Elem>,
}

impl Values {
    fn of(t: &Tensor) -> Values {
        let dtype = t.dtype();
        let elems = if dtype.is_floating() {
            t.to_vec::<f64>().into_iter().map(Elem::Float).collect()
        } else if dtype == DType::Bool {
            t.to_vec::<bool>().into_iter().map(Elem::Bool).collect()
        } else {
            t.to_vec::<i64>().into_iter().map(Elem::Int).collect()
        };
        Values {
            sizes: t.sizes().to_vec(),
            elems,
        }
    }

    /// The element at a multi-index.
    fn at(&self, index: &[usize]) -> Elem {
        let mut flat = 0usize;
        for (d, &i) in index.iter().enumerate() {
            flat = flat * self.sizes[d] as usize + i;
        }
        self.elems[flat]
    }
}

/// The formatter of `torch._tensor_str._Formatter`: chooses int, fixed or scientific mode and
/// the common width from the values that will be shown.
struct Formatter {
    floating: bool,
    int_mode: bool,
    sci_mode: bool,
    max_width: usize,
}

impl Formatter {
    fn new(shown: &[Elem], floating: bool) -> Formatter {
        let mut f = Formatter {
            floating,
            int_mode: true,
            sci_mode: false,
            max_width: 1,
        };
        if !floating {
            for e in shown {
                f.max_width = f.max_width.max(plain(*e).len());
            }
            return f;
        }
        let finite: Vec<f64> = shown
            .iter()
            .filter_map(|e| match e {
                Elem::Float(x) if x.is_finite() && *x != 0.0 => Some(*x),
                _ => None,
            })
            .collect();
        if finite.is_empty() {
            return f;
        }
        let min = finite.iter().fold(f64::INFINITY, |a, x| a.min(x.abs()));
        let max = finite.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        f.int_mode = finite.iter().all(|x| *x == x.ceil());
        if f.int_mode {
            if max / min > 1000.0 || max > 1.0e8 {
                f.sci_mode = true;
                f.max_width = finite.iter().map(|x| sci(*x).len()).max().unwrap_or(1);
            } else {
                f.max_width = finite
                    .iter()
                    .map(|x| format!("{x:.0}").len() + 1)
                    .max()
                    .unwrap_or(1);
            }
        } else if max / min > 1000.0 || max > 1.0e8 || min < 1.0e-4 {
            f.sci_mode = true;
            f.max_width = finite.iter().map(|x| sci(*x).len()).max().unwrap_or(1);
        } else {
            f.max_width = finite
                .iter()
                .map(|x| format!("{x:.PRECISION$}").len())
                .max()
                .unwrap_or(1);
        }
        f.max_width = f.max_width.max(1);
        f
    }

    fn format(&self, e: Elem) -> String {
        let s = match e {
            Elem::Float(x) if self.floating => {
                if self.sci_mode {
                    sci(x)
                } else if self.int_mode {
                    let mut s = nonfinite(x).unwrap_or_else(|| format!("{x:.0}"));
                    if x.is_finite() {
                        s.push('.');
                    }
                    s
                } else {
                    nonfinite(x).unwrap_or_else(|| format!("{x:.PRECISION$}"))
                }
            }
            other => plain(other),
        };
        format!("{}{s}", " ".repeat(self.max_width.saturating_sub(s.len())))
    }
}

fn plain(e: Elem) -> String {
    match e {
        Elem::Float(x) => format_float(x),
        Elem::Int(i) => i.to_string(),
        Elem::Bool(b) => if b { "True" } else { "False" }.into(),
    }
}

fn nonfinite(x: f64) -> Option<String> {
    if x.is_nan() {
        Some("nan".into())
    } else if x.is_infinite() {
        Some(if x > 0.0 { "inf" } else { "-inf" }.into())
    } else {
        None
    }
}

/// Python's `'{:.4e}'.format(x)`: at least two exponent digits with a sign.
fn sci(x: f64) -> String {
    if let Some(s) = nonfinite(x) {
        return s;
    }
    let s = format!("{x:.PRECISION$e}");
    let (mantissa, exp) = s.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    format!(
        "{mantissa}e{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

fn tensor_str(t: &Tensor, indent: usize) -> String {
    let values = Values::of(t);
    let summarize = t.numel() > THRESHOLD;
    let floating = t.dtype().is_floating();
    let mut shown = Vec::new();
    collect_shown(&values, &mut Vec::new(), summarize, &mut shown);
    let formatter = Formatter::new(&shown, floating);
    let mut index = Vec::new();
    format_dims(&values, &mut index, indent, summarize, &formatter)
}

/// Indices along one dim that are shown: all, or the edge items when summarizing.
fn shown_indices(size: usize, summarize: bool) -> (Vec<usize>, bool) {
    if summarize && size > 2 * EDGE_ITEMS {
        let mut v: Vec<usize> = (0..EDGE_ITEMS).collect();
        v.extend(size - EDGE_ITEMS..size);
        (v, true)
    } else {
        ((0..size).collect(), false)
    }
}

fn collect_shown(values: &Values, index: &mut Vec<usize>, summarize: bool, out: &mut Vec<Elem>) {
    let d = index.len();
    if d == values.sizes.len() {
        out.push(values.at(index));
        return;
    }
    for i in shown_indices(values.sizes[d] as usize, summarize).0 {
        index.push(i);
        collect_shown(values, index, summarize, out);
        index.pop();
    }
}

fn format_dims(
    values: &Values,
    index: &mut Vec<usize>,
    indent: usize,
    summarize: bool,
    f: &Formatter,
) -> String {
    let d = index.len();
    let dims_left = values.sizes.len() - d;
    if dims_left == 0 {
        return f.format(values.at(index));
    }
    let size = values.sizes[d] as usize;
    let (shown, elided) = shown_indices(size, summarize);
    if dims_left == 1 {
        let element_length = f.max_width + 2;
        let per_line = ((LINE_WIDTH.saturating_sub(indent)) / element_length).max(1);
        let mut data: Vec<String> = Vec::new();
        for (k, &i) in shown.iter().enumerate() {
            if elided && k == EDGE_ITEMS {
                data.push(" ...".into());
            }
            index.push(i);
            data.push(f.format(values.at(index)));
            index.pop();
        }
        let lines: Vec<String> = data.chunks(per_line).map(|c| c.join(", ")).collect();
        return format!(
            "[{}]",
            lines.join(&format!(",\n{}", " ".repeat(indent + 1)))
        );
    }
    let mut slices = Vec::new();
    for (k, &i) in shown.iter().enumerate() {
        if elided && k == EDGE_ITEMS {
            slices.push("...".to_string());
        }
        index.push(i);
        slices.push(format_dims(values, index, indent + 1, summarize, f));
        index.pop();
    }
    let sep = format!(",{}{}", "\n".repeat(dims_left - 1), " ".repeat(indent + 1));
    format!("[{}]", slices.join(&sep))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: Vec<f32>, s: &[i64]) -> IValue {
        IValue::Tensor(Tensor::from_vec(v, s).unwrap())
    }

    /// Expected strings are what PyTorch 2.15 printed for the same tensors.
    #[test]
    fn tensors_print_like_pytorch() {
        let cases: Vec<(IValue, &str)> = vec![
            (f32s(vec![1., 2., 3.], &[3]), "tensor([1., 2., 3.])"),
            (f32s(vec![0.1, 2.5], &[2]), "tensor([0.1000, 2.5000])"),
            (f32s(vec![1e-5, 1.0], &[2]), "tensor([1.0000e-05, 1.0000e+00])"),
            (IValue::Tensor(Tensor::from_vec(vec![1i64, 2, 3, 4], &[2, 2]).unwrap()), "tensor([[1, 2],\n        [3, 4]])"),
            (IValue::Tensor(Tensor::from_vec(vec![true, false], &[2]).unwrap()), "tensor([ True, False])"),
            (f32s(vec![3.], &[]), "tensor(3.)"),
            (IValue::Tensor(Tensor::zeros(&[0, 3], DType::F32).unwrap()), "tensor([], size=(0, 3))"),
            (IValue::Tensor(Tensor::zeros(&[0], DType::I32).unwrap()), "tensor([], dtype=torch.int32)"),
            (IValue::Tensor(Tensor::from_vec(vec![1i32, 2], &[2]).unwrap()), "tensor([1, 2], dtype=torch.int32)"),
            (f32s(vec![1., f32::NAN, f32::INFINITY], &[3]), "tensor([1., nan, inf])"),
            (
                f32s((0..30).map(|i| i as f32 * 1.5).collect(), &[2, 15]),
                "tensor([[ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n         12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000],\n        [22.5000, 24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000,\n         34.5000, 36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000]])",
            ),
            (
                f32s((0..2000).map(|i| i as f32).collect(), &[2000]),
                "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])",
            ),
            (IValue::Tensor(Tensor::from_vec(vec![1f64, 2.], &[2]).unwrap()), "tensor([1., 2.], dtype=torch.float64)"),
            (f32s(vec![-0.0, 1e9], &[2]), "tensor([-0.0000e+00, 1.0000e+09])"),
            (
                IValue::Tensor(Tensor::from_vec(vec![half::f16::from_f32(1.5)], &[1]).unwrap()),
                "tensor([1.5000], dtype=torch.float16)",
            ),
            (
                f32s(vec![1., 2., 3., 4., 5., 6., 7., 8.], &[2, 2, 2]),
                "tensor([[[1., 2.],\n         [3., 4.]],\n\n        [[5., 6.],\n         [7., 8.]]])",
            ),
        ];
        for (v, want) in cases {
            assert_eq!(repr(&v), want);
        }
    }

    #[test]
    fn python_values() {
        let v = IValue::tuple(vec![
            IValue::Int(1),
            IValue::Double(2.5),
            IValue::Bool(true),
            IValue::None,
            IValue::str("a"),
            IValue::list(vec![IValue::Int(1), IValue::Int(2)]),
            IValue::tuple(vec![IValue::Int(3)]),
        ]);
        assert_eq!(repr(&v), "(1, 2.5, True, None, 'a', [1, 2], (3,))");
        assert_eq!(repr_str("it's"), "\"it's\"");
        assert_eq!(repr_str("a\nb'\""), "'a\\nb\\'\"'");
    }
}
