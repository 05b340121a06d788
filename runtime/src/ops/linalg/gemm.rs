//! The one matrix-product kernel every product operator (mm, bmm, addmm, matmul, linear,
//! einsum, convolution) goes through: `out[b] = beta * out[b] + alpha * a[b] @ b[b]` over
//! strided 3-d views. float32/float64 run on the `gemm` crate (packed, SIMD, multithreaded);
//! float16/bfloat16 compute in float32 and round once, as PyTorch's CPU kernels do; integer
//! dtypes accumulate with wrapping arithmetic, which equals PyTorch's same-width wrapping.

use crate::bail;
use crate::tensor::{DType, Element, Tensor, TensorResult};

/// Products with at least this many multiply-adds use every core.
const PARALLEL_FLOPS: usize = 1 << 17;

/// Computes `out[i] = beta * out[i] + alpha * a[i] @ b[i]` for `a: [B, M, K]`,
/// `b: [B, K, N]` and `out: [B, M, N]`, all of one dtype. `out` must not overlap the inputs
/// (callers pass a tensor they allocated). With `beta == 0` the old contents of `out` are
/// ignored (NaN included), as BLAS does. `op` names the operator in PyTorch's "not
/// implemented" message for bool.
pub fn bgemm(
    op: &str,
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
    alpha: f64,
    beta: f64,
) -> TensorResult<()> {
    let (asz, bsz, osz) = (a.sizes(), b.sizes(), out.sizes());
    if asz.len() != 3 || bsz.len() != 3 || osz.len() != 3 {
        bail!("bgemm expects 3-d operands");
    }
    let (batch, m, k, n) = (asz[0], asz[1], asz[2], bsz[2]);
    if bsz[0] != batch || bsz[1] != k || osz[0] != batch || osz[1] != m || osz[2] != n {
        bail!(
            "bgemm: operand shapes {:?} @ {:?} -> {:?} disagree",
            asz.as_slice(),
            bsz.as_slice(),
            osz.as_slice()
        );
    }
    let dtype = out.dtype();
    if a.dtype() != dtype || b.dtype() != dtype {
        bail!("bgemm: operands must share a dtype");
    }
    if batch == 0 || m == 0 || n == 0 {
        return Ok(());
    }
    let shape = Shape3 {
        batch: batch as usize,
        m: m as usize,
        n: n as usize,
        k: k as usize,
    };
    let (sa, sb, so) = (a.strides(), b.strides(), out.strides());
    let a_view = View {
        ptr: a.data_ptr() as usize,
        s: [sa[0] as isize, sa[1] as isize, sa[2] as isize],
    };
    let b_view = View {
        ptr: b.data_ptr() as usize,
        s: [sb[0] as isize, sb[1] as isize, sb[2] as isize],
    };
    let o_view = View {
        ptr: out.data_ptr() as usize,
        s: [so[0] as isize, so[1] as isize, so[2] as isize],
    };
    match dtype {
        DType::F32 => float_gemm::<f32>(shape, a_view, b_view, o_view, alpha as f32, beta as f32),
        DType::F64 => float_gemm::<f64>(shape, a_view, b_view, o_view, alpha, beta),
        DType::F16 | DType::BF16 => half_gemm(shape, a, b, out, alpha, beta)?,
        DType::Bool => bail!("\"{op}\" not implemented for 'Bool'"),
        DType::U8 => int_gemm::<u8>(shape, a_view, b_view, o_view, alpha as i64, beta as i64),
        DType::I8 => int_gemm::<i8>(shape, a_view, b_view, o_view, alpha as i64, beta as i64),
        DType::I16 => int_gemm::<i16>(shape, a_view, b_view, o_view, alpha as i64, beta as i64),
        DType::I32 => int_gemm::<i32>(shape, a_view, b_view, o_view, alpha as i64, beta as i64),
        DType::I64 => int_gemm::<i64>(shape, a_view, b_view, o_view, alpha as i64, beta as i64),
    }
    Ok(())
}

#[derive(Copy, Clone)]
struct Shape3 {
    batch: usize,
    m: usize,
    n: usize,
    k: usize,
}

/// A strided 3-d operand: the address of element 0 and the strides in elements.
#[derive(Copy, Clone)]
struct View {
    ptr: usize,
    s: [isize; 3],
}

impl View {
    fn at<T>(&self, i: usize) -> *mut T {
        (self.ptr as *mut T).wrapping_offset(i as isize * self.s[0])
    }
}

