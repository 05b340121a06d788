//! One time step of the four recurrent cells (LSTM, GRU, tanh and relu RNN), computed as
//! PyTorch's CPU `Cell` structs do: both input products through `linear` (the GEMM path),
//! then the gate arithmetic through the elementwise engine, which computes in f64 and rounds
//! once into the tensors' dtype.

use crate::ops::linalg::products::linear;
use crate::tensor::elementwise::{map, Arg, Compute, Target};
use crate::tensor::{DType, Tensor, TensorError, TensorResult};

/// Which recurrence a cell runs.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Kind {
    Lstm,
    Gru,
    Tanh,
    Relu,
}

impl Kind {
    /// The number of gates stacked in the weights' first dim.
    pub fn gates(self) -> i64 {
        match self {
            Kind::Lstm => 4,
            Kind::Gru => 3,
            Kind::Tanh | Kind::Relu => 1,
        }
    }

    /// The operator's name in messages (`lstm`, `gru`, `rnn_tanh`, `rnn_relu`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Lstm => "lstm",
            Kind::Gru => "gru",
            Kind::Tanh => "rnn_tanh",
            Kind::Relu => "rnn_relu",
        }
    }
}

/// The weights of one cell (one layer and direction of a stacked RNN).
#[derive(Clone)]
pub struct Weights {
    pub w_ih: Tensor,
    pub w_hh: Tensor,
    pub b_ih: Option<Tensor>,
    pub b_hh: Option<Tensor>,
    /// The projection of an LSTM with `proj_size > 0`.
    pub w_hr: Option<Tensor>,
}

fn fail<T>(message: String) -> TensorResult<T> {
    Err(TensorError::new(message))
}

/// The argument checks of `aten::*_cell`, in PyTorch's order and words.
pub fn check_cell(kind: Kind, input: &Tensor, hx: &[Tensor], w: &Weights) -> TensorResult<()> {
    if input.dim() != 2 {
        return fail(format!(
            "Expected 2D input (batch x feature), but got {}D input",
            input.dim()
        ));
    }
    let input_size = w.w_ih.size(1)?;
    if input.sizes()[1] != input_size {
        return fail(format!(
            "input has inconsistent input_size: got {} expected {}",
            input.sizes()[1],
            input_size
        ));
    }
    let hidden = w.w_hh.size(1)?;
    let gates = kind.gates();
    let rows = gates
        .checked_mul(hidden)
        .ok_or_else(|| TensorError::new(format!("hidden_size {hidden} is too large")))?;
    for (name, t) in [("weight_ih", &w.w_ih), ("weight_hh", &w.w_hh)] {
        let first = t.size(0)?;
        if first != rows {
            return fail(format!(
                "{name} first dim must be {gates} * hidden_size = {rows}, but got {first}"
            ));
        }
    }
    for (k, h) in hx.iter().enumerate() {
        if h.dim() != 2 {
            return fail(format!(
                "Expected 2D hidden{k} (batch x hidden_size), but got {}D tensor",
                h.dim()
            ));
        }
        let (batch, size) = (h.sizes()[0], h.sizes()[1]);
        if input.sizes()[0] != batch {
            return fail(format!(
                "Input batch size {} doesn't match hidden{k} batch size {batch}",
                input.sizes()[0]
            ));
        }
        if size != hidden {
            return fail(format!(
                "hidden{k} has inconsistent hidden_size: got {size}, expected {hidden}"
            ));
        }
    }
    Ok(())
}

/// `input @ w_ih.T + b_ih`: the input half of the gates (for a whole sequence at once).
pub fn input_gates(input: &Tensor, w: &Weights) -> TensorResult<Tensor> {
    linear(input, &w.w_ih, w.b_ih.as_ref())
}

