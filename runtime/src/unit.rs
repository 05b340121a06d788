//! What a TorchScript program is made of beyond one graph: named functions and classes (modules
//! are classes whose instances hold parameters, buffers and submodules), collected in a
//! compilation unit, as PyTorch's `torch::jit::CompilationUnit` holds them.
//!
//! The source frontend and the archive loader fill a unit; the interpreter resolves
//! `prim::CallFunction`, `prim::CallMethod` and attribute slots through it. Classes grow while
//! they are compiled (attributes are found in `__init__`, methods are added one by one), so
//! their tables sit behind locks; once a program runs they are only read.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use ember_dialects::types::Type;
use ember_dialects::Graph;
use indexmap::IndexMap;

use crate::interpreter::{BuildError, Code, MissingOperators};
use crate::ivalue::{IValue, Object};

/// A compiled function or method: its qualified name and its graph. A method's first input is
/// `self`. Its interpreter code is built on first use and kept ([`Function::code`]).
pub struct Function {
    pub qualname: String,
    pub graph: Graph,
    code: OnceLock<Result<Arc<Code>, BuildError>>,
}

impl Function {
    pub fn new(qualname: impl Into<String>, graph: Graph) -> Function {
        Function {
            qualname: qualname.into(),
            graph,
            code: OnceLock::new(),
        }
    }

    /// The function's code, built once (with `unit` resolving the calls, attributes and
    /// objects it uses) and shared by every caller. A function that calls itself, directly or
    /// through others, is refused here: TorchScript has no recursion.
    pub fn code(&self, unit: Option<&Arc<CompilationUnit>>) -> Result<Arc<Code>, BuildError> {
        if let Some(code) = self.code.get() {
            return code.clone();
        }
        let built = crate::interpreter::build_function_code(self, unit);
        // Another thread may have built it meanwhile: the first result is the one kept.
        let _ = self.code.set(built.clone());
        self.code.get().cloned().unwrap_or(built)
    }

    /// The name callers see in tracebacks: the last component of the qualified name for
    /// methods and functions alike.
    pub fn name(&self) -> &str {
        self.qualname.rsplit('.').next().unwrap_or(&self.qualname)
    }
}

/// Whether an attribute of a module is a parameter, a buffer or a plain attribute.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AttributeKind {
    Regular,
    Parameter,
    Buffer,
}

/// One attribute slot of a class.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassAttribute {
    pub name: String,
    pub ty: Type,
    pub kind: AttributeKind,
}

/// A TorchScript class (`__torch__.Foo`): attribute slots in order, constants, methods.
pub struct ClassType {
    pub qualname: String,
    /// Instances are `torch.nn.Module`s.
    pub is_module: bool,
    /// An interface (`@torch.jit.interface`): its methods are declarations only, and its
    /// values are objects of any class that has methods of those names.
    pub is_interface: bool,
    pub attributes: RwLock<Vec<ClassAttribute>>,
    /// Module constants (`__constants__`, `Final`), folded into code that reads them.
    pub constants: RwLock<IndexMap<String, IValue>>,
    pub methods: RwLock<IndexMap<String, Arc<Function>>>,
}

impl ClassType {
    pub fn new(qualname: impl Into<String>, is_module: bool) -> ClassType {
        ClassType {
            qualname: qualname.into(),
            is_module,
            is_interface: false,
            attributes: RwLock::new(Vec::new()),
            constants: RwLock::new(IndexMap::new()),
            methods: RwLock::new(IndexMap::new()),
        }
    }

    /// An interface type; its methods are added as declarations.
    pub fn interface(qualname: impl Into<String>, is_module: bool) -> ClassType {
        ClassType {
            is_interface: true,
            ..ClassType::new(qualname, is_module)
        }
    }

    /// Whether objects of `class` are values of this interface: `class` has a method of
    /// each name this interface declares (PyTorch also compares their schemas, which the
    /// compiler checked where the object became an interface value).
    pub fn is_implemented_by(&self, class: &ClassType) -> bool {
        let methods = read(&self.methods);
        let theirs = read(&class.methods);
        methods.keys().all(|m| theirs.contains_key(m))
    }

    /// The slot index of an attribute.
    pub fn attribute_slot(&self, name: &str) -> Option<usize> {
        read(&self.attributes).iter().position(|a| a.name == name)
    }

    pub fn attribute(&self, name: &str) -> Option<ClassAttribute> {
        read(&self.attributes)
            .iter()
            .find(|a| a.name == name)
            .cloned()
    }

    /// Adds an attribute slot (or returns the existing slot of that name) and its index.
    pub fn add_attribute(&self, attr: ClassAttribute) -> usize {
        let mut attrs = self.attributes.write().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = attrs.iter().position(|a| a.name == attr.name) {
            return i;
        }
        attrs.push(attr);
        attrs.len() - 1
    }

