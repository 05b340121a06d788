//! The stacked, optionally bidirectional recurrent layers of `aten::lstm`, `aten::gru`,
//! `aten::rnn_tanh` and `aten::rnn_relu` (the `.input` overloads that traced and scripted
//! `nn.LSTM`/`nn.GRU`/`nn.RNN` call). Each layer computes the input gates of the whole
//! sequence in one product, then steps through time; a reverse direction steps backwards.
//! Layer outputs of the two directions sit side by side in the feature dim.

use super::cell::{input_gates, step, Kind, Weights};
use crate::tensor::{Tensor, TensorError, TensorResult};

/// The scalar arguments of the `.input` overloads.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub has_biases: bool,
    pub num_layers: i64,
    pub dropout: f64,
    pub train: bool,
    pub bidirectional: bool,
    pub batch_first: bool,
}

/// The output sequence and the final states: `[h_n]`, or `[h_n, c_n]` for an LSTM.
pub struct Outputs {
    pub output: Tensor,
    pub states: Vec<Tensor>,
}

fn fail<T>(message: impl Into<String>) -> TensorResult<T> {
    Err(TensorError::new(message))
}

/// Splits the flat parameter list into per-layer-and-direction weights, as `gather_params`:
/// `w_ih, w_hh[, b_ih, b_hh][, w_hr]` each.
pub fn gather(
    params: &[Tensor],
    has_biases: bool,
    has_projections: bool,
) -> TensorResult<Vec<Weights>> {
    let stride = if has_biases { 4 } else { 2 } + usize::from(has_projections);
    if !params.len().is_multiple_of(stride) {
        return fail("got an incorrect number of RNN parameters");
    }
    Ok(params
        .chunks(stride)
        .map(|p| Weights {
            w_ih: p[0].clone(),
            w_hh: p[1].clone(),
            b_ih: has_biases.then(|| p[2].clone()),
            b_hh: has_biases.then(|| p[3].clone()),
            w_hr: has_projections.then(|| p[stride - 1].clone()),
        })
        .collect())
}

/// Runs the stacked RNN. `hx` holds `[h_0]`, or `[h_0, c_0]` for an LSTM, each
/// `[num_layers * num_directions, batch, size]`.
pub fn run(
    kind: Kind,
    input: &Tensor,
    hx: &[Tensor],
    params: &[Tensor],
    o: &Options,
) -> TensorResult<Outputs> {
    if kind == Kind::Lstm && hx.len() != 2 {
        return fail("lstm expects two hidden states");
    }
    let has_projections = kind == Kind::Lstm && hx[0].size(2)? != hx[1].size(2)?;
    let weights = gather(params, o.has_biases, has_projections)?;
    if input.dim() != 3 {
        // PyTorch reads input.size(2) of a 2-d input first.
        input.size(2)?;
        return fail(format!(
            "Expected input to RNN to be 3-D (seq_len, batch, feature), but got {}-D",
            input.dim()
        ));
    }
    let x = if o.batch_first {
        input.transpose(0, 1)?
    } else {
        input.clone()
    };
    if x.sizes()[0] == 0 {
        return fail("Expected sequence length to be larger than 0 in RNN");
    }
    let dirs: i64 = if o.bidirectional { 2 } else { 1 };
    let layers = o.num_layers;
    let cells = layers
        .checked_mul(dirs)
        .filter(|&c| c >= 0)
        .ok_or_else(|| TensorError::new(format!("invalid num_layers {layers}")))?;
    for h in hx {
        if h.dim() == 0 || h.sizes()[0] != cells {
            return fail("Expected more hidden states in stacked_rnn");
        }
    }
    if weights.len() as i64 != cells {
        return fail("Expected more weights in stacked_rnn");
    }
    if o.train && o.dropout > 0.0 && layers > 1 {
        return fail(format!(
            "Ember runs RNNs for inference only: dropout={} between layers with train=True is random",
            o.dropout
        ));
    }
    let mut layer_input = x;
    let mut finals: Vec<Vec<Tensor>> = vec![Vec::new(); hx.len()];
    for layer in 0..layers {
        let mut outs = Vec::with_capacity(dirs as usize);
        for dir in 0..dirs {
            let index = layer * dirs + dir;
            let w = &weights[index as usize];
            let h0 = hx[0].select(0, index)?;
            let c0 = match hx.get(1) {
                Some(c) => Some(c.select(0, index)?),
                None => None,
            };
            let (seq, h, c) = direction(kind, &layer_input, h0, c0, w, dir == 1)?;
            outs.push(seq);
            finals[0].push(h);
            if let Some(c) = c {
                finals[1].push(c);
            }
        }
        layer_input = if outs.len() == 1 {
            outs.pop().unwrap_or(layer_input)
        } else {
            crate::ops::shape::join::cat_tensors(&outs, 2)?
        };
    }
    let output = if o.batch_first {
        layer_input.transpose(0, 1)?
    } else {
        layer_input
    };
    let states = finals
        .iter()
        .map(|hs| crate::ops::shape::join::stack_tensors(hs, 0))
        .collect::<TensorResult<Vec<_>>>()?;
    Ok(Outputs { output, states })
}

/// One direction of one layer over the whole sequence: the outputs `[seq, batch, hidden]`
/// and the last states.
fn direction(
    kind: Kind,
    input: &Tensor,
    mut h: Tensor,
    mut c: Option<Tensor>,
    w: &Weights,
    reverse: bool,
) -> TensorResult<(Tensor, Tensor, Option<Tensor>)> {
    let steps = input.sizes()[0];
    let igates = input_gates(input, w)?;
    let mut out: Option<Tensor> = None;
    for s in 0..steps {
        let t = if reverse { steps - 1 - s } else { s };
        let (hy, cy) = step(kind, &igates.select(0, t)?, &h, c.as_ref(), w)?;
        let buffer = match &out {
            Some(b) => b.clone(),
            None => {
                let mut shape = vec![steps];
                shape.extend_from_slice(&hy.sizes());
                let b = Tensor::zeros(&shape, hy.dtype())?;
                out = Some(b.clone());
                b
            }
        };
        buffer.select(0, t)?.copy_from(&hy)?;
        h = hy;
        c = cy;
    }
    match out {
        Some(o) => Ok((o, h, c)),
        None => fail("Expected sequence length to be larger than 0 in RNN"),
    }
}
