//! Which vector instruction set the kernels run: AVX-512, AVX2 (with FMA) or baseline
//! x86-64, chosen at run time (the crate is built for baseline x86-64).
//!
//! The choice is the best the CPU has, capped by the environment variable
//! `EMBER_CPU_FEATURES` (`avx512`, `avx2` or `baseline`), so one AVX-512 machine can measure
//! every path, and capped per thread by [`with_isa`], so unit tests run every form of a kernel
//! on any machine. A kernel reads [`isa`] once on the calling thread and hands the value to its
//! worker tasks (pool threads have their own thread-local cap).

use std::cell::Cell;
use std::sync::OnceLock;

/// A vector instruction set level, ordered by capability.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// x86-64's SSE2 (or a non-x86 machine): the kernels' portable loops.
    Baseline,
    /// AVX2 with FMA: 8 float32 lanes.
    Avx2,
    /// AVX-512 F/BW/DQ/VL with AVX2 and FMA: 16 float32 lanes.
    Avx512,
}

impl Isa {
    /// The name `EMBER_CPU_FEATURES` takes.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Baseline => "baseline",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    fn parse(s: &str) -> Option<Isa> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "avx512" | "avx512f" | "avx-512" => Isa::Avx512,
            "avx2" => Isa::Avx2,
            "baseline" | "sse2" | "none" | "scalar" => Isa::Baseline,
            _ => return None,
        })
    }
}

thread_local! {
    static CAP: Cell<Option<Isa>> = const { Cell::new(None) };
}

/// The best level the CPU runs.
pub fn hardware() -> Isa {
    static HW: OnceLock<Isa> = OnceLock::new();
    *HW.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            let avx2 =
                std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma");
            let avx512 = avx2
                && std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512bw")
                && std::is_x86_feature_detected!("avx512dq")
                && std::is_x86_feature_detected!("avx512vl");
            if avx512 {
                return Isa::Avx512;
            }
            if avx2 {
                return Isa::Avx2;
            }
        }
        Isa::Baseline
    })
}

/// The process-wide level: the hardware's, capped by `EMBER_CPU_FEATURES`. An unknown value
/// is reported once on stderr and ignored.
pub fn process_isa() -> Isa {
    static LEVEL: OnceLock<Isa> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let hw = hardware();
        match std::env::var("EMBER_CPU_FEATURES") {
            Ok(v) if !v.trim().is_empty() => match Isa::parse(&v) {
                Some(cap) => hw.min(cap),
                None => {
                    eprintln!(
                        "warning: EMBER_CPU_FEATURES={v:?} is not one of avx512, avx2, baseline; using {}",
                        hw.name()
                    );
                    hw
                }
            },
            _ => hw,
        }
    })
}

/// The level kernels on this thread use.
#[inline]
pub fn isa() -> Isa {
    let level = process_isa();
    match CAP.with(Cell::get) {
        Some(cap) => level.min(cap),
        None => level,
    }
}

/// Runs `f` with this thread's kernels capped at `cap` (tests run every form this way).
pub fn with_isa<R>(cap: Isa, f: impl FnOnce() -> R) -> R {
    with_setting(&CAP, cap, f)
}

/// Runs `f` with this thread's `key` set to `value`, restoring it afterwards (also when `f`
/// panics).
pub(crate) fn with_setting<T: Copy + 'static, R>(
    key: &'static std::thread::LocalKey<Cell<Option<T>>>,
    value: T,
    f: impl FnOnce() -> R,
) -> R {
    struct Restore<T: Copy + 'static>(&'static std::thread::LocalKey<Cell<Option<T>>>, Option<T>);
    impl<T: Copy + 'static> Drop for Restore<T> {
        fn drop(&mut self) {
            self.0.with(|c| c.set(self.1));
        }
    }
    let _restore = Restore(key, key.with(|c| c.replace(Some(value))));
    f()
}

thread_local! {
    static TILE_WIDTH: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The widths (vectors per register-tile row) of the float32 GEMM and direct-convolution
/// micro-kernels at `level`: each kernel has a form of every width, listed with the one that
/// suits most of its shapes first, and picks another where a small matrix or output plane
/// would leave lanes idle.
pub fn tile_widths(level: Isa) -> &'static [usize] {
    match level {
        Isa::Avx512 => &[2, 3, 4],
        _ => &[1, 2, 3],
    }
}

