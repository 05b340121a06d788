//! C ABI of compiled kernels.
