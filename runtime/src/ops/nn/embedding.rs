//! `embedding`: rows of the weight picked by integer indices, with PyTorch's checks.

use crate::bail;
use crate::tensor::{DType, Tensor, TensorResult};

/// The legacy tensor type name PyTorch's argument checks print (`torch.FloatTensor`).
fn legacy_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "torch.BoolTensor",
        DType::U8 => "torch.ByteTensor",
        DType::I8 => "torch.CharTensor",
        DType::I16 => "torch.ShortTensor",
        DType::I32 => "torch.IntTensor",
        DType::I64 => "torch.LongTensor",
        DType::F16 => "torch.HalfTensor",
        DType::BF16 => "torch.BFloat16Tensor",
        DType::F32 => "torch.FloatTensor",
        DType::F64 => "torch.DoubleTensor",
    }
}

/// `embedding(weight, indices)`: `weight[indices]`, shaped `indices.shape + [D]`.
/// (`padding_idx` only changes the gradient.)
pub fn embedding(weight: &Tensor, indices: &Tensor) -> TensorResult<Tensor> {
    if weight.dim() != 2 {
        bail!("'weight' must be 2-D");
    }
    let d = indices.dtype();
    if d != DType::I64 && d != DType::I32 {
        bail!(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got {} instead (while checking arguments for embedding)",
            legacy_name(d)
        );
    }
    let ws = weight.sizes();
    let (rows, dim) = (ws[0], ws[1]);
    let idx = indices.to_vec::<i64>();
    if idx.iter().any(|&i| i < 0 || i >= rows) {
        bail!("index out of range in self");
    }
    let mut shape = indices.sizes().to_vec();
    shape.push(dim);
    let out = Tensor::zeros(&shape, weight.dtype())?;
    let w = weight.contiguous()?;
    let size = weight.dtype().size() * dim as usize;
    let (src, dst) = (w.data_ptr(), out.data_ptr());
    for (k, &i) in idx.iter().enumerate() {
        // SAFETY: row `i` is in bounds of the contiguous weight (checked above) and row `k`
        // of the fresh output holds `dim` elements.
        unsafe {
            std::ptr::copy_nonoverlapping(src.add(i as usize * size), dst.add(k * size), size)
        };
    }
    Ok(out)
}
