//! Lowers an [`ElementwiseKernel`] to MLIR: one `func.func` per fusion group whose arguments
//! are static-shape memrefs (inputs, then outputs) and scalars (`f64` for TorchScript floats,
//! `i64` for ints), with `arith`/`math` on float32 for the body.
//!
//! - CPU: an `scf.for` nest over the broadcast iteration space.
//! - GPU: one thread per element; the linear id `ctaid.x * ntid.x + tid.x` is checked against
//!   the element count (`scf.if`) and split into indices. `llvm_to_target` gives the function
//!   the `ptx_kernel` calling convention (MLIR's `nvvm.kernel` is only allowed on `llvm.func`).
//!
//! A broadcast dimension of an operand (size 1, or missing on the left) is read at index 0.
//! Op semantics follow PyTorch's float32 kernels: `add`/`sub` compute `a ± alpha * b`,
//! `sigmoid` is `1 / (1 + exp(-x))`, `relu` keeps NaN and -0.0 (`x < 0 ? 0 : x`), and
//! division is IEEE (x/0 is ±inf, 0/0 is NaN).

use melior::dialect::arith::{CmpfPredicate, CmpiPredicate};
use melior::dialect::{func, memref, scf};
use melior::ir::attribute::{StringAttribute, TypeAttribute};
use melior::ir::r#type::{FunctionType, IntegerType, MemRefType};
use melior::ir::{Block, BlockLike, Location, Module, Region, RegionLike, Type, Value};
use melior::Context;

use super::kernel::{contiguous_strides, ElementwiseKernel, KernelArg, Operand, ScalarOp};
use super::math_expansion;
use super::mlir_builder::Emit;

/// Which shape of function to emit.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum KernelStyle {
    /// A host function with a loop nest.
    CpuLoops,
    /// A GPU kernel, one thread per element.
    GpuThreadPerElement,
}

/// How `exp`, `log` and `tanh` are emitted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MathLowering {
    /// `math.exp` etc., later calls to libm (`expf`, `logf`, `tanhf`).
    Libm,
    /// Expanded into `arith` operations (targets without libm).
    Expanded,
}

/// A fresh MLIR context with every dialect loaded and the LLVM IR translations registered.
pub fn new_context() -> Context {
    let registry = melior::dialect::DialectRegistry::new();
    melior::utility::register_all_dialects(&registry);
    let ctx = Context::new();
    // Modules of a few functions gain nothing from MLIR's thread pool, and each context
    // (the JIT keeps one per thread) would start its own.
    ctx.enable_multi_threading(false);
    ctx.append_dialect_registry(&registry);
    ctx.load_all_available_dialects();
    melior::utility::register_all_llvm_translations(&ctx);
    ctx
}

/// Builds a module holding one function per kernel.
pub fn kernels_to_mlir<'c>(
    ctx: &'c Context,
    kernels: &[ElementwiseKernel],
    style: KernelStyle,
    math: MathLowering,
) -> Module<'c> {
    let module = Module::new(Location::unknown(ctx));
    for k in kernels {
        let f = kernel_to_func(ctx, k, style, math);
        module.body().append_operation(f);
    }
    module
}

fn memref_type<'c>(ctx: &'c Context, shape: &[i64]) -> Type<'c> {
    MemRefType::new(Type::float32(ctx), shape, None, None).into()
}

fn arg_type<'c>(ctx: &'c Context, arg: &KernelArg) -> Type<'c> {
    match arg {
        KernelArg::Tensor { shape, .. } => memref_type(ctx, shape),
        KernelArg::Float { .. } => Type::float64(ctx),
        KernelArg::Int { .. } => IntegerType::new(ctx, 64).into(),
    }
}

