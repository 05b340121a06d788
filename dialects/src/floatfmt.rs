//! Floating-point text exactly as PyTorch's C++ prints it: `printf("%.*g")` (what an ostream does
//! with a precision and the default float field) and `IValue::repr` for doubles (`1.`, `-0.`,
//! `0.10000000000000001`). Rust's own float formatting differs, so it is rebuilt here.

/// C's `%.{precision}g` (C++ `ostream << setprecision(precision) << x`).
pub fn format_g(x: f64, precision: usize) -> String {
    let p = precision.max(1);
    if x.is_nan() {
        return if x.is_sign_negative() {
            "-nan".into()
        } else {
            "nan".into()
        };
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf".into() } else { "inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let sci = format!("{:.*e}", p - 1, x);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let m = strip_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.unsigned_abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{:.*}", decimals, x)).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// A float as Python's `repr` and `str` write it: the shortest digits that round-trip,
/// scientific below 1e-4 and from 1e16, always with a `.` or an exponent (`1.0`, `1e-05`).
pub fn format_python_float(d: f64) -> String {
    if d.is_nan() {
        return "nan".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let sci = format!("{d:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..16).contains(&exp) {
        return format!(
            "{mantissa}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        );
    }
    let s = format!("{d}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// A double as `IValue::repr` prints it: integral values below 1e10 as `3.`, others with 17
/// significant digits.
pub fn format_repr(d: f64) -> String {
    let normal_or_zero = d == 0.0 || d.is_normal();
    if normal_or_zero && d.abs() < 1e10 && d.trunc() == d {
        if d == 0.0 && d.is_sign_negative() {
            return "-0.".into();
        }
        return format!("{}.", d as i64);
    }
    format_g(d, 17)
}

/// A complex number as `IValue::repr` prints it: `1.+2.j`, `0.-1.5j`.
pub fn format_complex_repr(re: f64, im: f64) -> String {
    let imag = format_repr(im);
    if imag.starts_with('-') {
        format!("{}{}j", format_repr(re), imag)
    } else {
        format!("{}+{}j", format_repr(re), imag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_printf_g() {
        let cases = [
            (0.1, 17, "0.10000000000000001"),
            (1e-5, 17, "1.0000000000000001e-05"),
            (1e20, 17, "1e+20"),
            (2.5, 6, "2.5"),
            (1e-5, 6, "1e-05"),
            (123456789.0, 6, "1.23457e+08"),
            (100000.0, 6, "100000"),
            (0.0001, 6, "0.0001"),
            (-3.25, 6, "-3.25"),
            (f64::INFINITY, 6, "inf"),
            (1.5e-300, 17, "1.5000000000000001e-300"),
        ];
        for (x, p, want) in cases {
            assert_eq!(format_g(x, p), want, "{x} at precision {p}");
        }
    }

    #[test]
    fn matches_ivalue_repr() {
        assert_eq!(format_repr(1.0), "1.");
        assert_eq!(format_repr(-0.0), "-0.");
        assert_eq!(format_repr(2.5), "2.5");
        assert_eq!(format_repr(1e10), "10000000000");
        assert_eq!(format_repr(3e100), "2.9999999999999999e+100");
        assert_eq!(format_repr(f64::NEG_INFINITY), "-inf");
        assert_eq!(format_complex_repr(1.0, 2.0), "1.+2.j");
        assert_eq!(format_complex_repr(0.0, -1.5), "0.-1.5j");
    }
}
