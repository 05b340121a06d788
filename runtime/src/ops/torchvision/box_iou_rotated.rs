//! `torchvision::box_iou_rotated(boxes1, boxes2)`: the IoU matrix of rotated boxes
//! `(cx, cy, w, h, angle in degrees)`, as torchvision's CPU kernel computes it: both boxes'
//! corners, their edge crossings and contained corners (with its 1e-5 slack), the convex
//! hull of those points (Graham scan) and its area. The result is float32 whatever the
//! boxes' dtype, as torchvision's.

use super::{dispatch_real, tensor_of, values};
use crate::bail;
use crate::ops::real::Real;
use crate::tensor::{Element, Tensor, TensorResult};

#[derive(Copy, Clone)]
struct P<C> {
    x: C,
    y: C,
}

impl<C: Real> P<C> {
    fn sub(self, o: Self) -> Self {
        P {
            x: self.x - o.x,
            y: self.y - o.y,
        }
    }
    fn add(self, o: Self) -> Self {
        P {
            x: self.x + o.x,
            y: self.y + o.y,
        }
    }
    fn scale(self, t: C) -> Self {
        P {
            x: self.x * t,
            y: self.y * t,
        }
    }
    fn dot(self, o: Self) -> C {
        self.x * o.x + self.y * o.y
    }
    fn cross(self, o: Self) -> C {
        self.x * o.y - o.x * self.y
    }
}

pub fn box_iou_rotated(a: &Tensor, b: &Tensor) -> TensorResult<Tensor> {
    for (name, t) in [("boxes1", a), ("boxes2", b)] {
        if t.dim() != 2 || t.sizes()[1] != 5 {
            bail!(
                "{name} should be a [N, 5] tensor of (cx, cy, w, h, angle) boxes, got shape {}",
                crate::ops::args::sizes_str(&t.sizes())
            );
        }
    }
    if a.dtype() != b.dtype() {
        bail!("boxes1 and boxes2 should have the same dtype");
    }
    if !matches!(
        a.dtype(),
        crate::tensor::DType::F32 | crate::tensor::DType::F64
    ) {
        bail!(
            "\"box_iou_rotated\" not implemented for '{}'",
            a.dtype().scalar_type_name()
        );
    }
    let (a, b) = (a.contiguous()?, b.contiguous()?);
    dispatch_real!(a.dtype(), T, C => matrix::<T, C>(&a, &b))
}

fn matrix<T: Element, C: Real>(a: &Tensor, b: &Tensor) -> TensorResult<Tensor> {
    let (av, bv): (Vec<C>, Vec<C>) = (values::<T, C>(a), values::<T, C>(b));
    let (n, m) = (av.len() / 5, bv.len() / 5);
    let mut out = Vec::with_capacity(n * m);
    for i in 0..n {
        for j in 0..m {
            out.push(iou(&av[i * 5..i * 5 + 5], &bv[j * 5..j * 5 + 5]));
        }
    }
    // Computed in the boxes' dtype, stored as float32 (torchvision's output dtype).
    tensor_of::<f32, C>(&out, &[n as i64, m as i64])
}

/// The IoU of two boxes, both shifted by their centres' midpoint for precision.
fn iou<C: Real>(b1: &[C], b2: &[C]) -> C {
    let shift_x = (b1[0] + b2[0]).f64() / 2.0;
    let shift_y = (b1[1] + b2[1]).f64() / 2.0;
    let centre = |b: &[C]| P {
        x: C::of(b[0].f64() - shift_x),
        y: C::of(b[1].f64() - shift_y),
    };
    let (c1, c2) = (centre(b1), centre(b2));
    let area1 = b1[2] * b1[3];
    let area2 = b2[2] * b2[3];
    if area1.f64() < 1e-14 || area2.f64() < 1e-14 {
        return C::ZERO;
    }
    let inter = intersection(corners(c1, b1), corners(c2, b2));
    inter / (area1 + area2 - inter)
}

