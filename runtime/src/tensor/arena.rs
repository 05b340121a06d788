//! Planned memory for the calls of a compiled model or an executor's plan: from the third
//! call on, each takes the buffers of its intermediate tensors from one block laid out in
//! advance, so a call of a model specialized to fixed shapes allocates at most once (the block,
//! when no other is free), as PyTorch's static runtime plans its managed tensors.
//!
//! The second call inside a [`CallMemory`] (the first does what is done once, such as packing
//! weights) records the first [`MAX_SLOTS`] buffers its thread allocates: size, and when each
//! was allocated and freed, counted in allocation and free events. Buffers still alive when
//! the call ends (its outputs, and what they view) are not planned. The others get offsets in
//! one block, packed greedily (largest first, at the lowest offset that overlaps no buffer
//! alive at the same time). Later calls serve their allocations from the slots in order, each
//! when the size is the one recorded and no live buffer uses any of its bytes; an allocation
//! of another size than the next slot's takes the next slot of its size a few further on (the
//! call skipped some), or none (an allocation the plan does not know, such as the first
//! call's preparation of weights), so one allocation more or less does not put the rest out
//! of step. A call whose control flow or shapes differ simply allocates the rest as usual, so
//! the plan is never trusted blindly; a call that misses more than a quarter of its slots has
//! the next one recorded afresh (twice at most). A slot's buffer holds the block, so tensors
//! that outlive the call keep its memory.
//!
//! A plan also travels: `emberc` given the input shapes (`--shape`, `--example`) runs the
//! compiled method twice on inputs of those shapes, takes the plan of the second call
//! ([`CallMemory::plan`]) into the object's bundle, and the loaded model starts from it
//! ([`CallMemory::with_plan`]), so that its first call is already served. The plan is checked
//! the same way there: a call that does not fit it allocates as usual and, missing too much,
//! has the next call recorded.

use std::alloc::{alloc, dealloc, Layout};
use std::cell::RefCell;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Alignment of every slot (that of every storage).
const ALIGN: usize = 64;

/// How many times the plan is recorded again after calls stopped fitting it.
const MAX_REPLANS: usize = 2;

/// Slots looked through for one of an allocation's size when the next planned slot is of
/// another: a call that allocates a few buffers fewer stays in step with the plan.
const LOOK_AHEAD: usize = 8;

/// Allocations of a call that are recorded and planned (later ones are made as usual): packing
/// them takes time growing with the square of their number.
const MAX_SLOTS: usize = 4096;

/// The recorded life of one buffer of the first call, in events (allocations and frees).
struct Life {
    bytes: usize,
    start: usize,
    end: Option<usize>,
}

#[derive(Default)]
pub(super) struct Recording {
    lives: Mutex<Vec<Life>>,
    clock: AtomicUsize,
}

/// Where each buffer of a call goes in one block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryPlan {
    /// Per allocation number: its bytes and offset, or None for one not planned.
    pub slots: Vec<Option<(usize, usize)>>,
    /// The block's bytes.
    pub total: usize,
}

impl MemoryPlan {
    /// Checks a plan that came from elsewhere (a bundle): at most [`MAX_SLOTS`] slots, each
    /// inside the block, and a block no larger than its slots side by side.
    pub fn check(&self) -> Result<(), String> {
        if self.slots.len() > MAX_SLOTS {
            return Err(format!(
                "a memory plan of {} buffers (at most {MAX_SLOTS})",
                self.slots.len()
            ));
        }
        let mut side_by_side = 0usize;
        for (i, slot) in self.slots.iter().enumerate() {
            let Some((bytes, offset)) = *slot else {
                continue;
            };
            let end = bytes.checked_next_multiple_of(ALIGN).and_then(|b| {
                side_by_side = side_by_side.checked_add(b)?;
                offset.checked_add(b)
            });
            if offset % ALIGN != 0 || end.is_none_or(|end| end > self.total) {
                return Err(format!(
                    "memory plan buffer {i} ({bytes} bytes at offset {offset}) is not inside its block of {} bytes",
                    self.total
                ));
            }
        }
        if self.total > side_by_side || self.total > isize::MAX as usize / 2 {
            return Err(format!(
                "a memory plan block of {} bytes for buffers of {side_by_side} bytes side by side",
                self.total
            ));
        }
        Ok(())
    }
}

