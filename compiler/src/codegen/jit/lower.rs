//! Lowers a [`PointwiseKernel`] to MLIR (`func`, `scf`, `arith`, `math`, and `llvm` pointer
//! loads and stores, since the sizes and strides are run-time values).
//!
//! Two functions per kernel: the entry `NAME` with the C signature of
//! `ember_runtime::kernel_abi::JitKernelFn`, which reads the operand pointers, strides and scalars
//! from its arrays and calls `NAME_rows`, whose tensor pointers are `noalias` arguments (outputs
//! are fresh buffers) so that LLVM vectorizes without run-time alias checks. `NAME_rows` walks
//! rows `[row_begin, row_end)` of the iteration space (all dimensions but the last, unravelled
//! with the sizes), and in each row columns `[col_begin, col_end)`; when every inner stride is 1
//! it takes a loop with unit strides (the vectorized one), else the loop with strides.
//!
//! A kernel that reduces rows runs whole rows: per row, one loop over the columns for each
//! level of its reductions (a reduction of a value computed from another comes a level
//! later; the reductions of one level share a loop, as accumulators it carries), then the
//! loop that computes and stores the results of the full shape, then the results of the row's
//! shape, stored once.
//!
//! A kernel of several sweeps ([`PointwiseKernel::sweeps`]: results of different shapes, such
//! as the parts of a cat of unequal sizes) has one `NAME_rowsI` per sweep, each reading and
//! writing only what its results need; the entry calls the one whose index follows the sizes.

use melior::dialect::arith::{self, CmpfPredicate, CmpiPredicate};
use melior::dialect::llvm::{self, LoadStoreOptions};
use melior::dialect::{func, scf};
use melior::ir::attribute::{
    ArrayAttribute, Attribute, DictionaryAttribute, FloatAttribute, IntegerAttribute,
    StringAttribute, TypeAttribute,
};
use melior::ir::operation::OperationBuilder;
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{Block, BlockLike, Identifier, Location, Module, Region, RegionLike, Type, Value};
use melior::Context;

use ember_runtime::tensor::DType;

use super::fast_math;
use super::group::{Binary, Expr, Param, PointwiseKernel, Reduction, ResultShape, Unary, Val};
use crate::codegen::mlir_builder::Emit;

/// The module holding kernel `name`.
pub fn kernel_to_mlir<'c>(ctx: &'c Context, k: &PointwiseKernel, name: &str) -> Module<'c> {
    let loc = Location::new(ctx, name, 0, 0);
    let module = Module::new(loc);
    for sweep in 0..k.sweeps.len() {
        module
            .body()
            .append_operation(rows_func(ctx, k, name, sweep, loc));
    }
    module
        .body()
        .append_operation(entry_func(ctx, k, name, loc));
    module
}

fn ptr(ctx: &Context) -> Type<'_> {
    llvm::r#type::pointer(ctx, 0)
}

fn int(ctx: &Context, bits: u32) -> Type<'_> {
    IntegerType::new(ctx, bits).into()
}

/// The MLIR type a value of `d` is computed in.
fn repr(ctx: &Context, d: DType) -> Type<'_> {
    match d {
        DType::Bool => int(ctx, 1),
        DType::U8 | DType::I8 => int(ctx, 8),
        DType::I16 => int(ctx, 16),
        DType::I32 => int(ctx, 32),
        DType::I64 => int(ctx, 64),
        DType::F16 | DType::BF16 | DType::F32 => Type::float32(ctx),
        DType::F64 => Type::float64(ctx),
    }
}

/// The MLIR type of an element of `d` in memory (bools are bytes; bfloat16 is handled as its
/// 16 bits, since x86 without AVX512-BF16 has no conversion and LLVM would call a libgcc
/// function that older toolchains lack).
fn storage(ctx: &Context, d: DType) -> Type<'_> {
    match d {
        DType::Bool => int(ctx, 8),
        DType::F16 => Type::float16(ctx),
        DType::BF16 => int(ctx, 16),
        d => repr(ctx, d),
    }
}

/// The rows function of sweep `sweep` (`NAME_rows` when the kernel has one sweep).
fn rows_name(k: &PointwiseKernel, name: &str, sweep: usize) -> String {
    if k.sweeps.len() == 1 {
        format!("{name}_rows")
    } else {
        format!("{name}_rows{sweep}")
    }
}

/// A tensor operand of the kernel, in ABI order (parameters, then results).
#[derive(Clone, Copy)]
struct TensorOperand {
    /// The parameter it is (`None` for a result).
    param: Option<usize>,
    dtype: DType,
    /// Read (or written) by the sweep (a parameter that is only chunked is not, nor what only
    /// other sweeps read and write).
    streamed: bool,
    /// Every element is the same: read once per call ([`Param::is_single_element`]).
    single: bool,
    /// Its type fixes the last dimension to 1 (a `[N, C, 1]` scale over `[N, C, HW]`): the
    /// unit-stride loop expects inner stride 0 and reads it once per row.
    row_broadcast: bool,
    /// A result of the row's shape, written once per row.
    per_row: bool,
}

/// The tensor operands as the sweep of `results` sees them.
fn tensor_operands(k: &PointwiseKernel, results: &[usize]) -> Vec<TensorOperand> {
    let reads = k.reads(results);
    // Tensor parameters, then chunk views: (operand id, dtype, sizes).
    let mut inputs: Vec<(usize, DType, &[Option<i64>])> = k
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match p {
            Param::Tensor { dtype, sizes } => Some((i, *dtype, sizes.as_slice())),
            Param::Scalar(_) => None,
        })
        .collect();
    let n = k.params.len();
    inputs.extend(
        k.views
            .iter()
            .enumerate()
            .map(|(v, view)| (n + v, view.dtype, view.sizes.as_slice())),
    );
    // Row broadcasting needs rows: some read input whose last dimension is not fixed to 1.
    let has_rows = inputs.iter().any(|(i, _, sizes)| {
        reads[*i] && sizes.len() == k.tensor_rank && sizes.last().is_some_and(|s| *s != Some(1))
    });
    let mut v: Vec<TensorOperand> = inputs
        .iter()
        .map(|&(i, dtype, sizes)| {
            let single = sizes.iter().all(|s| *s == Some(1));
            TensorOperand {
                param: Some(i),
                dtype,
                streamed: reads[i],
                single,
                row_broadcast: has_rows && !single && sizes.last() == Some(&Some(1)),
                per_row: false,
            }
        })
        .collect();
    v.extend(k.results.iter().enumerate().map(|(i, r)| TensorOperand {
        param: None,
        dtype: r.dtype,
        streamed: results.contains(&i),
        single: false,
        row_broadcast: false,
        per_row: r.shape != ResultShape::Full,
    }));
    v
}

