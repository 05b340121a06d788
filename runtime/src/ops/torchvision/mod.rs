//! torchvision's operators (`torchvision::nms`, `roi_align`, `roi_pool`, `ps_roi_align`,
//! `ps_roi_pool`, `deform_conv2d`, `box_iou_rotated`): the library a scripted detection model's archive calls
//! into, as torchvision's CPU kernels compute them. Optional: the `torchvision` feature of
//! the runtime, on by default.
//!
//! The kernels compute in the input's dtype as torchvision's do: float32 and float64
//! natively, float16 rounded after every operation. A region's batch index out of range is
//! refused (torchvision reads out of bounds).

mod box_iou_rotated;
mod deform_conv;
mod nms;
mod roi_align;
mod roi_pool;

use ember_dialects::{Graph, Node};

use crate::bail;
use crate::ivalue::IValue;
use crate::ops::args::{boolean, err, int, number, op_multi, op_n, tensor};
use crate::ops::real::Real;
use crate::ops::registry::Registry;
use crate::tensor::{wrap_dim, DType, Element, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    r.add("torchvision::nms", |g, n| {
        Ok(op_n(inputs(g, n), |a| {
            let keep = nms::nms(&tensor(&a[0])?, &tensor(&a[1])?, number(&a[2])?).map_err(err)?;
            Ok(IValue::Tensor(keep))
        }))
    });
    r.add("torchvision::roi_align", |g, n| {
        Ok(op_n(inputs(g, n), |a| {
            let p = Pooling::read(a)?;
            let sampling = int(&a[5])?;
            let aligned = boolean(&a[6])?;
            let out = roi_align::roi_align(&tensor(&a[0])?, &tensor(&a[1])?, &p, sampling, aligned)
                .map_err(err)?;
            Ok(IValue::Tensor(out))
        }))
    });
    r.add("torchvision::ps_roi_align", |g, n| {
        Ok(op_multi(inputs(g, n), |a| {
            let p = Pooling::read(a)?;
            let (out, map) =
                roi_align::ps_roi_align(&tensor(&a[0])?, &tensor(&a[1])?, &p, int(&a[5])?)
                    .map_err(err)?;
            Ok(vec![IValue::Tensor(out), IValue::Tensor(map)])
        }))
    });
    r.add("torchvision::roi_pool", |g, n| {
        Ok(op_multi(inputs(g, n), |a| {
            let p = Pooling::read(a)?;
            let (out, arg) =
                roi_pool::roi_pool(&tensor(&a[0])?, &tensor(&a[1])?, &p).map_err(err)?;
            Ok(vec![IValue::Tensor(out), IValue::Tensor(arg)])
        }))
    });
    r.add("torchvision::ps_roi_pool", |g, n| {
        Ok(op_multi(inputs(g, n), |a| {
            let p = Pooling::read(a)?;
            let (out, map) =
                roi_pool::ps_roi_pool(&tensor(&a[0])?, &tensor(&a[1])?, &p).map_err(err)?;
            Ok(vec![IValue::Tensor(out), IValue::Tensor(map)])
        }))
    });
    r.add("torchvision::deform_conv2d", |g, n| {
        Ok(op_n(inputs(g, n), |a| {
            let ints = a[5..13].iter().map(int).collect::<Result<Vec<_>, _>>()?;
            let p = deform_conv::Params {
                stride: [ints[0], ints[1]],
                pad: [ints[2], ints[3]],
                dilation: [ints[4], ints[5]],
                groups: ints[6],
                offset_groups: ints[7],
                use_mask: boolean(&a[13])?,
            };
            let t = |i: usize| tensor(&a[i]);
            let out = deform_conv::deform_conv2d(&t(0)?, &t(1)?, &t(2)?, &t(3)?, &t(4)?, &p)
                .map_err(err)?;
            Ok(IValue::Tensor(out))
        }))
    });
    r.add("torchvision::box_iou_rotated", |g, n| {
        Ok(op_n(inputs(g, n), |a| {
            let iou =
                box_iou_rotated::box_iou_rotated(&tensor(&a[0])?, &tensor(&a[1])?).map_err(err)?;
            Ok(IValue::Tensor(iou))
        }))
    });
    // A CPU build of torchvision's ops: no CUDA version.
    r.add("torchvision::_cuda_version", |_, _| {
        Ok(op_n(0, |_| Ok(IValue::Int(-1))))
    });
}

fn inputs(g: &Graph, n: Node) -> usize {
    g.node_inputs(n).len()
}

/// `spatial_scale, pooled_height, pooled_width` (arguments 2..5).
struct Pooling {
    spatial_scale: f64,
    pooled_height: i64,
    pooled_width: i64,
}

impl Pooling {
    fn read(a: &[IValue]) -> Result<Pooling, String> {
        Ok(Pooling {
            spatial_scale: number(&a[2])?,
            pooled_height: int(&a[3])?,
            pooled_width: int(&a[4])?,
        })
    }
}

