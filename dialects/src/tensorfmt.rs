//! PyTorch's C++ tensor printer (aten/src/ATen/core/Formatting.cpp `print`), which graph text
//! uses for small tensor constants: `value= 1  2  3 [ CPULongType{3} ]` (newlines become spaces
//! in the graph). Reproduced here for literals built in Rust; parsed ones keep their text.

use crate::attr::Scalar;
use crate::floatfmt::{format_g, format_python_float};
use crate::types::ScalarType;

/// How one number is written: PyTorch switches the stream between these.
#[derive(Copy, Clone)]
enum Style {
    /// `defaultfloat` with the stream's precision 6 (`%g`).
    General,
    /// `std::scientific` with precision 4.
    Scientific,
    /// `std::fixed` with precision 4.
    Fixed,
}

fn number(x: f64, style: Style, width: usize) -> String {
    let s = if !x.is_finite() {
        format_g(x, 6)
    } else {
        match style {
            Style::General => format_g(x, 6),
            Style::Fixed => format!("{x:.4}"),
            Style::Scientific => {
                let s = format!("{x:.4e}");
                let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
                let e: i32 = e.parse().unwrap_or(0);
                format!(
                    "{m}e{}{:02}",
                    if e < 0 { '-' } else { '+' },
                    e.unsigned_abs()
                )
            }
        }
    };
    format!("{s:>width$}")
}

/// `__printFormat`: the scale, field width and style for a set of values.
fn print_format(values: &[f64]) -> (f64, usize, Style) {
    if values.is_empty() {
        return (1.0, 0, Style::General);
    }
    let int_mode = values.iter().all(|z| !z.is_finite() || *z == z.ceil());
    let offset = values.iter().position(|z| z.is_finite());
    let (mut exp_min, mut exp_max) = (1.0f64, 1.0f64);
    if let Some(off) = offset {
        exp_min = values[off].abs();
        exp_max = values[off].abs();
        for &v in &values[off..] {
            let z = v.abs();
            if z.is_finite() {
                if z < exp_min {
                    exp_min = z;
                }
                // PyTorch compares the signed value here.
                if v > exp_max {
                    exp_max = z;
                }
            }
        }
        exp_min = if exp_min != 0.0 {
            exp_min.log10().floor() + 1.0
        } else {
            1.0
        };
        exp_max = if exp_max != 0.0 {
            exp_max.log10().floor() + 1.0
        } else {
            1.0
        };
    }
    if int_mode {
        if exp_max > 9.0 {
            (1.0, 11, Style::Scientific)
        } else {
            (1.0, (exp_max + 1.0) as usize, Style::General)
        }
    } else if exp_max - exp_min > 4.0 {
        let sz = if exp_max.abs() > 99.0 || exp_min.abs() > 99.0 {
            12
        } else {
            11
        };
        (1.0, sz, Style::Scientific)
    } else if !(0.0..=5.0).contains(&exp_max) {
        (10f64.powf(exp_max - 1.0), 7, Style::Fixed)
    } else {
        let sz = if exp_max == 0.0 {
            7
        } else {
            (exp_max + 6.0) as usize
        };
        (1.0, sz, Style::Fixed)
    }
}

fn scale_line(scale: f64) -> String {
    format!("{} *\n", shortest(scale))
}

/// A double as fmt's `{}` writes it: the shortest round-trip digits, Python's repr without a
/// trailing `.0` (`1000000`, `0.001`, `1e+20`).
fn shortest(x: f64) -> String {
    let v = format_python_float(x);
    match v.strip_suffix(".0") {
        Some(s) => s.to_string(),
        None => v,
    }
}