fn kernel_to_func<'c>(
    ctx: &'c Context,
    k: &ElementwiseKernel,
    style: KernelStyle,
    math: MathLowering,
) -> melior::ir::Operation<'c> {
    let loc = Location::new(ctx, &k.name, 0, 0);
    let mut types: Vec<Type<'c>> = k.args.iter().map(|a| arg_type(ctx, a)).collect();
    types.extend(k.outputs.iter().map(|o| memref_type(ctx, &o.shape)));
    let block = Block::new(&types.iter().map(|&t| (t, loc)).collect::<Vec<_>>());
    {
        let e = Emit::new(ctx, &block, loc);
        let params: Vec<Value<'c, '_>> = (0..types.len())
            .map(|i| block.argument(i).expect("argument").into())
            .collect();
        // Scalar arguments become float32 once, outside the loops.
        let mut scalars: Vec<Option<Value<'c, '_>>> = vec![None; k.args.len()];
        for (i, a) in k.args.iter().enumerate() {
            scalars[i] = match a {
                KernelArg::Float { .. } => Some(e.truncf(params[i], e.f32())),
                KernelArg::Int { .. } => Some(e.sitofp(params[i], e.f32())),
                KernelArg::Tensor { .. } => None,
            };
        }
        let body = Body {
            k,
            params: &params,
            scalars: &scalars,
            math,
        };
        match style {
            KernelStyle::CpuLoops => emit_loop_nest(&e, &body, &[]),
            KernelStyle::GpuThreadPerElement => emit_thread_guard(&e, &body),
        }
        block.append_operation(func::r#return(&[], loc));
    }
    let region = Region::new();
    region.append_block(block);
    let fn_type = FunctionType::new(ctx, &types, &[]);
    func::func(
        ctx,
        StringAttribute::new(ctx, &k.name),
        TypeAttribute::new(fn_type.into()),
        region,
        &[],
        loc,
    )
}

/// What the per-element body needs: the kernel and the function's values.
struct Body<'k, 'c, 'a> {
    k: &'k ElementwiseKernel,
    params: &'k [Value<'c, 'a>],
    scalars: &'k [Option<Value<'c, 'a>>],
    math: MathLowering,
}

