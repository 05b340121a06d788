"""Recurrent operators: lstm_cell, gru_cell, rnn_tanh_cell, rnn_relu_cell, and the stacked
lstm / gru / rnn_tanh / rnn_relu (.input overloads), scripted and as traced nn.LSTM, nn.GRU
and nn.RNN modules (weights as graph inputs)."""

from typing import List, Optional

import torch
from torch import Tensor, nn

from .common import module_call


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def lstm_cell(x: Tensor, h: Tensor, c: Tensor, w_ih: Tensor, w_hh: Tensor,
              b_ih: Optional[Tensor], b_hh: Optional[Tensor]):
    return torch.lstm_cell(x, [h, c], w_ih, w_hh, b_ih, b_hh)


def lstm_cell_nobias(x: Tensor, h: Tensor, c: Tensor, w_ih: Tensor, w_hh: Tensor):
    return torch.lstm_cell(x, [h, c], w_ih, w_hh)


def lstm_cell_list(x: Tensor, hx: List[Tensor], w_ih: Tensor, w_hh: Tensor):
    return torch.lstm_cell(x, hx, w_ih, w_hh)


def gru_cell(x: Tensor, h: Tensor, w_ih: Tensor, w_hh: Tensor,
             b_ih: Optional[Tensor], b_hh: Optional[Tensor]):
    return torch.gru_cell(x, h, w_ih, w_hh, b_ih, b_hh)


