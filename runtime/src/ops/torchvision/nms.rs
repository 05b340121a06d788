//! `torchvision::nms(dets, scores, iou_threshold)`: greedy non-maximum suppression, boxes
//! visited by descending score (stable), each suppressing the later boxes whose IoU with it
//! exceeds the threshold. Returns the kept indices (int64) in visiting order.

use crate::bail;
use crate::ops::real::Real;
use crate::tensor::{DType, Tensor, TensorResult};

pub fn nms(dets: &Tensor, scores: &Tensor, iou_threshold: f64) -> TensorResult<Tensor> {
    if dets.dim() != 2 {
        bail!("boxes should be a 2d tensor, got {}D", dets.dim());
    }
    if dets.sizes()[1] != 4 {
        bail!(
            "boxes should have 4 elements in dimension 1, got {}",
            dets.sizes()[1]
        );
    }
    if scores.dim() != 1 {
        bail!("scores should be a 1d tensor, got {}D", scores.dim());
    }
    let n = dets.sizes()[0];
    if n != scores.sizes()[0] {
        bail!(
            "boxes and scores should have same number of elements in dimension 0, got {n} and {}",
            scores.sizes()[0]
        );
    }
    match dets.dtype() {
        DType::F32 => {}
        DType::F64 => {}
        other => bail!(
            "\"nms_kernel\" not implemented for '{}'",
            other.scalar_type_name()
        ),
    }
    if dets.dtype() != scores.dtype() {
        bail!("dets should have the same type as scores");
    }
    if n == 0 {
        return Tensor::zeros(&[0], DType::I64);
    }
    let keep = if dets.dtype() == DType::F64 {
        greedy::<f64>(
            &dets.to_vec::<f64>(),
            &scores.to_vec::<f64>(),
            iou_threshold,
        )
    } else {
        greedy::<f32>(
            &dets.to_vec::<f32>(),
            &scores.to_vec::<f32>(),
            iou_threshold,
        )
    };
    let len = keep.len() as i64;
    Tensor::from_vec(keep, &[len])
}

fn max<C: Real>(a: C, b: C) -> C {
    // std::max(a, b): `a < b ? b : a`.
    if a < b {
        b
    } else {
        a
    }
}

fn min<C: Real>(a: C, b: C) -> C {
    // std::min(a, b): `b < a ? b : a`.
    if b < a {
        b
    } else {
        a
    }
}

fn greedy<C: Real>(dets: &[C], scores: &[C], threshold: f64) -> Vec<i64> {
    let n = scores.len();
    let b = |i: usize, k: usize| dets[i * 4 + k];
    let areas: Vec<C> = (0..n)
        .map(|i| (b(i, 2) - b(i, 0)) * (b(i, 3) - b(i, 1)))
        .collect();
    // torch.sort(descending, stable): NaN first, ties in index order.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| {
        let (a, c) = (scores[i].f64(), scores[j].f64());
        match (a.is_nan(), c.is_nan()) {
            (true, true) => std::cmp::Ordering::Equal,
            (true, false) => std::cmp::Ordering::Less,
            (false, true) => std::cmp::Ordering::Greater,
            _ => c.partial_cmp(&a).unwrap_or(std::cmp::Ordering::Equal),
        }
    });
    let mut suppressed = vec![false; n];
    let mut keep = Vec::new();
    for (oi, &i) in order.iter().enumerate() {
        if suppressed[i] {
            continue;
        }
        keep.push(i as i64);
        for &j in &order[oi + 1..] {
            if suppressed[j] {
                continue;
            }
            let xx1 = max(b(i, 0), b(j, 0));
            let yy1 = max(b(i, 1), b(j, 1));
            let xx2 = min(b(i, 2), b(j, 2));
            let yy2 = min(b(i, 3), b(j, 3));
            let w = max(C::ZERO, xx2 - xx1);
            let h = max(C::ZERO, yy2 - yy1);
            let inter = w * h;
            let ovr = inter / (areas[i] + areas[j] - inter);
            if ovr.f64() > threshold {
                suppressed[j] = true;
            }
        }
    }
    keep
}