/// How many tensor operands the kernel's ABI passes (inputs, views, results).
fn operand_count(k: &PointwiseKernel) -> usize {
    let tensors = k
        .params
        .iter()
        .filter(|p| matches!(p, Param::Tensor { .. }))
        .count();
    tensors + k.views.len() + k.results.len()
}

fn scalar_params(k: &PointwiseKernel) -> Vec<usize> {
    (0..k.params.len())
        .filter(|&i| matches!(k.params[i], Param::Scalar(_)))
        .collect()
}

/// `NAME_rows(ptrs..., scalars..., row_begin, row_end, col_begin, col_end, sizes, strides)`.
fn rows_types<'c>(ctx: &'c Context, k: &PointwiseKernel) -> Vec<Type<'c>> {
    let mut types: Vec<Type<'c>> = (0..operand_count(k)).map(|_| ptr(ctx)).collect();
    types.extend(
        scalar_params(k)
            .iter()
            .map(|&i| repr(ctx, param_dtype(k, i))),
    );
    types.extend([int(ctx, 64); 4]);
    types.extend([ptr(ctx), ptr(ctx)]);
    types
}

fn param_dtype(k: &PointwiseKernel, i: usize) -> DType {
    k.exprs
        .iter()
        .find(|e| e.expr == Expr::Param(i))
        .map(|e| e.dtype)
        .expect("every parameter has an expression")
}

fn i64_const<'c, 'a>(e: &Emit<'c, 'a>, x: i64) -> Value<'c, 'a> {
    let attr = IntegerAttribute::new(int(e.ctx, 64), x);
    e.push(arith::constant(e.ctx, attr.into(), e.loc))
}

/// The address of `base[index]` (`index` an i64 count of `elem` elements).
fn element_ptr<'c, 'a>(
    e: &Emit<'c, 'a>,
    base: Value<'c, '_>,
    index: Value<'c, '_>,
    elem: Type<'c>,
) -> Value<'c, 'a> {
    e.push(llvm::get_element_ptr_dynamic(
        e.ctx,
        base,
        &[index],
        elem,
        ptr(e.ctx),
        e.loc,
    ))
}

fn load_at<'c, 'a>(
    e: &Emit<'c, 'a>,
    base: Value<'c, '_>,
    index: Value<'c, '_>,
    elem: Type<'c>,
) -> Value<'c, 'a> {
    let p = element_ptr(e, base, index, elem);
    e.push(llvm::load(e.ctx, p, elem, e.loc, LoadStoreOptions::new()))
}

fn store_at<'c>(
    e: &Emit<'c, '_>,
    value: Value<'c, '_>,
    base: Value<'c, '_>,
    index: Value<'c, '_>,
    elem: Type<'c>,
) {
    let p = element_ptr(e, base, index, elem);
    e.block
        .append_operation(llvm::store(e.ctx, value, p, e.loc, LoadStoreOptions::new()));
}