/// The tile width this thread's kernels must take (tests run every form on every shape).
pub fn forced_tile_width() -> Option<usize> {
    TILE_WIDTH.with(|c| c.get())
}

/// A register-tile form of a float32 micro-kernel: `rows` by `width` vectors of `lanes`
/// floats, computed by `tile`.
#[derive(Copy, Clone)]
pub struct TileForm<F> {
    pub tile: F,
    pub lanes: usize,
    pub rows: usize,
    pub width: usize,
}

impl<F> TileForm<F> {
    pub const fn new(tile: F, lanes: usize, rows: usize, width: usize) -> TileForm<F> {
        TileForm {
            tile,
            lanes,
            rows,
            width,
        }
    }

    /// Floats per tile row.
    pub fn span(&self) -> usize {
        self.width * self.lanes
    }
}

/// The form a kernel takes among `forms` (one per `tile_widths` entry, its preferred first): the
/// forced width where a test set one, else the form of least `cost` (the lanes it computes)
/// if that is at most nine tenths of the first form's, else the first.
pub fn pick_tile_form<F: Copy>(
    forms: &[TileForm<F>],
    cost: impl Fn(&TileForm<F>) -> usize,
) -> TileForm<F> {
    if let Some(width) = forced_tile_width() {
        return *forms
            .iter()
            .find(|f| f.width == width)
            .expect("a forced tile width this level has");
    }
    let first = cost(&forms[0]);
    forms[1..]
        .iter()
        .map(|f| (cost(f), f))
        .filter(|&(c, _)| c * 10 < first * 9)
        .min_by_key(|&(c, _)| c)
        .map_or(forms[0], |(_, f)| *f)
}

/// Asserts that a kernel's forms at `level` have the widths `tile_widths` names (the widths
/// tests force), each once.
#[cfg(test)]
pub fn check_tile_forms<F>(level: Isa, forms: &[TileForm<F>]) {
    let mut widths: Vec<usize> = forms.iter().map(|f| f.width).collect();
    widths.sort_unstable();
    assert_eq!(widths, tile_widths(level));
}

/// Runs `f` with this thread's GEMM and direct-convolution kernels on their form of `width`
/// vectors per tile row (one of `tile_widths`).
pub fn with_tile_width<R>(width: usize, f: impl FnOnce() -> R) -> R {
    with_setting(&TILE_WIDTH, width, f)
}

/// The levels this machine can run, lowest first: what a test runs a kernel on.
pub fn available_levels() -> Vec<Isa> {
    [Isa::Baseline, Isa::Avx2, Isa::Avx512]
        .into_iter()
        .filter(|&l| l <= hardware())
        .collect()
}

/// Runs `body` compiled for `level`: the loops inside it vectorize at that width. `body` and
/// every closure or function it calls in its loops must be `#[inline(always)]` (write
/// `dispatch(level, #[inline(always)] || ...)`): code LLVM leaves out of line is compiled for
/// baseline x86-64, where `mul_add` becomes a call to libm. Nothing contracts into FMA unless
/// the code asks for it (`mul_add`), so plain arithmetic gives the same bits at every level.
#[inline(always)]
pub fn dispatch<R>(level: Isa, body: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        let level = level.min(hardware());
        #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,bmi1,bmi2")]
        unsafe fn avx512<R>(body: impl FnOnce() -> R) -> R {
            body()
        }
        #[target_feature(enable = "avx2,fma,bmi1,bmi2")]
        unsafe fn avx2<R>(body: impl FnOnce() -> R) -> R {
            body()
        }
        match level {
            // SAFETY: `level` is at most what the hardware runs.
            Isa::Avx512 => return unsafe { avx512(body) },
            Isa::Avx2 => return unsafe { avx2(body) },
            Isa::Baseline => {}
        }
    }
    body()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_nest_and_restore() {
        let top = isa();
        with_isa(Isa::Baseline, || {
            assert_eq!(isa(), Isa::Baseline);
            with_isa(Isa::Avx512, || assert_eq!(isa(), process_isa()));
            assert_eq!(isa(), Isa::Baseline);
        });
        assert_eq!(isa(), top);
        assert_eq!(Isa::parse(" AVX2 "), Some(Isa::Avx2));
        assert_eq!(Isa::parse("avx9"), None);
        assert!(available_levels().contains(&Isa::Baseline));
        assert_eq!(dispatch(Isa::Baseline, || 3), 3);
    }
}
