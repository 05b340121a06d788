//! Vector forms of the 2-d grid sampler's per-channel loop for float32 (bilinear and nearest):
//! the taps of a block of grid points as lanes (plane offsets, in-image masks, weights), each
//! channel's values gathered with masks (an outside tap reads 0) and combined with fused
//! multiply-adds in PyTorch's order — the same bits as the scalar loop. AVX-512 and AVX2 (with
//! FMA) forms, chosen at run time; both are tested against the scalar loop.

/// The taps of a block of points as lanes, padded to a multiple of 16 points with masked-off
/// lanes. Bilinear points use all four corners; nearest points the first.
pub struct Lanes {
    /// Points in the block (the rest is padding).
    pub len: usize,
    pub offset: [Vec<i32>; 4],
    /// -1 where the corner lies in the image, 0 outside (the value read is 0).
    pub inside: [Vec<i32>; 4],
    pub weight: [Vec<f32>; 4],
}

impl Lanes {
    pub fn new(len: usize) -> Lanes {
        let padded = len.div_ceil(16) * 16;
        Lanes {
            len,
            offset: std::array::from_fn(|_| vec![0; padded]),
            inside: std::array::from_fn(|_| vec![0; padded]),
            weight: std::array::from_fn(|_| vec![0.0; padded]),
        }
    }

    /// Sets corner `k` of point `p`.
    pub fn set(&mut self, p: usize, k: usize, offset: Option<usize>, weight: f32) {
        self.offset[k][p] = offset.unwrap_or(0) as i32;
        self.inside[k][p] = if offset.is_some() { -1 } else { 0 };
        self.weight[k][p] = weight;
    }
}

use crate::ops::cpu::Isa;

/// Which vector form this CPU runs, if any.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Form {
    Avx512,
    Avx2,
}

/// The form this thread's kernels run (`ops::cpu::isa`, which `EMBER_CPU_FEATURES` caps).
pub fn form() -> Option<Form> {
    match crate::ops::cpu::isa() {
        Isa::Avx512 => Some(Form::Avx512),
        Isa::Avx2 => Some(Form::Avx2),
        Isa::Baseline => None,
    }
}

