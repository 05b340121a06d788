//! Checks of attention against its definition at a size that takes the parallel softmax path
//! (the differential cases are tiny), and malformed inputs (errors, never panics).

use super::mha::{masked_softmax, native_multi_head_attention, Mha};
use super::sdpa::{scaled_dot_product_attention, Options};
use crate::tensor::Tensor;

fn seq(s: &[i64], salt: i64) -> Tensor {
    let n: i64 = s.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|i| ((i * 37 + 11 + salt * 5) % 23) as f64 / 23.0 - 0.5)
        .collect();
    Tensor::from_vec(v, s).unwrap()
}

fn options(mask: Option<&Tensor>, is_causal: bool) -> Options<'_> {
    Options {
        attn_mask: mask,
        dropout_p: 0.0,
        is_causal,
        scale: None,
        enable_gqa: false,
    }
}

#[test]
fn sdpa_matches_the_definition_on_the_parallel_path() {
    let (b, l, s, e) = (4usize, 96usize, 100usize, 8usize);
    let q = seq(&[b as i64, l as i64, e as i64], 1);
    let k = seq(&[b as i64, s as i64, e as i64], 2);
    let v = seq(&[b as i64, s as i64, e as i64], 3);
    let out = scaled_dot_product_attention(&q, &k, &v, &options(None, true)).unwrap();
    let (qs, ks, vs) = (q.to_vec::<f64>(), k.to_vec::<f64>(), v.to_vec::<f64>());
    let got = out.to_vec::<f64>();
    let scale = 1.0 / (e as f64).sqrt();
    for bi in 0..b {
        for i in 0..l {
            let scores: Vec<f64> = (0..=i.min(s - 1))
                .map(|j| {
                    (0..e)
                        .map(|d| qs[(bi * l + i) * e + d] * ks[(bi * s + j) * e + d])
                        .sum::<f64>()
                        * scale
                })
                .collect();
            let m = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let w: Vec<f64> = scores.iter().map(|x| (x - m).exp()).collect();
            let z: f64 = w.iter().sum();
            for d in 0..e {
                let want: f64 = w
                    .iter()
                    .enumerate()
                    .map(|(j, wj)| wj / z * vs[(bi * s + j) * e + d])
                    .sum();
                let g = got[(bi * l + i) * e + d];
                assert!((g - want).abs() < 1e-12, "[{bi},{i},{d}] {g} vs {want}");
            }
        }
    }
}

#[test]
fn malformed_attention_inputs_are_errors() {
    let q = seq(&[2, 3, 4], 1);
    let scalar = Tensor::from_vec(vec![1.0f64], &[]).unwrap();
    let mismatched = seq(&[2, 5, 3], 2);
    assert!(scaled_dot_product_attention(&q, &mismatched, &q, &options(None, false)).is_err());
    assert!(scaled_dot_product_attention(&scalar, &q, &q, &options(None, false)).is_err());
    let big_mask = seq(&[7, 2, 3, 3], 1);
    assert!(scaled_dot_product_attention(&q, &q, &q, &options(Some(&big_mask), false)).is_err());
    let mut dropout = options(None, false);
    dropout.dropout_p = 0.1;
    assert!(scaled_dot_product_attention(&q, &q, &q, &dropout).is_err());

    let bool_mask = Tensor::from_vec(vec![true; 4], &[2, 2]).unwrap();
    assert!(masked_softmax(&scalar, &bool_mask, None, Some(0)).is_err());
    assert!(masked_softmax(&seq(&[2, 2, 2, 2], 1), &bool_mask, Some(9), Some(0)).is_err());

    let x = seq(&[2, 3, 8], 1);
    let (w, bias, pw, pb) = (
        seq(&[24, 8], 2),
        seq(&[24], 3),
        seq(&[8, 8], 4),
        seq(&[8], 5),
    );
    let mha = |heads: i64, pw: &Tensor| -> bool {
        let p = Mha {
            packs: [None, None],
            embed_dim: 8,
            num_head: heads,
            qkv_weight: &w,
            qkv_bias: &bias,
            proj_weight: pw,
            proj_bias: &pb,
            mask: None,
            need_weights: true,
            average_attn_weights: true,
            mask_type: None,
        };
        native_multi_head_attention(&x, &x, &x, &p).is_err()
    };
    assert!(mha(0, &pw));
    assert!(mha(-2, &pw));
    assert!(mha(2, &seq(&[8, 5], 6)));
    assert!(!mha(2, &pw));
}

