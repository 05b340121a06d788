//! The pool the CPU kernels split their loops over: the calling thread works on the loop with
//! the pool's threads, which spin for a while after each loop before they sleep, so a model's
//! back-to-back operators do not each pay a sleep and a wake-up (what rayon's idle threads do,
//! and what made small models spend a fifth of their time in the scheduler). ONNX Runtime's
//! and OpenMP's pools spin the same way.
//!
//! One loop runs on the pool at a time. A loop started while the pool is busy (by another
//! thread, or from inside a task of the running loop) runs on its caller alone, so nesting
//! and concurrent callers are safe. Threads: `RAYON_NUM_THREADS` or the machine's cores, as
//! rayon counts them, the caller included. `EMBER_POOL_SPIN_US` sets how long an idle thread
//! spins before it sleeps (default 200 us; 0 sleeps at once, as rayon's threads do).

use std::any::Any;
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{
    AtomicBool, AtomicIsize, AtomicPtr, AtomicU64, AtomicUsize, Ordering::SeqCst,
};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use smallvec::SmallVec;

/// Threads a loop started on this thread may use, the caller included.
pub fn threads() -> usize {
    let limit = LIMIT.with(|l| l.get()).unwrap_or(usize::MAX);
    (pool().workers + 1).min(limit)
}

thread_local! {
    static LIMIT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Runs `f` with the loops it starts on this thread limited to `n` threads, the caller
/// included (1: the caller alone), as `RAYON_NUM_THREADS` limits a whole process: for tests
/// and benchmarks that compare thread counts in one process.
pub fn with_threads<R>(n: usize, f: impl FnOnce() -> R) -> R {
    crate::ops::cpu::with_setting(&LIMIT, n.max(1), f)
}

/// Runs `f(0)`, ..., `f(n - 1)` on the pool's threads and the caller, each index once, and
/// returns when all have run. A panic in `f` is raised again in the caller.
pub fn for_each(n: usize, f: impl Fn(usize) + Sync) {
    let pool = pool();
    let helpers = threads() - 1;
    // (A share's bounds are packed in 32 bits each.)
    if n <= 1 || helpers == 0 || n > u32::MAX as usize || pool.busy.swap(true, SeqCst) {
        (0..n).for_each(f);
        return;
    }
    let parts = helpers + 1;
    let job = Job {
        f: &f,
        // Indices are taken a batch at a time: a shared counter costs a cache-line transfer
        // per take, more than a small task (one channel's copy) itself.
        batch: (n / (4 * parts)).max(1),
        seats: AtomicIsize::new(helpers as isize),
        shares: (0..parts)
            .map(|j| AtomicU64::new(pack(j * n / parts, (j + 1) * n / parts)))
            .collect(),
        panic: Mutex::new(None),
    };
    // SAFETY: the job outlives its publication: the pool's threads reach it only through
    // `pool.job` while counted in `pool.active`, and it is withdrawn and the count drained
    // before this function returns.
    let erased: *const Job<'static> = unsafe { std::mem::transmute(&job as *const Job<'_>) };
    pool.job.store(erased as *mut Job<'static>, SeqCst);
    if pool.sleepers.load(SeqCst) > 0 {
        let _guard = pool.lock.lock().unwrap_or_else(|e| e.into_inner());
        pool.wake.notify_all();
    }
    job.run(0);
    pool.job.store(ptr::null_mut(), SeqCst);
    while pool.active.load(SeqCst) != 0 {
        std::hint::spin_loop();
    }
    pool.busy.store(false, SeqCst);
    let payload = job.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(payload) = payload {
        panic::resume_unwind(payload);
    }
}

/// Calls `f(i, chunk)` for each `chunk`-long piece of `data` (the last may be shorter), in
/// parallel: `par_chunks_mut(chunk).enumerate().for_each(f)` on this pool.
pub fn for_each_chunk_mut<T: Send>(
    data: &mut [T],
    chunk: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    map_chunks_mut(data, chunk, f);
}

/// [`for_each_chunk_mut`] that returns what each call of `f` returned, in order.
pub fn map_chunks_mut<T: Send, A: Send>(
    data: &mut [T],
    chunk: usize,
    f: impl Fn(usize, &mut [T]) -> A + Sync,
) -> Vec<A> {
    let chunk = chunk.max(1);
    let (base, len) = (data.as_mut_ptr() as usize, data.len());
    map(len.div_ceil(chunk), |i| {
        let start = i * chunk;
        let end = (start + chunk).min(len);
        // SAFETY: the pieces are disjoint parts of `data`, which the caller lends mutably for
        // the whole loop; each index runs once.
        let piece =
            unsafe { std::slice::from_raw_parts_mut((base as *mut T).add(start), end - start) };
        f(i, piece)
    })
}

/// `(0..n).map(f).collect()`, in parallel.
pub fn map<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    map_init(n, 1, || (), |_, i| f(i))
}

