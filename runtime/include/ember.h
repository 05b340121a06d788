/*
 * ember.h: the C API of Ember's runtime library (libember_runtime.a).
 *
 * A model compiled by `emberc model.pt -o model.o --header model.h` is an object file that
 * defines one `ember_compiled_model` (its generated header declares it). A program opens it
 * with ember_model_open, makes input values (tensors wrapping its own memory, scalars, lists,
 * tuples), runs the method with ember_model_run and reads the output value.
 *
 * Ownership: every `ember_value *` and `ember_model *` a function gives back is owned by the
 * caller and released with ember_value_free / ember_model_free (both accept NULL). Inputs
 * passed to ember_model_run, ember_list and ember_tuple are borrowed: the callee takes its
 * own reference (tensors share memory, they are never copied).
 *
 * Errors: functions that can fail return an ember_status (or NULL); the message, naming the
 * failing node and its source location when a model's run failed, is ember_last_error().
 * No function aborts or reads out of bounds on bad arguments (NULL pointers, bad dtypes,
 * negative sizes, overflowing element counts): they give EMBER_INVALID_ARGUMENT.
 *
 * Thread safety: one ember_model may be run from any number of threads at once (every call
 * has its own registers). Values may be used from any thread, but one value must not be
 * freed while another thread uses it; tensors that share memory see each other's writes.
 * ember_last_error() is per thread.
 *
 * Memory: the second call of a model records the intermediate tensors its compiled code
 * allocates; later calls take them from one block laid out in advance (one per call running at
 * the same time, kept with the model), so a call allocates at most once. Allocations the plan
 * does not foresee (another branch taken; inputs the guards send to the interpreter) are made as
 * usual, and a tensor that outlives its call keeps its memory. EMBER_PLANNED_MEMORY=0 turns
 * the plan off.
 *
 * Threads: kernels split their loops between the calling thread and the runtime's pool,
 * RAYON_NUM_THREADS threads in all (default: one per core). The pool's threads spin up to
 * EMBER_POOL_SPIN_US microseconds (default 200) after each loop before they sleep, so
 * back-to-back operators pay no wake-up; 0 makes them sleep at once.
 *
 * Link with: libember_runtime.a -lpthread -ldl -lm (a C++ or Rust toolchain is not needed).
 */
#ifndef EMBER_H
#define EMBER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- What emberc's objects define ------------------------------------------------------ */

#define EMBER_ABI_VERSION 1
/* ember_compiled_model.flags: the weights are in a separate file (emberc --weights=file). */
#define EMBER_WEIGHTS_EXTERNAL 1

typedef struct ember_compiled_model {
    uint32_t abi_version;        /* EMBER_ABI_VERSION */
    uint32_t flags;              /* EMBER_WEIGHTS_EXTERNAL or 0 */
    const char *name;            /* the model's C name, e.g. "resnet18" */
    const char *method;          /* the TorchScript method, e.g. "forward" */
    const uint8_t *bundle;       /* the embedded program, 64-byte aligned */
    uint64_t bundle_len;
    int32_t (*entry)(void *ctx); /* the compiled method; NULL: interpreter only */
    uint64_t num_registers;      /* the registers `entry` uses */
} ember_compiled_model;

/* What compiled code calls (emberc's objects call these; applications do not). The contract
 * is in runtime/src/aot/mod.rs: `ctx` is the call's context, registers hold values, nodes
 * are numbered in pre-order over the bundle's graph. */
int32_t ember_rt_op(void *ctx, int64_t node, const int64_t *args, int64_t *outs);
int64_t ember_rt_unbox(void *ctx, int64_t reg);
void ember_rt_box(void *ctx, int64_t reg, int64_t kind, int64_t bits);
void ember_rt_copy(void *ctx, int64_t dst, int64_t src);
void ember_rt_move(void *ctx, int64_t dst, int64_t src);
void ember_rt_drop(void *ctx, int64_t reg);
int32_t ember_rt_failed(void *ctx);
/* A fusion group: `kernels` holds its compiled kernel for AVX-512, AVX2 and baseline x86-64
 * (each may be NULL; NULL `kernels`: the runtime interprets the group). */
int32_t ember_rt_group(void *ctx, int64_t node, void *const *kernels, const int64_t *args,
                       int64_t *outs);

/* ---- Status and errors ----------------------------------------------------------------- */

typedef enum ember_status {
    EMBER_OK = 0,
    EMBER_INVALID_ARGUMENT = 1, /* a NULL pointer, a bad dtype, size or index, a wrong kind */
    EMBER_LOAD_ERROR = 2,       /* a model or weights file that cannot be opened or is corrupt */
    EMBER_RUN_ERROR = 3,        /* the model raised an error while running */
    EMBER_INTERNAL_ERROR = 4    /* a bug in Ember (reported, never a crash) */
} ember_status;

/* The message of this thread's last failed call ("" if none). Valid until the thread's next
 * failing call. */
const char *ember_last_error(void);

/* ---- Values ---------------------------------------------------------------------------- */

typedef struct ember_value ember_value;

/* Element types: PyTorch's ScalarType numbers. */
typedef enum ember_dtype {
    EMBER_UINT8 = 0,
    EMBER_INT8 = 1,
    EMBER_INT16 = 2,
    EMBER_INT32 = 3,
    EMBER_INT64 = 4,
    EMBER_FLOAT16 = 5,
    EMBER_FLOAT32 = 6,
    EMBER_FLOAT64 = 7,
    EMBER_BOOL = 11,
    EMBER_BFLOAT16 = 15
} ember_dtype;

