//! `ember.Module` (a loaded module object: methods callable, attributes and submodules
//! readable, `graph`/`code` printed, `save`) and `ember.Function` (a function of TorchScript
//! source or graph text). Calls release the GIL while the interpreter runs.

use std::sync::Arc;

use ember_compiler::model::Model;
use ember_runtime::interpreter::{run, RuntimeError};
use ember_runtime::ivalue::{IValue, Object};
use ember_runtime::unit::{AttributeKind, Function as EmberFunction};
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::convert::{from_ivalue, to_ivalue, Style};
use crate::{CompileError, RunError};

/// A loaded model: what every module object and function of it shares.
pub struct Loaded {
    pub model: Model,
}

#[pyclass(frozen, module = "ember")]
pub struct Module {
    pub loaded: Arc<Loaded>,
    pub object: Arc<Object>,
}

impl Module {
    pub fn new(loaded: Arc<Loaded>, object: Arc<Object>) -> Module {
        Module { loaded, object }
    }

    fn is_root(&self) -> bool {
        self.loaded
            .model
            .module
            .as_ref()
            .is_some_and(|m| Arc::ptr_eq(m, &self.object))
    }

    fn method(&self, name: &str) -> Option<Arc<EmberFunction>> {
        self.object
            .class
            .methods
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .cloned()
    }

    /// Calls method `name` with `args` (and its defaults, for the root module's methods).
    fn call_method(
        &self,
        py: Python<'_>,
        name: &str,
        args: &Bound<'_, PyTuple>,
    ) -> PyResult<Py<PyAny>> {
        let f = self.method(name).ok_or_else(|| {
            PyAttributeError::new_err(format!(
                "'{}' has no method '{name}'",
                self.object.class.qualname
            ))
        })?;
        let mut style = Style::default();
        let mut inputs = vec![IValue::Object(self.object.clone())];
        for a in args.iter() {
            inputs.push(to_ivalue(&a, &mut style)?);
        }
        let missing = f.graph.inputs().len() > inputs.len();
        if missing && self.is_root() {
            if let Ok(entry) = self.loaded.model.entry(Some(name)) {
                let given = inputs.len() - 1;
                let d = &entry.defaults;
                if given < d.len() && d[given..].iter().all(Option::is_some) {
                    inputs.extend(d[given..].iter().flatten().cloned());
                }
            }
        }
        call(py, &self.loaded, &f, inputs, style)
    }
}

/// Runs `f` on `inputs` without the GIL and converts the result.
pub fn call(
    py: Python<'_>,
    loaded: &Arc<Loaded>,
    f: &Arc<EmberFunction>,
    inputs: Vec<IValue>,
    style: Style,
) -> PyResult<Py<PyAny>> {
    let unit = loaded.model.unit.clone();
    let expected = f.graph.inputs().len();
    if inputs.len() != expected {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{}() takes {} arguments, {} given",
            f.name(),
            expected,
            inputs.len()
        )));
    }
    let outputs = py
        .detach(|| -> Result<Vec<IValue>, String> {
            let code = f.code(Some(&unit)).map_err(|e| e.message)?;
            // On the calling thread: handing a small call to the kernel pool costs more than
            // the call; the kernels still spread large work over the pool.
            run(&code, inputs).map_err(|e: RuntimeError| {
                let mut message = e.message.clone();
                for entry in &e.call_stack {
                    message.push_str(&format!("\n  {entry}"));
                }
                message
            })
        })
        .map_err(RunError::new_err)?;
    let result = match outputs.len() {
        1 => outputs.into_iter().next().expect("one output"),
        _ => IValue::tuple(outputs),
    };
    from_ivalue(py, result, style, loaded)
}

