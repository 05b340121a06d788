//! Whole models compiled ahead of time (`emberc`) or in process (`ember-run --compile=whole`):
//! what their code calls, how a compiled model is described, and how the runtime runs it, with
//! the stack interpreter as the fallback when the entry guards fail.
//!
//! # The compiled model (what `emberc` puts in an object file)
//!
//! An object defines one `ember_compiled_model` (see `runtime/include/ember.h`):
//!
//! ```c
//! struct ember_compiled_model {
//!     uint32_t abi_version;          /* EMBER_ABI_VERSION (1) */
//!     uint32_t flags;                /* EMBER_WEIGHTS_EXTERNAL (1): weights in a file beside */
//!     const char *name;              /* the model's C name, e.g. "resnet18" */
//!     const char *method;            /* the TorchScript method, e.g. "forward" */
//!     const uint8_t *bundle;         /* the embedded program (below), 64-byte aligned */
//!     uint64_t bundle_len;
//!     int32_t (*entry)(void *ctx);   /* the compiled method; NULL: interpreter only */
//!     uint64_t num_registers;        /* the registers `entry` uses */
//! };
//! ```
//!
//! The bundle ([`bundle`]) holds the method's graph as text (what `Graph`'s printer writes and
//! `parse_graph` reads), the types the compiled code was specialized for (the guards), the
//! names of the user's inputs, and the weights. In the graph, every tensor constant has been
//! turned into a graph input: the inputs are the user's `n_user` inputs followed by one input
//! per weight, in the bundle's weight order. With `EMBER_WEIGHTS_EXTERNAL` the bundle holds the
//! weights' descriptions only and their bytes are in a file (memory-mapped at load).
//!
//! # Registers
//!
//! Compiled code keeps int, float and bool values (values the graph types exactly `int`,
//! `float` or `bool`) in machine registers as `int64_t`, `double` and `i1`. Every other value
//! (tensors, lists, tuples, None, optionals, strings, devices, ...) lives in a register of the
//! call's context: an array of `num_registers` slots, each empty or holding one `IValue`.
//! Registers `[0, n_inputs)` hold the graph's inputs when `entry` starts (the user's, then
//! the weights; scalars boxed, compiled code unboxes the ones it needs), and `entry` leaves the
//! graph's outputs in registers `[n_inputs, n_inputs + n_outputs)` (boxed, scalars too). The
//! others are the compiled code's own. The context frees whatever is left when the call ends,
//! so an error path leaks nothing.
//!
//! # Nodes
//!
//! Nodes are numbered in pre-order over the graph the bundle holds: the top block's nodes in
//! order, each node followed by the nodes of its blocks (block by block, recursively). Every
//! node counts, constants and control flow included; nodes inside fusion-group subgraphs (which
//! are attributes) do not. The compiler numbers the graph it parsed back from the bundle's text,
//! so both sides see the same graph.
//!
//! # What compiled code calls (`extern "C"`, all take the context first)
//!
//! - `int32_t ember_rt_op(void *ctx, int64_t node, const int64_t *args, int64_t *outs)` runs
//!   node `node` with the interpreter's operation for it (built once per model and shared by
//!   every call; `prim::Constant` nodes give their value). `args` has one entry per node
//!   input: for an input the graph types `int`, `float` or `bool`, the value itself (the
//!   `int64_t`, the bits of the `double`, or 0/1); for any other input a register `r` — `r`
//!   to copy its value (the register keeps it), `-(r + 1)` to move it (the register is
//!   emptied; at a value's last use). Inputs are read in order, so a register may be copied
//!   and then moved by a later argument of the same call. `outs` has one entry per node output:
//!   for an `int`/`float`/`bool` output the callee writes the value's bits; for any other the
//!   caller puts the destination register there (its old value is dropped). Returns 0, or 1
//!   after recording the error (the node, its source location, the message) in the context;
//!   once a call has failed, every later `ember_rt_op` of that call returns 1 at once, writes
//!   0 to the scalar outputs and touches no register, so compiled code may run on to the end
//!   of a region before it returns.
//! - `int32_t ember_rt_group(void *ctx, int64_t node, void *const *kernels, const int64_t
//!   *args, int64_t *outs)` runs fusion group `node` (a `prim::TensorExprGroup`), with `args`,
//!   `outs`, the result and failed calls as for `ember_rt_op`. `kernels` holds the group's
//!   kernel compiled into the same object for AVX-512, AVX2 and baseline x86-64, in that order
//!   (any may be null); the runtime takes the first this CPU runs (`ops::cpu::isa`, which
//!   `EMBER_CPU_FEATURES` can cap). Each is a [`crate::kernel_abi::JitKernelFn`] for the kernel description
//!   the runtime builds from the group's subgraph ([`crate::kernel_launch::build`], once per
//!   node), which the compiler built from the same text. The runtime launches it as the JIT
//!   does ([`crate::kernel_launch::run`]) when the group's inputs have the types of its
//!   subgraph's inputs (the group's guard, checked as `prim::TypeCheck` checks); otherwise, or
//!   when no form is there (codegen refused the group), the subgraph runs in the interpreter.
//!   `ember_rt_op` on a group node interprets its subgraph too, as the fallback interpreter does.
//! - `int64_t ember_rt_unbox(void *ctx, int64_t reg)`: the bits of the int, float (`double`)
//!   or bool (0/1) in `reg`, which keeps it; anything else records an error and gives 0.
//! - `void ember_rt_box(void *ctx, int64_t reg, int64_t kind, int64_t bits)`: puts an int
//!   (`kind` 0), a float (1, `bits` of a `double`) or a bool (2) in `reg`.
//! - `void ember_rt_copy(void *ctx, int64_t dst, int64_t src)`,
//!   `void ember_rt_move(void *ctx, int64_t dst, int64_t src)` (empties `src`; a no-op when
//!   `dst == src`), `void ember_rt_drop(void *ctx, int64_t reg)`.
//! - `int32_t ember_rt_failed(void *ctx)`: 1 once a call of this context has failed. The
//!   same flag is the `int32_t` at offset 0 of the context, which compiled code loads in its
//!   loop conditions instead of calling (since bundle format version 4).
//!
//! `entry` returns 0, or 1 when a call failed (the context has the error).
//!
//! # Running
//!
//! [`CompiledModel`] (built from an `ember_compiled_model`, or from parts in process) checks the
//! inputs against the guard types (dtype, rank, every fixed size, strides, requires_grad, as
//! `prim::TypeCheck` does) and runs `entry` when they hold and the interpreter on the bundle's
//! graph otherwise; `EMBER_AOT=interpret` forces the interpreter. Concurrent calls of one model
//! from several threads are safe: a call's registers are its own.
//!
//! # The Rust side (what the compiler calls)
//!
//! - [`Bundle`] `{ graph_text, n_user_inputs, input_names, guard_types, weights }`;
//!   [`Bundle::to_bytes`]`(external_weights) -> (bundle, Option<weights file>)` writes it
//!   (deterministically; weights 64-byte aligned), [`Bundle::parse`] reads static bytes (no
//!   copy; external weights memory-mapped copy-on-write), [`Bundle::parse_copied`] any bytes.
//! - [`CompiledModel::open`]`(&'static ember_compiled_model, Option<&Path>)` for objects, and
//!   [`CompiledModel::from_parts`]`(Bundle, Option<EntryFn>, num_registers)` in process (both
//!   `unsafe`: the entry is native code trusted to follow this contract);
//!   [`CompiledModel::run`]`(Vec<IValue>) -> Result<IValue, String>`.
//! - [`context`]: the `ember_rt_*` functions (`#[no_mangle]`, in `libember_runtime.a`);
//!   [`context::rt_symbols`] gives their addresses by name for the in-process JIT.
//!   [`capi`]: `runtime/include/ember.h`.

pub mod bundle;
pub mod capi;
pub mod context;
pub mod model;

pub use bundle::Bundle;
pub use model::{
    ember_compiled_model, CompiledModel, EntryFn, EMBER_ABI_VERSION, EMBER_WEIGHTS_EXTERNAL,
};

#[cfg(test)]
pub(crate) mod test_support {
    /// Bytes in 64-byte aligned static memory, as an object file's data holds them.
    pub fn leak_aligned(bytes: &[u8]) -> &'static [u8] {
        #[repr(C, align(64))]
        #[derive(Clone, Copy)]
        struct Line([u8; 64]);
        let lines = vec![Line([0; 64]); bytes.len().div_ceil(64)].leak();
        // SAFETY: the leaked lines are plain bytes, at least `bytes.len()` of them.
        let all = unsafe {
            std::slice::from_raw_parts_mut(lines.as_mut_ptr() as *mut u8, lines.len() * 64)
        };
        all[..bytes.len()].copy_from_slice(bytes);
        &all[..bytes.len()]
    }
}