/// `(0..n).map(|i| f(&mut state, i)).collect()`, in parallel over runs of at least `min_len`
/// consecutive indices, each run with a `state` of its own from `init` (a scratch buffer).
pub fn map_init<S, T: Send>(
    n: usize,
    min_len: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, usize) -> T + Sync,
) -> Vec<T> {
    let run = min_len.max(n.div_ceil(4 * threads())).max(1);
    let mut out = Vec::<T>::with_capacity(n);
    let slots = out.as_mut_ptr() as usize;
    for_each(n.div_ceil(run), |r| {
        let mut state = init();
        for i in r * run..((r + 1) * run).min(n) {
            // SAFETY: `out` has room for n elements, and each index is written once, by the
            // run that holds it.
            unsafe { (slots as *mut T).add(i).write(f(&mut state, i)) };
        }
    });
    // SAFETY: every index below n was written (`for_each` returned, so every run finished;
    // after a panic it unwinds past this, leaking what was written).
    unsafe { out.set_len(n) };
    out
}

/// One loop: each participant's share of the indices, and the first panic of a task.
struct Job<'a> {
    f: &'a (dyn Fn(usize) + Sync),
    batch: usize,
    /// Pool threads that may still join (`with_threads`); the others sit this loop out.
    seats: AtomicIsize,
    /// Participant `j`'s contiguous share (the caller's is 0), its remaining `[front, back)`
    /// packed by [`pack`]. Its owner takes batches from the front and, once it is through,
    /// takes from the backs of the others' shares. A thread thus runs the same indices call
    /// after call while no one falls behind, and consecutive loops over one tensor find their
    /// part of it in their own core's cache: indices handed out in arrival order from one
    /// counter moved them between cores, and an elementwise op on 1.8 MB took 75-84 us
    /// (median) where these shares take 37-40, as PyTorch's static OpenMP split does.
    /// Inline up to 16 threads: no allocation per loop.
    shares: SmallVec<[AtomicU64; 16]>,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// `[front, back)` in one word.
fn pack(front: usize, back: usize) -> u64 {
    ((front as u64) << 32) | back as u64
}

/// The `[front, back)` that [`pack`] packed.
fn unpack(share: u64) -> (usize, usize) {
    ((share >> 32) as usize, (share & 0xffff_ffff) as usize)
}

impl Job<'_> {
    /// Participant `me` runs its own share, then helps with the others' until none is left.
    fn run(&self, me: usize) {
        let parts = self.shares.len();
        for s in (0..parts).map(|i| (me + i) % parts) {
            while let Some((start, end)) = self.take(s, s == me) {
                let run = || (start..end).for_each(|i| (self.f)(i));
                if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(run)) {
                    // The remaining indices are skipped; the caller raises the panic.
                    for share in &self.shares {
                        share.store(0, SeqCst);
                    }
                    let mut slot = self.panic.lock().unwrap_or_else(|e| e.into_inner());
                    slot.get_or_insert(payload);
                }
            }
        }
    }

    /// A batch of share `s`: from its front for its owner, from its back for the others.
    fn take(&self, s: usize, own: bool) -> Option<(usize, usize)> {
        let share = &self.shares[s];
        let mut cur = share.load(SeqCst);
        loop {
            let (front, back) = unpack(cur);
            if front >= back {
                return None;
            }
            let len = self.batch.min(back - front);
            let (next, range) = if own {
                (pack(front + len, back), (front, front + len))
            } else {
                (pack(front, back - len), (back - len, back))
            };
            match share.compare_exchange_weak(cur, next, SeqCst, SeqCst) {
                Ok(_) => return Some(range),
                Err(now) => cur = now,
            }
        }
    }
}

struct Pool {
    /// Threads besides the caller.
    workers: usize,
    /// The running loop, or null.
    job: AtomicPtr<Job<'static>>,
    /// Pool threads between reading `job` and finishing with it.
    active: AtomicUsize,
    /// A caller owns the pool.
    busy: AtomicBool,
    /// Pool threads asleep (or about to be) on `wake`.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
    spin: Duration,
}

// SAFETY: `job` points at a `Job` that is `Sync` (its closure is) for as long as it is
// published (see `for_each`).
unsafe impl Sync for Pool {}
unsafe impl Send for Pool {}

fn pool() -> &'static Pool {
    static POOL: OnceLock<&'static Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let spin_us = std::env::var("EMBER_POOL_SPIN_US")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(200);
        let pool: &'static Pool = Box::leak(Box::new(Pool {
            workers: rayon::current_num_threads().saturating_sub(1),
            job: AtomicPtr::new(ptr::null_mut()),
            active: AtomicUsize::new(0),
            busy: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
            spin: Duration::from_micros(spin_us),
        }));
        for i in 0..pool.workers {
            let spawned = std::thread::Builder::new()
                .name(format!("ember-pool-{i}"))
                .spawn(move || pool.work());
            if spawned.is_err() {
                // Fewer threads than asked: the loops still finish (the caller takes every
                // index the missing threads would have).
                break;
            }
        }
        pool
    })
}

