//! The BLAS-shaped products: mm, bmm, addmm, baddbmm, mv, addmv, dot, outer and linear, with
//! PyTorch's checks and messages. Each computes into a fresh tensor through [`bgemm`].

use super::gemm::bgemm;
use crate::tensor::elementwise::{map, promoted_dtype, Arg, Compute, Target};
use crate::tensor::{Tensor, TensorError, TensorResult};

use super::super::args::short_name;
use crate::bail;

fn same_dtype_or(a: &Tensor, b: &Tensor, msg: impl FnOnce() -> String) -> TensorResult<()> {
    if a.dtype() != b.dtype() {
        return Err(TensorError::new(msg()));
    }
    Ok(())
}

/// `beta * self + alpha * (mat1 @ mat2)` with `self` broadcast to the product's shape, or
/// `mat1 @ mat2` when `input` is None.
fn matrix_product(
    op: &str,
    input: Option<&Tensor>,
    a: &Tensor,
    b: &Tensor,
    beta: f64,
    alpha: f64,
) -> TensorResult<Tensor> {
    let (m, k) = (a.sizes()[0], a.sizes()[1]);
    let n = b.sizes()[1];
    let out = match input {
        Some(t) if beta != 0.0 => t.expand(&[m, n])?.clone_contiguous()?,
        Some(t) => {
            t.expand(&[m, n])?;
            Tensor::zeros(&[m, n], a.dtype())?
        }
        None => Tensor::zeros(&[m, n], a.dtype())?,
    };
    let _ = k;
    bgemm(
        op,
        &a.unsqueeze(0)?,
        &b.unsqueeze(0)?,
        &out.unsqueeze(0)?,
        alpha,
        if input.is_some() { beta } else { 0.0 },
    )?;
    Ok(out)
}

/// The checks of `mm` and `addmm`; `op` prefixes the messages as PyTorch's do.
fn check_mm_shapes(op: &str, a: &Tensor, b: &Tensor) -> TensorResult<()> {
    if a.dim() != 2 {
        bail!("{op}: self must be a matrix, got {}-D tensor", a.dim());
    }
    if b.dim() != 2 {
        bail!("{op}: mat2 must be a matrix, got {}-D tensor", b.dim());
    }
    let (sa, sb) = (a.sizes(), b.sizes());
    if sa[1] != sb[0] {
        bail!(
            "{op}: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            sa[0],
            sa[1],
            sb[0],
            sb[1]
        );
    }
    same_dtype_or(a, b, || {
        format!(
            "expected m1 and m2 to have the same dtype, but got: {} != {}",
            a.dtype().cpp_type_name(),
            b.dtype().cpp_type_name()
        )
    })
}

/// `torch.mm(self, mat2)`.
pub fn mm(a: &Tensor, b: &Tensor) -> TensorResult<Tensor> {
    check_mm_shapes("mm", a, b)?;
    matrix_product("addmm_impl_cpu_", None, a, b, 0.0, 1.0)
}

/// `torch.addmm(self, mat1, mat2, beta=, alpha=)`.
pub fn addmm(
    input: &Tensor,
    a: &Tensor,
    b: &Tensor,
    beta: f64,
    alpha: f64,
) -> TensorResult<Tensor> {
    same_dtype_or(input, b, || {
        format!(
            "self and mat2 must have the same dtype, but got {} and {}",
            input.dtype().scalar_type_name(),
            b.dtype().scalar_type_name()
        )
    })?;
    check_mm_shapes("addmm", a, b)?;
    matrix_product("addmm_impl_cpu_", Some(input), a, b, beta, alpha)
}

fn check_bmm(a: &Tensor, b: &Tensor) -> TensorResult<()> {
    if a.dim() != 3 {
        bail!("batch1 must be a 3D tensor");
    }
    if b.dim() != 3 {
        bail!("batch2 must be a 3D tensor");
    }
    let (sa, sb) = (a.sizes(), b.sizes());
    if sb[0] != sa[0] || sb[1] != sa[2] {
        bail!(
            "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
            sa[0],
            sa[2],
            sb[0],
            sb[1]
        );
    }
    Ok(())
}

