use super::einsum::einsum;
use super::matmul::matmul;
use super::products::*;
use crate::tensor::Tensor;

fn t(v: Vec<f32>, s: &[i64]) -> Tensor {
    Tensor::from_vec(v, s).unwrap()
}

fn seq(s: &[i64]) -> Tensor {
    let n: i64 = s.iter().product();
    t((0..n).map(|i| (i % 7) as f32 - 2.0).collect(), s)
}

/// The product by the definition, for checking.
fn naive(a: &Tensor, b: &Tensor) -> Vec<f64> {
    let (sa, sb) = (a.sizes(), b.sizes());
    let (m, k, n) = (sa[0], sa[1], sb[1]);
    let (x, y) = (a.to_vec::<f64>(), b.to_vec::<f64>());
    let mut out = vec![0.0; (m * n) as usize];
    for i in 0..m {
        for j in 0..n {
            for d in 0..k {
                out[(i * n + j) as usize] += x[(i * k + d) as usize] * y[(d * n + j) as usize];
            }
        }
    }
    out
}

#[test]
fn mm_matches_the_definition_on_strided_inputs() {
    for &(m, k, n) in &[(2, 3, 4), (1, 1, 1), (17, 33, 9), (70, 80, 90)] {
        let a = seq(&[k, m]).t().unwrap();
        let b = seq(&[k, n * 2]).slice(1, None, None, 2).unwrap();
        let got = mm(&a, &b).unwrap().to_vec::<f64>();
        let want = naive(&a, &b);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-4 * w.abs().max(1.0), "{g} vs {w}");
        }
    }
}