fn float_gemm<T>(sh: Shape3, a: View, b: View, o: View, alpha: T, beta: T)
where
    T: Element + Into<f64>,
{
    let work = sh.m * sh.n * sh.k.max(1);
    if sh.k == 0 {
        scale_rows::<T>(sh, o, beta.into());
        return;
    }
    let read_dst = beta.into() != 0.0;
    let one_product = |i: usize, par: gemm::Parallelism| {
        // SAFETY: the views address in-bounds elements of live tensors (their metadata was
        // checked at creation); `o` does not overlap `a` or `b`, and each batch entry writes
        // its own rows of `o`.
        unsafe {
            gemm::gemm::<T>(
                sh.m,
                sh.n,
                sh.k,
                o.at::<T>(i),
                o.s[2],
                o.s[1],
                read_dst,
                a.at::<T>(i),
                a.s[2],
                a.s[1],
                b.at::<T>(i),
                b.s[2],
                b.s[1],
                beta,
                alpha,
                false,
                false,
                false,
                par,
            )
        }
    };
    if work >= PARALLEL_FLOPS {
        (0..sh.batch).for_each(|i| one_product(i, gemm::Parallelism::Rayon(0)));
    } else if work * sh.batch >= PARALLEL_FLOPS {
        crate::parallel::for_each(sh.batch, |i| one_product(i, gemm::Parallelism::None));
    } else {
        (0..sh.batch).for_each(|i| one_product(i, gemm::Parallelism::None));
    }
}

/// `out *= beta` (or zero when beta is 0) for an empty contraction.
fn scale_rows<T: Element>(sh: Shape3, o: View, beta: f64) {
    for i in 0..sh.batch {
        for r in 0..sh.m {
            for c in 0..sh.n {
                let p = o
                    .at::<T>(i)
                    .wrapping_offset(r as isize * o.s[1] + c as isize * o.s[2]);
                // SAFETY: an in-bounds element of `out`.
                unsafe {
                    *p = if beta == 0.0 {
                        T::from_f64(0.0)
                    } else {
                        T::from_f64((*p).to_f64() * beta)
                    }
                };
            }
        }
    }
}

/// float16/bfloat16: the operands widened to float32, one float32 product, rounded once.
fn half_gemm(
    sh: Shape3,
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
    alpha: f64,
    beta: f64,
) -> TensorResult<()> {
    let a32 = Tensor::from_vec(a.to_vec::<f32>(), &a.sizes())?;
    let b32 = Tensor::from_vec(b.to_vec::<f32>(), &b.sizes())?;
    let o32 = Tensor::from_vec(out.to_vec::<f32>(), &out.sizes())?;
    let view = |t: &Tensor| {
        let s = t.strides();
        View {
            ptr: t.data_ptr() as usize,
            s: [s[0] as isize, s[1] as isize, s[2] as isize],
        }
    };
    float_gemm::<f32>(
        sh,
        view(&a32),
        view(&b32),
        view(&o32),
        alpha as f32,
        beta as f32,
    );
    out.copy_from(&o32)
}

fn int_gemm<T: Element>(sh: Shape3, a: View, b: View, o: View, alpha: i64, beta: i64) {
    for i in 0..sh.batch {
        let (pa, pb, po) = (a.at::<T>(i), b.at::<T>(i), o.at::<T>(i));
        for r in 0..sh.m {
            for c in 0..sh.n {
                let mut acc: i64 = 0;
                for d in 0..sh.k {
                    // SAFETY: in-bounds elements of the operands.
                    let (x, y) = unsafe {
                        (
                            *pa.wrapping_offset(r as isize * a.s[1] + d as isize * a.s[2]),
                            *pb.wrapping_offset(d as isize * b.s[1] + c as isize * b.s[2]),
                        )
                    };
                    acc = acc.wrapping_add(x.to_i64().wrapping_mul(y.to_i64()));
                }
                let p = po.wrapping_offset(r as isize * o.s[1] + c as isize * o.s[2]);
                // SAFETY: an in-bounds element of `out`.
                unsafe {
                    let old = if beta == 0 {
                        0
                    } else {
                        (*p).to_i64().wrapping_mul(beta)
                    };
                    *p = T::from_i64(old.wrapping_add(acc.wrapping_mul(alpha)));
                }
            }
        }
    }
}

/// `dst (+)= a @ b` on the calling thread, for float32/float64 blocks: `a` is `m x k` and `b`
/// is `k x n`, each with element (r, c) at `r * s[0] + c * s[1]` for its strides `s` (a row
/// stride and 1 for a row-major block; a transposed operand read in place), `dst` is `m x n`
/// with row stride `ldd`; with `accumulate` the product is added to `dst`, otherwise it
/// replaces it. For kernels that tile their own work across threads (convolution, attention).
///
/// # Safety
/// The three blocks must be valid for those shapes and strides, `dst` must not overlap the
/// operands, and `T` must be `f32` or `f64`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm_serial<T: Element>(
    m: usize,
    n: usize,
    k: usize,
    dst: *mut T,
    ldd: usize,
    accumulate: bool,
    a: *const T,
    a_strides: [usize; 2],
    b: *const T,
    b_strides: [usize; 2],
) {
    debug_assert!(matches!(T::DTYPE, DType::F32 | DType::F64));
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            for r in 0..m {
                for c in 0..n {
                    *dst.add(r * ldd + c) = T::from_f64(0.0);
                }
            }
        }
        return;
    }
    gemm::gemm::<T>(
        m,
        n,
        k,
        dst,
        1,
        ldd as isize,
        accumulate,
        a,
        a_strides[1] as isize,
        a_strides[0] as isize,
        b,
        b_strides[1] as isize,
        b_strides[0] as isize,
        T::from_f64(1.0),
        T::from_f64(1.0),
        false,
        false,
        false,
        gemm::Parallelism::None,
    )
}