typedef enum ember_kind {
    EMBER_KIND_NONE = 0,
    EMBER_KIND_BOOL = 1,
    EMBER_KIND_INT = 2,
    EMBER_KIND_FLOAT = 3,
    EMBER_KIND_TENSOR = 4,
    EMBER_KIND_LIST = 5,
    EMBER_KIND_TUPLE = 6,
    EMBER_KIND_STRING = 7,
    EMBER_KIND_OTHER = 8 /* dicts, objects, devices, ...: readable only through Ember's Rust API */
} ember_kind;

/* A CPU tensor over the caller's memory, without a copy. `sizes` has `ndim` entries;
 * `strides` (in elements, not bytes; NULL: contiguous) too. `data` must be aligned for the
 * dtype and hold every element the sizes and strides address; it may be NULL only when the
 * tensor has no elements. When the last tensor using the memory is gone, Ember calls
 * `deleter(data, deleter_ctx)` (if not NULL), from whichever thread drops it. On failure
 * (NULL returned) the deleter is not called: the memory stays the caller's. The model may
 * write into input tensors only if the TorchScript method does (in-place ops on inputs). */
ember_value *ember_tensor_wrap(void *data, ember_dtype dtype, size_t ndim, const int64_t *sizes,
                               const int64_t *strides, void (*deleter)(void *data, void *ctx),
                               void *deleter_ctx);
/* A zero-filled contiguous CPU tensor the runtime allocates. */
ember_value *ember_tensor_new(ember_dtype dtype, size_t ndim, const int64_t *sizes);

ember_value *ember_int(int64_t v);
ember_value *ember_float(double v);
ember_value *ember_bool(int v);
ember_value *ember_none(void);
/* A list or tuple of the items (borrowed; each may be freed after the call). */
ember_value *ember_list(ember_value *const *items, size_t n);
ember_value *ember_tuple(ember_value *const *items, size_t n);

/* The kind of `v` (EMBER_KIND_NONE for NULL). */
ember_kind ember_value_kind(const ember_value *v);
ember_status ember_value_to_int(const ember_value *v, int64_t *out);
/* Floats, and ints converted. */
ember_status ember_value_to_float(const ember_value *v, double *out);
ember_status ember_value_to_bool(const ember_value *v, int *out);
/* The number of items of a list or tuple. */
ember_status ember_value_len(const ember_value *v, size_t *out);
/* Item `i` of a list or tuple, as a new value the caller owns. */
ember_status ember_value_item(const ember_value *v, size_t i, ember_value **out);

/* Tensor accessors; `sizes` and `strides` write ember_tensor_ndim(...) entries. */
ember_status ember_tensor_dtype(const ember_value *v, ember_dtype *out);
ember_status ember_tensor_ndim(const ember_value *v, size_t *out);
ember_status ember_tensor_sizes(const ember_value *v, int64_t *out);
ember_status ember_tensor_strides(const ember_value *v, int64_t *out);
ember_status ember_tensor_numel(const ember_value *v, int64_t *out);
/* The address of element 0 (read and write through it with the strides). */
ember_status ember_tensor_data(const ember_value *v, void **out);

void ember_value_free(ember_value *v);

/* ---- Models ---------------------------------------------------------------------------- */

typedef struct ember_model ember_model;

/* Opens the model an object defines (`compiled` must stay valid while the model is open: an
 * object's definition is static). `weights_path` is the weights file of a model compiled
 * with --weights=file (memory-mapped copy-on-write), NULL when its weights are embedded. */
ember_status ember_model_open(const ember_compiled_model *compiled, const char *weights_path,
                              ember_model **out);
void ember_model_free(ember_model *model);
/* Runs the method on `n` inputs (borrowed) and gives its result in `*output` (owned by the
 * caller; a method with several results gives a tuple). Inputs of the shapes and dtypes the
 * model was compiled for run the compiled code; any others run the embedded graph in the
 * interpreter. Trailing inputs that have defaults in the model (a Python default argument)
 * may be left out: `n` may be smaller than ember_model_num_inputs by up to their number.
 * Safe to call from several threads at once. */
ember_status ember_model_run(ember_model *model, ember_value *const *inputs, size_t n,
                             ember_value **output);
size_t ember_model_num_inputs(const ember_model *model);
/* The name of input `i` (NULL when out of range); valid as long as the model. */
const char *ember_model_input_name(const ember_model *model, size_t i);

/* How the compiled calls took their intermediate tensors from planned memory. A model compiled
 * for fixed shapes (emberc --shape or --example) carries the plan of a call on those shapes:
 * its first call allocates one block of `block_bytes` and serves every planned buffer from it
 * (further blocks only for calls running at the same time). Without one, the second call is
 * recorded and calls from the third on are served. A call whose sizes differ from the plan's
 * allocates the buffers that do not fit as usual (`missed`). */
typedef struct ember_memory_stats {
  uint64_t blocks;      /* blocks allocated (one per call running at the same time) */
  uint64_t block_bytes; /* the bytes of one block */
  uint64_t planned;     /* buffers planned per call */
  uint64_t served;      /* buffers served from a block, over all calls */
  uint64_t missed;      /* planned buffers that could not be served, over all calls */
} ember_memory_stats;
ember_status ember_model_memory_stats(const ember_model *model, ember_memory_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* EMBER_H */