#[test]
fn integer_and_half_products() {
    let a = Tensor::from_vec(vec![1i32, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    let b = Tensor::from_vec(vec![1i32, 0, -1, 2, 3, 1], &[3, 2]).unwrap();
    assert_eq!(mm(&a, &b).unwrap().to_vec::<i64>(), vec![8, 7, 17, 16]);
    let h = Tensor::from_vec(vec![half::f16::from_f32(1.5); 4], &[2, 2]).unwrap();
    let r = mm(&h, &h).unwrap();
    assert_eq!(r.dtype(), crate::tensor::DType::F16);
    assert_eq!(r.to_vec::<f32>(), vec![4.5; 4]);
    let bools = Tensor::from_vec(vec![true; 4], &[2, 2]).unwrap();
    assert_eq!(
        mm(&bools, &bools).unwrap_err().message,
        "\"addmm_impl_cpu_\" not implemented for 'Bool'"
    );
}

#[test]
fn messages_follow_pytorch() {
    let e = mm(&seq(&[2, 3]), &seq(&[4, 5])).unwrap_err().message;
    assert_eq!(
        e,
        "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"
    );
    let e = matmul(&seq(&[2, 3, 4]), &seq(&[2, 5, 6]))
        .unwrap_err()
        .message;
    assert_eq!(
        e,
        "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5]."
    );
    let e = dot(&seq(&[3]), &seq(&[4])).unwrap_err().message;
    assert!(e.starts_with("inconsistent tensor size"), "{e}");
}

#[test]
fn addmm_scales_and_ignores_input_when_beta_is_zero() {
    let a = seq(&[2, 3]);
    let b = seq(&[3, 2]);
    let nan = t(vec![f32::NAN; 2], &[2]);
    let r = addmm(&nan, &a, &b, 0.0, 2.0).unwrap().to_vec::<f64>();
    let p = naive(&a, &b);
    assert_eq!(r, p.iter().map(|x| 2.0 * x).collect::<Vec<_>>());
    let one = t(vec![1.0, 2.0], &[2]);
    let r = addmm(&one, &a, &b, 3.0, 1.0).unwrap().to_vec::<f64>();
    assert_eq!(r[1], p[1] + 6.0);
}

#[test]
fn matmul_ranks_and_broadcasting() {
    let cases: &[(&[i64], &[i64], &[i64])] = &[
        (&[3], &[3], &[]),
        (&[2, 3], &[3], &[2]),
        (&[3], &[3, 4], &[4]),
        (&[2, 5, 3], &[3, 4], &[2, 5, 4]),
        (&[2, 5, 3], &[3], &[2, 5]),
        (&[3], &[2, 3, 4], &[2, 4]),
        (&[2, 1, 5, 3], &[4, 3, 2], &[2, 4, 5, 2]),
        (&[5, 3], &[2, 3, 0], &[2, 5, 0]),
    ];
    for (sa, sb, want) in cases {
        let r = matmul(&seq(sa), &seq(sb)).unwrap();
        assert_eq!(r.sizes().as_slice(), *want, "{sa:?} @ {sb:?}");
    }
    // A batched product equals the per-batch mms.
    let a = seq(&[2, 1, 2, 3]);
    let b = seq(&[3, 3, 2]);
    let r = matmul(&a, &b).unwrap();
    for i in 0..2 {
        for j in 0..3 {
            let want = naive(
                &a.select(0, i).unwrap().select(0, 0).unwrap(),
                &b.select(0, j).unwrap(),
            );
            let got = r
                .select(0, i)
                .unwrap()
                .select(0, j)
                .unwrap()
                .to_vec::<f64>();
            assert_eq!(got, want);
        }
    }
}

#[test]
fn einsum_contractions() {
    let a = seq(&[2, 3]);
    let b = seq(&[3, 4]);
    let r = einsum("ij,jk->ik", &[a.clone(), b.clone()]).unwrap();
    assert_eq!(r.to_vec::<f64>(), naive(&a, &b));
    let r = einsum("ij,jk", &[a.clone(), b.clone()]).unwrap();
    assert_eq!(r.to_vec::<f64>(), naive(&a, &b));
    let sq = seq(&[3, 3]);
    let diag = einsum("ii->i", std::slice::from_ref(&sq))
        .unwrap()
        .to_vec::<f64>();
    let v = sq.to_vec::<f64>();
    assert_eq!(diag, vec![v[0], v[4], v[8]]);
    let trace = einsum("ii", std::slice::from_ref(&sq)).unwrap();
    assert_eq!(trace.to_vec::<f64>(), vec![v[0] + v[4] + v[8]]);
    let col_sums = einsum("ij->j", std::slice::from_ref(&a))
        .unwrap()
        .to_vec::<f64>();
    let x = a.to_vec::<f64>();
    assert_eq!(col_sums, vec![x[0] + x[3], x[1] + x[4], x[2] + x[5]]);
    let tr = einsum("ij->ji", std::slice::from_ref(&a)).unwrap();
    assert_eq!(tr.sizes().as_slice(), &[3, 2]);
    let batched = einsum("...ij,...jk->...ik", &[seq(&[5, 2, 3]), seq(&[3, 4])]).unwrap();
    assert_eq!(batched.sizes().as_slice(), &[5, 2, 4]);
    let three = einsum("i,j,k->ijk", &[seq(&[2]), seq(&[3]), seq(&[4])]).unwrap();
    assert_eq!(three.sizes().as_slice(), &[2, 3, 4]);
    let e = einsum("ij,jk->ik", std::slice::from_ref(&a))
        .unwrap_err()
        .message;
    assert_eq!(
        e,
        "einsum(): fewer operands were provided than specified in the equation"
    );
    let e = einsum("ij,jk", &[a, seq(&[4, 5])]).unwrap_err().message;
    assert_eq!(e, "einsum(): subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3");
}

#[test]
fn linear_with_and_without_bias() {
    let x = seq(&[2, 2, 3]);
    let w = seq(&[4, 3]);
    let b = t(vec![1.0, 2.0, 3.0, 4.0], &[4]);
    let r = linear(&x, &w, Some(&b)).unwrap();
    assert_eq!(r.sizes().as_slice(), &[2, 2, 4]);
    let plain = linear(&x, &w, None).unwrap().to_vec::<f64>();
    let with = r.to_vec::<f64>();
    for i in 0..16 {
        assert_eq!(with[i], plain[i] + (i % 4 + 1) as f64);
    }
}

#[test]
fn batched_products_take_the_parallel_path_correctly() {
    // Many small products (parallel over the batch) and one large one.
    let a = seq(&[64, 16, 16]);
    let b = seq(&[64, 16, 16]);
    let r = bmm(&a, &b).unwrap();
    for i in [0i64, 31, 63] {
        let got = r.select(0, i).unwrap().to_vec::<f64>();
        let want = naive(&a.select(0, i).unwrap(), &b.select(0, i).unwrap());
        assert_eq!(got, want);
    }
}
