//! `import ember`: TorchScript archives, source and graphs loaded, run, optimized and saved
//! from Python, with NumPy arrays and torch tensors shared without copies where they can be
//! (see convert.rs). Errors are `ember.Error` subclasses carrying the CLI's messages.

mod convert;
mod module;

use std::sync::Arc;

use ember_compiler::model::{Model, ModelKind, OpenOptions};
use ember_compiler::passes::PassConfig;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use convert::{source_of, Source};
use module::{Function, Loaded, Method, Module, Unit};

create_exception!(ember, Error, PyException, "Every error Ember raises.");
create_exception!(
    ember,
    LoadError,
    Error,
    "A model that cannot be read or loaded."
);
create_exception!(
    ember,
    CompileError,
    Error,
    "Source, graphs or passes that fail to compile."
);
create_exception!(
    ember,
    RunError,
    Error,
    "An error raised while a method runs."
);

/// Loads a TorchScript archive (`.pt`) from a path or from bytes.
#[pyfunction]
fn load(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Py<Module>> {
    let model = match source_of(source)? {
        Source::Bytes(bytes) => Model::from_bytes(
            "<bytes>",
            ModelKind::Archive,
            &bytes,
            &OpenOptions::default(),
        ),
        Source::Path(path) => Model::open(&path, &OpenOptions::default()),
    }
    .map_err(LoadError::new_err)?;
    module_of(py, model)
}

fn module_of(py: Python<'_>, model: Model) -> PyResult<Py<Module>> {
    let object = model
        .module
        .clone()
        .ok_or_else(|| LoadError::new_err("the file holds no module (a .pt archive does)"))?;
    Py::new(py, Module::new(Arc::new(Loaded { model }), object))
}

/// Compiles TorchScript source (functions and classes, no Python needed); its functions are
/// attributes of the result.
#[pyfunction]
fn compile_source(py: Python<'_>, source: &str) -> PyResult<Py<Unit>> {
    let model = Model::from_source("<source>", source).map_err(CompileError::new_err)?;
    Py::new(
        py,
        Unit {
            loaded: Arc::new(Loaded { model }),
        },
    )
}

/// Compiles the TorchScript source file at `path`.
#[pyfunction]
fn script_file(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<Py<Unit>> {
    let path: String = py
        .import("os")?
        .call_method1("fspath", (path,))?
        .extract()?;
    let text = std::fs::read_to_string(&path)
        .map_err(|e| LoadError::new_err(format!("cannot read '{path}': {e}")))?;
    let model = Model::from_source(&path, &text).map_err(CompileError::new_err)?;
    Py::new(
        py,
        Unit {
            loaded: Arc::new(Loaded { model }),
        },
    )
}

/// A graph in PyTorch's printed format, callable.
#[pyfunction]
fn load_graph(py: Python<'_>, text: &str) -> PyResult<Py<Function>> {
    let model = Model::from_graph_text("<graph>", text).map_err(CompileError::new_err)?;
    let entry = model.entry(None).map_err(CompileError::new_err)?;
    let (function, defaults) = (entry.function.clone(), entry.defaults.clone());
    Py::new(
        py,
        Function {
            loaded: Arc::new(Loaded { model }),
            function,
            defaults,
        },
    )
}

/// An optimized copy of a loaded module: frozen for inference (as `torch.jit.freeze`, with
/// Ember's fused kernels) when `freeze`, else every method through the optimization passes.
#[pyfunction]
#[pyo3(signature = (module, freeze = true))]
fn optimize(py: Python<'_>, module: &Bound<'_, Module>, freeze: bool) -> PyResult<Py<Module>> {
    let m = module.get();
    let path = m.loaded.model.name.clone();
    let config = PassConfig::default();
    let reopened = |m: &Model| -> Result<Model, String> {
        // A fresh copy: the passes rewrite graphs the original module keeps running.
        let bytes = ember_compiler::export::write_archive(m, "model")?;
        Model::from_bytes(&path, ModelKind::Archive, &bytes, &OpenOptions::default())
    };
    let optimized = py
        .detach(|| -> Result<Model, String> {
            if freeze {
                let (graph, _) =
                    ember_compiler::freeze::freeze_graph(&m.loaded.model, "forward", &config)?;
                return ember_compiler::export::frozen_model(&m.loaded.model, graph);
            }
            let mut copy = reopened(&m.loaded.model)?;
            copy.optimize_graphs(&config)?;
            Ok(copy)
        })
        .map_err(CompileError::new_err)?;
    module_of(py, optimized)
}

#[pymodule]
fn ember(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("LoadError", py.get_type::<LoadError>())?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("RunError", py.get_type::<RunError>())?;
    m.add_class::<Module>()?;
    m.add_class::<Method>()?;
    m.add_class::<Function>()?;
    m.add_class::<Unit>()?;
    m.add_class::<convert::TensorMemory>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(compile_source, m)?)?;
    m.add_function(wrap_pyfunction!(script_file, m)?)?;
    m.add_function(wrap_pyfunction!(load_graph, m)?)?;
    m.add_function(wrap_pyfunction!(optimize, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