impl Pool {
    /// A pool thread: join each loop published, spinning between loops before sleeping.
    fn work(&self) {
        loop {
            self.wait_for_job();
            self.active.fetch_add(1, SeqCst);
            let job = self.job.load(SeqCst);
            if !job.is_null() {
                // SAFETY: counted in `active` and read after that, so the job stays alive
                // until this thread leaves it (see `for_each`).
                let job = unsafe { &*job };
                // Seats count down from the helpers' number: the first to join is
                // participant 1.
                let seat = job.seats.fetch_sub(1, SeqCst);
                if seat > 0 {
                    job.run(job.shares.len() - seat as usize);
                }
                // Wait for the next loop, not this one again.
                while std::ptr::eq(self.job.load(SeqCst), job) {
                    std::hint::spin_loop();
                }
            }
            self.active.fetch_sub(1, SeqCst);
        }
    }

    /// Returns when a loop is published: spins up to `spin`, then sleeps until woken.
    fn wait_for_job(&self) {
        let start = Instant::now();
        let mut spins = 0u32;
        while self.job.load(SeqCst).is_null() {
            std::hint::spin_loop();
            spins = spins.wrapping_add(1);
            if !spins.is_multiple_of(256) {
                continue;
            }
            // Give the core to a thread that is ready to run on it (a loaded machine, or
            // the caller itself), then sleep once the spin time is over.
            std::thread::yield_now();
            if start.elapsed() >= self.spin {
                let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
                self.sleepers.fetch_add(1, SeqCst);
                while self.job.load(SeqCst).is_null() {
                    guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
                }
                self.sleepers.fetch_sub(1, SeqCst);
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn every_index_runs_once() {
        for n in [0, 1, 2, 3, 17, 1000] {
            let hits: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
            for_each(n, |i| {
                hits[i].fetch_add(1, SeqCst);
            });
            assert!(hits.iter().all(|h| h.load(SeqCst) == 1), "n = {n}");
        }
    }

    /// A share whose tasks are slow is finished from its back by the others, and each index
    /// still runs once.
    #[test]
    fn slow_shares_are_shared_and_every_index_runs_once() {
        let n = 64;
        let hits: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        for_each(n, |i| {
            hits[i].fetch_add(1, SeqCst);
            if i < n / 2 {
                std::thread::sleep(Duration::from_micros(200));
            }
        });
        assert!(hits.iter().all(|h| h.load(SeqCst) == 1));
    }

    #[test]
    fn nested_and_concurrent_loops_finish() {
        let total = AtomicU64::new(0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..50 {
                        for_each(8, |_| {
                            for_each(8, |_| {
                                total.fetch_add(1, SeqCst);
                            });
                        });
                    }
                });
            }
        });
        assert_eq!(total.load(SeqCst), 4 * 50 * 64);
    }

    #[test]
    fn chunks_cover_the_slice() {
        let mut v = vec![0usize; 1001];
        for_each_chunk_mut(&mut v, 100, |i, piece| {
            for (j, x) in piece.iter_mut().enumerate() {
                *x = i * 100 + j;
            }
        });
        assert!(v.iter().enumerate().all(|(i, &x)| i == x));
    }

    #[test]
    fn one_thread_runs_on_the_caller() {
        let caller = std::thread::current().id();
        with_threads(1, || {
            assert_eq!(threads(), 1);
            for_each(64, |_| assert_eq!(std::thread::current().id(), caller));
        });
        assert_eq!(threads(), pool().workers + 1);
    }

    #[test]
    fn maps_keep_the_order() {
        for (n, min_len) in [(0, 1), (1, 1), (5, 1), (1000, 1), (1000, 64), (1000, 5000)] {
            let v = map_init(n, min_len, Vec::<usize>::new, |seen, i| {
                seen.push(i);
                (i, seen.len())
            });
            assert!(v.iter().enumerate().all(|(i, &(x, _))| i == x), "n = {n}");
            // Each run's state starts empty and sees consecutive indices, in runs of at
            // least `min_len` (the last may be shorter).
            let starts = v.iter().filter(|&&(_, k)| k == 1).count();
            assert!(v.windows(2).all(|w| w[1].1 == 1 || w[1].1 == w[0].1 + 1));
            assert!(
                starts <= n.div_ceil(min_len),
                "n = {n}, min_len = {min_len}"
            );
        }
        let mut data = vec![1u32; 1001];
        let sums = map_chunks_mut(&mut data, 100, |i, piece| {
            piece.iter_mut().for_each(|x| *x = i as u32);
            piece.len()
        });
        assert_eq!(sums.len(), 11);
        assert_eq!(sums[10], 1);
        assert_eq!(data[1000], 10);
    }

    #[test]
    fn a_panic_reaches_the_caller_and_the_pool_recovers() {
        let caught = panic::catch_unwind(|| {
            for_each(64, |i| {
                if i == 40 {
                    panic!("task 40");
                }
            })
        });
        assert!(caught.is_err());
        let hits = AtomicU64::new(0);
        for_each(64, |_| {
            hits.fetch_add(1, SeqCst);
        });
        assert_eq!(hits.load(SeqCst), 64);
    }
}