/// One step from precomputed input gates `igates` ([batch, gates * hidden]) and the state
/// (`hx`, plus `cx` for an LSTM). Returns the new hidden state and, for an LSTM, the new cell.
pub fn step(
    kind: Kind,
    igates: &Tensor,
    hx: &Tensor,
    cx: Option<&Tensor>,
    w: &Weights,
) -> TensorResult<(Tensor, Option<Tensor>)> {
    let hgates = linear(hx, &w.w_hh, w.b_hh.as_ref())?;
    if hgates.dim() != 2 || hgates.sizes()[1] % kind.gates() != 0 {
        return fail(format!(
            "{}: the hidden gates of shape {:?} do not split into {} equal chunks along dim 1",
            kind.name(),
            hgates.sizes().as_slice(),
            kind.gates()
        ));
    }
    let dtype = hgates.dtype();
    match kind {
        Kind::Tanh => {
            // at::tanh promotes integers to the default float dtype.
            let out = if dtype.is_floating() {
                dtype
            } else {
                DType::F32
            };
            let r = map(
                &[t(&hgates), t(igates)],
                Compute::Float(&|x| (x[0] + x[1]).tanh()),
                Target::New(out),
            )?;
            Ok((r, None))
        }
        Kind::Relu => {
            let r = if dtype.is_floating() {
                map(
                    &[t(&hgates), t(igates)],
                    Compute::Float(&|x| relu(x[0] + x[1])),
                    Target::New(dtype),
                )?
            } else {
                map(
                    &[t(&hgates), t(igates)],
                    Compute::Int(&|x| x[0].wrapping_add(x[1]).max(0)),
                    Target::New(dtype),
                )?
            };
            Ok((r, None))
        }
        Kind::Lstm | Kind::Gru => {
            if !dtype.is_floating() {
                // sigmoid_ in place cannot hold a float result in an integer tensor.
                return fail(format!(
                    "result type Float can't be cast to the desired output type {}",
                    dtype.scalar_type_name()
                ));
            }
            if kind == Kind::Lstm {
                let cx = cx.ok_or_else(|| TensorError::new("lstm expects two hidden states"))?;
                lstm_gates(igates, &hgates, cx, w)
            } else {
                gru_gates(igates, &hgates, hx).map(|h| (h, None))
            }
        }
    }
}

fn t(x: &Tensor) -> Arg {
    Arg::Tensor(x.clone())
}

fn relu(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else {
        x.max(0.0)
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The `k`-th of `n` equal chunks of `g` along dim 1 (`unsafe_chunk(n, 1)[k]`).
fn chunk(g: &Tensor, n: i64, k: i64) -> TensorResult<Tensor> {
    let size = g.size(1)? / n;
    g.narrow(1, k * size, size)
}

/// `cy = f * cx + i * g`, `hy = o * tanh(cy)`, then the projection when there is one.
fn lstm_gates(
    igates: &Tensor,
    hgates: &Tensor,
    cx: &Tensor,
    w: &Weights,
) -> TensorResult<(Tensor, Option<Tensor>)> {
    let dtype = hgates.dtype();
    let mut args = Vec::with_capacity(7);
    for k in 0..3 {
        args.push(t(&chunk(hgates, 4, k)?));
        args.push(t(&chunk(igates, 4, k)?));
    }
    args.push(t(cx));
    let cy = map(
        &args,
        Compute::Float(&|x| {
            let (i, f, g) = (
                sigmoid(x[0] + x[1]),
                sigmoid(x[2] + x[3]),
                (x[4] + x[5]).tanh(),
            );
            f * x[6] + i * g
        }),
        Target::New(dtype),
    )?;
    let hy = map(
        &[t(&chunk(hgates, 4, 3)?), t(&chunk(igates, 4, 3)?), t(&cy)],
        Compute::Float(&|x| sigmoid(x[0] + x[1]) * x[2].tanh()),
        Target::New(dtype),
    )?;
    let hy = match &w.w_hr {
        Some(w_hr) => linear(&hy, w_hr, None)?,
        None => hy,
    };
    Ok((hy, Some(cy)))
}

/// `r`, `z` from sigmoid, `n = tanh(i_n + r * h_n)`, `hy = (h - n) * z + n`.
fn gru_gates(igates: &Tensor, hgates: &Tensor, hx: &Tensor) -> TensorResult<Tensor> {
    let mut args = Vec::with_capacity(7);
    for k in 0..3 {
        args.push(t(&chunk(hgates, 3, k)?));
        args.push(t(&chunk(igates, 3, k)?));
    }
    args.push(t(hx));
    map(
        &args,
        Compute::Float(&|x| {
            let r = sigmoid(x[0] + x[1]);
            let z = sigmoid(x[2] + x[3]);
            let n = (x[5] + x[4] * r).tanh();
            (x[6] - n) * z + n
        }),
        Target::New(hgates.dtype()),
    )
}