/// One laid-out block of memory, used by one call at a time.
pub(super) struct Block {
    ptr: NonNull<u8>,
    plan: Arc<MemoryPlan>,
    /// The byte ranges live buffers use, `[start, end)` (a few at a time: what a call holds
    /// at once).
    live: Mutex<Vec<(usize, usize)>>,
}

// SAFETY: plain bytes; a range is handed to one buffer at a time (`live`).
unsafe impl Send for Block {}
unsafe impl Sync for Block {}

impl Drop for Block {
    fn drop(&mut self) {
        // SAFETY: allocated in `Block::new` with this layout; no buffer holds the block.
        unsafe { dealloc(self.ptr.as_ptr(), block_layout(self.plan.total)) }
    }
}

fn block_layout(total: usize) -> Layout {
    Layout::from_size_align(total.max(ALIGN), ALIGN).expect("a planned block's size")
}

impl Block {
    fn new(plan: Arc<MemoryPlan>) -> Option<Block> {
        // SAFETY: a non-zero size.
        let ptr = NonNull::new(unsafe { alloc(block_layout(plan.total)) })?;
        Some(Block {
            ptr,
            plan,
            live: Mutex::new(Vec::new()),
        })
    }
}

/// What a buffer allocated inside a call carries, so that freeing it is seen.
pub(super) enum Tag {
    /// A buffer of the recorded call: its free is an event.
    Recorded(Arc<Recording>, usize),
    /// A buffer in a block's slot (its byte range): the range is free again.
    Slot(Arc<Block>, (usize, usize)),
}

impl Drop for Tag {
    fn drop(&mut self) {
        match self {
            Tag::Recorded(rec, i) => {
                let t = rec.clock.fetch_add(1, Ordering::Relaxed);
                if let Some(life) = rec
                    .lives
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_mut(*i)
                {
                    life.end = Some(t);
                }
            }
            Tag::Slot(block, range) => {
                let mut live = block.live.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(at) = live.iter().position(|r| r == range) {
                    live.swap_remove(at);
                }
            }
        }
    }
}

enum Scope {
    Record(Arc<Recording>),
    Serve {
        block: Arc<Block>,
        next: usize,
        served: usize,
        missed: usize,
    },
}

thread_local! {
    static SCOPE: RefCell<Option<Scope>> = const { RefCell::new(None) };
}

/// How a model's calls used their planned memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallMemoryStats {
    /// Blocks allocated (one per call running at the same time).
    pub blocks: usize,
    /// The bytes of one block.
    pub block_bytes: usize,
    /// Buffers planned per call.
    pub planned: usize,
    /// Buffers served from a block.
    pub served: usize,
    /// Planned slots a call could not use (bytes still in use, or skipped by a call that
    /// allocated fewer buffers) and allocations the plan does not know: allocated as usual.
    pub missed: usize,
}

#[derive(Default)]
struct State {
    /// Calls begun (since the last plan was dropped).
    calls: usize,
    /// Plans dropped because a call missed more than a quarter of its slots.
    replans: usize,
    plan: Option<Arc<MemoryPlan>>,
    /// Blocks no call is using.
    idle: Vec<Arc<Block>>,
    stats: CallMemoryStats,
}

impl State {
    /// Serves the next calls from `plan`.
    fn adopt(&mut self, plan: MemoryPlan) {
        self.stats.planned = plan.slots.iter().flatten().count();
        self.stats.block_bytes = plan.total;
        self.plan = Some(Arc::new(plan));
    }
}

/// The planned memory of one compiled model's calls (any number of threads at once).
#[derive(Default)]
pub struct CallMemory {
    state: Mutex<State>,
}

impl CallMemory {
    pub fn new() -> CallMemory {
        CallMemory::default()
    }

