# RUN: emberc %s --emit=mlir -o - --example %S/../../ember-run/Inputs/x.npy | FileCheck %s
# RUN: ember-run %s --compile=whole %S/../../ember-run/Inputs/x.npy | FileCheck %s --check-prefix=OUT
# RUN: ember-run %s --no-jit %S/../../ember-run/Inputs/x.npy | FileCheck %s --check-prefix=OUT
# RUN: not emberc %s -o - --emit=mlir --example %S/../../ember-run/Inputs/x.npy --example %S/../../ember-run/Inputs/x.npy --example %S/../../ember-run/Inputs/x.npy 2>&1 | FileCheck %s --check-prefix=COUNT
# A sample (--example) may leave out the inputs that have defaults, as a call may: profiling
# runs the method with the defaults in their place.

# CHECK-LABEL: func.func @fusion_group_defaults_entry(%ctx: !llvm.ptr) -> i32
# CHECK: llvm.call @ember_rt_group(%ctx, %{{.*}}, %forms, %args, %outs)

# COUNT: error: sample 1: the method takes 1 to 2 inputs (x, scale), the sample has 3

# PyTorch: torch.tanh(x * 0.5 + 1.0) * x
# OUT:      tensor({{\[\[}}1.4121, -0.0000, 3.2161],
# OUT-NEXT: {{^ +\[}}0.0000, 3.9802, 4.9909]])

def forward(x: Tensor, scale: float = 0.5) -> Tensor:
    return torch.tanh(x * scale + 1.0) * x