/// Emits one `scf.for` per dimension still to cover, then the body at the innermost level.
fn emit_loop_nest<'c>(e: &Emit<'c, '_>, body: &Body<'_, 'c, '_>, ivs: &[Value<'c, '_>]) {
    let dim = ivs.len();
    if dim == body.k.iteration_shape.len() {
        emit_element(e, body, ivs);
        return;
    }
    let lower = e.const_index(0);
    let upper = e.const_index(body.k.iteration_shape[dim]);
    let step = e.const_index(1);
    let inner = Block::new(&[(e.index(), e.loc)]);
    {
        let ie = Emit::new(e.ctx, &inner, e.loc);
        let mut next: Vec<Value<'c, '_>> = ivs.to_vec();
        next.push(inner.argument(0).expect("induction variable").into());
        emit_loop_nest(&ie, body, &next);
        inner.append_operation(scf::r#yield(&[], e.loc));
    }
    let region = Region::new();
    region.append_block(inner);
    e.block
        .append_operation(scf::r#for(lower, upper, step, region, e.loc));
}

/// GPU: computes the linear thread id, and runs the body for ids below the element count.
fn emit_thread_guard<'c>(e: &Emit<'c, '_>, body: &Body<'_, 'c, '_>) {
    let index = e.index();
    let tid = e.index_castui(e.nvvm_sreg("tid.x"), index);
    let ctaid = e.index_castui(e.nvvm_sreg("ctaid.x"), index);
    let ntid = e.index_castui(e.nvvm_sreg("ntid.x"), index);
    let linear = e.addi(e.muli(ctaid, ntid), tid);
    let in_bounds = e.cmpi(CmpiPredicate::Ult, linear, e.const_index(body.k.numel()));
    let then_block = Block::new(&[]);
    {
        let te = Emit::new(e.ctx, &then_block, e.loc);
        // Row-major split of the linear id into one index per dimension.
        let shape = &body.k.iteration_shape;
        let strides = contiguous_strides(shape);
        let ivs: Vec<Value<'c, '_>> = (0..shape.len())
            .map(|d| {
                let q = te.divui(linear, te.const_index(strides[d]));
                te.remui(q, te.const_index(shape[d]))
            })
            .collect();
        emit_element(&te, body, &ivs);
        then_block.append_operation(scf::r#yield(&[], e.loc));
    }
    let then_region = Region::new();
    then_region.append_block(then_block);
    e.block
        .append_operation(scf::r#if(in_bounds, &[], then_region, Region::new(), e.loc));
}

/// Indices into a tensor of `shape` for the iteration point `ivs` (PyTorch broadcasting:
/// trailing dimensions align, size-1 dimensions read index `zero`).
fn broadcast_indices<'c, 'a>(
    shape: &[i64],
    ivs: &[Value<'c, 'a>],
    zero: Option<Value<'c, 'a>>,
) -> Vec<Value<'c, 'a>> {
    let lead = ivs.len() - shape.len();
    shape
        .iter()
        .enumerate()
        .map(|(j, &s)| {
            if s == 1 {
                zero.expect("zero index for size-1 dimensions")
            } else {
                ivs[lead + j]
            }
        })
        .collect()
}

/// The body for one element: loads, the scalar ops in order, stores.
fn emit_element<'c, 'a, 'x: 'a>(e: &Emit<'c, 'a>, body: &Body<'_, 'c, 'x>, ivs: &[Value<'c, 'a>]) {
    let k = body.k;
    // The index 0 that size-1 (broadcast) dimensions read, made only when one exists.
    let has_unit_dim = k
        .args
        .iter()
        .any(|a| matches!(a, KernelArg::Tensor { shape, .. } if shape.contains(&1)))
        || k.outputs.iter().any(|o| o.shape.contains(&1));
    let zero = has_unit_dim.then(|| e.const_index(0));
    let mut loads: Vec<Option<Value<'c, 'a>>> = vec![None; k.args.len()];
    let mut temps: Vec<Value<'c, 'a>> = Vec::with_capacity(k.ops.len());
    let mut get = |op: Operand, temps: &[Value<'c, 'a>]| -> Value<'c, 'a> {
        operand_value(e, body, ivs, zero, &mut loads, temps, op)
    };
    for op in &k.ops {
        let v = match *op {
            ScalarOp::Add(a, b, alpha) | ScalarOp::Sub(a, b, alpha) => {
                let (a, b) = (get(a, &temps), get(b, &temps));
                let b = match alpha {
                    Some(al) => e.mulf(get(al, &temps), b),
                    None => b,
                };
                if matches!(op, ScalarOp::Add(..)) {
                    e.addf(a, b)
                } else {
                    e.subf(a, b)
                }
            }
            ScalarOp::Mul(a, b) => e.mulf(get(a, &temps), get(b, &temps)),
            ScalarOp::Div(a, b) => e.divf(get(a, &temps), get(b, &temps)),
            ScalarOp::Neg(a) => e.negf(get(a, &temps)),
            ScalarOp::Exp(a) => exp(e, body.math, get(a, &temps)),
            ScalarOp::Log(a) => match body.math {
                MathLowering::Libm => e.math_unary("math.log", get(a, &temps)),
                MathLowering::Expanded => math_expansion::log(e, get(a, &temps)),
            },
            ScalarOp::Tanh(a) => match body.math {
                MathLowering::Libm => e.math_unary("math.tanh", get(a, &temps)),
                MathLowering::Expanded => math_expansion::tanh(e, get(a, &temps)),
            },
            ScalarOp::Sigmoid(a) => {
                let x = get(a, &temps);
                let ex = exp(e, body.math, e.negf(x));
                let one = e.const_f32(1.0);
                e.divf(one, e.addf(one, ex))
            }
            ScalarOp::Relu(a) => {
                let x = get(a, &temps);
                let zero_f = e.const_f32(0.0);
                let negative = e.cmpf(CmpfPredicate::Olt, x, zero_f);
                e.select(negative, zero_f, x)
            }
        };
        temps.push(v);
    }
    for (i, out) in k.outputs.iter().enumerate() {
        let v = get(out.value, &temps);
        let idx = broadcast_indices(&out.shape, ivs, zero);
        e.block
            .append_operation(memref::store(v, body.params[k.args.len() + i], &idx, e.loc));
    }
}

/// The float32 value of an operand at the current element (tensor loads happen once).
fn operand_value<'c, 'a, 'x: 'a>(
    e: &Emit<'c, 'a>,
    body: &Body<'_, 'c, 'x>,
    ivs: &[Value<'c, 'a>],
    zero: Option<Value<'c, 'a>>,
    loads: &mut [Option<Value<'c, 'a>>],
    temps: &[Value<'c, 'a>],
    op: Operand,
) -> Value<'c, 'a> {
    match op {
        Operand::Load(a) => *loads[a].get_or_insert_with(|| {
            let KernelArg::Tensor { shape, .. } = &body.k.args[a] else {
                unreachable!("Load operands name tensor arguments")
            };
            let idx = broadcast_indices(shape, ivs, zero);
            e.push(memref::load(body.params[a], &idx, e.loc))
        }),
        Operand::ScalarArg(a) => body.scalars[a].expect("scalar argument converted"),
        Operand::Const(x) => e.const_f32(x),
        Operand::Temp(t) => temps[t],
    }
}

fn exp<'c, 'a>(e: &Emit<'c, 'a>, math: MathLowering, x: Value<'c, '_>) -> Value<'c, 'a> {
    match math {
        MathLowering::Libm => e.math_unary("math.exp", x),
        MathLowering::Expanded => math_expansion::exp(e, x),
    }
}