/// `torch.bmm(self, mat2)`.
pub fn bmm(a: &Tensor, b: &Tensor) -> TensorResult<Tensor> {
    check_bmm(a, b)?;
    same_dtype_or(a, b, || {
        format!(
            "expected scalar type {} but found {}",
            a.dtype().scalar_type_name(),
            b.dtype().scalar_type_name()
        )
    })?;
    let (sa, sb) = (a.sizes(), b.sizes());
    let out = Tensor::zeros(&[sa[0], sa[1], sb[2]], a.dtype())?;
    bgemm("bmm", a, b, &out, 1.0, 0.0)?;
    Ok(out)
}

/// `torch.baddbmm(self, batch1, batch2, beta=, alpha=)`.
pub fn baddbmm(
    input: &Tensor,
    a: &Tensor,
    b: &Tensor,
    beta: f64,
    alpha: f64,
) -> TensorResult<Tensor> {
    check_bmm(a, b)?;
    if input.dtype() != a.dtype() || a.dtype() != b.dtype() {
        bail!(
            "Input dtypes must be the same, got: input {}, batch1: {}, batch2: {}",
            short_name(input.dtype()),
            short_name(a.dtype()),
            short_name(b.dtype())
        );
    }
    let (sa, sb) = (a.sizes(), b.sizes());
    let shape = [sa[0], sa[1], sb[2]];
    let expanded = input.expand(&shape)?;
    let out = if beta != 0.0 {
        expanded.clone_contiguous()?
    } else {
        Tensor::zeros(&shape, a.dtype())?
    };
    bgemm("baddbmm", a, b, &out, alpha, beta)?;
    Ok(out)
}

fn check_mv(input_dim: usize, mat: &Tensor, vec: &Tensor) -> TensorResult<()> {
    if mat.dim() != 2 || vec.dim() != 1 || input_dim != 1 {
        bail!(
            "vector + matrix @ vector expected, got {}, {}, {}",
            input_dim,
            mat.dim(),
            vec.dim()
        );
    }
    Ok(())
}

/// `beta * input + alpha * (mat @ vec)`; `input` None is `mv`.
fn matrix_vector(
    input: Option<&Tensor>,
    mat: &Tensor,
    vec: &Tensor,
    beta: f64,
    alpha: f64,
) -> TensorResult<Tensor> {
    let input_dim = input.map_or(1, |t| t.dim());
    check_mv(input_dim, mat, vec)?;
    let (m, k) = (mat.sizes()[0], mat.sizes()[1]);
    let input_size = input.map_or(m, |t| t.sizes()[0]);
    if k != vec.sizes()[0] || (input_size != m && input_size != 1) {
        bail!(
            "size mismatch, got input ({input_size}), mat ({m}x{k}), vec ({})",
            vec.sizes()[0]
        );
    }
    let input_dtype = input.map_or(vec.dtype(), |t| t.dtype());
    if mat.dtype() != vec.dtype() || input_dtype != mat.dtype() {
        bail!(
            "addmv input tensors must have the same dtype, but got {}, {}, and {}",
            input_dtype.scalar_type_name(),
            mat.dtype().scalar_type_name(),
            vec.dtype().scalar_type_name()
        );
    }
    let out = match input {
        Some(t) if beta != 0.0 => t.expand(&[m])?.clone_contiguous()?,
        _ => Tensor::zeros(&[m], mat.dtype())?,
    };
    bgemm(
        "addmv_impl_cpu",
        &mat.unsqueeze(0)?,
        &vec.unsqueeze(0)?.unsqueeze(2)?,
        &out.unsqueeze(0)?.unsqueeze(2)?,
        alpha,
        if input.is_some() { beta } else { 0.0 },
    )?;
    Ok(out)
}

/// `torch.mv(self, vec)`.
pub fn mv(mat: &Tensor, vec: &Tensor) -> TensorResult<Tensor> {
    matrix_vector(None, mat, vec, 0.0, 1.0)
}

/// `torch.addmv(self, mat, vec, beta=, alpha=)`.
pub fn addmv(
    input: &Tensor,
    mat: &Tensor,
    vec: &Tensor,
    beta: f64,
    alpha: f64,
) -> TensorResult<Tensor> {
    matrix_vector(Some(input), mat, vec, beta, alpha)
}

