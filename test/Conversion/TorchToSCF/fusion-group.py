# RUN: emberc %s --emit=mlir -o - --example %S/../../ember-run/Inputs/x.npy --example %S/../../ember-run/Inputs/x.npy | FileCheck %s
# RUN: emberc %s -o %t.o --example %S/../../ember-run/Inputs/x.npy --example %S/../../ember-run/Inputs/x.npy
# RUN: llvm-nm %t.o | FileCheck %s --check-prefix=OBJ
# RUN: llvm-nm --undefined-only %t.o | FileCheck %s --check-prefix=UNDEF
# RUN: ember-run %s --compile=whole %S/../../ember-run/Inputs/x.npy %S/../../ember-run/Inputs/x.npy | FileCheck %s --check-prefix=OUT
# RUN: ember-run %s --compile=whole --print-optimized-graph %S/../../ember-run/Inputs/x.npy %S/../../ember-run/Inputs/x.npy 2>&1 | FileCheck %s --check-prefix=GRAPH
# RUN: ember-run %s --no-jit %S/../../ember-run/Inputs/x.npy %S/../../ember-run/Inputs/x.npy | FileCheck %s --check-prefix=OUT
# RUN: emberc %s -o %t.o --header %t.h --example %S/../../ember-run/Inputs/x.npy --example %S/../../ember-run/Inputs/x.npy
# RUN: FileCheck %s --check-prefix=ONE < %t.h
# RUN: emberc %s -o %t.o --header %t.h --example-set %S/../../ember-run/Inputs/x.npy,%S/../../ember-run/Inputs/x.npy --example-set %S/../../ember-run/Inputs/x34.npy,%S/../../ember-run/Inputs/x34.npy
# RUN: FileCheck %s --check-prefix=SEVERAL < %t.h
# RUN: not emberc %s -o - --emit=mlir --example %S/../../ember-run/Inputs/x.npy 2>&1 | FileCheck %s --check-prefix=COUNT
# RUN: not emberc %s -o - --emit=mlir --example-set %S/../../ember-run/Inputs/x.npy 2>&1 | FileCheck %s --check-prefix=COUNT
# RUN: not emberc %s -o - --emit=mlir --example %s 2>&1 | FileCheck %s --check-prefix=NOT-NPY
# RUN: not emberc %s --mode groups -o - --example %S/../../ember-run/Inputs/x.npy 2>&1 | FileCheck %s --check-prefix=GROUPS
# A method compiled whole with sample inputs (--example, one .npy per input; --example-set for
# each further sample, its files comma-separated): profiled on them,
# its pointwise chain becomes a fusion group, called through ember_rt_group with the addresses
# of its kernel's three forms (AVX-512, AVX2, baseline: the runtime calls the best this CPU
# runs), whose functions are in the same module (and object) as the method's.

# The kernel, as the JIT lowers it (its loop annotations renamed after it):
# CHECK: #fusion_group_entry_group{{[0-9]+}}_avx512_loop_annotation = #llvm.loop_annotation
# CHECK-LABEL: module {
# CHECK: llvm.func @ember_rt_group(!llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
# CHECK: func.func private @fusion_group_entry_group[[N:[0-9]+]]_avx512_rows(
# CHECK: func.func @fusion_group_entry_group[[N]]_avx512(%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
# CHECK: func.func @fusion_group_entry_group[[N]]_avx2(
# CHECK: func.func @fusion_group_entry_group[[N]]_base(
# The method: the loop is scf.while, the group a call with its kernel's address.
# CHECK-LABEL: func.func @fusion_group_entry(%ctx: !llvm.ptr) -> i32
# CHECK: scf.while
# CHECK: %[[F:.*]] = func.constant @fusion_group_entry_group[[N]]_avx512 : (i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
# CHECK: %[[K:.*]] = builtin.unrealized_conversion_cast %[[F]]
# CHECK: llvm.store %[[K]], %{{.*}} : !llvm.ptr, !llvm.ptr
# CHECK: func.constant @fusion_group_entry_group[[N]]_avx2
# CHECK: func.constant @fusion_group_entry_group[[N]]_base
# CHECK: llvm.call @ember_rt_group(%ctx, %{{.*}}, %forms, %args, %outs)
# CHECK-NOT: ember_rt_op(%ctx, {{.*}} aten::tanh

# The object defines the kernel; it needs nothing but the runtime's entry points and the C
# library's fmaf (the base form's fused multiply-adds, on a CPU without FMA instructions).
# OBJ: T fusion_group_entry
# OBJ: T fusion_group_entry_group{{[0-9]+}}_avx2
# OBJ: T fusion_group_entry_group{{[0-9]+}}_avx512
# OBJ: T fusion_group_entry_group{{[0-9]+}}_base
# UNDEF-NOT: {{^ *U [^e]}}
# UNDEF:     U ember_rt_group
# UNDEF-NOT: {{^ *U [^e]}}
# UNDEF:     U fmaf
# UNDEF-NOT: {{^ *U }}

# --print-optimized-graph shows the graph compiled: the group, profiled on the call's inputs.
# GRAPH: prim::TensorExprGroup_0(
# GRAPH: with prim::TensorExprGroup_0 = graph(

# One sample fixes the sizes; samples of 2x3 and 3x4 inputs (--example-set, repeated) leave
# them unknown, so the compiled path serves both.
# ONE: x: Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu),
# SEVERAL: x: Float(*, *, requires_grad=0, device=cpu),
# SEVERAL: y: Float(*, *, requires_grad=0, device=cpu),

# Bad samples are errors.
# COUNT: error: sample 1: the method takes 2 inputs (x, y), the sample has 1
# NOT-NPY: fusion-group.py:1:1: error:
# GROUPS: error: --example profiles a model compiled whole

# OUT:      tensor({{\[\[}}1.8721, 0.7616, 2.3125],
# OUT-NEXT: {{^ +\[}}1.1424, 2.5000, 2.7500]])

# The loop's trip count is a run-time value (a constant one would be unrolled before fusion).
def forward(x: Tensor, y: Tensor) -> Tensor:
    for _ in range(x.size(0)):
        x = torch.tanh(x * y + 1.0) + x * 0.5
    return x