    /// Memory whose first call is served from `plan` (one recorded before, in another
    /// process: checked with [`MemoryPlan::check`]).
    pub fn with_plan(plan: MemoryPlan) -> CallMemory {
        let memory = CallMemory::default();
        {
            let mut st = memory.state.lock().unwrap_or_else(|e| e.into_inner());
            st.adopt(plan);
            // Were the plan dropped, the next call would be recorded.
            st.calls = 1;
        }
        memory
    }

    /// The plan the calls are served from, once one was recorded (or given).
    pub fn plan(&self) -> Option<MemoryPlan> {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.plan.as_deref().cloned()
    }

    /// Runs `call` on this thread: the first as usual, the second with its allocations
    /// recorded, later ones with them served from a block. A call inside another's scope runs
    /// in that scope.
    pub fn scope<R>(&self, call: impl FnOnce() -> R) -> R {
        if !enabled() || SCOPE.with(|s| s.borrow().is_some()) {
            return call();
        }
        let scope = {
            let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
            st.calls += 1;
            match st.plan.clone() {
                // The first call does what is done once (packing weights, caches): the second
                // is recorded.
                None if st.calls == 1 => return call(),
                None => Scope::Record(Arc::default()),
                Some(plan) if plan.total == 0 => return call(),
                Some(plan) => match st.idle.pop().or_else(|| {
                    let b = Block::new(plan).map(Arc::new)?;
                    st.stats.blocks += 1;
                    Some(b)
                }) {
                    Some(block) => Scope::Serve {
                        block,
                        next: 0,
                        served: 0,
                        missed: 0,
                    },
                    None => return call(),
                },
            }
        };
        SCOPE.with(|s| *s.borrow_mut() = Some(scope));
        // Leave the scope even if the call panics.
        struct Leave<'a>(&'a CallMemory);
        impl Drop for Leave<'_> {
            fn drop(&mut self) {
                if let Some(scope) = SCOPE.with(|s| s.borrow_mut().take()) {
                    self.0.finish(scope);
                }
            }
        }
        let _leave = Leave(self);
        call()
    }

    fn finish(&self, scope: Scope) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match scope {
            Scope::Record(rec) => {
                if st.plan.is_none() {
                    let lives =
                        std::mem::take(&mut *rec.lives.lock().unwrap_or_else(|e| e.into_inner()));
                    st.adopt(plan(&lives));
                }
            }
            Scope::Serve {
                block,
                served,
                missed,
                ..
            } => {
                st.stats.served += served;
                st.stats.missed += missed;
                if missed * 4 > st.stats.planned && st.replans < MAX_REPLANS {
                    // The calls have changed (the executor's first calls profile; another
                    // branch became the usual one): record the next one afresh.
                    st.replans += 1;
                    st.plan = None;
                    st.idle.clear();
                    st.calls = 1;
                } else {
                    st.idle.push(block);
                }
            }
        }
    }

    pub fn stats(&self) -> CallMemoryStats {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).stats
    }
}

/// `EMBER_PLANNED_MEMORY=0` turns planning off (every buffer from the allocator and the buffer
/// cache), to compare.
fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("EMBER_PLANNED_MEMORY").map_or(true, |v| v.trim() != "0"))
}

/// What `Storage::allocate` does with an allocation of `bytes` on this thread.
pub(super) enum Allocation {
    /// No call scope: allocate as usual.
    Usual,
    /// Allocate as usual and tag the buffer.
    Tagged(Tag),
    /// Use this slot's memory, tagged.
    Slot(NonNull<u8>, Tag),
}