/// `torch.dot(self, tensor)` (and `vdot` on real tensors): a 0-dim result.
pub fn dot(a: &Tensor, b: &Tensor) -> TensorResult<Tensor> {
    if a.dim() != 1 || b.dim() != 1 {
        bail!(
            "1D tensors expected, but got {}D and {}D tensors",
            a.dim(),
            b.dim()
        );
    }
    if a.dtype() != b.dtype() {
        bail!(
            "dot : expected both vectors to have same dtype, but found {} and {}",
            a.dtype().scalar_type_name(),
            b.dtype().scalar_type_name()
        );
    }
    let (na, nb) = (a.numel(), b.numel());
    if na != nb {
        bail!(
            "inconsistent tensor size, expected tensor [{na}] and src [{nb}] to have the same number of elements, but got {na} and {nb} elements respectively"
        );
    }
    let out = Tensor::zeros(&[1, 1, 1], a.dtype())?;
    bgemm(
        "dot",
        &a.unsqueeze(0)?.unsqueeze(0)?,
        &b.unsqueeze(0)?.unsqueeze(2)?,
        &out,
        1.0,
        0.0,
    )?;
    out.reshape(&[])
}

/// `torch.outer(self, vec2)`: the product broadcast, with type promotion.
pub fn outer(a: &Tensor, b: &Tensor) -> TensorResult<Tensor> {
    if a.dim() != 1 {
        bail!("outer: Expected 1-D argument self, but got {}-D", a.dim());
    }
    if b.dim() != 1 {
        bail!("outer: Expected 1-D argument vec2, but got {}-D", b.dim());
    }
    let args = [Arg::Tensor(a.unsqueeze(1)?), Arg::Tensor(b.clone())];
    let dtype = promoted_dtype(&args);
    if dtype.is_floating() {
        map(&args, Compute::Float(&|x| x[0] * x[1]), Target::New(dtype))
    } else {
        map(
            &args,
            Compute::Int(&|x| x[0].wrapping_mul(x[1])),
            Target::New(dtype),
        )
    }
}

/// `torch.nn.functional.linear(input, weight, bias)`: `input @ weight.T + bias`, the bias
/// folded into the product (as addmm) so it costs no extra pass.
pub fn linear(input: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> TensorResult<Tensor> {
    linear_with(input, weight, bias, None)
}

/// [`linear`] with the packed weights of a constant weight kept in `cache` across calls.
pub(crate) fn linear_with(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    cache: Option<&super::sgemm::PackCache>,
) -> TensorResult<Tensor> {
    let none = crate::ops::nn::epilogue::Epilogue::NONE;
    if let Some(out) = super::sgemm::linear_f32(input, weight, bias, &none, cache)? {
        return Ok(out);
    }
    if input.dim() == 0 || weight.dim() == 0 {
        bail!(
            "both arguments to linear need to be at least 1D, but they are {}D and {}D",
            input.dim(),
            weight.dim()
        );
    }
    let wt = weight.t()?;
    if let (2, Some(b)) = (input.dim(), bias) {
        return addmm(b, input, &wt, 1.0, 1.0);
    }
    if input.dim() == 1 || weight.dim() == 1 {
        let out = super::matmul::matmul(input, &wt)?;
        return match bias {
            None => Ok(out),
            Some(b) => add_into_new(&out, b),
        };
    }
    if input.dim() == 2 {
        return mm(input, &wt);
    }
    // N-d inputs fold their leading dims into the rows of one product, as PyTorch does.
    let sizes = input.sizes();
    let k = sizes[sizes.len() - 1];
    let rows: i64 = sizes[..sizes.len() - 1].iter().product();
    let flat = input.reshape(&[rows, k])?;
    let mut out_shape = sizes[..sizes.len() - 1].to_vec();
    out_shape.push(wt.sizes()[1]);
    let out = match bias {
        Some(b) => addmm(b, &flat, &wt, 1.0, 1.0)?,
        None => mm(&flat, &wt)?,
    };
    out.view(&out_shape)
}

/// `out + bias` with broadcasting and promotion into a fresh tensor.
fn add_into_new(out: &Tensor, bias: &Tensor) -> TensorResult<Tensor> {
    let args = [Arg::Tensor(out.clone()), Arg::Tensor(bias.clone())];
    let dtype = promoted_dtype(&args);
    if dtype.is_floating() {
        map(&args, Compute::Float(&|x| x[0] + x[1]), Target::New(dtype))
    } else {
        map(
            &args,
            Compute::Int(&|x| x[0].wrapping_add(x[1])),
            Target::New(dtype),
        )
    }
}