    /// Makes attribute `name` (when there is one) of kind `kind`.
    pub fn set_attribute_kind(&self, name: &str, kind: AttributeKind) {
        let mut attrs = self.attributes.write().unwrap_or_else(|e| e.into_inner());
        if let Some(a) = attrs.iter_mut().find(|a| a.name == name) {
            a.kind = kind;
        }
    }

    pub fn method(&self, name: &str) -> Option<Arc<Function>> {
        read(&self.methods).get(name).cloned()
    }

    pub fn add_method(&self, f: Arc<Function>) {
        let name = f
            .qualname
            .rsplit('.')
            .next()
            .unwrap_or(&f.qualname)
            .to_string();
        self.methods
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name, f);
    }

    pub fn constant(&self, name: &str) -> Option<IValue> {
        read(&self.constants).get(name).cloned()
    }

    pub fn add_constant(&self, name: impl Into<String>, value: IValue) {
        self.constants
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name.into(), value);
    }

    pub fn num_attributes(&self) -> usize {
        read(&self.attributes).len()
    }

    /// A new instance: every slot None until it is set, as `prim::CreateObject` makes one.
    pub fn instantiate(self: &Arc<Self>) -> Arc<Object> {
        Arc::new(Object::new(self.clone()))
    }
}

/// Every function and class of a program, by qualified name, in definition order.
#[derive(Default)]
pub struct CompilationUnit {
    functions: RwLock<IndexMap<String, Arc<Function>>>,
    classes: RwLock<IndexMap<String, Arc<ClassType>>>,
    /// NamedTuple and Enum types by qualified name (PyTorch's unit registers every named
    /// type): code read back (an archive's, a printed function's) names them.
    named_types: RwLock<IndexMap<String, Type>>,
    /// Whether the code of its functions refuses nodes without an operation or raises when
    /// they run (set once, by whoever loads the program, before any code is built).
    raise_missing_when_run: AtomicBool,
}

impl CompilationUnit {
    pub fn new() -> CompilationUnit {
        CompilationUnit::default()
    }

    pub fn add_function(&self, f: Function) -> Arc<Function> {
        let f = Arc::new(f);
        self.functions
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(f.qualname.clone(), f.clone());
        f
    }

    /// Puts `f` in place of the function of the same name (or adds it last).
    pub fn replace_function(&self, f: Arc<Function>) {
        self.functions
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(f.qualname.clone(), f);
    }

    pub fn function(&self, qualname: &str) -> Option<Arc<Function>> {
        read(&self.functions).get(qualname).cloned()
    }

    /// Functions in definition order.
    pub fn functions(&self) -> Vec<Arc<Function>> {
        read(&self.functions).values().cloned().collect()
    }

    pub fn add_class(&self, c: ClassType) -> Arc<ClassType> {
        self.add_class_arc(Arc::new(c))
    }

    /// Adds a class another unit holds too (its methods and objects stay shared).
    pub fn add_class_arc(&self, c: Arc<ClassType>) -> Arc<ClassType> {
        self.classes
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(c.qualname.clone(), c.clone());
        c
    }

    pub fn class(&self, qualname: &str) -> Option<Arc<ClassType>> {
        read(&self.classes).get(qualname).cloned()
    }

    /// Classes in definition order.
    pub fn classes(&self) -> Vec<Arc<ClassType>> {
        read(&self.classes).values().cloned().collect()
    }

    /// Registers a NamedTuple (`Type::Tuple` with its qualified name) or `Type::Enum` type.
    pub fn add_named_type(&self, qualname: impl Into<String>, ty: Type) {
        self.named_types
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(qualname.into(), ty);
    }

    pub fn named_type(&self, qualname: &str) -> Option<Type> {
        read(&self.named_types).get(qualname).cloned()
    }

    /// What building its functions' code does with a node without an operation.
    pub fn missing_operators(&self) -> MissingOperators {
        if self.raise_missing_when_run.load(Ordering::Relaxed) {
            MissingOperators::RaiseWhenRun
        } else {
            MissingOperators::Refuse
        }
    }

    /// Sets what building its functions' code does with a node without an operation; code
    /// already built keeps what it was built with.
    pub fn set_missing_operators(&self, missing: MissingOperators) {
        self.raise_missing_when_run
            .store(missing == MissingOperators::RaiseWhenRun, Ordering::Relaxed);
    }

    /// NamedTuple and Enum types in definition order.
    pub fn named_types(&self) -> Vec<Type> {
        read(&self.named_types).values().cloned().collect()
    }
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|e| e.into_inner())
}
