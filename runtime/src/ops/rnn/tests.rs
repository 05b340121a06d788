//! Checks of the recurrent kernels against a direct f64 definition at sizes beyond the tiny
//! differential cases, and of inputs PyTorch itself crashes or misbehaves on (each must be an
//! error, never a panic).

use super::cell::{step, Kind, Weights};
use super::packed;
use super::sequence::{run, Options};
use crate::tensor::Tensor;

fn seq(s: &[i64], salt: i64) -> Tensor {
    let n: i64 = s.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|i| ((i * 37 + 11 + salt * 5) % 23) as f64 / 23.0 - 0.5)
        .collect();
    Tensor::from_vec(v, s).unwrap()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// `x @ w.T + b` by its definition, for `x: [n, k]`, `w: [m, k]`.
fn affine(x: &[f64], w: &[f64], b: &[f64], n: usize, k: usize, m: usize) -> Vec<f64> {
    (0..n * m)
        .map(|i| {
            let (r, c) = (i / m, i % m);
            b[c] + (0..k).map(|j| x[r * k + j] * w[c * k + j]).sum::<f64>()
        })
        .collect()
}

fn opts(layers: i64, bidirectional: bool) -> Options {
    Options {
        has_biases: true,
        num_layers: layers,
        dropout: 0.0,
        train: false,
        bidirectional,
        batch_first: false,
    }
}

#[test]
fn lstm_sequence_matches_the_definition() {
    let (t, b, i, h) = (7usize, 5usize, 9usize, 11usize);
    let x = seq(&[t as i64, b as i64, i as i64], 1);
    let h0 = seq(&[1, b as i64, h as i64], 2);
    let c0 = seq(&[1, b as i64, h as i64], 3);
    let g = 4 * h as i64;
    let params = vec![
        seq(&[g, i as i64], 4),
        seq(&[g, h as i64], 5),
        seq(&[g], 6),
        seq(&[g], 7),
    ];
    let out = run(
        Kind::Lstm,
        &x,
        &[h0.clone(), c0.clone()],
        &params,
        &opts(1, false),
    )
    .unwrap();
    let p: Vec<Vec<f64>> = params.iter().map(|t| t.to_vec::<f64>()).collect();
    let xs = x.to_vec::<f64>();
    let (mut hs, mut cs) = (h0.to_vec::<f64>(), c0.to_vec::<f64>());
    let mut want = Vec::new();
    for step_t in 0..t {
        let xt = &xs[step_t * b * i..(step_t + 1) * b * i];
        let gi = affine(xt, &p[0], &p[2], b, i, 4 * h);
        let gh = affine(&hs, &p[1], &p[3], b, h, 4 * h);
        for r in 0..b {
            for u in 0..h {
                let at = |k: usize| gi[r * 4 * h + k * h + u] + gh[r * 4 * h + k * h + u];
                let c = sigmoid(at(1)) * cs[r * h + u] + sigmoid(at(0)) * at(2).tanh();
                cs[r * h + u] = c;
                hs[r * h + u] = sigmoid(at(3)) * c.tanh();
            }
        }
        want.extend_from_slice(&hs);
    }
    let close = |got: Vec<f64>, want: &[f64]| {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{g} vs {w}");
        }
    };
    close(out.output.to_vec::<f64>(), &want);
    close(out.states[0].to_vec::<f64>(), &hs);
    close(out.states[1].to_vec::<f64>(), &cs);
}

#[test]
fn packed_equals_padded_for_equal_lengths() {
    // With every sequence as long as the batch, the packed rows are the padded rows.
    let x = seq(&[4, 3, 5], 1);
    let h0 = seq(&[2, 3, 6], 2);
    let mut params = Vec::new();
    for d in 0..2 {
        params.extend([
            seq(&[18, 5], 3 + d),
            seq(&[18, 6], 5 + d),
            seq(&[18], 7 + d),
            seq(&[18], 9 + d),
        ]);
    }
    let padded = run(Kind::Gru, &x, &[h0.clone()], &params, &opts(1, true)).unwrap();
    let sizes = Tensor::from_vec(vec![3i64; 4], &[4]).unwrap();
    let data = x.reshape(&[12, 5]).unwrap();
    let p = packed::run(Kind::Gru, &data, &sizes, &[h0], &params, &opts(1, true)).unwrap();
    assert_eq!(
        p.output.to_vec::<f64>(),
        padded.output.reshape(&[12, 12]).unwrap().to_vec::<f64>()
    );
    assert_eq!(
        p.states[0].to_vec::<f64>(),
        padded.states[0].to_vec::<f64>()
    );
}