pub(super) fn allocation(bytes: usize) -> Allocation {
    SCOPE.with(|s| {
        let mut s = s.borrow_mut();
        match s.as_mut() {
            None => Allocation::Usual,
            Some(Scope::Record(rec)) => {
                let mut lives = rec.lives.lock().unwrap_or_else(|e| e.into_inner());
                if lives.len() >= MAX_SLOTS {
                    return Allocation::Usual;
                }
                let t = rec.clock.fetch_add(1, Ordering::Relaxed);
                lives.push(Life {
                    bytes,
                    start: t,
                    end: None,
                });
                Allocation::Tagged(Tag::Recorded(rec.clone(), lives.len() - 1))
            }
            Some(Scope::Serve {
                block,
                next,
                served,
                missed,
            }) => {
                let Some(j) = in_step(&block.plan.slots, *next, bytes) else {
                    // An allocation the plan does not know (the first call prepares weights
                    // once): made as usual, the plan's place kept.
                    if *next < block.plan.slots.len() {
                        *missed += 1;
                    }
                    return Allocation::Usual;
                };
                // Planned buffers this call skipped.
                *missed += block.plan.slots[*next..j].iter().flatten().count();
                *next = j + 1;
                let Some(slot) = block.plan.slots[j] else {
                    // A buffer that outlived the recorded call.
                    return Allocation::Usual;
                };
                match take_slot(block, slot, bytes) {
                    Some((ptr, range)) => {
                        *served += 1;
                        Allocation::Slot(ptr, Tag::Slot(block.clone(), range))
                    }
                    None => {
                        *missed += 1;
                        Allocation::Usual
                    }
                }
            }
        }
    })
}

/// The slot an allocation of `bytes` takes when `next` is the plan's next: `next` itself when
/// it is unplanned or of that size, else the first planned slot of that size among the next
/// [`LOOK_AHEAD`] (the call skipped some), else none (a buffer the plan does not know).
fn in_step(slots: &[Option<(usize, usize)>], next: usize, bytes: usize) -> Option<usize> {
    match *slots.get(next)? {
        None => Some(next),
        Some((size, _)) if size == bytes => Some(next),
        Some(_) => (next + 1..slots.len().min(next + 1 + LOOK_AHEAD))
            .find(|&j| slots[j].is_some_and(|(size, _)| size == bytes)),
    }
}

/// The memory of a planned slot of `block` (its size and offset) for `bytes`, and its byte
/// range, if it was planned for that size and no live buffer uses any of its bytes.
fn take_slot(
    block: &Block,
    (size, offset): (usize, usize),
    bytes: usize,
) -> Option<(NonNull<u8>, (usize, usize))> {
    let range = (offset, offset + size);
    let mut live = block.live.lock().unwrap_or_else(|e| e.into_inner());
    if size != bytes || live.iter().any(|&(lo, hi)| lo < range.1 && range.0 < hi) {
        return None;
    }
    live.push(range);
    // SAFETY: offset + size <= total, inside the block's allocation.
    Some((
        NonNull::new(unsafe { block.ptr.as_ptr().add(offset) })?,
        range,
    ))
}

/// Offsets for the buffers freed within the call: largest first, each at the lowest offset
/// where it overlaps no placed buffer whose life overlaps its own.
fn plan(lives: &[Life]) -> MemoryPlan {
    let mut order: Vec<usize> = (0..lives.len())
        .filter(|&i| lives[i].end.is_some())
        .collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(lives[i].bytes), i));
    let mut slots: Vec<Option<(usize, usize)>> = vec![None; lives.len()];
    let mut placed: Vec<usize> = Vec::new();
    let mut total = 0;
    let span = |i: usize| (lives[i].start, lives[i].end.unwrap_or(usize::MAX));
    for &i in &order {
        let (start, end) = span(i);
        let bytes = lives[i].bytes.div_ceil(ALIGN) * ALIGN;
        // The placed buffers alive at the same time, by offset.
        let mut busy: Vec<(usize, usize)> = placed
            .iter()
            .filter(|&&j| {
                let (s, e) = span(j);
                s < end && start < e
            })
            .filter_map(|&j| slots[j].map(|(b, o)| (o, o + b.div_ceil(ALIGN) * ALIGN)))
            .collect();
        busy.sort_unstable();
        let mut offset = 0;
        for (lo, hi) in busy {
            if offset + bytes <= lo {
                break;
            }
            offset = offset.max(hi);
        }
        slots[i] = Some((lives[i].bytes, offset));
        total = total.max(offset + bytes);
        placed.push(i);
    }
    MemoryPlan { slots, total }
}

#[cfg(test)]
#[path = "arena_tests.rs"]
mod tests;