#[pymethods]
impl Module {
    #[pyo3(signature = (*args))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        self.call_method(py, "forward", args)
    }

    /// A method (callable) or an attribute (tensors as arrays, submodules as modules).
    fn __getattr__(slf: &Bound<'_, Self>, name: &str) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let this = slf.get();
        if this.method(name).is_some() {
            return Ok(Py::new(
                py,
                Method {
                    module: slf.clone().unbind(),
                    name: name.to_string(),
                },
            )?
            .into_any());
        }
        let index = this
            .object
            .class
            .attributes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .position(|a| a.name == name);
        let index = index.ok_or_else(|| {
            PyAttributeError::new_err(format!(
                "'{}' has no attribute '{name}'",
                this.object.class.qualname
            ))
        })?;
        let value = this.object.slot(index).unwrap_or(IValue::None);
        from_ivalue(py, value, Style::default(), &this.loaded)
    }

    /// `forward`'s graph, as PyTorch prints `module.graph`.
    #[getter]
    fn graph(&self) -> PyResult<String> {
        let f = self
            .method("forward")
            .ok_or_else(|| PyAttributeError::new_err("the module has no forward"))?;
        Ok(f.graph.to_string())
    }

    /// `forward` as TorchScript code, as PyTorch prints `module.code`.
    #[getter]
    fn code(&self) -> PyResult<String> {
        let f = self
            .method("forward")
            .ok_or_else(|| PyAttributeError::new_err("the module has no forward"))?;
        ember_compiler::frontend::python_print::print_method(
            &without_dead_code(&f.graph),
            "forward",
            None,
        )
        .map_err(CompileError::new_err)
    }

    /// `(name, array)` of every parameter, submodules' included (`conv.weight`), as
    /// `torch.nn.Module.named_parameters()` lists them.
    fn named_parameters(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let mut out = Vec::new();
        collect_parameters(&self.object, "", &mut out);
        let items = out
            .into_iter()
            .map(|(n, v)| {
                let v = from_ivalue(py, v, Style::default(), &self.loaded)?;
                Ok(PyTuple::new(py, [n.into_pyobject(py)?.into_any().unbind(), v])?.unbind())
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, items)?.unbind())
    }

    /// Writes the module as an archive `torch.jit.load` reads.
    fn save(&self, path: &Bound<'_, PyAny>) -> PyResult<()> {
        if !self.is_root() {
            return Err(CompileError::new_err(
                "only a loaded module itself can be saved, not one of its submodules",
            ));
        }
        let path: String = path
            .py()
            .import("os")?
            .call_method1("fspath", (path,))?
            .extract()?;
        let path = std::path::Path::new(&path);
        let bytes = ember_compiler::export::write_archive(
            &self.loaded.model,
            &ember_compiler::export::folder_name(path),
        )
        .map_err(CompileError::new_err)?;
        ember_compiler::export::save(path, &bytes).map_err(CompileError::new_err)
    }

    fn __repr__(&self) -> String {
        format!("<ember.Module {}>", self.object.class.qualname)
    }
}

/// `g` as code prints it: without the loader's unused `prim::Uninitialized` values.
fn without_dead_code(g: &ember_dialects::Graph) -> ember_dialects::Graph {
    let mut g = g.clone();
    let _ = ember_compiler::passes::dce::run(
        &mut g,
        &mut ember_compiler::passes::PassContext::unlimited("dce"),
    );
    g
}

fn collect_parameters(object: &Arc<Object>, prefix: &str, out: &mut Vec<(String, IValue)>) {
    let attrs = object
        .class
        .attributes
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    for (i, a) in attrs.iter().enumerate() {
        let value = object.slot(i).unwrap_or(IValue::None);
        match (&a.kind, &value) {
            (AttributeKind::Parameter, IValue::Tensor(_)) => {
                out.push((format!("{prefix}{}", a.name), value))
            }
            (_, IValue::Object(o)) if o.class.is_module => {
                collect_parameters(o, &format!("{prefix}{}.", a.name), out)
            }
            _ => {}
        }
    }
}

/// A bound method of a module (`m.forward`, `m.other_method`).
#[pyclass(frozen, module = "ember")]
pub struct Method {
    module: Py<Module>,
    name: String,
}

#[pymethods]
impl Method {
    #[pyo3(signature = (*args))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        self.module.get().call_method(py, &self.name, args)
    }

    #[getter]
    fn graph(&self) -> PyResult<String> {
        let m = self.module.get();
        Ok(m.method(&self.name).expect("a method").graph.to_string())
    }
}

/// A function of TorchScript source (`ember.compile_source`) or graph text.
#[pyclass(frozen, module = "ember")]
pub struct Function {
    pub loaded: Arc<Loaded>,
    pub function: Arc<EmberFunction>,
    pub defaults: Vec<Option<IValue>>,
}

#[pymethods]
impl Function {
    #[pyo3(signature = (*args))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        let mut style = Style::default();
        let mut inputs = args
            .iter()
            .map(|a| to_ivalue(&a, &mut style))
            .collect::<PyResult<Vec<_>>>()?;
        let d = &self.defaults;
        let given = inputs.len();
        if given < d.len() && d[given..].iter().all(Option::is_some) {
            inputs.extend(d[given..].iter().flatten().cloned());
        }
        call(py, &self.loaded, &self.function, inputs, style)
    }

    #[getter]
    fn graph(&self) -> String {
        self.function.graph.to_string()
    }

    #[getter]
    fn code(&self) -> PyResult<String> {
        ember_compiler::frontend::python_print::print_function(
            &without_dead_code(&self.function.graph),
            self.function.name(),
            None,
        )
        .map_err(CompileError::new_err)
    }

    fn __repr__(&self) -> String {
        format!("<ember.Function {}>", self.function.qualname)
    }
}

/// The functions of a source file, by name (`unit.f(x)`).
#[pyclass(frozen, module = "ember")]
pub struct Unit {
    pub loaded: Arc<Loaded>,
}

#[pymethods]
impl Unit {
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<Function>> {
        let entry = self
            .loaded
            .model
            .entry(Some(name))
            .map_err(PyAttributeError::new_err)?;
        Py::new(
            py,
            Function {
                loaded: self.loaded.clone(),
                function: entry.function.clone(),
                defaults: entry.defaults.clone(),
            },
        )
    }

    /// The names of the source's functions.
    fn functions(&self) -> Vec<String> {
        self.loaded
            .model
            .entries
            .iter()
            .map(|e| e.name.clone())
            .collect()
    }
}