#[test]
fn malformed_inputs_are_errors() {
    let x = seq(&[3, 2, 4], 1);
    let h = seq(&[1, 2, 6], 2);
    let good = vec![
        seq(&[24, 4], 3),
        seq(&[24, 6], 4),
        seq(&[24], 5),
        seq(&[24], 6),
    ];
    let lstm = |x: &Tensor, hx: &[Tensor], p: &[Tensor], o: &Options| {
        run(Kind::Lstm, x, hx, p, o).err().map(|e| e.message)
    };
    // Gates that do not split into four equal chunks.
    let odd = vec![
        seq(&[25, 4], 3),
        seq(&[25, 6], 4),
        seq(&[25], 5),
        seq(&[25], 6),
    ];
    assert!(lstm(&x, &[h.clone(), h.clone()], &odd, &opts(1, false)).is_some());
    // 0-d and 4-d inputs, 0-d states, negative layer counts.
    let scalar = Tensor::from_vec(vec![1.0f64], &[]).unwrap();
    assert!(lstm(&scalar, &[h.clone(), h.clone()], &good, &opts(1, false)).is_some());
    let four = seq(&[1, 3, 2, 4], 1);
    assert!(lstm(&four, &[h.clone(), h.clone()], &good, &opts(1, false)).is_some());
    assert!(lstm(
        &x,
        &[scalar.clone(), scalar.clone()],
        &good,
        &opts(1, false)
    )
    .is_some());
    assert!(lstm(&x, &[h.clone(), h.clone()], &good, &opts(-1, false)).is_some());
    assert!(lstm(&x, &[h.clone(), h.clone()], &good, &opts(i64::MAX, true)).is_some());
    assert!(lstm(&x, &[h.clone(), h.clone()], &good[..3], &opts(1, false)).is_some());
    // Dropout between layers while training is random: refused.
    let mut training = opts(2, false);
    training.train = true;
    training.dropout = 0.5;
    let two_layers = vec![
        seq(&[18, 4], 1),
        seq(&[18, 6], 2),
        seq(&[18], 3),
        seq(&[18], 4),
        seq(&[18, 6], 5),
        seq(&[18, 6], 6),
        seq(&[18], 7),
        seq(&[18], 8),
    ];
    let hx = [seq(&[2, 2, 6], 1)];
    assert!(run(Kind::Gru, &x, &hx, &two_layers, &opts(2, false)).is_ok());
    let refused = run(Kind::Gru, &x, &hx, &two_layers, &training)
        .err()
        .unwrap();
    assert!(
        refused.message.contains("dropout=0.5"),
        "{}",
        refused.message
    );
    // Packed: increasing or non-positive batch sizes, too little data.
    let data = seq(&[6, 4], 1);
    let gru = vec![
        seq(&[18, 4], 3),
        seq(&[18, 6], 4),
        seq(&[18], 5),
        seq(&[18], 6),
    ];
    for sizes in [vec![1i64, 2, 3], vec![3, 0], vec![4, 2], vec![3, 3, 3]] {
        let n = sizes.len() as i64;
        let bs = Tensor::from_vec(sizes, &[n]).unwrap();
        let h3 = seq(&[1, 3, 6], 2);
        assert!(packed::run(Kind::Gru, &data, &bs, &[h3], &gru, &opts(1, false)).is_err());
    }
    // A cell step with a state of the wrong width.
    let w = Weights {
        w_ih: seq(&[6, 4], 1),
        w_hh: seq(&[6, 6], 2),
        b_ih: None,
        b_hh: None,
        w_hr: None,
    };
    let ig = seq(&[2, 6], 3);
    assert!(step(Kind::Tanh, &ig, &seq(&[2, 5], 4), None, &w).is_err());
}
