//! `str(tensor)` and `print(tensor)` in TorchScript: ATen's C++ tensor printer
//! (`at::print`), not Python's repr. Values print in a column (1-d) or a matrix (2-d), higher
//! ranks as `(i,j,.,.) = ` slices; every slice shares one format chosen from its values: ints
//! as `%g`, floats fixed with 4 decimals (with a `1000000 *` scale line when large or small) or
//! scientific when magnitudes differ by more than 4 decades; the last line names the type
//! and sizes: `[ CPUFloatType{2,3} ]`.

use crate::tensor::{DType, Tensor};

/// How the numbers of one slice are written.
#[derive(Copy, Clone)]
enum Style {
    /// C++'s default float format with precision 6 (`%g`).
    General,
    /// `std::scientific` with 4 decimals.
    Scientific,
    /// `std::fixed` with 4 decimals.
    Fixed,
}

struct Format {
    scale: f64,
    width: usize,
    style: Style,
}

/// The format `__printFormat` picks for `values`.
fn choose(values: &[f64]) -> Format {
    if values.is_empty() {
        return Format {
            scale: 1.0,
            width: 0,
            style: Style::General,
        };
    }
    let int_mode = values.iter().all(|z| !z.is_finite() || *z == z.ceil());
    let (mut exp_min, mut exp_max) = (1.0f64, 1.0f64);
    if let Some(first) = values.iter().position(|z| z.is_finite()) {
        exp_min = values[first].abs();
        exp_max = values[first].abs();
        for &v in &values[first..] {
            let z = v.abs();
            if z.is_finite() {
                if z < exp_min {
                    exp_min = z;
                }
                // As ATen: the signed value is compared, the magnitude kept.
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
            Format {
                scale: 1.0,
                width: 11,
                style: Style::Scientific,
            }
        } else {
            Format {
                scale: 1.0,
                width: (exp_max + 1.0) as usize,
                style: Style::General,
            }
        }
    } else if exp_max - exp_min > 4.0 {
        let wide = exp_max.abs() > 99.0 || exp_min.abs() > 99.0;
        Format {
            scale: 1.0,
            width: 11 + wide as usize,
            style: Style::Scientific,
        }
    } else if !(0.0..=5.0).contains(&exp_max) {
        Format {
            scale: 10f64.powf(exp_max - 1.0),
            width: 7,
            style: Style::Fixed,
        }
    } else {
        let width = if exp_max == 0.0 {
            7
        } else {
            (exp_max + 6.0) as usize
        };
        Format {
            scale: 1.0,
            width,
            style: Style::Fixed,
        }
    }
}

/// C's `%.{precision}g` as C++'s default float format writes it.
fn general(d: f64, precision: usize) -> String {
    if !d.is_finite() {
        return non_finite(d);
    }
    if d == 0.0 {
        return if d.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let p = precision.max(1);
    let sci = format!("{:.*e}", p - 1, d);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let strip = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if exp < -4 || exp >= p as i32 {
        format!(
            "{}e{}{:02}",
            strip(mantissa),
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        )
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip(&format!("{d:.decimals$}"))
    }
}

fn scientific(d: f64) -> String {
    if !d.is_finite() {
        return non_finite(d);
    }
    let s = format!("{d:.4e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    format!(
        "{mantissa}e{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

fn non_finite(d: f64) -> String {
    if d.is_nan() {
        "nan".into()
    } else if d > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

impl Format {
    fn cell(&self, v: f64) -> String {
        let v = v / self.scale;
        let text = match self.style {
            Style::General => general(v, 6),
            Style::Scientific => scientific(v),
            Style::Fixed if v.is_finite() => format!("{v:.4}"),
            Style::Fixed => non_finite(v),
        };
        format!("{text:>width$}", width = self.width)
    }

    /// The `1000000 *` line: the scale in its shortest round-trip digits (as PyTorch prints
    /// it: `1000000`, `0.001`, `1e-05`).
    fn scale_line(&self) -> String {
        let repr = crate::ivalue::format_float(self.scale);
        format!("{} *\n", repr.strip_suffix(".0").unwrap_or(&repr))
    }
}

/// ATen's type name: `CPUFloatType`.
fn type_name(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "CPUBoolType",
        DType::U8 => "CPUByteType",
        DType::I8 => "CPUCharType",
        DType::I16 => "CPUShortType",
        DType::I32 => "CPUIntType",
        DType::I64 => "CPULongType",
        DType::F16 => "CPUHalfType",
        DType::BF16 => "CPUBFloat16Type",
        DType::F32 => "CPUFloatType",
        DType::F64 => "CPUDoubleType",
    }
}

/// One matrix (`rows` x `cols` values, row-major) as `__printMatrix` writes it, 80 columns
/// wide.
fn matrix(out: &mut String, values: &[f64], rows: usize, cols: usize, indent: usize) {
    const LINESIZE: usize = 80;
    let f = choose(values);
    let pad = " ".repeat(indent);
    let per_line = ((LINESIZE - indent) / (f.width + 1)).max(1);
    let mut first = 0;
    while first < cols {
        let last = (first + per_line).min(cols) - 1;
        if per_line < cols {
            if first != 0 {
                out.push('\n');
            }
            out.push_str(&format!("Columns {} to {}", first + 1, last + 1));
            out.push_str(&pad);
        }
        if f.scale != 1.0 {
            out.push_str(&f.scale_line());
            out.push_str(&pad);
        }
        for r in 0..rows {
            for c in first..=last {
                out.push_str(&f.cell(values[r * cols + c]));
                if c == last {
                    out.push('\n');
                    if r != rows - 1 {
                        out.push_str(&pad);
                        if f.scale != 1.0 {
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

/// `str(t)` as TorchScript prints a tensor.
pub fn tensor_str(t: &Tensor) -> String {
    let values = t.to_vec::<f64>();
    let sizes: Vec<i64> = t.sizes().iter().copied().collect();
    let mut out = String::new();
    match sizes.len() {
        0 => {
            out.push_str(&general(values.first().copied().unwrap_or(0.0), 6));
            out.push('\n');
        }
        1 => {
            if !values.is_empty() {
                let f = choose(&values);
                if f.scale != 1.0 {
                    out.push_str(&f.scale_line());
                }
                for &v in &values {
                    out.push_str(&f.cell(v));
                    out.push('\n');
                }
            }
        }
        2 => {
            if !values.is_empty() {
                matrix(&mut out, &values, sizes[0] as usize, sizes[1] as usize, 0);
            }
        }
        rank => {
            if !values.is_empty() {
                let (rows, cols) = (sizes[rank - 2] as usize, sizes[rank - 1] as usize);
                let slice = rows * cols;
                for (k, chunk) in values.chunks(slice.max(1)).enumerate() {
                    if k > 0 {
                        out.push('\n');
                    }
                    // The slice's index in the leading dimensions, 1-based.
                    let mut rest = k;
                    let mut index = vec![0usize; rank - 2];
                    for d in (0..rank - 2).rev() {
                        index[d] = rest % sizes[d] as usize;
                        rest /= sizes[d] as usize;
                    }
                    out.push('(');
                    for i in &index {
                        out.push_str(&format!("{},", i + 1));
                    }
                    out.push_str(".,.) = \n");
                    // As PyTorch prints it, the first row follows the header unindented.
                    matrix(&mut out, chunk, rows, cols, 1);
                }
            }
        }
    }
    let dims: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
    out.push_str(&format!(
        "[ {}{{{}}} ]",
        type_name(t.dtype()),
        dims.join(",")
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_aten() {
        // str(t) under torch.jit.script.
        let f = |v: Vec<f32>, s: &[i64]| tensor_str(&Tensor::from_vec(v, s).unwrap());
        assert_eq!(
            f(vec![1.5, 2.0, -3.25], &[3]),
            " 1.5000\n 2.0000\n-3.2500\n[ CPUFloatType{3} ]"
        );
        assert_eq!(
            tensor_str(&Tensor::from_vec(vec![1i64, 2, 3, 40], &[2, 2]).unwrap()),
            "  1   2\n  3  40\n[ CPULongType{2,2} ]"
        );
        assert_eq!(f(vec![2.5], &[]), "2.5\n[ CPUFloatType{} ]");
        assert_eq!(
            tensor_str(&Tensor::from_vec(vec![true, false], &[2]).unwrap()),
            " 1\n 0\n[ CPUBoolType{2} ]"
        );
        assert_eq!(
            f(vec![1e-5, 1e5], &[2]),
            " 1.0000e-05\n 1.0000e+05\n[ CPUFloatType{2} ]"
        );
        assert_eq!(f(vec![], &[0, 3]), "[ CPUFloatType{0,3} ]");
        let cube: Vec<f32> = (0..24).map(|i| i as f32).collect();
        assert_eq!(
            f(cube, &[2, 3, 4]),
            "(1,.,.) = \n  0   1   2   3\n   4   5   6   7\n   8   9  10  11\n\n(2,.,.) = \n 12  13  14  15\n  16  17  18  19\n  20  21  22  23\n[ CPUFloatType{2,3,4} ]"
        );
        assert_eq!(
            f(vec![1e10, 1.0], &[2]),
            " 1.0000e+10\n 1.0000e+00\n[ CPUFloatType{2} ]"
        );
    }
}
