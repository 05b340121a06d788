# RUN: ember-run %s %S/Inputs/x.npy | FileCheck %s --check-prefix=TRAIN
# RUN: ember-run %s --eval %S/Inputs/x.npy | FileCheck %s --check-prefix=EVAL
# RUN: ember-opt %s --eval --freeze -o %t.pt && ember-run %t.pt %S/Inputs/x.npy | FileCheck %s --check-prefix=EVAL
# RUN: ember-run %s --eval --compile=whole %S/Inputs/x.npy | FileCheck %s --check-prefix=EVAL
# RUN: ember-run %s --eval --compile=whole %S/Inputs/x.npy --bench 3 2>&1 | FileCheck %s --check-prefix=PLANNED
# RUN: emberc %s --eval -o %t.o --header %t.h && FileCheck %s --check-prefix=HEADER < %t.h
# RUN: not emberc %s -o %t.train.o 2>&1 | FileCheck %s --check-prefix=TRAINING
# RUN: not ember-run %S/Inputs/collatz.ir --eval 3 2>&1 | FileCheck %s --check-prefix=NOTMODULE
# RUN: not ember-opt %S/Inputs/acc.py --eval 2>&1 | FileCheck %s --check-prefix=NOMODULE
# torch.nn modules created in __init__ (Ember's own TorchScript versions of them, initialized
# from the default generator as a fresh PyTorch process does): the module is constructed in
# training mode, as Net() is, so batch norm normalizes with the batch's statistics; --eval
# puts it in eval mode first (running statistics), as net.eval() does, and
# ember-opt --eval --freeze writes it as torch.jit.freeze(torch.jit.script(Net().eval())).
# emberc and ember-run --compile=whole compile it whole in eval mode; in training mode batch
# norm writes its running statistics, so the method cannot be frozen and emberc says so.
# Compiled calls after the second take their intermediate tensors from one planned block.
# The expected values are PyTorch's for that module (torch.manual_seed(67280421310721), the
# default seed, then Net()).
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


# TRAIN:      tensor({{\[\[}} 0.7435, -0.2676],
# TRAIN-NEXT:         [ 1.1896, -0.4214]])
# EVAL:      tensor({{\[\[}} 0.6530, -0.2263],
# EVAL-NEXT:         [ 1.7135, -1.2791]])
# PLANNED: bench: 3 calls after 3 warm-up
# PLANNED-NEXT: planned memory: {{[1-9][0-9]*}} intermediate buffers per call in a block of {{[0-9.]+}} KiB (1 block(s)); {{[1-9][0-9]*}} allocations served from it, 0 not
# NOTMODULE: --eval puts a module in eval mode, and the model is no module
# NOMODULE: --eval needs a module: a .pt archive, or a .py written with -o OUT.pt
# HEADER: forward(
# HEADER: extern const ember_compiled_model module_nn;
# TRAINING: 'forward' writes {{.*}}num_batches_tracked of the module: only methods that can be frozen compile whole
