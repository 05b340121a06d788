use super::*;
use crate::tensor::Storage;

/// A call shaped like a chain of ops: a, b = f(a), drop a, c = g(b), drop b; returns c.
fn chain_call(fill: u8) -> Storage {
    let a = Storage::for_overwrite(4096).unwrap();
    // SAFETY: 4096 bytes of `a`, alone.
    unsafe { std::ptr::write_bytes(a.as_ptr(), fill, 4096) };
    let b = Storage::for_overwrite(8192).unwrap();
    // SAFETY: reads `a` and writes `b` within their sizes.
    unsafe { std::ptr::write_bytes(b.as_ptr(), *a.as_ptr() + 1, 8192) };
    drop(a);
    let c = Storage::zeroed(4096).unwrap();
    // SAFETY: as above.
    unsafe { std::ptr::write_bytes(c.as_ptr(), *b.as_ptr() + 1, 4096) };
    drop(b);
    let d = Storage::for_overwrite(100).unwrap();
    drop(d);
    c
}

fn bytes(s: &Storage) -> Vec<u8> {
    // SAFETY: the storage's own bytes.
    unsafe { std::slice::from_raw_parts(s.as_ptr(), s.nbytes()).to_vec() }
}

#[test]
fn later_calls_take_every_freed_buffer_from_one_block() {
    let memory = CallMemory::new();
    for k in 0..2 {
        let first = memory.scope(|| chain_call(k));
        assert_eq!(bytes(&first), vec![k + 2; 4096]);
    }
    let stats = memory.stats();
    // a, b and d die inside the call; c is its result.
    assert_eq!(stats.planned, 3);
    // a and b live at once; d reuses a's bytes.
    assert_eq!(stats.block_bytes, 4096 + 8192);
    let mut results = Vec::new();
    for k in 0..5u8 {
        results.push(memory.scope(|| chain_call(10 * k)));
    }
    for (k, r) in results.iter().enumerate() {
        assert_eq!(bytes(r), vec![10 * k as u8 + 2; 4096]);
    }
    let stats = memory.stats();
    assert_eq!(stats.blocks, 1, "{stats:?}");
    assert_eq!((stats.served, stats.missed), (15, 0), "{stats:?}");
}

#[test]
fn a_slot_in_use_is_not_handed_out_again() {
    let memory = CallMemory::new();
    memory.scope(|| chain_call(0));
    memory.scope(|| chain_call(1));
    // A call that keeps `b` alive past its recorded life: `d`, planned in b's bytes, is
    // allocated elsewhere and b's contents survive.
    let (b, d) = memory.scope(|| {
        let a = Storage::for_overwrite(4096).unwrap();
        let b = Storage::for_overwrite(8192).unwrap();
        // SAFETY: b's own bytes.
        unsafe { std::ptr::write_bytes(b.as_ptr(), 7, 8192) };
        let c = Storage::zeroed(4096).unwrap();
        drop(a);
        let d = Storage::for_overwrite(100).unwrap();
        // SAFETY: d's own bytes.
        unsafe { std::ptr::write_bytes(d.as_ptr(), 9, 100) };
        drop(c);
        (b, d)
    });
    assert_eq!(bytes(&b), vec![7; 8192]);
    assert_eq!(bytes(&d), vec![9; 100]);
    let stats = memory.stats();
    assert_eq!((stats.served, stats.missed), (2, 1), "{stats:?}");
    // The next call uses the same block around the bytes `b` still holds.
    let c = memory.scope(|| chain_call(20));
    assert_eq!(bytes(&c), vec![22; 4096]);
    assert_eq!(bytes(&b), vec![7; 8192]);
    assert_eq!(memory.stats().blocks, 1);
}

#[test]
fn other_sizes_are_allocated_as_usual() {
    let memory = CallMemory::new();
    memory.scope(|| chain_call(0));
    memory.scope(|| chain_call(1));
    let x = memory.scope(|| {
        let x = Storage::for_overwrite(5000).unwrap();
        let y = Storage::for_overwrite(8192).unwrap();
        drop(y);
        x
    });
    assert_eq!(x.nbytes(), 5000);
    let stats = memory.stats();
    // x is no planned size (missed); y takes b's slot, a's is skipped (missed).
    assert_eq!((stats.served, stats.missed), (1, 2), "{stats:?}");
}

#[test]
fn concurrent_calls_use_a_block_each() {
    let memory = CallMemory::new();
    memory.scope(|| chain_call(0));
    memory.scope(|| chain_call(1));
    let barrier = std::sync::Barrier::new(2);
    std::thread::scope(|s| {
        for k in 0..2u8 {
            let (memory, barrier) = (&memory, &barrier);
            s.spawn(move || {
                let c = memory.scope(|| {
                    let c = chain_call(40 * k);
                    // Both calls are inside their scopes at once.
                    barrier.wait();
                    c
                });
                assert_eq!(bytes(&c), vec![40 * k + 2; 4096]);
            });
        }
    });
    let stats = memory.stats();
    assert_eq!(stats.blocks, 2, "{stats:?}");
    assert_eq!(stats.missed, 0, "{stats:?}");
}

#[test]
fn nested_scopes_and_no_scope_allocate_as_usual() {
    let memory = CallMemory::new();
    let inner = CallMemory::new();
    memory.scope(|| inner.scope(|| chain_call(0)));
    memory.scope(|| inner.scope(|| chain_call(1)));
    assert_eq!(memory.stats().planned, 3);
    assert_eq!(inner.stats(), CallMemoryStats::default());
    let s = chain_call(5);
    assert_eq!(bytes(&s), vec![7; 4096]);
}