/// `softmax(q k^T * scale + mask) v` by its definition in f64: `mask(b, i, j)` is None for a
/// masked key, else what is added to the score; a row with every key masked is zeros.
#[allow(clippy::too_many_arguments)]
fn attention_by_definition(
    q: &[f64],
    k: &[f64],
    v: &[f64],
    (batches, l, s, e, ev): (usize, usize, usize, usize, usize),
    mask: impl Fn(usize, usize, usize) -> Option<f64>,
) -> Vec<f64> {
    let scale = 1.0 / (e as f64).sqrt();
    let mut out = vec![0.0; batches * l * ev];
    for b in 0..batches {
        for i in 0..l {
            let scores: Vec<Option<f64>> = (0..s)
                .map(|j| {
                    let dot: f64 = (0..e)
                        .map(|c| q[(b * l + i) * e + c] * k[(b * s + j) * e + c])
                        .sum();
                    mask(b, i, j).map(|add| dot * scale + add)
                })
                .collect();
            let max = scores
                .iter()
                .flatten()
                .fold(f64::NEG_INFINITY, |m, &x| m.max(x));
            if max == f64::NEG_INFINITY {
                continue;
            }
            let w: Vec<f64> = scores
                .iter()
                .map(|x| x.map_or(0.0, |x| (x - max).exp()))
                .collect();
            let sum: f64 = w.iter().sum();
            for c in 0..ev {
                out[(b * l + i) * ev + c] =
                    (0..s).map(|j| w[j] / sum * v[(b * s + j) * ev + c]).sum();
            }
        }
    }
    out
}

/// What a mask adds to score (b, i, j), None where it masks the key out.
type MaskByDefinition<'a> = Box<dyn Fn(usize, usize, usize) -> Option<f64> + 'a>;

/// The float32 attention fused by blocks of queries (fused.rs), against the definition: more
/// keys than one block of scores holds (several blocks per head, the last one short),
/// broadcast masks read in place, causal masking and rows with every key masked.
#[test]
fn fused_float32_attention_matches_the_definition() {
    let f32_seq = |s: &[i64], salt: i64| {
        let t = seq(s, salt);
        let f = Tensor::zeros(s, crate::tensor::DType::F32).unwrap();
        f.copy_from(&t).unwrap();
        f
    };
    for &(h, l, s, e, ev) in &[
        (3usize, 37usize, 5000usize, 8usize, 5usize),
        (2, 64, 64, 16, 16),
    ] {
        let shape = |a: usize, b: usize| [2, h as i64, a as i64, b as i64];
        let (q, k, v) = (
            f32_seq(&shape(l, e), 1),
            f32_seq(&shape(s, e), 2),
            f32_seq(&shape(s, ev), 3),
        );
        let (qs, ks, vs) = (q.to_vec::<f64>(), k.to_vec::<f64>(), v.to_vec::<f64>());
        let dims = (2 * h, l, s, e, ev);
        // A boolean mask over (query, key), shared by every batch and head: row 3 keeps
        // nothing.
        let keep: Vec<bool> = (0..l * s).map(|x| x / s != 3 && (x * 7) % 5 != 0).collect();
        let keep_t = Tensor::from_vec(keep.clone(), &[l as i64, s as i64]).unwrap();
        // A float mask per head (broadcast over the batch).
        let add = f32_seq(&[h as i64, 1, s as i64], 4);
        let add_v = add.to_vec::<f64>();
        let cases: Vec<(Option<&Tensor>, bool, MaskByDefinition)> = vec![
            (None, false, Box::new(|_, _, _| Some(0.0))),
            (None, true, Box::new(|_, i, j| (j <= i).then_some(0.0))),
            (
                Some(&keep_t),
                false,
                Box::new(|_, i, j| keep[i * s + j].then_some(0.0)),
            ),
            (
                Some(&add),
                false,
                Box::new(|b, _, j| Some(add_v[(b % h) * s + j])),
            ),
        ];
        for (n, (mask, causal, by_def)) in cases.iter().enumerate() {
            let out = scaled_dot_product_attention(&q, &k, &v, &options(*mask, *causal)).unwrap();
            assert_eq!(out.dtype(), crate::tensor::DType::F32);
            let want = attention_by_definition(&qs, &ks, &vs, dims, by_def);
            for (x, (g, w)) in out.to_vec::<f64>().iter().zip(&want).enumerate() {
                assert!(
                    (g - w).abs() <= 1e-5 + 1e-4 * w.abs(),
                    "shape {dims:?} case {n} element {x}: {g} vs {w}"
                );
            }
        }
    }
}