/// The checks every region operator makes (`rois` is `[K, 5]` of the input's dtype, the
/// input is 4-d), with `shape_message` its own wording of the first; returns `(input, rois)`
/// contiguous.
fn check_regions(
    x: &Tensor,
    rois: &Tensor,
    shape_message: &str,
    kernel: &str,
) -> TensorResult<(Tensor, Tensor)> {
    wrap_dim(1, rois.dim())?;
    if rois.sizes()[1] != 5 {
        bail!("{shape_message}");
    }
    wrap_dim(3, x.dim())?;
    if x.dtype() != rois.dtype() {
        bail!("input should have the same type as rois");
    }
    if !matches!(x.dtype(), DType::F32 | DType::F64 | DType::F16) {
        bail!(
            "\"{kernel}\" not implemented for '{}'",
            x.dtype().scalar_type_name()
        );
    }
    Ok((x.contiguous()?, rois.contiguous()?))
}

/// The batch index of region `k` (`static_cast<int>` of its first value), checked.
fn batch_index<C: Real>(rois: &[C], k: usize, batch: i64) -> TensorResult<usize> {
    let v = rois[k * 5].f64();
    let b = if v.is_nan() { -1 } else { v.trunc() as i64 };
    if b < 0 || b >= batch {
        bail!("region {k} has batch index {v}, but the input has a batch of {batch}");
    }
    Ok(b as usize)
}

/// Calls `$body` with `$T` the element type and `$C` the arithmetic type of a region
/// operator's dtype (float32, float64, float16).
macro_rules! dispatch_real {
    ($dtype:expr, $T:ident, $C:ident => $body:expr) => {
        match $dtype {
            $crate::tensor::DType::F64 => {
                type $T = f64;
                type $C = f64;
                $body
            }
            $crate::tensor::DType::F16 => {
                type $T = half::f16;
                type $C = $crate::ops::real::Rounded<half::f16>;
                $body
            }
            _ => {
                type $T = f32;
                type $C = f32;
                $body
            }
        }
    };
}
use dispatch_real;

/// The elements of a contiguous tensor of `T` as `C`.
fn values<T: Element, C: Real>(t: &Tensor) -> Vec<C> {
    t.to_vec::<T>()
        .into_iter()
        .map(|v| C::of(v.to_f64()))
        .collect()
}

/// A tensor of `T` from values in `C`.
fn tensor_of<T: Element, C: Real>(v: &[C], sizes: &[i64]) -> TensorResult<Tensor> {
    Tensor::from_vec(v.iter().map(|x| T::from_f64(x.f64())).collect(), sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message<T>(r: TensorResult<T>) -> String {
        r.err().map(|e| e.message).unwrap_or_default()
    }

    /// torchvision divides by the stride before checking it (a crash) and reads out of
    /// bounds for a region's bad batch index; Ember refuses both.
    #[test]
    fn inputs_torchvision_does_not_check_are_refused() {
        let x = Tensor::zeros(&[1, 2, 5, 5], DType::F32).unwrap();
        let w = Tensor::zeros(&[3, 2, 3, 3], DType::F32).unwrap();
        let off = Tensor::zeros(&[1, 18, 3, 3], DType::F32).unwrap();
        let mask = Tensor::zeros(&[1, 1, 1, 1], DType::F32).unwrap();
        let bias = Tensor::zeros(&[3], DType::F32).unwrap();
        let mut p = deform_conv::Params {
            stride: [0, 1],
            pad: [0, 0],
            dilation: [1, 1],
            groups: 1,
            offset_groups: 1,
            use_mask: false,
        };
        assert_eq!(
            message(deform_conv::deform_conv2d(&x, &w, &off, &mask, &bias, &p)),
            "stride_h: 0 stride_w: 1"
        );
        p.stride = [1, 1];
        p.groups = 0;
        assert!(
            message(deform_conv::deform_conv2d(&x, &w, &off, &mask, &bias, &p)).contains("groups")
        );
        let rois = Tensor::from_vec(vec![3.0f32, 0.0, 0.0, 2.0, 2.0], &[1, 5]).unwrap();
        let pool = Pooling {
            spatial_scale: 1.0,
            pooled_height: 2,
            pooled_width: 2,
        };
        let bad = "region 0 has batch index 3, but the input has a batch of 1";
        assert_eq!(
            message(roi_align::roi_align(&x, &rois, &pool, 2, false)),
            bad
        );
        assert_eq!(message(roi_pool::roi_pool(&x, &rois, &pool)), bad);
        let nan = Tensor::from_vec(vec![f32::NAN, 0.0, 0.0, 2.0, 2.0], &[1, 5]).unwrap();
        assert!(message(roi_align::roi_align(&x, &nan, &pool, 2, false)).contains("batch index"));
    }
}