#[test]
fn calls_that_stop_fitting_the_plan_are_recorded_again() {
    let memory = CallMemory::new();
    let other = |fill: u8| {
        let a = Storage::for_overwrite(1000).unwrap();
        let b = Storage::for_overwrite(3000).unwrap();
        // SAFETY: b's own bytes.
        unsafe { std::ptr::write_bytes(b.as_ptr(), fill, 3000) };
        drop(a);
        b
    };
    memory.scope(|| chain_call(0));
    memory.scope(|| chain_call(1));
    // Another kind of call: it misses both slots, so the next one is recorded and the two
    // after it fit.
    for k in 0..4 {
        assert_eq!(bytes(&memory.scope(|| other(k))), vec![k; 3000]);
    }
    let stats = memory.stats();
    assert_eq!(stats.planned, 1, "{stats:?}");
    assert_eq!((stats.served, stats.missed), (2, 2), "{stats:?}");
    assert_eq!(stats.blocks, 2, "{stats:?}");
}

#[test]
fn only_the_first_allocations_of_a_long_call_are_planned() {
    let memory = CallMemory::new();
    let call = || {
        for _ in 0..MAX_SLOTS + 100 {
            drop(Storage::for_overwrite(64).unwrap());
        }
    };
    for _ in 0..3 {
        memory.scope(call);
    }
    let stats = memory.stats();
    assert_eq!(stats.planned, MAX_SLOTS, "{stats:?}");
    assert_eq!((stats.served, stats.missed), (MAX_SLOTS, 0), "{stats:?}");
    assert_eq!(stats.block_bytes, 64);
}

#[test]
fn a_plan_given_in_advance_serves_the_first_call() {
    let recorder = CallMemory::new();
    assert_eq!(recorder.plan(), None);
    recorder.scope(|| chain_call(0));
    recorder.scope(|| chain_call(1));
    let plan = recorder.plan().expect("a plan after the recorded call");
    plan.check().unwrap();
    let memory = CallMemory::with_plan(plan.clone());
    let first = memory.scope(|| chain_call(7));
    assert_eq!(bytes(&first), vec![9; 4096]);
    let stats = memory.stats();
    assert_eq!(
        (stats.planned, stats.blocks, stats.served, stats.missed),
        (3, 1, 3, 0),
        "{stats:?}"
    );
    assert_eq!(memory.plan(), Some(plan));
}

#[test]
fn a_given_plan_that_calls_do_not_fit_is_recorded_again() {
    // Planned for buffers of other sizes: every allocation of the first call is one the plan
    // does not know, the second call is recorded, the third served.
    let memory = CallMemory::with_plan(MemoryPlan {
        slots: vec![Some((64, 0)), Some((128, 64))],
        total: 192,
    });
    for k in 0..3 {
        assert_eq!(bytes(&memory.scope(|| chain_call(k))), vec![k + 2; 4096]);
    }
    let stats = memory.stats();
    assert_eq!(
        (stats.planned, stats.block_bytes),
        (3, 4096 + 8192),
        "{stats:?}"
    );
    assert_eq!((stats.served, stats.missed), (3, 4), "{stats:?}");
}

#[test]
fn plans_from_elsewhere_are_checked() {
    let plan = |slots: Vec<Option<(usize, usize)>>, total| MemoryPlan { slots, total };
    plan(vec![Some((100, 0)), None, Some((64, 128))], 192)
        .check()
        .unwrap();
    for (bad, why) in [
        (plan(vec![Some((100, 64))], 128), "not inside"),
        (plan(vec![Some((64, 32))], 128), "not inside"),
        (plan(vec![Some((usize::MAX, 0))], 64), "not inside"),
        (plan(vec![Some((64, usize::MAX - 10))], 64), "not inside"),
        (plan(vec![Some((64, 0))], 1 << 40), "side by side"),
        (plan(vec![None; MAX_SLOTS + 1], 0), "at most"),
    ] {
        let e = bad.check().unwrap_err();
        assert!(e.contains(why), "{bad:?}: {e}");
    }
}

#[test]
fn a_call_with_an_allocation_more_or_less_stays_in_step() {
    let chains = |k: u8| (0..3).map(|i| chain_call(k + i)).collect::<Vec<_>>();
    let memory = CallMemory::new();
    memory.scope(|| chains(0));
    memory.scope(|| chains(1));
    assert_eq!(memory.stats().planned, 9);
    // One buffer more before the rest (a first call preparing weights) that stays.
    let (kept, c) = memory.scope(|| (Storage::for_overwrite(52920).unwrap(), chains(2)));
    assert_eq!(bytes(&c[2]), vec![6; 4096]);
    assert_eq!(kept.nbytes(), 52920);
    let stats = memory.stats();
    assert_eq!((stats.served, stats.missed), (9, 1), "{stats:?}");
    // One buffer fewer: the first `a` is not allocated, the rest take their slots.
    memory.scope(|| {
        let b = Storage::for_overwrite(8192).unwrap();
        let c = Storage::zeroed(4096).unwrap();
        drop(b);
        drop(Storage::for_overwrite(100).unwrap());
        (c, chains(3))
    });
    let stats = memory.stats();
    assert_eq!((stats.served, stats.missed), (17, 2), "{stats:?}");
}
