//! Recurrent operators: the cells (`aten::lstm_cell`, `gru_cell`, `rnn_tanh_cell`,
//! `rnn_relu_cell`) and the stacked sequence forms (`aten::lstm`, `gru`, `rnn_tanh`,
//! `rnn_relu`; the `.input` overloads that `nn.LSTM`, `nn.GRU` and `nn.RNN` call and the
//! `.data` overloads of PackedSequences).

pub mod cell;
pub mod packed;
pub mod sequence;

use ember_dialects::{Graph, Node, Type};

use self::cell::{check_cell, input_gates, step, Kind, Weights};
use self::sequence::Options;
use super::args::{boolean, err, int, number, op_multi, opt_tensor, tensor, tensor_list};
use super::registry::Registry;
use super::Operation;
use crate::ivalue::IValue;

pub fn register(r: &mut Registry) {
    r.add("aten::lstm_cell", |g, n| cell_op(g, n, Kind::Lstm));
    r.add("aten::gru_cell", |g, n| cell_op(g, n, Kind::Gru));
    r.add("aten::rnn_tanh_cell", |g, n| cell_op(g, n, Kind::Tanh));
    r.add("aten::rnn_relu_cell", |g, n| cell_op(g, n, Kind::Relu));
    r.add("aten::lstm", |g, n| sequence_op(g, n, Kind::Lstm));
    r.add("aten::gru", |g, n| sequence_op(g, n, Kind::Gru));
    r.add("aten::rnn_tanh", |g, n| sequence_op(g, n, Kind::Tanh));
    r.add("aten::rnn_relu", |g, n| sequence_op(g, n, Kind::Relu));
}

/// `cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None)`; an LSTM's `hx` is the list
/// `[h, c]` and it returns `(hy, cy)`.
fn cell_op(g: &Graph, n: Node, kind: Kind) -> Result<Operation, String> {
    let count = g.node_inputs(n).len();
    if !(4..=6).contains(&count) {
        return Err(format!(
            "aten::{}_cell takes 4 to 6 inputs, got {count}",
            kind.name()
        ));
    }
    Ok(op_multi(count, move |a| {
        let input = tensor(&a[0])?;
        let hx = if kind == Kind::Lstm {
            let hx = tensor_list(&a[1])?;
            if hx.len() != 2 {
                return Err("lstm_cell expects two hidden states".into());
            }
            hx
        } else {
            vec![tensor(&a[1])?]
        };
        let w = Weights {
            w_ih: tensor(&a[2])?,
            w_hh: tensor(&a[3])?,
            b_ih: a.get(4).map(opt_tensor).transpose()?.flatten(),
            b_hh: a.get(5).map(opt_tensor).transpose()?.flatten(),
            w_hr: None,
        };
        check_cell(kind, &input, &hx, &w).map_err(err)?;
        let igates = input_gates(&input, &w).map_err(err)?;
        let (hy, cy) = step(kind, &igates, &hx[0], hx.get(1), &w).map_err(err)?;
        let mut out = vec![IValue::Tensor(hy)];
        out.extend(cy.map(IValue::Tensor));
        Ok(out)
    }))
}

/// `(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
/// batch_first)` (`.input`), or `(data, batch_sizes, hx, params, has_biases, num_layers,
/// dropout, train, bidirectional)` (`.data`, a PackedSequence).
fn sequence_op(g: &Graph, n: Node, kind: Kind) -> Result<Operation, String> {
    let inputs = g.node_inputs(n);
    if inputs.len() != 9 {
        return Err(format!(
            "aten::{} takes 9 inputs, got {}",
            kind.name(),
            inputs.len()
        ));
    }
    // .data has batch_sizes second, which puts the params list fourth (.input: has_biases).
    let packed = matches!(g.ty(inputs[3]), Type::List(_));
    let outputs = g.node_outputs(n).len();
    let expected = if kind == Kind::Lstm { 3 } else { 2 };
    if outputs != expected {
        return Err(format!(
            "aten::{} has {expected} outputs, the node has {outputs}",
            kind.name()
        ));
    }
    Ok(op_multi(9, move |a| {
        // The packed form has batch_sizes at 1, so its later arguments sit one further on.
        let at = usize::from(packed);
        let input = tensor(&a[0])?;
        let hx = if kind == Kind::Lstm {
            tensor_list(&a[1 + at])?
        } else {
            vec![tensor(&a[1 + at])?]
        };
        let params = tensor_list(&a[2 + at])?;
        let o = Options {
            has_biases: boolean(&a[3 + at])?,
            num_layers: int(&a[4 + at])?,
            dropout: number(&a[5 + at])?,
            train: boolean(&a[6 + at])?,
            bidirectional: boolean(&a[7 + at])?,
            batch_first: !packed && boolean(&a[8])?,
        };
        let r = if packed {
            packed::run(kind, &input, &tensor(&a[1])?, &hx, &params, &o)
        } else {
            sequence::run(kind, &input, &hx, &params, &o)
        }
        .map_err(err)?;
        let mut out = vec![IValue::Tensor(r.output)];
        out.extend(r.states.into_iter().map(IValue::Tensor));
        Ok(out)
    }))
}

#[cfg(test)]
mod tests;