fn entry_func<'c>(
    ctx: &'c Context,
    k: &PointwiseKernel,
    name: &str,
    loc: Location<'c>,
) -> melior::ir::Operation<'c> {
    let i64t = int(ctx, 64);
    let types = [
        i64t,
        i64t,
        i64t,
        i64t,
        ptr(ctx),
        ptr(ctx),
        ptr(ctx),
        ptr(ctx),
    ];
    let block = Block::new(&types.iter().map(|&t| (t, loc)).collect::<Vec<_>>());
    {
        let e = Emit::new(ctx, &block, loc);
        let arg = |i: usize| -> Value<'c, '_> { block.argument(i).expect("argument").into() };
        let mut call_args: Vec<Value<'c, '_>> = Vec::new();
        for t in 0..operand_count(k) {
            let idx = i64_const(&e, t as i64);
            call_args.push(load_at(&e, arg(5), idx, ptr(ctx)));
        }
        for (s, &p) in scalar_params(k).iter().enumerate() {
            let idx = i64_const(&e, s as i64);
            let bits = load_at(&e, arg(7), idx, i64t);
            call_args.push(match param_dtype(k, p) {
                DType::F64 => e.bitcast(bits, Type::float64(ctx)),
                DType::Bool => {
                    let zero = i64_const(&e, 0);
                    e.cmpi(CmpiPredicate::Ne, bits, zero)
                }
                _ => bits,
            });
        }
        call_args.extend([arg(0), arg(1), arg(2), arg(3), arg(4), arg(6)]);
        let call = |sweep: usize| {
            let callee =
                melior::ir::attribute::FlatSymbolRefAttribute::new(ctx, &rows_name(k, name, sweep));
            func::call(ctx, callee, &call_args, &[], loc)
        };
        if k.sweeps.len() == 1 {
            block.append_operation(call(0));
        } else {
            // The sweep's index follows the sizes.
            let index = load_at(&e, arg(4), i64_const(&e, k.rank as i64), i64t);
            for sweep in 0..k.sweeps.len() {
                let this = e.cmpi(CmpiPredicate::Eq, index, i64_const(&e, sweep as i64));
                let then = Block::new(&[]);
                then.append_operation(call(sweep));
                then.append_operation(scf::r#yield(&[], loc));
                let region = Region::new();
                region.append_block(then);
                block.append_operation(scf::r#if(this, &[], region, Region::new(), loc));
            }
        }
        block.append_operation(func::r#return(&[], loc));
    }
    let region = Region::new();
    region.append_block(block);
    func::func(
        ctx,
        StringAttribute::new(ctx, name),
        TypeAttribute::new(FunctionType::new(ctx, &types, &[]).into()),
        region,
        &[],
        loc,
    )
}

fn rows_func<'c>(
    ctx: &'c Context,
    k: &PointwiseKernel,
    name: &str,
    sweep: usize,
    loc: Location<'c>,
) -> melior::ir::Operation<'c> {
    let types = rows_types(ctx, k);
    let results = &k.sweeps[sweep];
    let operands = tensor_operands(k, results);
    let scalars = scalar_params(k);
    let block = Block::new(&types.iter().map(|&t| (t, loc)).collect::<Vec<_>>());
    {
        let e = Emit::new(ctx, &block, loc);
        let arg = |i: usize| -> Value<'c, '_> { block.argument(i).expect("argument").into() };
        let nt = operands.len();
        let ns = scalars.len();
        let (row_begin, row_end) = (arg(nt + ns), arg(nt + ns + 1));
        let (col_begin, col_end) = (arg(nt + ns + 2), arg(nt + ns + 3));
        let (sizes, strides) = (arg(nt + ns + 4), arg(nt + ns + 5));
        let rank = k.rank;
        let i64t = int(ctx, 64);
        // Per-call values: scalars, single-element tensors, sizes and strides.
        let mut fixed: Vec<Option<Value<'c, '_>>> = vec![None; k.params.len() + k.views.len()];
        for (s, &p) in scalars.iter().enumerate() {
            fixed[p] = Some(arg(nt + s));
        }
        let zero = i64_const(&e, 0);
        for (t, o) in operands.iter().enumerate() {
            if let (Some(p), true) = (o.param, o.single && o.streamed) {
                let raw = load_at(&e, arg(t), zero, storage(ctx, o.dtype));
                fixed[p] = Some(from_storage(&e, raw, o.dtype));
            }
        }
        let outer_sizes: Vec<Value<'c, '_>> = (0..rank - 1)
            .map(|d| {
                let idx = i64_const(&e, d as i64);
                load_at(&e, sizes, idx, i64t)
            })
            .collect();
        let mut stride_of: Vec<Vec<Value<'c, '_>>> = Vec::new();
        for (t, o) in operands.iter().enumerate() {
            stride_of.push(if o.single || !o.streamed {
                Vec::new()
            } else {
                (0..rank)
                    .map(|d| {
                        let idx = i64_const(&e, (t * rank + d) as i64);
                        load_at(&e, strides, idx, i64t)
                    })
                    .collect()
            });
        }
        // The unit-stride loop applies when every streamed operand has inner stride 1 (0 for
        // the row-broadcast ones).
        let one = i64_const(&e, 1);
        let mut contiguous = e.push(arith::constant(
            ctx,
            IntegerAttribute::new(int(ctx, 1), 1).into(),
            loc,
        ));
        for (s, o) in stride_of.iter().zip(&operands) {
            if !s.is_empty() && !o.per_row {
                let want = if o.row_broadcast { zero } else { one };
                let unit = e.cmpi(CmpiPredicate::Eq, s[rank - 1], want);
                contiguous = e.andi(contiguous, unit);
            }
        }
        let columns = load_at(&e, sizes, i64_const(&e, rank as i64 - 1), i64t);
        let body = RowBody {
            k,
            operands: &operands,
            ptrs: &(0..nt).map(arg).collect::<Vec<_>>(),
            fixed: &fixed,
            columns,
            levels: reduction_levels(k, results),
            results,
        };
        let row_block = Block::new(&[(i64t, loc)]);
        {
            let re = Emit::new(ctx, &row_block, loc);
            let row: Value<'c, '_> = row_block.argument(0).expect("row").into();
            // Unravel the row index over the outer sizes (last outer dimension fastest).
            let mut rem = row;
            let mut bases: Vec<Option<Value<'c, '_>>> = operands
                .iter()
                .map(|o| (o.streamed && !o.single).then(|| i64_const(&re, 0)))
                .collect();
            for d in (0..rank - 1).rev() {
                let idx = re.push(arith::remui(rem, outer_sizes[d], loc));
                rem = re.push(arith::divui(rem, outer_sizes[d], loc));
                for (t, base) in bases.iter_mut().enumerate() {
                    if let Some(b) = base {
                        *b = re.addi(*b, re.muli(idx, stride_of[t][d]));
                    }
                }
            }
            let inner: Vec<Option<Value<'c, '_>>> =
                stride_of.iter().map(|s| s.last().copied()).collect();
            // Unit strides: rows long enough run the loop whose vectors are interleaved.
            let unit_loop = {
                let choice = Block::new(&[]);
                let ce = Emit::new(ctx, &choice, loc);
                let columns = ce.subi(col_end, col_begin);
                let long = ce.cmpi(CmpiPredicate::Sge, columns, i64_const(&ce, LONG_ROW));
                let long_loop = row_region(&ce, &body, &bases, None, col_begin, col_end, true);
                let short_loop = row_region(&ce, &body, &bases, None, col_begin, col_end, false);
                choice.append_operation(scf::r#if(long, &[], long_loop, short_loop, loc));
                choice.append_operation(scf::r#yield(&[], loc));
                let region = Region::new();
                region.append_block(choice);
                region
            };
            let strided_loop =
                row_region(&re, &body, &bases, Some(&inner), col_begin, col_end, false);
            re.block
                .append_operation(scf::r#if(contiguous, &[], unit_loop, strided_loop, loc));
            row_block.append_operation(scf::r#yield(&[], loc));
        }
        let region = Region::new();
        region.append_block(row_block);
        block.append_operation(scf::r#for(row_begin, row_end, one, region, loc));
        block.append_operation(func::r#return(&[], loc));
    }
    let region = Region::new();
    region.append_block(block);
    let noalias = DictionaryAttribute::new(
        ctx,
        &[(Identifier::new(ctx, "llvm.noalias"), Attribute::unit(ctx))],
    );
    let empty = DictionaryAttribute::new(ctx, &[]);
    let arg_attrs: Vec<Attribute<'c>> = (0..types.len())
        .map(|i| {
            if i < operands.len() {
                noalias.into()
            } else {
                empty.into()
            }
        })
        .collect();
    func::func(
        ctx,
        StringAttribute::new(ctx, &rows_name(k, name, sweep)),
        TypeAttribute::new(FunctionType::new(ctx, &types, &[]).into()),
        region,
        &[
            (
                Identifier::new(ctx, "arg_attrs"),
                ArrayAttribute::new(ctx, &arg_attrs).into(),
            ),
            (
                Identifier::new(ctx, "sym_visibility"),
                StringAttribute::new(ctx, "private").into(),
            ),
            // Internal: the object exports only the entry point.
            (
                Identifier::new(ctx, "llvm.linkage"),
                Attribute::parse(ctx, "#llvm.linkage<internal>").expect("valid linkage"),
            ),
        ],
        loc,
    )
}

struct RowBody<'k, 'c, 'x> {
    k: &'k PointwiseKernel,
    operands: &'k [TensorOperand],
    ptrs: &'k [Value<'c, 'x>],
    fixed: &'k [Option<Value<'c, 'x>>],
    /// The row's length (what [`Expr::Columns`] reads).
    columns: Value<'c, 'x>,
    /// The reductions the results need, by level: those of a level read only lower levels'.
    levels: Vec<Vec<Val>>,
    /// The results of the sweep.
    results: &'k [usize],
}

/// Vectors of the unit-stride loop interleaved per iteration on rows of [`LONG_ROW`] columns
/// or more: LLVM's own choice for a long chain of element-wise math is one, which leaves
/// the CPU waiting on each vector's chain (four made the LSTM cell's pointwise part 2.8x
/// faster, and a loop of four unrolled `sigmoid(x) * x + 1` 2.3x); shorter rows keep LLVM's
/// choice, since interleaved vectors leave more of a short row to the scalar remainder.
const INTERLEAVE: u32 = 4;
const LONG_ROW: i64 = 256;

/// A region computing one row, columns `[begin, end)`: a loop per level of reductions, the
/// loop storing the results of the full shape, and the stores of the row's results.
/// `strides` is `None` for the unit-stride form.
fn row_region<'c>(
    e: &Emit<'c, '_>,
    body: &RowBody<'_, 'c, '_>,
    bases: &[Option<Value<'c, '_>>],
    strides: Option<&[Option<Value<'c, '_>>]>,
    begin: Value<'c, '_>,
    end: Value<'c, '_>,
    interleave: bool,
) -> Region<'c> {
    let k = body.k;
    let outer = Block::new(&[]);
    {
        let oe = Emit::new(e.ctx, &outer, e.loc);
        let bounds = (begin, end, strides, interleave);
        let stash = stashed_inputs(body);
        let mut row_values: Vec<Option<Value<'c, '_>>> = vec![None; k.exprs.len()];
        for (i, level) in body.levels.iter().enumerate() {
            let last = i + 1 == body.levels.len();
            let work = Work::Reduce(level, if last { &stash } else { &[] });
            let reduced = column_loop(&oe, body, bases, bounds, work, &row_values);
            for (r, v) in level.iter().zip(reduced) {
                row_values[r.0] = Some(v);
            }
        }
        let of_shape = |full: bool| -> Vec<usize> {
            body.results
                .iter()
                .copied()
                .filter(|&r| (k.results[r].shape == ResultShape::Full) == full)
                .collect()
        };
        let full = of_shape(true);
        if !full.is_empty() {
            column_loop(
                &oe,
                body,
                bases,
                bounds,
                Work::Store(&full, &stash),
                &row_values,
            );
        }
        let per_row = of_shape(false);
        if !per_row.is_empty() {
            // Everything they read is the same along the row: read at its start.
            emit_values(
                &oe,
                body,
                bases,
                &mut row_values,
                &result_values(k, &per_row),
            );
            store_results(&oe, body, bases, &row_values, &per_row);
        }
        outer.append_operation(scf::r#yield(&[], e.loc));
    }
    let region = Region::new();
    region.append_block(outer);
    region
}

/// What a loop over the columns of a row does.
#[derive(Clone, Copy)]
enum Work<'w> {
    /// Accumulates these reductions (of one level), storing the stashed values (a result's
    /// buffer, an expression) into those results' buffers.
    Reduce(&'w [Val], &'w [(usize, Val)]),
    /// Computes and stores these results, reading the stashed values back.
    Store(&'w [usize], &'w [(usize, Val)]),
}

/// Inputs of the last level's reductions that a result of the full shape computes again
/// (softmax's `exp(x - max)`): the reduction loop stores each in that result's buffer and
/// the last loop reads it back, as PyTorch's softmax does, instead of computing it twice.
/// Only where the buffer holds the value exactly (the same dtype, not float16 or bfloat16,
/// which are computed in float32).
fn stashed_inputs(body: &RowBody<'_, '_, '_>) -> Vec<(usize, Val)> {
    let k = body.k;
    let Some(last) = body.levels.last() else {
        return Vec::new();
    };
    let mut stash = Vec::new();
    for &r in body.results {
        let res = &k.results[r];
        if res.shape != ResultShape::Full || matches!(res.dtype, DType::F16 | DType::BF16) {
            continue;
        }
        let input = last
            .iter()
            .map(|&red| reduction_of(k, red).1)
            .find(|&input| {
                k.dtype(input) == res.dtype
                    && input != res.value
                    && k.reaches([res.value], |v, _| v == input)
            });
        if let Some(input) = input {
            stash.push((r, input));
        }
    }
    stash
}

/// Appends `scf.for col in [begin, end)` over one row doing `work`, with the row's values
/// computed so far; returns the reductions it accumulated.
fn column_loop<'c, 'a>(
    e: &Emit<'c, 'a>,
    body: &RowBody<'_, 'c, '_>,
    bases: &[Option<Value<'c, '_>>],
    (begin, end, strides, interleave): (
        Value<'c, '_>,
        Value<'c, '_>,
        Option<&[Option<Value<'c, '_>>]>,
        bool,
    ),
    work: Work<'_>,
    row_values: &[Option<Value<'c, 'a>>],
) -> Vec<Value<'c, 'a>> {
    let ctx = e.ctx;
    let loc = e.loc;
    let k = body.k;
    let reductions: &[Val] = match work {
        Work::Reduce(level, _) => level,
        Work::Store(..) => &[],
    };
    let acc_types: Vec<Type<'c>> = reductions.iter().map(|r| repr(ctx, k.dtype(*r))).collect();
    let inits: Vec<Value<'c, 'a>> = reductions
        .iter()
        .map(|r| reduction_identity(e, reduction_of(k, *r).0, k.dtype(*r)))
        .collect();
    let mut block_args = vec![(int(ctx, 64), loc)];
    block_args.extend(acc_types.iter().map(|&t| (t, loc)));
    let col_block = Block::new(&block_args);
    {
        let ce = Emit::new(ctx, &col_block, loc);
        let col: Value<'c, '_> = col_block.argument(0).expect("column").into();
        let offsets: Vec<Option<Value<'c, '_>>> = bases
            .iter()
            .enumerate()
            .map(|(t, b)| {
                b.map(|b| match strides {
                    None if body.operands[t].row_broadcast => b,
                    None => ce.addi(b, col),
                    Some(s) => ce.addi(b, ce.muli(col, s[t].expect("stride"))),
                })
            })
            .collect();
        let mut vals: Vec<Option<Value<'c, '_>>> = row_values.to_vec();
        let result_operand = |r: usize| body.operands.len() - k.results.len() + r;
        let yielded: Vec<Value<'c, '_>> = match work {
            Work::Reduce(level, stash) => {
                let inputs: Vec<Val> = level.iter().map(|r| reduction_of(k, *r).1).collect();
                emit_values(&ce, body, &offsets, &mut vals, &inputs);
                for &(r, input) in stash {
                    let t = result_operand(r);
                    let v = vals[input.0].expect("stashed value emitted");
                    let raw = to_storage(&ce, v, k.results[r].dtype);
                    let elem = storage(ctx, k.results[r].dtype);
                    store_at(&ce, raw, body.ptrs[t], offsets[t].expect("offset"), elem);
                }
                level
                    .iter()
                    .enumerate()
                    .map(|(j, r)| {
                        let acc: Value<'c, '_> = col_block.argument(j + 1).expect("acc").into();
                        let (op, input) = reduction_of(k, *r);
                        let x = vals[input.0].expect("reduction input emitted");
                        accumulate(&ce, op, acc, x, k.dtype(*r))
                    })
                    .collect()
            }
            Work::Store(results, stash) => {
                for &(r, input) in stash {
                    let t = result_operand(r);
                    let d = k.results[r].dtype;
                    let raw = load_at(
                        &ce,
                        body.ptrs[t],
                        offsets[t].expect("offset"),
                        storage(ctx, d),
                    );
                    vals[input.0] = Some(from_storage(&ce, raw, d));
                }
                emit_values(&ce, body, &offsets, &mut vals, &result_values(k, results));
                store_results(&ce, body, &offsets, &vals, results);
                Vec::new()
            }
        };
        col_block.append_operation(scf::r#yield(&yielded, loc));
    }
    let region = Region::new();
    region.append_block(col_block);
    let one = i64_const(e, 1);
    let mut for_op = OperationBuilder::new("scf.for", loc)
        .add_operands(&[begin, end, one])
        .add_operands(&inits)
        .add_results(&acc_types)
        .add_regions([region])
        .build()
        .expect("valid scf.for");
    let annotation = if strides.is_some() {
        // LLVM would version this loop for unit strides, duplicating the unit-stride loop;
        // that that loop exists is why this one is left scalar.
        Some("#llvm.loop_annotation<vectorize = <disable = true>>".to_string())
    } else if interleave {
        Some(format!(
            "#llvm.loop_annotation<interleave = <count = {INTERLEAVE} : i32>>"
        ))
    } else {
        None
    };
    if let Some(annotation) = annotation {
        let attr = Attribute::parse(ctx, &annotation).expect("valid loop annotation");
        melior::ir::operation::OperationMutLike::set_attribute(
            &mut for_op,
            "loop_annotation",
            attr,
        );
    }
    let for_op = e.block.append_operation(for_op);
    (0..reductions.len())
        .map(|i| for_op.result(i).expect("accumulator").into())
        .collect()
}

/// The reduction expression `r` is, and its operand.
fn reduction_of(k: &PointwiseKernel, r: Val) -> (Reduction, Val) {
    match k.exprs[r.0].expr {
        Expr::Reduce(op, input) => (op, input),
        _ => unreachable!("levels hold reductions only"),
    }
}

fn result_values(k: &PointwiseKernel, results: &[usize]) -> Vec<Val> {
    results.iter().map(|&r| k.results[r].value).collect()
}

/// The value a reduction starts from: 0, or the extreme its first element replaces.
fn reduction_identity<'c, 'a>(e: &Emit<'c, 'a>, op: Reduction, d: DType) -> Value<'c, 'a> {
    if d.is_floating() {
        let x = match op {
            Reduction::Sum => 0.0,
            Reduction::Max => f64::NEG_INFINITY,
            Reduction::Min => f64::INFINITY,
        };
        return float_const(e, x, d);
    }
    let (lo, hi) = match d {
        DType::U8 => (0, 255),
        DType::I8 => (i8::MIN as i64, i8::MAX as i64),
        DType::I16 => (i16::MIN as i64, i16::MAX as i64),
        DType::I32 => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    };
    let x = match op {
        Reduction::Sum => 0,
        Reduction::Max => lo,
        Reduction::Min => hi,
    };
    let attr = IntegerAttribute::new(repr(e.ctx, d), x);
    e.push(arith::constant(e.ctx, attr.into(), e.loc))
}

/// `acc` combined with the next element `x`.
fn accumulate<'c, 'a>(
    e: &Emit<'c, 'a>,
    kind: Reduction,
    acc: Value<'c, 'a>,
    x: Value<'c, 'a>,
    d: DType,
) -> Value<'c, 'a> {
    let ty = repr(e.ctx, d);
    let name = match (kind, d.is_floating(), d == DType::U8) {
        (Reduction::Sum, true, _) => {
            // Reassociable, so that LLVM keeps vector partial sums (PyTorch's sums are
            // vectorized too, in another order: the results differ in the last bits).
            let mut add = arith::addf(acc, x, e.loc);
            let reassoc = Attribute::parse(e.ctx, "#arith.fastmath<reassoc>").expect("flags");
            melior::ir::operation::OperationMutLike::set_attribute(&mut add, "fastmath", reassoc);
            return e.push(add);
        }
        (Reduction::Sum, false, _) => return e.addi(acc, x),
        // NaN wins, as in PyTorch's max and min.
        (Reduction::Max, true, _) => "arith.maximumf",
        (Reduction::Min, true, _) => "arith.minimumf",
        (Reduction::Max, false, true) => "arith.maxui",
        (Reduction::Min, false, true) => "arith.minui",
        (Reduction::Max, false, false) => "arith.maxsi",
        (Reduction::Min, false, false) => "arith.minsi",
    };
    op(e, name, &[acc, x], ty)
}

/// Emits every expression `roots` need that `vals` does not hold yet (reductions are held:
/// their loops come first), loading tensor elements at `offsets`.
fn emit_values<'c, 'a, 'x: 'a>(
    e: &Emit<'c, 'a>,
    body: &RowBody<'_, 'c, 'x>,
    offsets: &[Option<Value<'c, 'a>>],
    vals: &mut [Option<Value<'c, 'a>>],
    roots: &[Val],
) {
    let k = body.k;
    let ctx = e.ctx;
    let mut wanted = vec![false; k.exprs.len()];
    let mut stack = roots.to_vec();
    while let Some(v) = stack.pop() {
        if !wanted[v.0] && vals[v.0].is_none() {
            wanted[v.0] = true;
            stack.extend(k.exprs[v.0].expr.operands());
        }
    }
    // Operands come before their uses in `exprs`.
    for (i, te) in k.exprs.iter().enumerate() {
        if !wanted[i] {
            continue;
        }
        let get = |v: Val| vals[v.0].expect("operand emitted before use");
        let d = te.dtype;
        let v = match &te.expr {
            Expr::Param(p) => match body.fixed[*p] {
                Some(v) => v,
                None => {
                    let t = body
                        .operands
                        .iter()
                        .position(|o| o.param == Some(*p))
                        .expect("tensor operand");
                    let raw = load_at(
                        e,
                        body.ptrs[t],
                        offsets[t].expect("offset"),
                        storage(ctx, d),
                    );
                    from_storage(e, raw, d)
                }
            },
            Expr::Float(x) => {
                let c = float_const(e, *x, d);
                round(e, c, d)
            }
            Expr::Int(x) => {
                let attr = IntegerAttribute::new(repr(ctx, d), *x);
                e.push(arith::constant(ctx, attr.into(), e.loc))
            }
            Expr::Columns => body.columns,
            Expr::Reduce(..) => unreachable!("a reduction is computed by its loop before use"),
            Expr::Cast(v) => cast(e, get(*v), k.dtype(*v), d),
            Expr::Unary(op, a) => {
                let r = unary(e, *op, get(*a), d);
                round(e, r, d)
            }
            Expr::Binary(op, a, b) => {
                let r = binary(e, *op, get(*a), get(*b), k.dtype(*a));
                if matches!(
                    op,
                    Binary::Eq | Binary::Ne | Binary::Lt | Binary::Le | Binary::Gt | Binary::Ge
                ) {
                    r
                } else {
                    round(e, r, d)
                }
            }
            Expr::Select(c, a, b) => e.select(get(*c), get(*a), get(*b)),
        };
        vals[i] = Some(v);
    }
}

/// Stores `results` (computed in `vals`) at `offsets`.
fn store_results<'c, 'a>(
    e: &Emit<'c, 'a>,
    body: &RowBody<'_, 'c, '_>,
    offsets: &[Option<Value<'c, 'a>>],
    vals: &[Option<Value<'c, 'a>>],
    results: &[usize],
) {
    let k = body.k;
    let first_result = body.operands.len() - k.results.len();
    for &r in results {
        let res = &k.results[r];
        let t = first_result + r;
        let v = vals[res.value.0].expect("result emitted");
        let raw = to_storage(e, v, res.dtype);
        store_at(
            e,
            raw,
            body.ptrs[t],
            offsets[t].expect("offset"),
            storage(e.ctx, res.dtype),
        );
    }
}

/// The reductions the results need, by level (how many reductions deep their input is).
fn reduction_levels(k: &PointwiseKernel, results: &[usize]) -> Vec<Vec<Val>> {
    let mut needed = vec![false; k.exprs.len()];
    for &r in results {
        needed[k.results[r].value.0] = true;
    }
    for i in (0..k.exprs.len()).rev() {
        if needed[i] {
            for a in k.exprs[i].expr.operands() {
                needed[a.0] = true;
            }
        }
    }
    // How many reductions deep each expression is (operands come first).
    let mut depth = vec![0usize; k.exprs.len()];
    let mut levels: Vec<Vec<Val>> = Vec::new();
    for (i, te) in k.exprs.iter().enumerate() {
        let below = te
            .expr
            .operands()
            .iter()
            .map(|a| depth[a.0])
            .max()
            .unwrap_or(0);
        depth[i] = below;
        if let (Expr::Reduce(..), true) = (&te.expr, needed[i]) {
            depth[i] = below + 1;
            if levels.len() < depth[i] {
                levels.resize(depth[i], Vec::new());
            }
            levels[below].push(Val(i));
        }
    }
    levels
}

fn float_const<'c, 'a>(e: &Emit<'c, 'a>, x: f64, d: DType) -> Value<'c, 'a> {
    let ty = repr(e.ctx, d);
    let x = if d == DType::F64 { x } else { x as f32 as f64 };
    e.push(arith::constant(
        e.ctx,
        FloatAttribute::new(e.ctx, ty, x).into(),
        e.loc,
    ))
}

fn op<'c, 'a>(
    e: &Emit<'c, 'a>,
    name: &str,
    operands: &[Value<'c, '_>],
    ty: Type<'c>,
) -> Value<'c, 'a> {
    e.push(
        OperationBuilder::new(name, e.loc)
            .add_operands(operands)
            .add_results(&[ty])
            .build()
            .expect("valid operation"),
    )
}

fn from_storage<'c, 'a>(e: &Emit<'c, 'a>, raw: Value<'c, 'a>, d: DType) -> Value<'c, 'a> {
    match d {
        DType::Bool => {
            let zero = e.push(arith::constant(
                e.ctx,
                IntegerAttribute::new(int(e.ctx, 8), 0).into(),
                e.loc,
            ));
            e.cmpi(CmpiPredicate::Ne, raw, zero)
        }
        DType::F16 => op(e, "arith.extf", &[raw], e.f32()),
        DType::BF16 => {
            let wide = op(e, "arith.extui", &[raw], e.i32());
            e.bitcast(e.shli(wide, e.const_i32(16)), e.f32())
        }
        _ => raw,
    }
}

fn to_storage<'c, 'a>(e: &Emit<'c, 'a>, v: Value<'c, 'a>, d: DType) -> Value<'c, 'a> {
    match d {
        DType::Bool => op(e, "arith.extui", &[v], int(e.ctx, 8)),
        DType::F16 => op(e, "arith.truncf", &[v], storage(e.ctx, d)),
        DType::BF16 => {
            let bits = e.bitcast(v, e.i32());
            op(
                e,
                "arith.trunci",
                &[e.shrui(bits, e.const_i32(16))],
                storage(e.ctx, d),
            )
        }
        _ => v,
    }
}

/// Rounds a float32 value to float16/bfloat16 precision (other dtypes: unchanged).
fn round<'c, 'a>(e: &Emit<'c, 'a>, v: Value<'c, 'a>, d: DType) -> Value<'c, 'a> {
    match d {
        DType::F16 => {
            let narrow = op(e, "arith.truncf", &[v], storage(e.ctx, d));
            op(e, "arith.extf", &[narrow], e.f32())
        }
        DType::BF16 => {
            // Round to nearest even on the bits (c10's round_to_nearest_even); NaN stays NaN.
            let bits = e.bitcast(v, e.i32());
            let lsb = e.andi(e.shrui(bits, e.const_i32(16)), e.const_i32(1));
            let biased = e.addi(e.addi(bits, e.const_i32(0x7fff)), lsb);
            let rounded = e.andi(biased, e.const_i32(0xffff0000_u32 as i32));
            let nan = e.cmpf(CmpfPredicate::Uno, v, v);
            let r = e.select(nan, e.const_i32(0x7fc00000), rounded);
            e.bitcast(r, e.f32())
        }
        _ => v,
    }
}

fn cast<'c, 'a>(e: &Emit<'c, 'a>, v: Value<'c, 'a>, from: DType, to: DType) -> Value<'c, 'a> {
    let ctx = e.ctx;
    if from == to {
        return v;
    }
    let (rf, rt) = (repr(ctx, from), repr(ctx, to));
    if to == DType::Bool {
        return if from.is_floating() {
            let zero = float_const(e, 0.0, from);
            e.cmpf(CmpfPredicate::Une, v, zero)
        } else {
            let zero = e.push(arith::constant(
                ctx,
                IntegerAttribute::new(rf, 0).into(),
                e.loc,
            ));
            e.cmpi(CmpiPredicate::Ne, v, zero)
        };
    }
    let unsigned = matches!(from, DType::Bool | DType::U8);
    if to.is_floating() {
        let r = if from.is_floating() {
            if rf == rt {
                v
            } else if to == DType::F64 {
                op(e, "arith.extf", &[v], rt)
            } else {
                op(e, "arith.truncf", &[v], rt)
            }
        } else if unsigned {
            op(e, "arith.uitofp", &[v], rt)
        } else {
            op(e, "arith.sitofp", &[v], rt)
        };
        return round(e, r, to);
    }
    let bits = |d: DType| d.size() as u32 * 8;
    if from.is_floating() {
        // C's conversion, as PyTorch's `static_cast`: through a 64-bit integer.
        let wide = op(e, "arith.fptosi", &[v], int(ctx, 64));
        return if bits(to) == 64 {
            wide
        } else {
            op(e, "arith.trunci", &[wide], rt)
        };
    }
    let from_bits = if from == DType::Bool { 1 } else { bits(from) };
    match from_bits.cmp(&bits(to)) {
        std::cmp::Ordering::Less if unsigned => op(e, "arith.extui", &[v], rt),
        std::cmp::Ordering::Less => op(e, "arith.extsi", &[v], rt),
        std::cmp::Ordering::Greater => op(e, "arith.trunci", &[v], rt),
        // U8 <-> I8: the same bits.
        std::cmp::Ordering::Equal => v,
    }
}

fn unary<'c, 'a>(e: &Emit<'c, 'a>, u: Unary, x: Value<'c, 'a>, d: DType) -> Value<'c, 'a> {
    let ty = repr(e.ctx, d);
    if !d.is_floating() {
        let zero = e.push(arith::constant(
            e.ctx,
            IntegerAttribute::new(ty, 0).into(),
            e.loc,
        ));
        return match u {
            Unary::Not => {
                let t = e.push(arith::constant(
                    e.ctx,
                    IntegerAttribute::new(ty, 1).into(),
                    e.loc,
                ));
                op(e, "arith.xori", &[x, t], ty)
            }
            Unary::Neg => e.subi(zero, x),
            _ => {
                // abs (the only other integer unary op the builder makes).
                let neg = e.subi(zero, x);
                let below = e.cmpi(CmpiPredicate::Slt, x, zero);
                e.select(below, neg, x)
            }
        };
    }
    let f32 = d != DType::F64;
    match u {
        Unary::Neg => e.negf(x),
        Unary::Abs => op(e, "math.absf", &[x], ty),
        Unary::Sqrt => op(e, "math.sqrt", &[x], ty),
        Unary::Exp if f32 => fast_math::exp(e, x),
        Unary::OnePlusExp if f32 => fast_math::one_plus_exp(e, x),
        Unary::Log if f32 => fast_math::log(e, x),
        Unary::Tanh if f32 => fast_math::tanh(e, x),
        Unary::Erf if f32 => fast_math::erf(e, x),
        Unary::Expm1 => {
            // Kahan: (u - 1) * x / log(u) with u = exp(x), exact near 0.
            let u = exp_of(e, x, d);
            let one = float_const(e, 1.0, d);
            let um1 = e.subf(u, one);
            let r = e.mulf(um1, e.divf(x, log_of(e, u, d)));
            let r = e.select(e.cmpf(CmpfPredicate::Oeq, u, one), x, r);
            let minus_one = float_const(e, -1.0, d);
            let r = e.select(e.cmpf(CmpfPredicate::Oeq, um1, minus_one), um1, r);
            let inf = float_const(e, f64::INFINITY, d);
            e.select(e.cmpf(CmpfPredicate::Oeq, u, inf), u, r)
        }
        Unary::Log1p => {
            // Kahan: log(u) * x / (u - 1) with u = 1 + x.
            let one = float_const(e, 1.0, d);
            let u = e.addf(one, x);
            let r = e.mulf(log_of(e, u, d), e.divf(x, e.subf(u, one)));
            let r = e.select(e.cmpf(CmpfPredicate::Oeq, u, one), x, r);
            let inf = float_const(e, f64::INFINITY, d);
            e.select(e.cmpf(CmpfPredicate::Oeq, u, inf), u, r)
        }
        Unary::Exp => op(e, "math.exp", &[x], ty),
        Unary::OnePlusExp => e.addf(float_const(e, 1.0, d), op(e, "math.exp", &[x], ty)),
        Unary::Log => op(e, "math.log", &[x], ty),
        Unary::Tanh => op(e, "math.tanh", &[x], ty),
        Unary::Erf => op(e, "math.erf", &[x], ty),
        Unary::Sin | Unary::Cos => {
            let name = if u == Unary::Sin {
                "math.sin"
            } else {
                "math.cos"
            };
            let f64t = Type::float64(e.ctx);
            if f32 {
                let wide = op(e, "arith.extf", &[x], f64t);
                let r = op(e, name, &[wide], f64t);
                op(e, "arith.truncf", &[r], ty)
            } else {
                op(e, name, &[x], ty)
            }
        }
        Unary::Not => unreachable!("logical not on a float"),
    }
}

/// `exp` in `d`: the vectorizable expansion for float32, libm's for float64.
fn exp_of<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, 'a>, d: DType) -> Value<'c, 'a> {
    if d == DType::F64 {
        op(e, "math.exp", &[x], repr(e.ctx, d))
    } else {
        fast_math::exp(e, x)
    }
}

fn log_of<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, 'a>, d: DType) -> Value<'c, 'a> {
    if d == DType::F64 {
        op(e, "math.log", &[x], repr(e.ctx, d))
    } else {
        fast_math::log(e, x)
    }
}

fn binary<'c, 'a>(
    e: &Emit<'c, 'a>,
    b: Binary,
    x: Value<'c, 'a>,
    y: Value<'c, 'a>,
    d: DType,
) -> Value<'c, 'a> {
    let ty = repr(e.ctx, d);
    if d.is_floating() {
        let pred = match b {
            Binary::Add => return e.addf(x, y),
            Binary::Sub => return e.subf(x, y),
            Binary::Mul => return e.mulf(x, y),
            Binary::Div => return e.divf(x, y),
            Binary::Pow => return op(e, "math.powf", &[x, y], ty),
            Binary::Eq => CmpfPredicate::Oeq,
            Binary::Ne => CmpfPredicate::Une,
            Binary::Lt => CmpfPredicate::Olt,
            Binary::Le => CmpfPredicate::Ole,
            Binary::Gt => CmpfPredicate::Ogt,
            Binary::Ge => CmpfPredicate::Oge,
            Binary::And | Binary::Or | Binary::Xor => unreachable!("logical op on floats"),
        };
        return e.cmpf(pred, x, y);
    }
    let unsigned = matches!(d, DType::Bool | DType::U8);
    let pred = match b {
        Binary::Add => return e.addi(x, y),
        Binary::Sub => return e.subi(x, y),
        Binary::Mul => return e.muli(x, y),
        Binary::And => return e.andi(x, y),
        Binary::Or => return e.ori(x, y),
        Binary::Xor => return op(e, "arith.xori", &[x, y], ty),
        Binary::Div | Binary::Pow => unreachable!("integer division and pow are not built"),
        Binary::Eq => CmpiPredicate::Eq,
        Binary::Ne => CmpiPredicate::Ne,
        Binary::Lt if unsigned => CmpiPredicate::Ult,
        Binary::Le if unsigned => CmpiPredicate::Ule,
        Binary::Gt if unsigned => CmpiPredicate::Ugt,
        Binary::Ge if unsigned => CmpiPredicate::Uge,
        Binary::Lt => CmpiPredicate::Slt,
        Binary::Le => CmpiPredicate::Sle,
        Binary::Gt => CmpiPredicate::Sgt,
        Binary::Ge => CmpiPredicate::Sge,
    };
    e.cmpi(pred, x, y)
}
