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
