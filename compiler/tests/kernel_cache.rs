//! The kernel cache: memory hits, disk hits from a second cache and from a second process,
//! corrupt, truncated and foreign entries recompiled (never linked), concurrent writers.

use crate::jit_support;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};

use ember_compiler::executor::kernel_cache::{CacheStats, KernelCache};
use ember_dialects::Graph;
use ember_runtime::ivalue::IValue;
use ember_runtime::tensor::DType;
use jit_support::*;

/// The full name of this file's test `f`, for running it alone in a child process (the file
/// is a module of the one test binary).
fn test_name(f: &str) -> String {
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    format!("{module}::{f}")
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("ember-kernel-cache-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A group whose text differs with `salt` (a constant), so tests do not share entries.
fn graph(salt: u32) -> Graph {
    parse(&format!(
        "graph(%x : {}, %y : {}):\n  %c : float = prim::Constant[value={}.5]()\n  %m = aten::mul(%x, %c)\n  %a : int = prim::Constant[value=1]()\n  %s = aten::add(%m, %y, %a)\n  %r = aten::tanh(%s)\n  return (%r)\n",
        type_text(DType::F32, &[None, Some(8)]),
        type_text(DType::F32, &[Some(8)]),
        salt
    ))
}

fn inputs() -> Vec<IValue> {
    let mut rng = Rng::new(99);
    vec![
        IValue::Tensor(tensor(&mut rng, DType::F32, &[5, 8], -2.0, 2.0)),
        IValue::Tensor(tensor(&mut rng, DType::F32, &[8], -2.0, 2.0)),
    ]
}

/// Runs the cache's kernel for `g` and checks it against the interpreter.
fn run_checked(cache: &KernelCache, g: &Graph) {
    let group = cache.get(g).expect("kernel");
    let inputs = inputs();
    let got = group.run(&inputs).expect("run");
    let want = interpret(g, &inputs).expect("interpreter");
    assert_tensors_close(
        got[0].as_tensor().unwrap(),
        want[0].as_tensor().unwrap(),
        "cached kernel",
    );
}

fn only_entry(dir: &Path) -> PathBuf {
    let entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries[0].clone()
}

fn stats(compiled: usize, memory_hits: usize, disk_hits: usize, rejected: usize) -> CacheStats {
    CacheStats {
        compiled,
        memory_hits,
        disk_hits,
        rejected,
    }
}

#[test]
fn memory_then_disk_hits() {
    let dir = scratch("hits");
    let g = graph(1);
    let first = KernelCache::new(Some(dir.clone()));
    run_checked(&first, &g);
    run_checked(&first, &g);
    assert_eq!(first.stats(), stats(1, 1, 0, 0));
    let second = KernelCache::new(Some(dir.clone()));
    run_checked(&second, &g);
    assert_eq!(second.stats(), stats(0, 0, 1, 0));
    // A memory-only cache never touches the directory.
    let memory_only = KernelCache::new(None);
    run_checked(&memory_only, &graph(2));
    assert_eq!(memory_only.stats(), stats(1, 0, 0, 0));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_second_process_compiles_nothing() {
    const CHILD: &str = "EMBER_KERNEL_CACHE_TEST_CHILD_DIR";
    if let Some(dir) = std::env::var_os(CHILD) {
        // The child: everything comes from the disk entry the parent wrote.
        let cache = KernelCache::new(Some(PathBuf::from(dir)));
        run_checked(&cache, &graph(3));
        assert_eq!(cache.stats(), stats(0, 0, 1, 0));
        return;
    }
    let dir = scratch("process");
    let parent = KernelCache::new(Some(dir.clone()));
    run_checked(&parent, &graph(3));
    assert_eq!(parent.stats(), stats(1, 0, 0, 0));
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &test_name("a_second_process_compiles_nothing"),
            "--nocapture",
        ])
        .env(CHILD, &dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "child failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Damages the one entry in a fresh directory with `damage`, then checks that a new cache
/// rejects it, recompiles, runs correctly, and leaves a valid entry behind.
fn damaged_entry_is_recompiled(name: &str, salt: u32, damage: impl Fn(&Path)) {
    let dir = scratch(name);
    let g = graph(salt);
    run_checked(&KernelCache::new(Some(dir.clone())), &g);
    damage(&only_entry(&dir));
    let cache = KernelCache::new(Some(dir.clone()));
    run_checked(&cache, &g);
    assert_eq!(cache.stats(), stats(1, 0, 0, 1), "{name}");
    let again = KernelCache::new(Some(dir.clone()));
    run_checked(&again, &g);
    assert_eq!(
        again.stats(),
        stats(0, 0, 1, 0),
        "{name}: the entry was rewritten"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn corrupt_entries_are_recompiled() {
    damaged_entry_is_recompiled("corrupt", 4, |path| {
        let mut bytes = std::fs::read(path).unwrap();
        let n = bytes.len();
        bytes[n - 100] ^= 0x5a;
        std::fs::write(path, bytes).unwrap();
    });
}

#[test]
fn truncated_entries_are_recompiled() {
    damaged_entry_is_recompiled("truncated", 5, |path| {
        let bytes = std::fs::read(path).unwrap();
        std::fs::write(path, &bytes[..bytes.len() / 2]).unwrap();
    });
}

#[test]
fn garbage_and_empty_entries_are_recompiled() {
    damaged_entry_is_recompiled("garbage", 6, |path| {
        std::fs::write(path, b"\x7fELF garbage").unwrap()
    });
    damaged_entry_is_recompiled("empty", 7, |path| std::fs::write(path, b"").unwrap());
}

#[test]
fn foreign_entries_are_recompiled() {
    // Another kernel's valid entry under this kernel's name (another CPU or version writes
    // the same way): its key does not match.
    let other_dir = scratch("foreign-source");
    run_checked(&KernelCache::new(Some(other_dir.clone())), &graph(8));
    let foreign = std::fs::read(only_entry(&other_dir)).unwrap();
    damaged_entry_is_recompiled("foreign", 9, |path| std::fs::write(path, &foreign).unwrap());
    std::fs::remove_dir_all(&other_dir).unwrap();
}

#[test]
fn concurrent_writers_leave_one_complete_entry() {
    let dir = scratch("concurrent");
    let g = Arc::new(graph(10));
    let threads = 6;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let (dir, g, barrier) = (dir.clone(), g.clone(), barrier.clone());
            std::thread::spawn(move || {
                let cache = KernelCache::new(Some(dir));
                barrier.wait();
                run_checked(&cache, &g);
            })
        })
        .collect();
    for h in handles {
        h.join().expect("writer thread");
    }
    // No temporary file is left, and the entry is whole.
    let entry = only_entry(&dir);
    assert!(entry.extension().is_some_and(|e| e == "ekc"), "{entry:?}");
    let cache = KernelCache::new(Some(dir.clone()));
    run_checked(&cache, &g);
    assert_eq!(cache.stats(), stats(0, 0, 1, 0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_cache_dir_follows_xdg_cache_home() {
    // Read in a child process so this process's environment stays untouched.
    const CHILD: &str = "EMBER_KERNEL_CACHE_TEST_XDG";
    if std::env::var_os(CHILD).is_some() {
        let dir = ember_compiler::executor::kernel_cache::default_dir().unwrap();
        assert_eq!(dir, PathBuf::from("/tmp/ember-xdg-test/ember/kernels"));
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &test_name("the_cache_dir_follows_xdg_cache_home"),
        ])
        .env(CHILD, "1")
        .env("XDG_CACHE_HOME", "/tmp/ember-xdg-test")
        .env_remove("EMBER_KERNEL_CACHE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
}

#[test]
fn concurrent_processes_leave_one_complete_entry() {
    const CHILD: &str = "EMBER_KERNEL_CACHE_TEST_CONCURRENT_DIR";
    if let Some(dir) = std::env::var_os(CHILD) {
        // One of several processes racing to compile and write the same entry.
        let cache = KernelCache::new(Some(PathBuf::from(dir)));
        run_checked(&cache, &graph(11));
        let s = cache.stats();
        assert_eq!(s.compiled + s.disk_hits, 1, "{s:?}");
        assert_eq!(s.rejected, 0, "a torn entry was read: {s:?}");
        return;
    }
    let dir = scratch("processes");
    let children: Vec<_> = (0..4)
        .map(|_| {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    &test_name("concurrent_processes_leave_one_complete_entry"),
                ])
                .env(CHILD, &dir)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
    }
    only_entry(&dir);
    let cache = KernelCache::new(Some(dir.clone()));
    run_checked(&cache, &graph(11));
    assert_eq!(cache.stats(), stats(0, 0, 1, 0));
    std::fs::remove_dir_all(&dir).unwrap();
}