fn corners<C: Real>(c: P<C>, b: &[C]) -> [P<C>; 4] {
    let theta = b[4].f64() * 0.01745329251;
    let cos2 = C::of(theta.cos()) * C::of(0.5);
    let sin2 = C::of(theta.sin()) * C::of(0.5);
    let (w, h) = (b[2], b[3]);
    let p0 = P {
        x: c.x + sin2 * h + cos2 * w,
        y: c.y + cos2 * h - sin2 * w,
    };
    let p1 = P {
        x: c.x - sin2 * h + cos2 * w,
        y: c.y - cos2 * h - sin2 * w,
    };
    let two = C::of(2.0);
    [
        p0,
        p1,
        P {
            x: two * c.x - p0.x,
            y: two * c.y - p0.y,
        },
        P {
            x: two * c.x - p1.x,
            y: two * c.y - p1.y,
        },
    ]
}

const EPS: f64 = 1e-5;

/// Corners of `inner` inside the rectangle `outer` (projections onto two of its sides).
fn contained<C: Real>(inner: &[P<C>; 4], outer: &[P<C>; 4], out: &mut Vec<P<C>>) {
    let ab = outer[1].sub(outer[0]);
    let da = outer[0].sub(outer[3]);
    let (ab_ab, ad_ad) = (ab.dot(ab).f64(), da.dot(da).f64());
    for &p in inner {
        let ap = p.sub(outer[0]);
        let ap_ab = ap.dot(ab).f64();
        let ap_ad = -ap.dot(da).f64();
        if ap_ab > -EPS && ap_ad > -EPS && ap_ab < ab_ab + EPS && ap_ad < ad_ad + EPS {
            out.push(p);
        }
    }
}

fn intersection<C: Real>(p1: [P<C>; 4], p2: [P<C>; 4]) -> C {
    let edges = |p: &[P<C>; 4]| -> [P<C>; 4] { std::array::from_fn(|i| p[(i + 1) % 4].sub(p[i])) };
    let (v1, v2) = (edges(&p1), edges(&p2));
    let mut pts = Vec::with_capacity(24);
    for i in 0..4 {
        for j in 0..4 {
            let det = v2[j].cross(v1[i]);
            if det.f64().abs() <= 1e-14 {
                continue;
            }
            let v12 = p2[j].sub(p1[i]);
            let t1 = (v2[j].cross(v12) / det).f64();
            let t2 = (v1[i].cross(v12) / det).f64();
            if t1 > -EPS && t1 < 1.0 + EPS && t2 > -EPS && t2 < 1.0 + EPS {
                pts.push(p1[i].add(v1[i].scale(C::of(t1))));
            }
        }
    }
    contained(&p1, &p2, &mut pts);
    contained(&p2, &p1, &mut pts);
    if pts.len() <= 2 {
        return C::ZERO;
    }
    let hull = convex_hull(&pts);
    if hull.len() <= 2 {
        return C::ZERO;
    }
    let mut area = C::ZERO;
    for i in 1..hull.len() - 1 {
        area += hull[i].sub(hull[0]).cross(hull[i + 1].sub(hull[0])).abs();
    }
    C::of(area.f64() / 2.0)
}

/// Graham scan of the points, shifted so the lowest (then leftmost) one is the origin.
fn convex_hull<C: Real>(p: &[P<C>]) -> Vec<P<C>> {
    let mut t = 0;
    for i in 1..p.len() {
        if p[i].y < p[t].y || (p[i].y == p[t].y && p[i].x < p[t].x) {
            t = i;
        }
    }
    let start = p[t];
    let mut q: Vec<P<C>> = p.iter().map(|&v| v.sub(start)).collect();
    q.swap(0, t);
    q[1..].sort_by(|a, b| {
        let before = |a: &P<C>, b: &P<C>| {
            let c = a.cross(*b);
            if c.f64().abs() < 1e-6 {
                a.dot(*a) < b.dot(*b)
            } else {
                c > C::ZERO
            }
        };
        if before(a, b) {
            std::cmp::Ordering::Less
        } else if before(b, a) {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    });
    let Some(k) = (1..q.len()).find(|&k| q[k].dot(q[k]).f64() > 1e-8) else {
        return vec![start];
    };
    let mut stack = vec![q[0], q[k]];
    for &v in &q[k + 1..] {
        while stack.len() > 1 {
            let (a, b) = (stack[stack.len() - 2], stack[stack.len() - 1]);
            let (q1, q2) = (v.sub(a), b.sub(a));
            if q1.x * q2.y >= q2.x * q1.y {
                stack.pop();
            } else {
                break;
            }
        }
        stack.push(v);
    }
    stack
}
