//! The `.data` overloads: RNNs over a PackedSequence (`data` holds the time steps one after
//! another, step `t` being the first `batch_sizes[t]` sequences). A sequence that has ended
//! keeps its last state; the reverse direction starts each sequence from `h_0` at its own
//! last step, which falls out of stepping backwards over the shrinking row prefix.

use super::cell::{input_gates, step, Kind, Weights};
use super::sequence::{gather, Options, Outputs};
use crate::ops::shape::join::{cat_tensors, stack_tensors};
use crate::tensor::{DType, Tensor, TensorError, TensorResult};

fn fail<T>(message: impl Into<String>) -> TensorResult<T> {
    Err(TensorError::new(message))
}

/// The step sizes of a PackedSequence, checked.
fn steps(batch_sizes: &Tensor) -> TensorResult<Vec<i64>> {
    if batch_sizes.dim() != 1 {
        return fail("batch_sizes tensor should be 1D");
    }
    if batch_sizes.dtype() != DType::I64 {
        return fail(format!(
            "expected scalar type Long but found {}",
            batch_sizes.dtype().scalar_type_name()
        ));
    }
    let sizes = batch_sizes.to_vec::<i64>();
    if sizes.is_empty() {
        return fail("Expected sequence length to be larger than 0 in RNN");
    }
    for w in sizes.windows(2) {
        if w[1] > w[0] {
            return fail(format!(
                "batch_sizes must be non-increasing, but got {} after {}",
                w[1], w[0]
            ));
        }
    }
    if sizes[sizes.len() - 1] <= 0 {
        return fail("batch_sizes must be positive");
    }
    Ok(sizes)
}

/// Runs the stacked RNN over packed `data` (`[sum(batch_sizes), features]`).
pub fn run(
    kind: Kind,
    data: &Tensor,
    batch_sizes: &Tensor,
    hx: &[Tensor],
    params: &[Tensor],
    o: &Options,
) -> TensorResult<Outputs> {
    if kind == Kind::Lstm && hx.len() != 2 {
        return fail("lstm expects two hidden states");
    }
    let sizes = steps(batch_sizes)?;
    let has_projections = kind == Kind::Lstm && hx[0].size(2)? != hx[1].size(2)?;
    let weights = gather(params, o.has_biases, has_projections)?;
    let dirs: i64 = if o.bidirectional { 2 } else { 1 };
    let cells = o
        .num_layers
        .checked_mul(dirs)
        .filter(|&c| c >= 0)
        .ok_or_else(|| TensorError::new(format!("invalid num_layers {}", o.num_layers)))?;
    for h in hx {
        if h.dim() == 0 || h.sizes()[0] != cells {
            return fail("Expected more hidden states in stacked_rnn");
        }
    }
    if weights.len() as i64 != cells {
        return fail("Expected more weights in stacked_rnn");
    }
    if o.train && o.dropout > 0.0 && o.num_layers > 1 {
        return fail(format!(
            "Ember runs RNNs for inference only: dropout={} between layers with train=True is random",
            o.dropout
        ));
    }
    let mut layer_input = data.clone();
    let mut finals: Vec<Vec<Tensor>> = vec![Vec::new(); hx.len()];
    for layer in 0..o.num_layers {
        let mut outs = Vec::with_capacity(dirs as usize);
        for dir in 0..dirs {
            let index = layer * dirs + dir;
            let w = &weights[index as usize];
            let state: Vec<Tensor> = hx
                .iter()
                .map(|h| h.select(0, index)?.clone_contiguous())
                .collect::<TensorResult<_>>()?;
            let seq = direction(kind, &layer_input, &sizes, &state, w, dir == 1)?;
            outs.push(seq.0);
            for (k, s) in seq.1.into_iter().enumerate() {
                finals[k].push(s);
            }
        }
        layer_input = if outs.len() == 1 {
            outs.pop().unwrap_or(layer_input)
        } else {
            cat_tensors(&outs, 1)?
        };
    }
    let states = finals
        .iter()
        .map(|hs| stack_tensors(hs, 0))
        .collect::<TensorResult<Vec<_>>>()?;
    Ok(Outputs {
        output: layer_input,
        states,
    })
}

/// One direction of one layer: the packed outputs and the final states (`state` is updated
/// in place: it holds fresh copies).
fn direction(
    kind: Kind,
    data: &Tensor,
    sizes: &[i64],
    state: &[Tensor],
    w: &Weights,
    reverse: bool,
) -> TensorResult<(Tensor, Vec<Tensor>)> {
    let igates = input_gates(data, w)?;
    let mut offsets = Vec::with_capacity(sizes.len());
    let mut at = 0i64;
    for &s in sizes {
        offsets.push(at);
        at = at
            .checked_add(s)
            .ok_or_else(|| TensorError::new("batch_sizes overflow"))?;
    }
    let mut h = state[0].clone();
    let c = state.get(1).cloned();
    let mut out: Option<Tensor> = None;
    let order: Vec<usize> = if reverse {
        (0..sizes.len()).rev().collect()
    } else {
        (0..sizes.len()).collect()
    };
    for t in order {
        let rows = sizes[t];
        let ig = igates.narrow(0, offsets[t], rows)?;
        let hx = h.narrow(0, 0, rows)?;
        let cx = match &c {
            Some(c) => Some(c.narrow(0, 0, rows)?),
            None => None,
        };
        let (hy, cy) = step(kind, &ig, &hx, cx.as_ref(), w)?;
        if h.dtype() != hy.dtype() {
            // rnn_tanh over integers yields floats: keep the state in the result's dtype.
            let widened = Tensor::zeros(&h.sizes(), hy.dtype())?;
            widened.copy_from(&h)?;
            h = widened;
        }
        if h.size(-1)? != hy.size(-1)? {
            return fail("hidden state and cell output sizes disagree");
        }
        h.narrow(0, 0, rows)?.copy_from(&hy)?;
        if let (Some(c), Some(cy)) = (&c, &cy) {
            c.narrow(0, 0, rows)?.copy_from(cy)?;
        }
        let buffer = match &out {
            Some(b) => b.clone(),
            None => {
                let b = Tensor::zeros(&[data.size(0)?, hy.size(1)?], hy.dtype())?;
                out = Some(b.clone());
                b
            }
        };
        buffer.narrow(0, offsets[t], rows)?.copy_from(&hy)?;
    }
    let mut finals = vec![h];
    finals.extend(c);
    match out {
        Some(o) => Ok((o, finals)),
        None => fail("Expected sequence length to be larger than 0 in RNN"),
    }
}