/// Key and value shared by every batch (batch dims broadcast, as `matmul` broadcasts them) and
/// the float16 mask of float16 attention take the fused float32 path too, and match the
/// definition.
#[test]
fn fused_attention_broadcasts_batches_and_widens_half_masks() {
    use crate::tensor::DType;
    let cast = |t: &Tensor, d: DType| {
        let c = Tensor::zeros(&t.sizes(), d).unwrap();
        c.copy_from(t).unwrap();
        c
    };
    let (b, h, l, s, e) = (2usize, 3usize, 20usize, 70usize, 8usize);
    let q = cast(
        &seq(&[b as i64, h as i64, l as i64, e as i64], 1),
        DType::F32,
    );
    // [h, S, E] and [1, h, S, E]: broadcast over the batch.
    let k = cast(&seq(&[h as i64, s as i64, e as i64], 2), DType::F32);
    let v = cast(&seq(&[1, h as i64, s as i64, e as i64], 3), DType::F32);
    let mask = cast(&seq(&[l as i64, s as i64], 4), DType::F16);
    let opts = options(Some(&mask), false);
    // The float32 work the float16 call does.
    let fused = super::sdpa::fused_f32(&q, &k, &v, 1.0 / (e as f64).sqrt(), &opts).unwrap();
    assert!(fused.is_some(), "the fused path declined");
    let half = |t: &Tensor| cast(t, DType::F16);
    let out = scaled_dot_product_attention(&half(&q), &half(&k), &half(&v), &opts).unwrap();
    assert_eq!(out.dtype(), DType::F16);
    assert_eq!(
        out.sizes().to_vec(),
        vec![b as i64, h as i64, l as i64, e as i64]
    );
    let (q, k, v) = (half(&q), half(&k), half(&v));
    let full = |t: &Tensor| {
        t.expand(&[b as i64, h as i64, s as i64, e as i64])
            .unwrap()
            .to_vec::<f64>()
    };
    let (qs, ks, vs) = (q.to_vec::<f64>(), full(&k), full(&v));
    let m = mask.to_vec::<f64>();
    let want = attention_by_definition(&qs, &ks, &vs, (b * h, l, s, e, e), |_, i, j| {
        Some(m[i * s + j])
    });
    for (x, (g, w)) in out.to_vec::<f64>().iter().zip(&want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-3 + 2e-3 * w.abs(),
            "element {x}: {g} vs {w}"
        );
    }
    // Batch dims that do not broadcast are the general path's error, as in PyTorch.
    let k3 = cast(&seq(&[4, h as i64, s as i64, e as i64], 2), DType::F16);
    assert!(scaled_dot_product_attention(&q, &k3, &v, &opts).is_err());
    let f32s = |t: &Tensor| cast(t, DType::F32);
    assert!(
        super::sdpa::fused_f32(&f32s(&q), &f32s(&k3), &f32s(&v), 1.0, &opts)
            .unwrap()
            .is_none()
    );
}