/// `out[p] = value of point p` for one channel's `plane`; `bilinear` false reads the first
/// corner only (nearest). `form` must be one this CPU runs (`form()`), and every offset of an
/// inside corner must lie in `plane`.
pub fn sample(form: Form, plane: &[f32], lanes: &Lanes, bilinear: bool, out: &mut [f32]) {
    debug_assert!(out.len() >= lanes.len);
    let mut buf = [0f32; 16];
    let blocks = lanes.offset[0].len() / 16;
    for b in 0..blocks {
        let at = b * 16;
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `form` was detected on this CPU; the lane arrays hold 16 entries from `at`;
        // inside offsets lie in `plane` (the caller's contract), outside lanes are masked off.
        unsafe {
            match form {
                Form::Avx512 => x86::block_avx512(plane, lanes, at, bilinear, &mut buf),
                Form::Avx2 => {
                    x86::block_avx2(plane, lanes, at, bilinear, &mut buf[..8]);
                    x86::block_avx2(plane, lanes, at + 8, bilinear, &mut buf[8..]);
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (form, plane, bilinear);
        let n = (lanes.len - at.min(lanes.len)).min(16);
        out[at..at + n].copy_from_slice(&buf[..n]);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::Lanes;

    /// # Safety
    /// The CPU has AVX-512F; `l`'s arrays hold 16 lanes from `at`; inside offsets lie in
    /// `plane`; `out` holds 16 floats.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn block_avx512(
        plane: &[f32],
        l: &Lanes,
        at: usize,
        bilinear: bool,
        out: &mut [f32],
    ) {
        let base = plane.as_ptr();
        let load = |k: usize| {
            let off = _mm512_loadu_si512(l.offset[k].as_ptr().add(at) as *const _);
            let inside = _mm512_loadu_si512(l.inside[k].as_ptr().add(at) as *const _);
            let mask = _mm512_cmpneq_epi32_mask(inside, _mm512_setzero_si512());
            _mm512_mask_i32gather_ps::<4>(_mm512_setzero_ps(), mask, off, base)
        };
        let w = |k: usize| _mm512_loadu_ps(l.weight[k].as_ptr().add(at));
        let v = if bilinear {
            let acc = _mm512_mul_ps(load(0), w(0));
            let acc = _mm512_fmadd_ps(load(1), w(1), acc);
            let acc = _mm512_fmadd_ps(load(2), w(2), acc);
            _mm512_fmadd_ps(load(3), w(3), acc)
        } else {
            load(0)
        };
        _mm512_storeu_ps(out.as_mut_ptr(), v);
    }

    /// # Safety
    /// The CPU has AVX2 and FMA; `l`'s arrays hold 8 lanes from `at`; inside offsets lie in
    /// `plane`; `out` holds 8 floats.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn block_avx2(plane: &[f32], l: &Lanes, at: usize, bilinear: bool, out: &mut [f32]) {
        let base = plane.as_ptr();
        let load = |k: usize| {
            let off = _mm256_loadu_si256(l.offset[k].as_ptr().add(at) as *const __m256i);
            let mask = _mm256_castsi256_ps(_mm256_loadu_si256(
                l.inside[k].as_ptr().add(at) as *const __m256i
            ));
            _mm256_mask_i32gather_ps::<4>(_mm256_setzero_ps(), base, off, mask)
        };
        let w = |k: usize| _mm256_loadu_ps(l.weight[k].as_ptr().add(at));
        let v = if bilinear {
            let acc = _mm256_mul_ps(load(0), w(0));
            let acc = _mm256_fmadd_ps(load(1), w(1), acc);
            let acc = _mm256_fmadd_ps(load(2), w(2), acc);
            _mm256_fmadd_ps(load(3), w(3), acc)
        } else {
            load(0)
        };
        _mm256_storeu_ps(out.as_mut_ptr(), v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::real::Real;

    /// The scalar loop's value of point `p` (the reference both vector forms must equal).
    fn scalar(plane: &[f32], l: &Lanes, p: usize, bilinear: bool) -> f32 {
        let at = |k: usize| {
            if l.inside[k][p] != 0 {
                plane[l.offset[k][p] as usize]
            } else {
                0.0
            }
        };
        if !bilinear {
            return at(0);
        }
        let w = |k: usize| l.weight[k][p];
        at(3).fma(w(3), at(2).fma(w(2), at(1).fma(w(1), at(0) * w(0))))
    }

    #[test]
    fn both_vector_forms_equal_the_scalar_loop() {
        let plane: Vec<f32> = (0..997)
            .map(|i| ((i * 7919 % 1000) as f32 - 500.0) / 37.0)
            .collect();
        // 37 points: two full blocks of 16 and a padded tail.
        let mut l = Lanes::new(37);
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for p in 0..37 {
            for k in 0..4 {
                let offset = (next() % 5 != 0).then(|| next() % plane.len());
                l.set(p, k, offset, (next() % 1000) as f32 / 997.0);
            }
        }
        let forms = crate::ops::cpu::available_levels()
            .into_iter()
            .filter_map(|l| crate::ops::cpu::with_isa(l, form));
        for form in forms {
            for bilinear in [true, false] {
                let mut out = vec![f32::NAN; 37];
                sample(form, &plane, &l, bilinear, &mut out);
                for (p, v) in out.iter().enumerate() {
                    let want = scalar(&plane, &l, p, bilinear);
                    assert_eq!(
                        v.to_bits(),
                        want.to_bits(),
                        "{form:?} bilinear={bilinear} point {p}"
                    );
                }
            }
        }
    }
}