def rnn_tanh_cell(x: Tensor, h: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Optional[Tensor], b_hh: Optional[Tensor]):
    return torch.rnn_tanh_cell(x, h, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(x: Tensor, h: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Optional[Tensor], b_hh: Optional[Tensor]):
    return torch.rnn_relu_cell(x, h, w_ih, w_hh, b_ih, b_hh)


def lstm(x: Tensor, h: Tensor, c: Tensor, params: List[Tensor], has_biases: bool,
         num_layers: int, dropout: float, train: bool, bidirectional: bool,
         batch_first: bool):
    return torch.lstm(x, [h, c], params, has_biases, num_layers, dropout, train,
                      bidirectional, batch_first)


def gru(x: Tensor, h: Tensor, params: List[Tensor], has_biases: bool, num_layers: int,
        dropout: float, train: bool, bidirectional: bool, batch_first: bool):
    return torch.gru(x, h, params, has_biases, num_layers, dropout, train, bidirectional,
                     batch_first)


def rnn_tanh(x: Tensor, h: Tensor, params: List[Tensor], has_biases: bool, num_layers: int,
             dropout: float, train: bool, bidirectional: bool, batch_first: bool):
    return torch.rnn_tanh(x, h, params, has_biases, num_layers, dropout, train,
                          bidirectional, batch_first)


def rnn_relu(x: Tensor, h: Tensor, params: List[Tensor], has_biases: bool, num_layers: int,
             dropout: float, train: bool, bidirectional: bool, batch_first: bool):
    return torch.rnn_relu(x, h, params, has_biases, num_layers, dropout, train,
                          bidirectional, batch_first)


def lstm_packed(data: Tensor, batch_sizes: Tensor, h: Tensor, c: Tensor, params: List[Tensor],
                num_layers: int, bidirectional: bool):
    return torch.lstm(data, batch_sizes, [h, c], params, True, num_layers, 0.0, False,
                      bidirectional)


def gru_packed(data: Tensor, batch_sizes: Tensor, h: Tensor, params: List[Tensor],
               num_layers: int, bidirectional: bool):
    return torch.gru(data, batch_sizes, h, params, True, num_layers, 0.0, False,
                     bidirectional)


def rnn_tanh_packed(data: Tensor, batch_sizes: Tensor, h: Tensor, params: List[Tensor],
                    num_layers: int, bidirectional: bool):
    return torch.rnn_tanh(data, batch_sizes, h, params, True, num_layers, 0.0, False,
                          bidirectional)


def stacked_params(gates, layers, dirs, input_size, hidden, bias=True, proj=0,
                   dtype=torch.float32):
    out_size = proj or hidden
    ps = []
    for layer in range(layers):
        for _ in range(dirs):
            width = input_size if layer == 0 else out_size * dirs
            ps += [r(gates * hidden, width, dtype=dtype), r(gates * hidden, out_size, dtype=dtype)]
            if bias:
                ps += [r(gates * hidden, dtype=dtype), r(gates * hidden, dtype=dtype)]
            if proj:
                ps += [r(proj, hidden, dtype=dtype)]
    return [p * 0.5 for p in ps]


def cells(c):
    x, h, cx = r(3, 4), r(3, 6), r(3, 6)
    w4, u4, b4, v4 = r(24, 4), r(24, 6), r(24), r(24)
    c.add("lstm_cell", lstm_cell, x, h, cx, w4, u4, b4, v4)
    c.add("lstm_cell_nobias", lstm_cell_nobias, x, h, cx, w4, u4)
    c.add("lstm_cell_ih_bias_only", lstm_cell, x, h, cx, w4, u4, b4, None)
    c.add("lstm_cell_f64", lstm_cell, *[t.double() for t in (x, h, cx, w4, u4, b4, v4)])
    c.add("lstm_cell_f16", lstm_cell, *[t.half() for t in (x, h, cx, w4, u4, b4, v4)],
          rtol=2e-2, atol=1e-2)
    c.add("lstm_cell_bf16", lstm_cell, *[t.bfloat16() for t in (x, h, cx, w4, u4, b4, v4)],
          rtol=5e-2, atol=5e-2)
    # Non-contiguous operands: a transposed weight copy, strided input rows.
    c.add("lstm_cell_noncontig", lstm_cell, r(6, 4)[::2], h, cx.t().contiguous().t(),
          r(4, 24).t(), u4, b4, v4)
    c.add("lstm_cell_empty_batch", lstm_cell, x[:0], h[:0], cx[:0], w4, u4, b4, v4)
    c.add("lstm_cell_err_hx_count", lstm_cell_list, x, [h], w4, u4)
    c.add("lstm_cell_err_1d", lstm_cell, x[0], h[0], cx[0], w4, u4, b4, v4)
    c.add("lstm_cell_err_input_size", lstm_cell, r(3, 5), h, cx, w4, u4, b4, v4)
    c.add("lstm_cell_err_batch", lstm_cell, x, r(2, 6), cx, w4, u4, b4, v4)
    c.add("lstm_cell_err_hidden", lstm_cell, x, h, r(3, 5), w4, u4, b4, v4)
    c.add("lstm_cell_err_weight_ih", lstm_cell, x, h, cx, r(20, 4), u4, b4, v4)
    c.add("lstm_cell_err_weight_hh", lstm_cell, x, h, cx, w4, r(24, 5), b4, v4)
    c.add("lstm_cell_err_int", lstm_cell, *[(t * 3).long() for t in (x, h, cx, w4, u4, b4, v4)])
    c.add("lstm_cell_err_hidden_1d", lstm_cell, x, h[0], cx, w4, u4, b4, v4)

    w3, u3, b3, v3 = r(18, 4), r(18, 6), r(18), r(18)
    c.add("gru_cell", gru_cell, x, h, w3, u3, b3, v3)
    c.add("gru_cell_nobias", gru_cell, x, h, w3, u3, None, None)
    c.add("gru_cell_f64", gru_cell, *[t.double() for t in (x, h, w3, u3, b3, v3)])
    c.add("gru_cell_f16", gru_cell, *[t.half() for t in (x, h, w3, u3, b3, v3)],
          rtol=2e-2, atol=1e-2)
    c.add("gru_cell_noncontig", gru_cell, x, r(6, 3).t(), r(4, 18).t(), u3, b3, v3)
    c.add("gru_cell_err_batch", gru_cell, x, r(2, 6), w3, u3, b3, v3)
    c.add("gru_cell_err_weight_ih", gru_cell, x, h, r(12, 4), u3, b3, v3)
    c.add("gru_cell_err_weight_hh", gru_cell, x, h, w3, r(12, 6), b3, v3)
    c.add("gru_cell_err_int", gru_cell, *[(t * 3).long() for t in (x, h, w3, u3)], None, None)

    w1, u1, b1, v1 = r(6, 4), r(6, 6), r(6), r(6)
    for name, fn in (("rnn_tanh_cell", rnn_tanh_cell), ("rnn_relu_cell", rnn_relu_cell)):
        c.add(name, fn, x, h, w1, u1, b1, v1)
        c.add(name + "_nobias", fn, x, h, w1, u1, None, None)
        c.add(name + "_f64", fn, *[t.double() for t in (x, h, w1, u1, b1, v1)])
        c.add(name + "_f16", fn, *[t.half() for t in (x, h, w1, u1, b1, v1)],
              rtol=2e-2, atol=1e-2)
        c.add(name + "_long", fn, *[(t * 3).long() for t in (x, h, w1, u1, b1, v1)])
        c.add(name + "_err_input_size", fn, r(3, 2), h, w1, u1, b1, v1)
        c.add(name + "_err_weight_ih", fn, x, h, r(5, 4), u1, b1, v1)
        c.add(name + "_err_bool", fn, *[t > 0 for t in (x, h, w1, u1)], None, None)
        c.add(name + "_err_bias_size", fn, x, h, w1, u1, r(5), v1)


def sequences(c):
    x = r(5, 3, 4)
    for layers, dirs, bias, batch_first in ((1, 1, True, False), (2, 1, True, False),
                                            (2, 2, True, True), (1, 2, False, False)):
        tag = f"l{layers}_d{dirs}" + ("" if bias else "_nobias") + ("_bf" if batch_first else "")
        inp = x.transpose(0, 1).contiguous() if batch_first else x
        h0, c0 = r(layers * dirs, 3, 6) * 0.5, r(layers * dirs, 3, 6) * 0.5
        args = (bias, layers, 0.0, False, dirs == 2, batch_first)
        c.add("lstm_" + tag, lstm, inp, h0, c0, stacked_params(4, layers, dirs, 4, 6, bias),
              *args)
        c.add("gru_" + tag, gru, inp, h0, stacked_params(3, layers, dirs, 4, 6, bias), *args)
        c.add("rnn_tanh_" + tag, rnn_tanh, inp, h0, stacked_params(1, layers, dirs, 4, 6, bias),
              *args)
        c.add("rnn_relu_" + tag, rnn_relu, inp, h0, stacked_params(1, layers, dirs, 4, 6, bias),
              *args)
    h0, c0 = r(2, 3, 6), r(2, 3, 6)
    c.add("lstm_f64", lstm, x.double(), h0.double(), c0.double(),
          stacked_params(4, 2, 1, 4, 6, dtype=torch.float64), True, 2, 0.0, False, False,
          False)
    c.add("gru_f64", gru, x.double(), h0.double(),
          stacked_params(3, 2, 1, 4, 6, dtype=torch.float64), True, 2, 0.0, False, False,
          False)
    # Dropout between layers only applies in training; eval ignores it.
    c.add("lstm_eval_dropout", lstm, x, h0, c0, stacked_params(4, 2, 1, 4, 6), True, 2, 0.5,
          False, False, False)
    # One layer has nothing to drop: train=True is deterministic.
    c.add("gru_train_one_layer", gru, x, h0[:1], stacked_params(3, 1, 1, 4, 6), True, 1, 0.5,
          True, False, False)
    # Projections (proj_size=3): h is [L*D, B, 3], c is [L*D, B, 6].
    c.add("lstm_proj", lstm, x, r(4, 3, 3), r(4, 3, 6),
          stacked_params(4, 2, 2, 4, 6, proj=3), True, 2, 0.0, False, True, False)
    c.add("lstm_noncontig_input", lstm, r(3, 5, 8)[:, :, ::2].transpose(0, 1), h0[:1], c0[:1],
          stacked_params(4, 1, 1, 4, 6), True, 1, 0.0, False, False, False)
    c.add("lstm_empty_batch", lstm, x[:, :0], h0[:1, :0], c0[:1, :0],
          stacked_params(4, 1, 1, 4, 6), True, 1, 0.0, False, False, False)
    c.add("rnn_relu_long", rnn_relu, (x * 3).long(), (h0[:1] * 3).long(),
          [(p * 4).long() for p in stacked_params(1, 1, 1, 4, 6)], True, 1, 0.0, False, False,
          False)
    c.add("lstm_err_empty_seq", lstm, x[:0], h0[:1], c0[:1], stacked_params(4, 1, 1, 4, 6),
          True, 1, 0.0, False, False, False)
    c.add("gru_err_params", gru, x, h0[:1], stacked_params(3, 1, 1, 4, 6)[:3], True, 1, 0.0,
          False, False, False)
    c.add("gru_err_more_weights", gru, x, h0[:1], stacked_params(3, 2, 1, 4, 6), True, 1, 0.0,
          False, False, False)
    c.add("gru_err_more_hidden", gru, x, h0, stacked_params(3, 1, 1, 4, 6), True, 1, 0.0,
          False, False, False)
    c.add("gru_err_input_size", gru, r(5, 3, 5), h0[:1], stacked_params(3, 1, 1, 4, 6), True, 1,
          0.0, False, False, False)
    c.add("lstm_err_int", lstm, (x * 3).long(), h0[:1].long(), c0[:1].long(),
          [(p * 4).long() for p in stacked_params(4, 1, 1, 4, 6)], True, 1, 0.0, False, False,
          False)


def packed(c):
    # Three sequences of lengths 4, 2, 1: batch_sizes [3, 2, 1, 1], 7 rows of data.
    data, bs = r(7, 4), torch.tensor([3, 2, 1, 1])
    for layers, dirs in ((1, 1), (2, 2)):
        tag = f"_l{layers}_d{dirs}"
        h0, c0 = r(layers * dirs, 3, 6) * 0.5, r(layers * dirs, 3, 6) * 0.5
        c.add("lstm_packed" + tag, lstm_packed, data, bs, h0, c0,
              stacked_params(4, layers, dirs, 4, 6), layers, dirs == 2)
        c.add("gru_packed" + tag, gru_packed, data, bs, h0,
              stacked_params(3, layers, dirs, 4, 6), layers, dirs == 2)
        c.add("rnn_tanh_packed" + tag, rnn_tanh_packed, data, bs, h0,
              stacked_params(1, layers, dirs, 4, 6), layers, dirs == 2)
    h0, c0 = r(1, 3, 6), r(1, 3, 6)
    c.add("lstm_packed_err_batch_sizes_2d", lstm_packed, data, bs[None], h0, c0,
          stacked_params(4, 1, 1, 4, 6), 1, False)
    c.add("lstm_packed_err_batch_sizes_int", lstm_packed, data, bs.int(), h0, c0,
          stacked_params(4, 1, 1, 4, 6), 1, False)
    c.add("gru_packed_err_short_data", gru_packed, data[:6], bs, h0,
          stacked_params(3, 1, 1, 4, 6), 1, False)


def traced_modules(c):
    torch.manual_seed(1)
    cases = [
        ("traced_lstm_l2_bidir_batch_first",
         nn.LSTM(4, 6, num_layers=2, bidirectional=True, batch_first=True), r(2, 3, 4), False),
        ("traced_lstm_with_state", nn.LSTM(4, 6), r(3, 2, 4), True),
        ("traced_lstm_proj", nn.LSTM(4, 6, num_layers=2, proj_size=3), r(3, 2, 4), False),
        ("traced_gru", nn.GRU(4, 6), r(3, 2, 4), False),
        ("traced_gru_l2_bidir_batch_first",
         nn.GRU(4, 6, num_layers=2, bidirectional=True, batch_first=True), r(2, 3, 4), False),
        ("traced_gru_nobias_dropout", nn.GRU(4, 5, num_layers=3, bias=False, dropout=0.3),
         r(4, 2, 4), False),
        ("traced_rnn_tanh", nn.RNN(4, 6, num_layers=2), r(3, 2, 4), False),
        ("traced_rnn_relu_bidir", nn.RNN(4, 6, nonlinearity="relu", bidirectional=True),
         r(3, 2, 4), False),
        ("traced_lstm_unbatched", nn.LSTM(4, 6, num_layers=2), r(3, 4), False),
        ("traced_lstm_f64", nn.LSTM(4, 6, bidirectional=True).double(),
         r(3, 2, 4, dtype=torch.float64), False),
        ("traced_gru_f16", nn.GRU(4, 6).half(), r(3, 2, 4, dtype=torch.float16), False),
    ]
    for name, module, x, with_state in cases:
        module.eval()
        if with_state:
            h0, c0 = r(1, 2, 6), r(1, 2, 6)
            fn, params = _state_call(module, 3)
            c.add_traced(name, fn, x, h0, c0, *params, rtol=1e-4, atol=1e-5)
        else:
            fn, params = module_call(module, 1)
            half = x.dtype == torch.float16
            c.add_traced(name, fn, x, *params, rtol=2e-2 if half else 1e-4,
                         atol=2e-2 if half else 1e-5)
    for name, module in (("traced_lstm_cell", nn.LSTMCell(4, 6)), ("traced_gru_cell",
                                                                   nn.GRUCell(4, 6)),
                         ("traced_rnn_cell", nn.RNNCell(4, 6))):
        fn, params = module_call(module.eval(), 1)
        c.add_traced(name, fn, r(3, 4), *params, rtol=1e-4, atol=1e-5)


class _WithState(nn.Module):
    """Calls an LSTM with an explicit `(h0, c0)`."""

    def __init__(self, lstm):
        super().__init__()
        self.lstm = lstm

    def forward(self, x, h, c):
        return self.lstm(x, (h, c))


def _state_call(module, n_inputs):
    return module_call(_WithState(module), n_inputs)


def cases(c):
    torch.manual_seed(0)
    cells(c)
    sequences(c)
    packed(c)
    traced_modules(c)
