//! How TorchScript turns values into text (`str()`, `format`, `print`, `KeyError: key`): the
//! C++ `operator<<` of IValue. Floats that hold an integer print as `1.`, others with 17
//! significant digits (`0.10000000000000001`), lists as `[1, 2]`, tuples as `(1,)`, dicts as
//! `{a: 1}` (strings inside containers are not quoted).

use crate::ivalue::IValue;

/// `str(x)` of a float as TorchScript prints it.
pub fn float_str(d: f64) -> String {
    if d.is_finite() && (d == 0.0 || d.is_normal()) {
        // int64_t(d) saturates here as it does on x86 for out-of-range values.
        let i = d as i64;
        if i as f64 == d && d.abs() < 9.3e18 {
            return format!("{i}.");
        }
        if d == -9223372036854775808.0 {
            return "-9223372036854775808.".into();
        }
    }
    general_17(d)
}

/// C's `%.17g`.
fn general_17(d: f64) -> String {
    if d.is_nan() {
        return if d.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "inf" } else { "-inf" }.into();
    }
    const P: i32 = 17;
    let sci = format!("{:.*e}", (P - 1) as usize, d);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..P).contains(&exp) {
        let m = strip_zeros(mantissa);
        format!(
            "{m}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.unsigned_abs()
        )
    } else {
        let decimals = (P - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{d:.decimals$}")).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// Appends `v` as `operator<<` prints it.
pub fn write_value(out: &mut String, v: &IValue) -> Result<(), String> {
    match v {
        IValue::None => out.push_str("None"),
        IValue::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        IValue::Int(i) => out.push_str(&i.to_string()),
        IValue::Double(d) => out.push_str(&float_str(*d)),
        IValue::Complex(c) => {
            out.push_str(&float_str(c.0));
            out.push(if c.1 >= 0.0 { '+' } else { '-' });
            out.push_str(&float_str(c.1.abs()));
            out.push('j');
        }
        IValue::Str(s) => out.push_str(s),
        IValue::Device(d) => out.push_str(&d.to_string()),
        // TorchScript holds a dtype as its c10::ScalarType number.
        IValue::ScalarType(d) => out.push_str(&(d.scalar_type() as i64).to_string()),
        IValue::List(l) => write_seq(out, &l.to_vec(), "[", "]")?,
        IValue::Tuple(t) => write_seq(out, t, "(", if t.len() == 1 { ",)" } else { ")" })?,
        IValue::Dict(d) => {
            out.push('{');
            for (i, (k, v)) in d.items().into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, &k.to_ivalue())?;
                out.push_str(": ");
                write_value(out, &v)?;
            }
            out.push('}');
        }
        IValue::Enum(e) => {
            let class = e.class_name.rsplit('.').next().unwrap_or(&e.class_name);
            out.push_str(&format!("Enum<{class}.{}>", e.name));
        }
        IValue::Object(o) => out.push_str(&format!("<{} object>", o.class_name())),
        IValue::Future(_) => out.push_str("Future"),
        IValue::Generator(_) => out.push_str("Generator"),
        IValue::Uninitialized => out.push_str("Uninitialized"),
        IValue::Tensor(t) => out.push_str(&super::tensor_print::tensor_str(t)),
    }
    Ok(())
}

fn write_seq(out: &mut String, items: &[IValue], open: &str, close: &str) -> Result<(), String> {
    out.push_str(open);
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_value(out, x)?;
    }
    out.push_str(close);
    Ok(())
}

/// `str(v)`.
pub fn to_str(v: &IValue) -> Result<String, String> {
    let mut s = String::new();
    write_value(&mut s, v)?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_torchscript() {
        // Outputs of str(x) under torch.jit.script.
        let cases = [
            (0.1, "0.10000000000000001"),
            (1e16, "10000000000000000."),
            (1e-5, "1.0000000000000001e-05"),
            (1.0, "1."),
            (123456789012345.0, "123456789012345."),
            (1.5e300, "1.5000000000000001e+300"),
            (f64::NAN, "nan"),
            (-0.0, "0."),
            (1.23456789012345, "1.23456789012345"),
            (2.5, "2.5"),
            (1e20, "1e+20"),
            (f64::NEG_INFINITY, "-inf"),
            (-1.5, "-1.5"),
            (f64::from_bits(1), "4.9406564584124654e-324"),
        ];
        for (v, want) in cases {
            assert_eq!(float_str(v), want, "{v:e}");
        }
    }

    #[test]
    fn containers_print_like_torchscript() {
        let d = crate::ivalue::Dict::default();
        d.insert(
            crate::ivalue::DictKey::Str(std::sync::Arc::new("a".into())),
            IValue::Double(1.0),
        );
        let v = IValue::tuple(vec![
            IValue::Int(1),
            IValue::str("a"),
            IValue::Bool(true),
            IValue::list(vec![IValue::Double(2.5)]),
            IValue::Dict(d),
            IValue::tuple(vec![IValue::None]),
        ]);
        assert_eq!(to_str(&v).unwrap(), "(1, a, True, [2.5], {a: 1.}, (None,))");
    }
}
