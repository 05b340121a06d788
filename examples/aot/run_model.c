/* run_model: runs a model compiled whole by emberc on inputs read from .npy files, through
 * Ember's C API (ember.h), and checks its tensors against expected .npy files.
 *
 *   cc -DEMBER_MODEL=<C name> -I<ember include> -I<where emberc wrote NAME.h> run_model.c \
 *      NAME.o libember_runtime.a -lpthread -ldl -lm -o run_model
 *   run_model [--weights FILE] [--bench N] [--memory] IN.npy ... [--expect OUT.npy ...]
 *
 * Inputs are float32, float64, int32, int64 or bool arrays. The result's tensors (a tensor, or
 * the tensors of a tuple or list, depth first) are printed and, with --expect, compared with
 * the expected arrays in order: |got - want| <= 1e-4 * |want| + 1e-4 * max|want| (PyTorch's
 * whole-model tolerance). Exit status 0 when everything ran and matched. --bench N also times
 * N calls after 3 warm-up calls and prints the median and the fastest per call. --memory prints
 * how the first call took its intermediate tensors from planned memory (a model compiled for
 * fixed shapes carries the plan; see ember_model_memory_stats). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ember.h"

#ifndef EMBER_MODEL
#error "compile with -DEMBER_MODEL=<the model's C name, as emberc --name gave it>"
#endif
extern const ember_compiled_model EMBER_MODEL;

typedef struct {
  ember_dtype dtype;
  size_t ndim;
  int64_t sizes[16];
  int64_t numel;
  void *data;
} array;

static int fail(const char *what, const char *detail) {
  fprintf(stderr, "run_model: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  return 1;
}

/* Reads a C-ordered little-endian .npy file (format versions 1 to 3). */
static int read_npy(const char *path, array *a) {
  FILE *f = fopen(path, "rb");
  if (!f) return fail("cannot open", path);
  unsigned char magic[10];
  if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "\x93NUMPY", 6) != 0) {
    fclose(f);
    return fail("not a .npy file", path);
  }
  size_t header_len;
  if (magic[6] == 1) {
    unsigned char l[2];
    if (fread(l, 1, 2, f) != 2) { fclose(f); return fail("truncated header", path); }
    header_len = l[0] | (size_t)l[1] << 8;
  } else {
    unsigned char l[4];
    if (fread(l, 1, 4, f) != 4) { fclose(f); return fail("truncated header", path); }
    header_len = l[0] | (size_t)l[1] << 8 | (size_t)l[2] << 16 | (size_t)l[3] << 24;
  }
  if (header_len > 65536) { fclose(f); return fail("header too long", path); }
  char *h = calloc(header_len + 1, 1);
  if (!h || fread(h, 1, header_len, f) != header_len) { free(h); fclose(f); return fail("truncated header", path); }
  size_t item;
  if (strstr(h, "'<f4'")) { a->dtype = EMBER_FLOAT32; item = 4; }
  else if (strstr(h, "'<f8'")) { a->dtype = EMBER_FLOAT64; item = 8; }
  else if (strstr(h, "'<i8'")) { a->dtype = EMBER_INT64; item = 8; }
  else if (strstr(h, "'<i4'")) { a->dtype = EMBER_INT32; item = 4; }
  else if (strstr(h, "'|b1'")) { a->dtype = EMBER_BOOL; item = 1; }
  else { free(h); fclose(f); return fail("unsupported dtype in", path); }
  if (strstr(h, "'fortran_order': True")) { free(h); fclose(f); return fail("Fortran order in", path); }
  const char *shape = strstr(h, "'shape': (");
  if (!shape) { free(h); fclose(f); return fail("no shape in", path); }
  shape += strlen("'shape': (");
  a->ndim = 0;
  a->numel = 1;
  while (*shape && *shape != ')') {
    char *end;
    long long d = strtoll(shape, &end, 10);
    if (end == shape) { shape++; continue; }
    if (d < 0 || a->ndim == 16 || (d > 0 && a->numel > INT64_MAX / d)) {
      free(h); fclose(f); return fail("bad shape in", path);
    }
    a->sizes[a->ndim++] = d;
    a->numel *= d;
    shape = end;
  }
  free(h);
  size_t bytes = (size_t)a->numel * item;
  a->data = malloc(bytes ? bytes : 1);
  if (!a->data || fread(a->data, 1, bytes, f) != bytes) { fclose(f); return fail("truncated data in", path); }
  fclose(f);
  return 0;
}

static double element(const void *p, ember_dtype d, int64_t i) {
  switch (d) {
  case EMBER_FLOAT32: return ((const float *)p)[i];
  case EMBER_FLOAT64: return ((const double *)p)[i];
  case EMBER_INT64: return (double)((const int64_t *)p)[i];
  case EMBER_INT32: return ((const int32_t *)p)[i];
  case EMBER_BOOL: case EMBER_UINT8: return ((const uint8_t *)p)[i];
  default: return NAN;
  }
}

static void free_data(void *data, void *ctx) { (void)ctx; free(data); }

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Times `n` calls after 3 warm-up calls; prints the median and the fastest per call. */
static int bench(ember_model *model, ember_value **values, size_t n_in, int n) {
  double *times = malloc(sizeof(double) * (size_t)n);
  if (!times) return fail("out of memory", NULL);
  for (int i = -3; i < n; i++) {
    ember_value *out;
    double start = now_us();
    if (ember_model_run(model, values, n_in, &out) != EMBER_OK) { free(times); return fail("run", ember_last_error()); }
    if (i >= 0) times[i] = now_us() - start;
    ember_value_free(out);
  }
  qsort(times, (size_t)n, sizeof(double), by_value);
  printf("bench: %d calls after 3 warm-up, median %.3f us, min %.3f us per call\n", n, times[n / 2], times[0]);
  free(times);
  return 0;
}

