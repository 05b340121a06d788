// ember.hpp: a header-only C++17 wrapper of ember.h. Values and models are RAII handles
// (move-only); every failure throws ember::Error with ember_last_error()'s message and the
// status. Thread safety is ember.h's: one Model may run on several threads at once.
#ifndef EMBER_HPP
#define EMBER_HPP

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ember.h"

namespace ember {

class Error : public std::runtime_error {
public:
    Error(ember_status status, const char *message)
        : std::runtime_error(message ? message : "ember: unknown error"), status_(status) {}
    ember_status status() const noexcept { return status_; }

private:
    ember_status status_;
};

namespace detail {
inline void check(ember_status s) {
    if (s != EMBER_OK) throw Error(s, ember_last_error());
}
template <typename T> T *check_ptr(T *p) {
    if (!p) throw Error(EMBER_INVALID_ARGUMENT, ember_last_error());
    return p;
}
} // namespace detail

// An owned value: a tensor, a scalar, None, a list or a tuple.
class Value {
public:
    Value() noexcept = default;
    // Takes ownership of a value from the C API.
    explicit Value(ember_value *v) noexcept : v_(v) {}
    Value(Value &&o) noexcept : v_(std::exchange(o.v_, nullptr)) {}
    Value &operator=(Value &&o) noexcept {
        if (this != &o) {
            ember_value_free(v_);
            v_ = std::exchange(o.v_, nullptr);
        }
        return *this;
    }
    Value(const Value &) = delete;
    Value &operator=(const Value &) = delete;
    ~Value() { ember_value_free(v_); }

    static Value of(int64_t v) { return Value(detail::check_ptr(ember_int(v))); }
    static Value of(double v) { return Value(detail::check_ptr(ember_float(v))); }
    static Value of(bool v) { return Value(detail::check_ptr(ember_bool(v ? 1 : 0))); }
    static Value none() { return Value(detail::check_ptr(ember_none())); }
    // A tensor over the caller's memory (no copy); `deleter` runs when Ember is done with it.
    static Value wrap(void *data, ember_dtype dtype, const std::vector<int64_t> &sizes,
                      const std::vector<int64_t> &strides = {},
                      void (*deleter)(void *, void *) = nullptr, void *deleter_ctx = nullptr) {
        if (!strides.empty() && strides.size() != sizes.size())
            throw Error(EMBER_INVALID_ARGUMENT, "ember::Value::wrap: sizes and strides differ in length");
        return Value(detail::check_ptr(ember_tensor_wrap(
            data, dtype, sizes.size(), sizes.data(), strides.empty() ? nullptr : strides.data(),
            deleter, deleter_ctx)));
    }
    // A zero-filled tensor the runtime allocates.
    static Value zeros(ember_dtype dtype, const std::vector<int64_t> &sizes) {
        return Value(detail::check_ptr(ember_tensor_new(dtype, sizes.size(), sizes.data())));
    }
    static Value list(const std::vector<const Value *> &items) {
        auto raw = raw_items(items);
        return Value(detail::check_ptr(ember_list(raw.data(), raw.size())));
    }
    static Value tuple(const std::vector<const Value *> &items) {
        auto raw = raw_items(items);
        return Value(detail::check_ptr(ember_tuple(raw.data(), raw.size())));
    }

    ember_value *get() const noexcept { return v_; }
    ember_value *release() noexcept { return std::exchange(v_, nullptr); }
    ember_kind kind() const noexcept { return ember_value_kind(v_); }

    int64_t to_int() const { int64_t x; detail::check(ember_value_to_int(v_, &x)); return x; }
    double to_float() const { double x; detail::check(ember_value_to_float(v_, &x)); return x; }
    bool to_bool() const { int x; detail::check(ember_value_to_bool(v_, &x)); return x != 0; }
    size_t size() const { size_t n; detail::check(ember_value_len(v_, &n)); return n; }
    Value operator[](size_t i) const {
        ember_value *out = nullptr;
        detail::check(ember_value_item(v_, i, &out));
        return Value(out);
    }

    ember_dtype dtype() const { ember_dtype d; detail::check(ember_tensor_dtype(v_, &d)); return d; }
    size_t ndim() const { size_t n; detail::check(ember_tensor_ndim(v_, &n)); return n; }
    std::vector<int64_t> sizes() const {
        std::vector<int64_t> s(ndim());
        detail::check(ember_tensor_sizes(v_, s.data()));
        return s;
    }
    std::vector<int64_t> strides() const {
        std::vector<int64_t> s(ndim());
        detail::check(ember_tensor_strides(v_, s.data()));
        return s;
    }
    int64_t numel() const { int64_t n; detail::check(ember_tensor_numel(v_, &n)); return n; }
    // Element 0's address, typed; index it with the strides.
    template <typename T> T *data() const {
        void *p = nullptr;
        detail::check(ember_tensor_data(v_, &p));
        return static_cast<T *>(p);
    }

private:
    static std::vector<ember_value *> raw_items(const std::vector<const Value *> &items) {
        std::vector<ember_value *> raw;
        raw.reserve(items.size());
        for (const Value *v : items) raw.push_back(v ? v->get() : nullptr);
        return raw;
    }

    ember_value *v_ = nullptr;
};

// An open compiled model.
class Model {
public:
    // `weights_path`: the weights file of a model compiled with --weights=file, else empty.
    explicit Model(const ember_compiled_model &compiled, const std::string &weights_path = {}) {
        detail::check(ember_model_open(&compiled, weights_path.empty() ? nullptr : weights_path.c_str(), &m_));
    }
    Model(Model &&o) noexcept : m_(std::exchange(o.m_, nullptr)) {}
    Model &operator=(Model &&o) noexcept {
        if (this != &o) {
            ember_model_free(m_);
            m_ = std::exchange(o.m_, nullptr);
        }
        return *this;
    }
    Model(const Model &) = delete;
    Model &operator=(const Model &) = delete;
    ~Model() { ember_model_free(m_); }

    size_t num_inputs() const noexcept { return ember_model_num_inputs(m_); }
    std::string input_name(size_t i) const {
        const char *n = ember_model_input_name(m_, i);
        if (!n) throw Error(EMBER_INVALID_ARGUMENT, "ember::Model::input_name: index out of range");
        return n;
    }
    // Runs the method; the inputs are borrowed.
    Value run(const std::vector<const Value *> &inputs) const {
        std::vector<ember_value *> raw;
        raw.reserve(inputs.size());
        for (const Value *v : inputs) raw.push_back(v ? v->get() : nullptr);
        ember_value *out = nullptr;
        detail::check(ember_model_run(m_, raw.data(), raw.size(), &out));
        return Value(out);
    }
    // How the compiled calls used their planned memory (ember_model_memory_stats).
    ember_memory_stats memory_stats() const {
        ember_memory_stats s;
        detail::check(ember_model_memory_stats(m_, &s));
        return s;
    }
    ember_model *get() const noexcept { return m_; }

private:
    ember_model *m_ = nullptr;
};

} // namespace ember

#endif // EMBER_HPP
