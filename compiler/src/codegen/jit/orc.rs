//! The process's one ORC LLJIT: loads relocatable objects (compiled here or read from the
//! kernel cache) and hands back the address of a symbol. Objects are never unloaded, so a
//! function pointer stays valid for the life of the process; the number of objects is bounded
//! by the executor's bound on specializations.
//!
//! Symbols from the process (libm's `exp`, `powf`, ... for float64 math) resolve through a
//! generator over the process's own symbol table.

use std::ffi::{CStr, CString};
use std::sync::{Mutex, OnceLock};

use hashbrown::HashMap;
use inkwell::llvm_sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy;
use inkwell::llvm_sys::error::{LLVMDisposeErrorMessage, LLVMErrorRef, LLVMGetErrorMessage};
use inkwell::llvm_sys::orc2::lljit::{
    LLVMOrcCreateLLJIT, LLVMOrcCreateLLJITBuilder, LLVMOrcLLJITAddObjectFile,
    LLVMOrcLLJITGetGlobalPrefix, LLVMOrcLLJITGetMainJITDylib, LLVMOrcLLJITLookup, LLVMOrcLLJITRef,
};
use inkwell::llvm_sys::orc2::{
    LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess, LLVMOrcJITDylibAddGenerator,
};
use inkwell::targets::{InitializationConfig, Target};

struct Engine {
    jit: LLVMOrcLLJITRef,
    /// Symbols already loaded: an object is added once, later loads reuse its address.
    loaded: HashMap<String, u64>,
}

// SAFETY: the LLJIT is only touched under the mutex below.
unsafe impl Send for Engine {}

fn take_error(err: LLVMErrorRef) -> Result<(), String> {
    if err.is_null() {
        return Ok(());
    }
    // SAFETY: a non-null error is consumed by LLVMGetErrorMessage, whose string we free.
    unsafe {
        let msg = LLVMGetErrorMessage(err);
        let text = CStr::from_ptr(msg).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(msg);
        Err(text)
    }
}

fn engine() -> Result<&'static Mutex<Engine>, String> {
    static ENGINE: OnceLock<Result<Mutex<Engine>, String>> = OnceLock::new();
    ENGINE
        .get_or_init(|| {
            Target::initialize_native(&InitializationConfig::default())?;
            let mut jit: LLVMOrcLLJITRef = std::ptr::null_mut();
            // SAFETY: plain LLVM C API calls; the builder is consumed by LLVMOrcCreateLLJIT.
            unsafe {
                take_error(LLVMOrcCreateLLJIT(&mut jit, LLVMOrcCreateLLJITBuilder()))?;
                let mut generator = std::ptr::null_mut();
                take_error(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                    &mut generator,
                    LLVMOrcLLJITGetGlobalPrefix(jit),
                    None,
                    std::ptr::null_mut(),
                ))?;
                LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit), generator);
            }
            Ok(Mutex::new(Engine {
                jit,
                loaded: HashMap::new(),
            }))
        })
        .as_ref()
        .map_err(|e| format!("cannot start the LLVM JIT: {e}"))
}

/// Links `object` (a relocatable x86-64 ELF object defining `symbol`) into the process and
/// returns the address of `symbol`. Loading the same symbol again returns the first address.
pub fn load(symbol: &str, object: &[u8]) -> Result<u64, String> {
    let mut engine = engine()?.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&addr) = engine.loaded.get(symbol) {
        return Ok(addr);
    }
    let name = CString::new(symbol).map_err(|_| "symbol name with a NUL byte".to_string())?;
    let mut addr = 0;
    // SAFETY: the buffer is a copy that the JIT takes ownership of; the object was produced by
    // this process's code generator (or read from a cache entry whose checksum matched).
    unsafe {
        let buffer = LLVMCreateMemoryBufferWithMemoryRangeCopy(
            object.as_ptr() as *const _,
            object.len(),
            name.as_ptr(),
        );
        let jd = LLVMOrcLLJITGetMainJITDylib(engine.jit);
        take_error(LLVMOrcLLJITAddObjectFile(engine.jit, jd, buffer))
            .map_err(|e| format!("JIT: cannot add the object of {symbol}: {e}"))?;
        take_error(LLVMOrcLLJITLookup(engine.jit, &mut addr, name.as_ptr()))
            .map_err(|e| format!("JIT: cannot link {symbol}: {e}"))?;
    }
    if addr == 0 {
        return Err(format!("JIT: {symbol} resolved to a null address"));
    }
    engine.loaded.insert(symbol.to_string(), addr);
    Ok(addr)
}

/// Defines `symbols` (name, address) in the JIT, once per name: functions of this process that
/// loaded objects call (the runtime's `ember_rt_*` entry points), whether or not the
/// executable exports them.
pub fn define_absolute(symbols: &[(&str, u64)]) -> Result<(), String> {
    use inkwell::llvm_sys::orc2::lljit::LLVMOrcLLJITMangleAndIntern;
    use inkwell::llvm_sys::orc2::{
        LLVMJITEvaluatedSymbol, LLVMJITSymbolFlags, LLVMJITSymbolGenericFlags,
        LLVMOrcAbsoluteSymbols, LLVMOrcCSymbolMapPair, LLVMOrcJITDylibDefine,
    };
    let mut engine = engine()?.lock().unwrap_or_else(|e| e.into_inner());
    let mut pairs = Vec::new();
    for &(name, addr) in symbols {
        if engine.loaded.contains_key(name) {
            continue;
        }
        let cname = CString::new(name).map_err(|_| "symbol name with a NUL byte".to_string())?;
        // SAFETY: interning a NUL-terminated name in the JIT's string pool.
        let interned = unsafe { LLVMOrcLLJITMangleAndIntern(engine.jit, cname.as_ptr()) };
        pairs.push(LLVMOrcCSymbolMapPair {
            Name: interned,
            Sym: LLVMJITEvaluatedSymbol {
                Address: addr,
                Flags: LLVMJITSymbolFlags {
                    GenericFlags: LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsExported
                        as u8
                        | LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsCallable as u8,
                    TargetFlags: 0,
                },
            },
        });
        engine.loaded.insert(name.to_string(), addr);
    }
    if pairs.is_empty() {
        return Ok(());
    }
    // SAFETY: the materialization unit takes the interned names; the JITDylib takes the unit.
    unsafe {
        let unit = LLVMOrcAbsoluteSymbols(pairs.as_mut_ptr(), pairs.len());
        let jd = LLVMOrcLLJITGetMainJITDylib(engine.jit);
        take_error(LLVMOrcJITDylibDefine(jd, unit))
    }
}