/* Checks the tensors of `v`, depth first, against expected[*next...]. */
static int check(const ember_value *v, array *expected, int n_expected, int *next) {
  ember_kind kind = ember_value_kind(v);
  if (kind == EMBER_KIND_LIST || kind == EMBER_KIND_TUPLE) {
    size_t len;
    if (ember_value_len(v, &len) != EMBER_OK) return fail("output", ember_last_error());
    for (size_t i = 0; i < len; i++) {
      ember_value *item;
      if (ember_value_item(v, i, &item) != EMBER_OK) return fail("output", ember_last_error());
      int bad = check(item, expected, n_expected, next);
      ember_value_free(item);
      if (bad) return bad;
    }
    return 0;
  }
  if (kind != EMBER_KIND_TENSOR) return 0;
  ember_dtype d; size_t nd; int64_t sizes[16], strides[16], n; void *p;
  if (ember_tensor_ndim(v, &nd) != EMBER_OK || nd > 16) return fail("output", "rank");
  ember_tensor_dtype(v, &d); ember_tensor_sizes(v, sizes); ember_tensor_strides(v, strides);
  ember_tensor_numel(v, &n); ember_tensor_data(v, &p);
  int k = (*next)++;
  printf("output %d: [", k);
  for (size_t i = 0; i < nd; i++) printf(i ? ", %lld" : "%lld", (long long)sizes[i]);
  printf("]");
  double scale = 0, worst = 0;
  array *want = k < n_expected ? &expected[k] : NULL;
  if (want && (want->numel != n || want->ndim != nd)) { printf("\n"); return fail("output shape differs from the expected array", NULL); }
  for (int64_t e = 0; want && e < n; e++) scale = fmax(scale, fabs(element(want->data, want->dtype, e)));
  for (int64_t e = 0; e < n; e++) {
    int64_t off = 0, rest = e;
    for (size_t i = nd; i-- > 0;) { off += (rest % sizes[i]) * strides[i]; rest /= sizes[i]; }
    double got = element(p, d, off);
    if (e < 4) printf(" %g", got);
    if (want) {
      double w = element(want->data, want->dtype, e);
      double err = fabs(got - w), tol = 1e-4 * fabs(w) + 1e-4 * scale;
      if (!(err <= tol) && !(isnan(got) && isnan(w))) {
        printf("\n");
        fprintf(stderr, "run_model: output %d element %lld: %g, expected %g\n", k, (long long)e, got, w);
        return 1;
      }
      worst = fmax(worst, err);
    }
  }
  printf(n > 4 ? " ..." : "");
  if (want) printf("  matches the expected array (max |diff| %.3g)", worst);
  printf("\n");
  return 0;
}

int main(int argc, char **argv) {
  const char *weights = NULL;
  int bench_calls = 0, memory = 0;
  array inputs[64], expected[64];
  int n_in = 0, n_expected = 0, expecting = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--weights") && i + 1 < argc) { weights = argv[++i]; continue; }
    if (!strcmp(argv[i], "--bench") && i + 1 < argc) { bench_calls = atoi(argv[++i]); continue; }
    if (!strcmp(argv[i], "--memory")) { memory = 1; continue; }
    if (!strcmp(argv[i], "--expect")) { expecting = 1; continue; }
    array *a = expecting ? &expected[n_expected] : &inputs[n_in];
    if ((expecting ? n_expected : n_in) == 64) return fail("too many arrays", NULL);
    if (read_npy(argv[i], a)) return 1;
    if (expecting) n_expected++; else n_in++;
  }
  ember_model *model;
  if (ember_model_open(&EMBER_MODEL, weights, &model) != EMBER_OK) return fail("open", ember_last_error());
  /* Fewer inputs are fine where the last ones have defaults; ember_model_run says if not. */
  if ((size_t)n_in > ember_model_num_inputs(model)) {
    fprintf(stderr, "run_model: the model takes %zu inputs:", ember_model_num_inputs(model));
    for (size_t i = 0; i < ember_model_num_inputs(model); i++) fprintf(stderr, " %s", ember_model_input_name(model, i));
    fprintf(stderr, "\n");
    return 1;
  }
  ember_value *values[64];
  for (int i = 0; i < n_in; i++) {
    values[i] = ember_tensor_wrap(inputs[i].data, inputs[i].dtype, inputs[i].ndim, inputs[i].sizes, NULL, free_data, NULL);
    if (!values[i]) return fail("input", ember_last_error());
  }
  ember_value *out;
  if (ember_model_run(model, values, (size_t)n_in, &out) != EMBER_OK) return fail("run", ember_last_error());
  ember_memory_stats m;
  if (memory && ember_model_memory_stats(model, &m) == EMBER_OK)
    printf("first call: %llu of %llu planned intermediate tensors served from one block of %.1f KiB (%llu not)\n",
           (unsigned long long)m.served, (unsigned long long)m.planned, m.block_bytes / 1024.0,
           (unsigned long long)m.missed);
  int next = 0;
  int bad = check(out, expected, n_expected, &next);
  if (!bad && bench_calls > 0) bad = bench(model, values, (size_t)n_in, bench_calls);
  if (!bad && next < n_expected) bad = fail("fewer outputs than expected arrays", NULL);
  ember_value_free(out);
  for (int i = 0; i < n_in; i++) ember_value_free(values[i]);
  for (int i = 0; i < n_expected; i++) free(expected[i].data);
  ember_model_free(model);
  return bad;
}
