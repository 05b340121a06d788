//! Whether a value has the type a guard states: the check of `prim::TypeCheck` (PyTorch's
//! `TensorType::matchTensor`: dtype, device, requires_grad, rank, every known size and
//! stride) shared by the executor's guards and the entry guards of whole compiled models.

use ember_dialects::types::{Dim, TensorType};
use ember_dialects::Type;

use crate::ivalue::IValue;
use crate::ops::builtins::misc::value_is;
use crate::tensor::{Device, Tensor};

/// Whether tensor `t` has every property `ty` states. Runs on every guarded call: it reads
/// the tensor's metadata in place, allocating nothing.
pub fn matches(ty: &TensorType, t: &Tensor) -> bool {
    let meta = t.meta();
    if ty.dtype.is_some_and(|d| d != meta.dtype.scalar_type())
        || ty.requires_grad.is_some_and(|r| r != meta.requires_grad)
        || ty.undefined == Some(true)
    {
        return false;
    }
    if let Some(device) = &ty.device {
        let same = match meta.device {
            Device::Cpu => device.kind == "cpu",
            Device::Cuda(i) => device.kind == "cuda" && device.index.unwrap_or(0) == i as i64,
        };
        if !same {
            return false;
        }
    }
    let sizes = &meta.sizes;
    if let Some(want) = &ty.sizes {
        if want.len() != sizes.len() {
            return false;
        }
        let sizes_ok = want
            .iter()
            .zip(sizes.iter())
            .all(|(w, &s)| !matches!(*w, Dim::Known(k) if k != s));
        if !sizes_ok {
            return false;
        }
    }
    if let Some(want) = &ty.strides {
        if want.len() != meta.strides.len() {
            return false;
        }
        // The stride of a size-1 dimension never changes which element is read.
        let strides_ok = want
            .iter()
            .zip(meta.strides.iter())
            .zip(sizes.iter())
            .all(|((w, &s), &size)| w.is_none_or(|w| w == s) || size == 1);
        if !strides_ok {
            return false;
        }
    }
    true
}

/// Whether `v` has type `ty`: tensors by [`matches`], every other value as `isinstance`
/// checks it.
pub fn value_matches(ty: &Type, v: &IValue) -> bool {
    match (ty, v) {
        (Type::Tensor(tt), IValue::Tensor(t)) => matches(tt, t),
        _ => value_is(v, ty),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ember_dialects::types::parse_type;

    fn t(sizes: &[i64]) -> Tensor {
        Tensor::from_vec(vec![0f32; sizes.iter().product::<i64>() as usize], sizes).unwrap()
    }

    fn ty(text: &str) -> Type {
        parse_type(text).unwrap()
    }

    #[test]
    fn checks_every_stated_property() {
        let fixed = ty("Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)");
        let Type::Tensor(tt) = &fixed else {
            panic!("{fixed:?}")
        };
        assert!(matches(tt, &t(&[2, 3])));
        assert!(!matches(tt, &t(&[3, 2])));
        assert!(!matches(tt, &t(&[2, 3, 1])));
        let transposed = t(&[3, 2]).transpose(0, 1).unwrap();
        assert!(!matches(tt, &transposed), "strides differ");
        let double = Tensor::from_vec(vec![0f64; 6], &[2, 3]).unwrap();
        assert!(!matches(tt, &double), "dtype differs");
        let dynamic = ty("Float(*, 3, strides=[*, 1], device=cpu)");
        assert!(value_matches(&dynamic, &IValue::Tensor(t(&[7, 3]))));
    }

    #[test]
    fn plain_types_check_the_kind_of_value() {
        let x = IValue::Tensor(t(&[2]));
        assert!(value_matches(&ty("Tensor"), &x));
        assert!(!value_matches(&ty("int"), &x));
        assert!(value_matches(&ty("int"), &IValue::Int(3)));
        assert!(!value_matches(&ty("float"), &IValue::Int(3)));
        assert!(value_matches(
            &ty("int[]"),
            &IValue::list(vec![IValue::Int(1)])
        ));
        assert!(value_matches(&ty("Tensor?"), &IValue::None));
    }
}