fn print_matrix(out: &mut String, values: &[f64], rows: usize, cols: usize, indent: usize) {
    const LINESIZE: usize = 80;
    let (scale, sz, style) = print_format(values);
    // The first row follows the caller's header unindented, as PyTorch 2.x prints it.
    let pad = " ".repeat(indent);
    let per_line = ((LINESIZE - indent) / (sz + 1)).max(1);
    let mut first = 0;
    while first < cols {
        let last = if first + per_line <= cols {
            first + per_line - 1
        } else {
            cols - 1
        };
        if per_line < cols {
            if first != 0 {
                out.push('\n');
            }
            out.push_str(&format!("Columns {} to {}", first + 1, last + 1));
            out.push_str(&pad);
        }
        if scale != 1.0 {
            out.push_str(&scale_line(scale));
            out.push_str(&pad);
        }
        for l in 0..rows {
            for c in first..=last {
                out.push_str(&number(values[l * cols + c] / scale, style, sz));
                if c == last {
                    out.push('\n');
                    if l != rows - 1 {
                        out.push_str(&pad);
                        if scale != 1.0 {
                            out.push(' ');
                        }
                    }
                } else {
                    out.push(' ');
                }
            }
        }
        first = last + 1;
    }
}

/// The printed text of a CPU tensor, newlines replaced by spaces as ir.cpp does. Complex
/// values print their real part (PyTorch converts to double first).
pub fn format_tensor(dtype: ScalarType, sizes: &[i64], values: &[Scalar]) -> String {
    let vals: Vec<f64> = values
        .iter()
        .map(|v| match *v {
            Scalar::Int(i) => i as f64,
            Scalar::Float(x) => x,
            Scalar::Complex(re, _) => re,
        })
        .collect();
    print_tensor(dtype.name(), sizes, &vals).replace('\n', " ")
}

/// ATen's `print(stream, tensor, 80)`, what `str(t)` gives in TorchScript: `vals` are the
/// tensor's elements in row-major order as doubles, `type_name` the scalar type's name
/// (`Float`), printed as `[ CPUFloatType{2,3} ]`.
pub fn print_tensor(type_name: &str, sizes: &[i64], vals: &[f64]) -> String {
    let dims: Vec<usize> = sizes.iter().map(|&d| d.max(0) as usize).collect();
    let mut out = String::new();
    match dims.len() {
        0 => {
            out.push_str(&shortest(vals.first().copied().unwrap_or(0.0)));
            out.push('\n');
        }
        1 => {
            if !vals.is_empty() {
                let (scale, sz, style) = print_format(vals);
                if scale != 1.0 {
                    out.push_str(&scale_line(scale));
                }
                for v in vals {
                    out.push_str(&number(v / scale, style, sz));
                    out.push('\n');
                }
            }
        }
        2 => {
            if !vals.is_empty() {
                print_matrix(&mut out, vals, dims[0], dims[1], 0);
            }
        }
        n => {
            if !vals.is_empty() {
                let (rows, cols) = (dims[n - 2], dims[n - 1]);
                let outer = &dims[..n - 2];
                let mut counter = vec![0usize; n - 2];
                let chunk = rows * cols;
                let mut first = true;
                loop {
                    if !first {
                        out.push('\n');
                    }
                    out.push('(');
                    for c in &counter {
                        out.push_str(&format!("{},", c + 1));
                    }
                    out.push_str(".,.) = \n");
                    first = false;
                    // The slice at `counter` in row-major order.
                    let index = counter.iter().zip(outer).fold(0, |acc, (c, d)| acc * d + c);
                    print_matrix(
                        &mut out,
                        &vals[index * chunk..(index + 1) * chunk],
                        rows,
                        cols,
                        1,
                    );
                    // Odometer with the first dimension fastest, as PyTorch counts.
                    let mut i = 0;
                    loop {
                        if i == outer.len() {
                            break;
                        }
                        counter[i] += 1;
                        if counter[i] >= outer[i] {
                            counter[i] = 0;
                            i += 1;
                        } else {
                            break;
                        }
                    }
                    if i == outer.len() {
                        break;
                    }
                }
            }
        }
    }
    let dims_text: Vec<String> = sizes.iter().map(|d| d.to_string()).collect();
    out.push_str(&format!(
        "[ CPU{}Type{{{}}} ]",
        type_name,
        dims_text.join(",")
    ));
    out
}
