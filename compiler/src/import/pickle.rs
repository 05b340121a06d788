//! A restricted unpickler for the pickles TorchScript archives hold (`data.pkl`,
//! `constants.pkl`, `*.debug_pkl`): protocol 2, an explicit allowlist of opcodes and of
//! globals, the same set `torch/csrc/jit/serialization/unpickler.cpp` accepts. Everything else
//! is refused with a message naming it; nothing named in a pickle is ever called.
//!
//! Values come out as runtime [`IValue`]s. Two kinds need the classes of the archive's code/
//! to be complete, so they come out in a documented provisional form the module builder
//! resolves later:
//! - an instance of a `__torch__` class (a module, a custom class) is an [`IValue::Object`]
//!   whose class (a placeholder `ClassType` with no attributes) names the qualified class and whose slots are exactly ONE value:
//!   the pickled state. For ordinary classes the state is a `Dict` of attribute name to value;
//!   for classes with `__setstate__` it is whatever their `__getstate__` returned. Read it
//!   with [`PickledObject::from_ivalue`].
//! - a value of a `__torch__` enum is an [`IValue::Enum`] with the class name, the value, and
//!   an empty `name` (the member name is known only from the class definition).
//!
//! The unpickler first builds a graph of nodes in an arena (lists, dicts and objects are
//! mutated by later opcodes), then converts it to IValues once, preserving sharing, refusing
//! reference cycles and nesting deeper than [`Limits::max_nesting`].

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use ember_runtime::ivalue::{Dict, DictKey, EnumValue, IValue, Object};
use ember_runtime::tensor::{DType, Device, Storage};
use ember_runtime::unit::ClassType;

use super::error::ImportError;
use super::limits::Limits;
use super::storage::{rebuild_tensor, storage_dtype, storage_nbytes, StorageLoader};

/// A `__torch__` object as the unpickler produces it: its class and its pickled state.
#[derive(Clone, Debug)]
pub struct PickledObject {
    pub class: String,
    pub state: IValue,
}

impl PickledObject {
    /// The class and state of an object fresh from the unpickler, `None` for other values.
    pub fn from_ivalue(v: &IValue) -> Option<PickledObject> {
        match v {
            IValue::Object(o) => object_state(o).map(|state| PickledObject {
                class: o.class_name().to_string(),
                state,
            }),
            _ => None,
        }
    }
}

/// The pickled state of an object fresh from the unpickler (its only slot).
pub fn object_state(o: &Object) -> Option<IValue> {
    let slots = o.slots.read().unwrap_or_else(|e| e.into_inner());
    match slots.as_slice() {
        [state] => Some(state.clone()),
        _ => None,
    }
}

/// The result of unpickling: the root value and the storages its tensors use, by key.
#[derive(Debug)]
pub struct Unpickled {
    pub value: IValue,
    pub storages: Vec<(String, DType, Storage)>,
}

/// Unpickles `bytes`, loading storages named by persistent ids through `storages`.
pub fn unpickle(
    bytes: &[u8],
    storages: &mut dyn StorageLoader,
    limits: &Limits,
) -> Result<Unpickled, ImportError> {
    if bytes.len() as u64 > limits.max_pickle_size {
        return Err(ImportError::new(format!(
            "pickle of {} bytes is larger than the limit of {}",
            bytes.len(),
            limits.max_pickle_size
        )));
    }
    let mut u = Unpickler {
        bytes,
        pos: 0,
        nodes: Vec::new(),
        stack: Vec::new(),
        marks: Vec::new(),
        memo: HashMap::new(),
        storages,
        loaded: HashMap::new(),
        loaded_order: Vec::new(),
    };
    let root = u.run()?;
    let mut conv = Converter {
        nodes: &u.nodes,
        done: vec![Conv::Todo; u.nodes.len()],
        max_nesting: limits.max_nesting,
    };
    let value = conv.convert(root, 0)?;
    let storages = u
        .loaded_order
        .iter()
        .map(|k| {
            let (d, s) = &u.loaded[k];
            (k.clone(), *d, s.clone())
        })
        .collect();
    Ok(Unpickled { value, storages })
}

type Id = usize;

/// What a REDUCE produced: a new value, or one already in the arena (shared).
enum Reduced {
    New(Node),
    Existing(Id),
}

/// A callable or class a GLOBAL opcode named, from the allowlist.
#[derive(Clone, Debug)]
enum Global {
    RebuildTensorV2,
    ListOf(ListKind),
    RestoreTypeTag,
    OrderedDict,
    Device,
    Complex,
    /// `torch.<X>Storage`: only used inside persistent ids.
    StorageType(DType),
    /// A class (or enum) of the archive's code/: `__torch__.…`.
    TorchClass(String),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum ListKind {
    Int,
    Tensor,
    Double,
    Bool,
}

impl ListKind {
    fn helper(self) -> &'static str {
        match self {
            ListKind::Int => "build_intlist",
            ListKind::Tensor => "build_tensorlist",
            ListKind::Double => "build_doublelist",
            ListKind::Bool => "build_boollist",
        }
    }
}

#[derive(Clone, Debug)]
enum Node {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Arc<String>),
    Tuple(Vec<Id>),
    List(Vec<Id>),
    Dict(Vec<(Id, Id)>),
    Global(Global),
    /// A storage from a persistent id: only used as the first argument of a tensor rebuild.
    Storage(DType, Storage),
    /// A finished leaf value (tensor, device, complex, dtype).
    Leaf(IValue),
    /// An instance of a `__torch__` class; its state arrives with BUILD.
    Object(String, Option<Id>),
    Enum(String, Id),
}

impl Node {
    fn kind(&self) -> &'static str {
        match self {
            Node::None => "None",
            Node::Bool(_) => "bool",
            Node::Int(_) => "int",
            Node::Float(_) => "float",
            Node::Str(_) => "str",
            Node::Tuple(_) => "tuple",
            Node::List(_) => "list",
            Node::Dict(_) => "dict",
            Node::Global(_) => "global",
            Node::Storage(..) => "storage",
            Node::Leaf(v) => v.kind_name(),
            Node::Object(..) => "object",
            Node::Enum(..) => "enum",
        }
    }
}

struct Unpickler<'a, 'b> {
    bytes: &'a [u8],
    pos: usize,
    nodes: Vec<Node>,
    stack: Vec<Id>,
    marks: Vec<usize>,
    memo: HashMap<u32, Id>,
    storages: &'b mut dyn StorageLoader,
    loaded: HashMap<String, (DType, Storage)>,
    loaded_order: Vec<String>,
}

/// Opcode bytes, with the names pickletools gives them.
mod op {
    pub const PROTO: u8 = 0x80;
    pub const STOP: u8 = b'.';
    pub const MARK: u8 = b'(';
    pub const EMPTY_LIST: u8 = b']';
    pub const EMPTY_TUPLE: u8 = b')';
    pub const EMPTY_DICT: u8 = b'}';
    pub const BINPUT: u8 = b'q';
    pub const LONG_BINPUT: u8 = b'r';
    pub const BINGET: u8 = b'h';
    pub const LONG_BINGET: u8 = b'j';
    pub const NEWTRUE: u8 = 0x88;
    pub const NEWFALSE: u8 = 0x89;
    pub const NONE: u8 = b'N';
    pub const BININT1: u8 = b'K';
    pub const BININT2: u8 = b'M';
    pub const BININT: u8 = b'J';
    pub const LONG1: u8 = 0x8a;
    pub const BINUNICODE: u8 = b'X';
    pub const BINFLOAT: u8 = b'G';
    pub const TUPLE: u8 = b't';
    pub const TUPLE1: u8 = 0x85;
    pub const TUPLE2: u8 = 0x86;
    pub const TUPLE3: u8 = 0x87;
    pub const APPEND: u8 = b'a';
    pub const APPENDS: u8 = b'e';
    pub const LIST: u8 = b'l';
    pub const DICT: u8 = b'd';
    pub const SETITEM: u8 = b's';
    pub const SETITEMS: u8 = b'u';
    pub const GLOBAL: u8 = b'c';
    pub const NEWOBJ: u8 = 0x81;
    pub const BUILD: u8 = b'b';
    pub const REDUCE: u8 = b'R';
    pub const BINPERSID: u8 = b'Q';
}

/// The name of any pickle opcode, for messages about refused ones.
fn opcode_name(b: u8) -> Option<&'static str> {
    Some(match b {
        b'(' => "MARK",
        b'.' => "STOP",
        b'0' => "POP",
        b'1' => "POP_MARK",
        b'2' => "DUP",
        b'F' => "FLOAT",
        b'I' => "INT",
        b'J' => "BININT",
        b'K' => "BININT1",
        b'L' => "LONG",
        b'M' => "BININT2",
        b'N' => "NONE",
        b'P' => "PERSID",
        b'Q' => "BINPERSID",
        b'R' => "REDUCE",
        b'S' => "STRING",
        b'T' => "BINSTRING",
        b'U' => "SHORT_BINSTRING",
        b'V' => "UNICODE",
        b'X' => "BINUNICODE",
        b'a' => "APPEND",
        b'b' => "BUILD",
        b'c' => "GLOBAL",
        b'd' => "DICT",
        b'}' => "EMPTY_DICT",
        b'e' => "APPENDS",
        b'g' => "GET",
        b'h' => "BINGET",
        b'i' => "INST",
        b'j' => "LONG_BINGET",
        b'l' => "LIST",
        b']' => "EMPTY_LIST",
        b'o' => "OBJ",
        b'p' => "PUT",
        b'q' => "BINPUT",
        b'r' => "LONG_BINPUT",
        b's' => "SETITEM",
        b't' => "TUPLE",
        b')' => "EMPTY_TUPLE",
        b'u' => "SETITEMS",
        b'G' => "BINFLOAT",
        0x80 => "PROTO",
        0x81 => "NEWOBJ",
        0x82 => "EXT1",
        0x83 => "EXT2",
        0x84 => "EXT4",
        0x85 => "TUPLE1",
        0x86 => "TUPLE2",
        0x87 => "TUPLE3",
        0x88 => "NEWTRUE",
        0x89 => "NEWFALSE",
        0x8a => "LONG1",
        0x8b => "LONG4",
        b'B' => "BINBYTES",
        b'C' => "SHORT_BINBYTES",
        0x8c => "SHORT_BINUNICODE",
        0x8d => "BINUNICODE8",
        0x8e => "BINBYTES8",
        0x8f => "EMPTY_SET",
        0x90 => "ADDITEMS",
        0x91 => "FROZENSET",
        0x92 => "NEWOBJ_EX",
        0x93 => "STACK_GLOBAL",
        0x94 => "MEMOIZE",
        0x95 => "FRAME",
        0x96 => "BYTEARRAY8",
        0x97 => "NEXT_BUFFER",
        0x98 => "READONLY_BUFFER",
        _ => return None,
    })
}

/// The longest module or class name a GLOBAL may carry.
const MAX_GLOBAL_NAME: usize = 1024;

impl Unpickler<'_, '_> {
    fn err(&self, at: usize, msg: impl std::fmt::Display) -> ImportError {
        ImportError::new(format!("pickle byte {at}: {msg}"))
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], ImportError> {
        let start = self.pos;
        match start.checked_add(n).filter(|&e| e <= self.bytes.len()) {
            Some(end) => {
                self.pos = end;
                Ok(&self.bytes[start..end])
            }
            None => Err(self.err(
                start,
                format!(
                    "unexpected end of pickle reading {what} ({n} bytes needed, {} left)",
                    self.bytes.len() - start
                ),
            )),
        }
    }

    fn u8(&mut self, what: &str) -> Result<u8, ImportError> {
        Ok(self.take(1, what)?[0])
    }

    fn u16(&mut self, what: &str) -> Result<u16, ImportError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self, what: &str) -> Result<u32, ImportError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn line(&mut self, what: &str) -> Result<String, ImportError> {
        let start = self.pos;
        let rest = &self.bytes[start..];
        let Some(n) = rest
            .iter()
            .take(MAX_GLOBAL_NAME + 1)
            .position(|&b| b == b'\n')
        else {
            if rest.len() <= MAX_GLOBAL_NAME {
                return Err(self.err(start, format!("unexpected end of pickle reading {what}")));
            }
            return Err(self.err(
                start,
                format!("{what} is longer than {MAX_GLOBAL_NAME} bytes"),
            ));
        };
        let text = &rest[..n];
        if let Some(&bad) = text
            .iter()
            .find(|&&c| !(c == b'_' || c == b'.' || c.is_ascii_alphanumeric()))
        {
            return Err(self.err(
                start,
                format!(
                    "{what} contains character {:?}; it must be a qualified Python identifier",
                    bad as char
                ),
            ));
        }
        self.pos = start + n + 1;
        Ok(String::from_utf8_lossy(text).into_owned())
    }

    fn push(&mut self, node: Node) {
        self.nodes.push(node);
        self.stack.push(self.nodes.len() - 1);
    }

    fn pop(&mut self, at: usize, name: &str) -> Result<Id, ImportError> {
        // Values below the innermost MARK belong to an enclosing container.
        let floor = self.marks.last().copied().unwrap_or(0);
        if self.stack.len() <= floor {
            return Err(self.err(
                at,
                format!(
                    "stack underflow: {name} needs a value but the stack has none above its MARK"
                ),
            ));
        }
        Ok(self.stack.pop().expect("checked above"))
    }

    fn top(&self, at: usize, name: &str) -> Result<Id, ImportError> {
        let floor = self.marks.last().copied().unwrap_or(0);
        if self.stack.len() <= floor {
            return Err(self.err(at, format!("stack underflow: {name} on an empty stack")));
        }
        Ok(*self.stack.last().expect("checked above"))
    }

    /// The values pushed since the innermost MARK, which is removed.
    fn pop_mark(&mut self, at: usize, name: &str) -> Result<Vec<Id>, ImportError> {
        let Some(start) = self.marks.pop() else {
            return Err(self.err(at, format!("{name} without a MARK")));
        };
        Ok(self.stack.split_off(start))
    }

    fn run(&mut self) -> Result<Id, ImportError> {
        if self.bytes.is_empty() {
            return Err(self.err(0, "empty pickle"));
        }
        let first = self.u8("the PROTO opcode")?;
        if first != op::PROTO {
            return Err(self.err(
                0,
                format!("expected the PROTO opcode at the start of the pickle, found byte 0x{first:02x}"),
            ));
        }
        let proto = self.u8("the protocol number")?;
        if proto != 2 {
            return Err(self.err(
                1,
                format!("unsupported pickle protocol {proto}: TorchScript archives use protocol 2"),
            ));
        }
        loop {
            let at = self.pos;
            let code = self.u8("an opcode")?;
            if code == op::STOP {
                break;
            }
            self.step(at, code)?;
        }
        if !self.marks.is_empty() {
            return Err(self.err(self.pos, "pickle ended inside a MARK"));
        }
        match self.stack.as_slice() {
            [root] => Ok(*root),
            s => Err(self.err(
                self.pos,
                format!(
                    "pickle ended with {} values on the stack, expected 1",
                    s.len()
                ),
            )),
        }
    }

    fn step(&mut self, at: usize, code: u8) -> Result<(), ImportError> {
        match code {
            op::MARK => self.marks.push(self.stack.len()),
            op::EMPTY_LIST => self.push(Node::List(Vec::new())),
            op::EMPTY_TUPLE => self.push(Node::Tuple(Vec::new())),
            op::EMPTY_DICT => self.push(Node::Dict(Vec::new())),
            op::NONE => self.push(Node::None),
            op::NEWTRUE => self.push(Node::Bool(true)),
            op::NEWFALSE => self.push(Node::Bool(false)),
            op::BININT1 => {
                let v = self.u8("BININT1")?;
                self.push(Node::Int(v as i64))
            }
            op::BININT2 => {
                let v = self.u16("BININT2")?;
                self.push(Node::Int(v as i64))
            }
            op::BININT => {
                let v = self.u32("BININT")? as i32;
                self.push(Node::Int(v as i64))
            }
            op::LONG1 => {
                let n = self.u8("LONG1 length")? as usize;
                if n > 8 {
                    return Err(
                        self.err(at, format!("LONG1 of {n} bytes does not fit a 64-bit int"))
                    );
                }
                let b = self.take(n, "LONG1")?;
                let mut buf = if b.last().is_some_and(|&x| x & 0x80 != 0) {
                    [0xffu8; 8]
                } else {
                    [0u8; 8]
                };
                buf[..n].copy_from_slice(b);
                self.push(Node::Int(i64::from_le_bytes(buf)))
            }
            op::BINFLOAT => {
                let b = self.take(8, "BINFLOAT")?;
                let v = f64::from_be_bytes(b.try_into().expect("8 bytes"));
                self.push(Node::Float(v))
            }
            op::BINUNICODE => {
                let n = self.u32("BINUNICODE length")? as usize;
                let start = self.pos;
                let b = self.take(n, "BINUNICODE")?;
                let s = match std::str::from_utf8(b) {
                    Ok(s) => s.to_string(),
                    Err(e) => {
                        return Err(self.err(start, format!("BINUNICODE string is not UTF-8: {e}")))
                    }
                };
                self.push(Node::Str(Arc::new(s)))
            }
            op::BINPUT => {
                let i = self.u8("BINPUT index")? as u32;
                let v = self.top(at, "BINPUT")?;
                self.memo.insert(i, v);
            }
            op::LONG_BINPUT => {
                let i = self.u32("LONG_BINPUT index")?;
                let v = self.top(at, "LONG_BINPUT")?;
                self.memo.insert(i, v);
            }
            op::BINGET | op::LONG_BINGET => {
                let i = if code == op::BINGET {
                    self.u8("BINGET index")? as u32
                } else {
                    self.u32("LONG_BINGET index")?
                };
                let Some(&v) = self.memo.get(&i) else {
                    return Err(self.err(
                        at,
                        format!("memo index {i} is out of range (never stored with BINPUT)"),
                    ));
                };
                self.stack.push(v);
            }
            op::TUPLE => {
                let items = self.pop_mark(at, "TUPLE")?;
                self.push(Node::Tuple(items))
            }
            op::TUPLE1 | op::TUPLE2 | op::TUPLE3 => {
                let n = (code - op::TUPLE1 + 1) as usize;
                let name = opcode_name(code).unwrap_or("TUPLE");
                let mut items = vec![0; n];
                for slot in items.iter_mut().rev() {
                    *slot = self.pop(at, name)?;
                }
                self.push(Node::Tuple(items))
            }
            op::LIST => {
                let items = self.pop_mark(at, "LIST")?;
                self.push(Node::List(items))
            }
            op::DICT => {
                let items = self.pop_mark(at, "DICT")?;
                let pairs = self.pairs(at, "DICT", items)?;
                self.push(Node::Dict(pairs))
            }
            op::APPEND => {
                let v = self.pop(at, "APPEND")?;
                let list = self.top(at, "APPEND")?;
                self.list_mut(at, "APPEND", list)?.push(v);
            }
            op::APPENDS => {
                let items = self.pop_mark(at, "APPENDS")?;
                let list = self.top(at, "APPENDS")?;
                self.list_mut(at, "APPENDS", list)?.extend(items);
            }
            op::SETITEM => {
                let v = self.pop(at, "SETITEM")?;
                let k = self.pop(at, "SETITEM")?;
                let dict = self.top(at, "SETITEM")?;
                self.dict_mut(at, "SETITEM", dict)?.push((k, v));
            }
            op::SETITEMS => {
                let items = self.pop_mark(at, "SETITEMS")?;
                let pairs = self.pairs(at, "SETITEMS", items)?;
                let dict = self.top(at, "SETITEMS")?;
                self.dict_mut(at, "SETITEMS", dict)?.extend(pairs);
            }
            op::GLOBAL => {
                let module = self.line("GLOBAL module name")?;
                let name = self.line("GLOBAL name")?;
                let g = resolve_global(&module, &name).map_err(|m| self.err(at, m))?;
                let node = match g {
                    // Dtypes are values in their own right, not callables.
                    Err(dtype) => Node::Leaf(IValue::ScalarType(dtype)),
                    Ok(g) => Node::Global(g),
                };
                self.push(node)
            }
            op::NEWOBJ => {
                let args = self.pop(at, "NEWOBJ")?;
                let cls = self.pop(at, "NEWOBJ")?;
                let class = match &self.nodes[cls] {
                    Node::Global(Global::TorchClass(c)) => c.clone(),
                    other => {
                        return Err(self.err(
                            at,
                            format!(
                            "NEWOBJ on a {} value; only `__torch__` classes may be instantiated",
                            other.kind()
                        ),
                        ))
                    }
                };
                if !matches!(&self.nodes[args], Node::Tuple(a) if a.is_empty()) {
                    return Err(self.err(
                        at,
                        format!("NEWOBJ of {class} with arguments; TorchScript objects take none"),
                    ));
                }
                self.push(Node::Object(class, None))
            }
            op::BUILD => {
                let state = self.pop(at, "BUILD")?;
                let obj = self.top(at, "BUILD")?;
                match &mut self.nodes[obj] {
                    Node::Object(_, s @ None) => *s = Some(state),
                    Node::Object(class, Some(_)) => {
                        let class = class.clone();
                        return Err(self.err(
                            at,
                            format!("BUILD on an object of {class} that already has its state"),
                        ));
                    }
                    other => {
                        let kind = other.kind();
                        return Err(
                            self.err(at, format!("BUILD on a non-object value of type {kind}"))
                        );
                    }
                }
            }
            op::REDUCE => {
                let args = self.pop(at, "REDUCE")?;
                let callable = self.pop(at, "REDUCE")?;
                match self.reduce(at, callable, args)? {
                    Reduced::New(node) => self.push(node),
                    Reduced::Existing(id) => self.stack.push(id),
                }
            }
            op::BINPERSID => {
                let pid = self.pop(at, "BINPERSID")?;
                let node = self.persistent_load(at, pid)?;
                self.push(node)
            }
            other => {
                return Err(self.err(
                    at,
                    match opcode_name(other) {
                        Some(name) => {
                            format!("opcode {name} is not allowed in a TorchScript pickle")
                        }
                        None => format!("unknown opcode 0x{other:02x}"),
                    },
                ))
            }
        }
        Ok(())
    }

    fn pairs(&self, at: usize, name: &str, items: Vec<Id>) -> Result<Vec<(Id, Id)>, ImportError> {
        if items.len() % 2 != 0 {
            return Err(self.err(
                at,
                format!(
                    "{name} with an odd number of values ({}): keys and values must pair",
                    items.len()
                ),
            ));
        }
        Ok(items.chunks_exact(2).map(|p| (p[0], p[1])).collect())
    }

    fn list_mut(&mut self, at: usize, name: &str, id: Id) -> Result<&mut Vec<Id>, ImportError> {
        let kind = self.nodes[id].kind();
        match &mut self.nodes[id] {
            Node::List(items) => Ok(items),
            _ => Err(ImportError::new(format!(
                "pickle byte {at}: {name} on a {kind}, not a list"
            ))),
        }
    }

    fn dict_mut(
        &mut self,
        at: usize,
        name: &str,
        id: Id,
    ) -> Result<&mut Vec<(Id, Id)>, ImportError> {
        let kind = self.nodes[id].kind();
        match &mut self.nodes[id] {
            Node::Dict(items) => Ok(items),
            _ => Err(ImportError::new(format!(
                "pickle byte {at}: {name} on a {kind}, not a dict"
            ))),
        }
    }

    fn tuple_args(&self, at: usize, what: &str, id: Id) -> Result<&[Id], ImportError> {
        match &self.nodes[id] {
            Node::Tuple(items) => Ok(items),
            other => Err(self.err(
                at,
                format!(
                    "{what} expects a tuple of arguments, got a {}",
                    other.kind()
                ),
            )),
        }
    }

    fn int_arg(&self, at: usize, what: &str, id: Id) -> Result<i64, ImportError> {
        match &self.nodes[id] {
            Node::Int(i) => Ok(*i),
            other => Err(self.err(at, format!("{what} must be an int, got a {}", other.kind()))),
        }
    }

    fn int_tuple(&self, at: usize, what: &str, id: Id) -> Result<Vec<i64>, ImportError> {
        self.tuple_args(at, what, id)?
            .iter()
            .map(|&i| self.int_arg(at, what, i))
            .collect()
    }

    fn reduce(&mut self, at: usize, callable: Id, args: Id) -> Result<Reduced, ImportError> {
        let g = match &self.nodes[callable] {
            Node::Global(g) => g.clone(),
            other => {
                return Err(self.err(
                    at,
                    format!(
                        "REDUCE on a {} value, which is not an allowed callable",
                        other.kind()
                    ),
                ))
            }
        };
        match g {
            Global::RebuildTensorV2 => self.rebuild_tensor(at, args).map(Reduced::New),
            Global::ListOf(kind) => {
                let what = format!("torch.jit._pickle.{}", kind.helper());
                let a = self.tuple_args(at, &what, args)?;
                let [list] = a else {
                    return Err(self.err(
                        at,
                        format!("{what} takes one list, got {} arguments", a.len()),
                    ));
                };
                let list = *list;
                let Node::List(items) = &self.nodes[list] else {
                    return Err(self.err(
                        at,
                        format!("{what} takes a list, got a {}", self.nodes[list].kind()),
                    ));
                };
                for (i, &item) in items.iter().enumerate() {
                    let ok = match (&self.nodes[item], kind) {
                        (Node::Int(_), ListKind::Int) => true,
                        (Node::Float(_), ListKind::Double) => true,
                        (Node::Bool(_), ListKind::Bool) => true,
                        (Node::Leaf(IValue::Tensor(_)), ListKind::Tensor) => true,
                        _ => false,
                    };
                    if !ok {
                        return Err(self.err(
                            at,
                            format!("{what}: element {i} is a {}", self.nodes[item].kind()),
                        ));
                    }
                }
                // The list itself is the result, as PyTorch tags it in place.
                Ok(Reduced::Existing(list))
            }
            Global::RestoreTypeTag => {
                let what = "torch.jit._pickle.restore_type_tag";
                let a = self.tuple_args(at, what, args)?;
                let [value, ty] = a else {
                    return Err(self.err(
                        at,
                        format!("{what} takes (value, type), got {} arguments", a.len()),
                    ));
                };
                if !matches!(self.nodes[*ty], Node::Str(_)) {
                    return Err(self.err(at, format!("{what}: the type must be a str")));
                }
                Ok(Reduced::Existing(*value))
            }
            Global::OrderedDict => {
                let a = self.tuple_args(at, "collections.OrderedDict", args)?;
                if !a.is_empty() {
                    return Err(self.err(
                        at,
                        "collections.OrderedDict with arguments (only the empty backward-hooks dict of a tensor is expected)",
                    ));
                }
                Ok(Reduced::New(Node::Dict(Vec::new())))
            }
            Global::Device => {
                let a = self.tuple_args(at, "torch.device", args)?;
                let [name] = a else {
                    return Err(self.err(
                        at,
                        format!("torch.device takes one str, got {} arguments", a.len()),
                    ));
                };
                let Node::Str(s) = &self.nodes[*name] else {
                    return Err(self.err(at, "torch.device takes a str"));
                };
                let d = parse_device(s).map_err(|m| self.err(at, m))?;
                Ok(Reduced::New(Node::Leaf(IValue::Device(d))))
            }
            Global::Complex => {
                let a = self.tuple_args(at, "builtins.complex", args)?;
                let parts: Vec<f64> = a
                    .iter()
                    .map(|&i| match self.nodes[i] {
                        Node::Float(f) => Ok(f),
                        Node::Int(v) => Ok(v as f64),
                        ref other => Err(self.err(
                            at,
                            format!("builtins.complex takes floats, got a {}", other.kind()),
                        )),
                    })
                    .collect::<Result<_, _>>()?;
                let [re, im] = parts[..] else {
                    return Err(self.err(
                        at,
                        format!("builtins.complex takes 2 arguments, got {}", parts.len()),
                    ));
                };
                Ok(Reduced::New(Node::Leaf(IValue::Complex(Arc::new((
                    re, im,
                ))))))
            }
            Global::StorageType(d) => Err(self.err(
                at,
                format!("REDUCE on storage type {d}: storages only appear in persistent ids"),
            )),
            // A TorchScript enum is pickled as its class applied to its value.
            Global::TorchClass(class) => Ok(Reduced::New(Node::Enum(class, args))),
        }
    }

    fn rebuild_tensor(&mut self, at: usize, args: Id) -> Result<Node, ImportError> {
        let what = "torch._utils._rebuild_tensor_v2";
        let a = self.tuple_args(at, what, args)?.to_vec();
        if a.len() != 6 && a.len() != 7 {
            return Err(self.err(
                at,
                format!("{what} takes 6 or 7 arguments, got {}", a.len()),
            ));
        }
        let (dtype, storage) = match &self.nodes[a[0]] {
            Node::Storage(d, s) => (*d, s.clone()),
            other => {
                return Err(self.err(
                    at,
                    format!(
                        "{what}: the first argument must be a storage, got a {}",
                        other.kind()
                    ),
                ))
            }
        };
        let offset = self.int_arg(at, "the storage offset", a[1])?;
        let sizes = self.int_tuple(at, "tensor sizes", a[2])?;
        let strides = self.int_tuple(at, "tensor strides", a[3])?;
        let requires_grad = match self.nodes[a[4]] {
            Node::Bool(b) => b,
            ref other => {
                return Err(self.err(
                    at,
                    format!(
                        "{what}: requires_grad must be a bool, got a {}",
                        other.kind()
                    ),
                ))
            }
        };
        if !matches!(self.nodes[a[5]], Node::Dict(_) | Node::None) {
            return Err(self.err(at, format!("{what}: backward hooks must be an OrderedDict")));
        }
        if let Some(&meta) = a.get(6) {
            match &self.nodes[meta] {
                Node::Dict(d) if d.is_empty() => {}
                Node::Dict(_) => {
                    return Err(self.err(
                        at,
                        format!(
                            "{what}: tensor metadata (conjugate/negative bits) is not supported"
                        ),
                    ))
                }
                other => {
                    return Err(self.err(
                        at,
                        format!(
                            "{what}: tensor metadata must be a dict, got a {}",
                            other.kind()
                        ),
                    ))
                }
            }
        }
        let t = rebuild_tensor(&storage, dtype, offset, &sizes, &strides, requires_grad)
            .map_err(|m| self.err(at, m))?;
        Ok(Node::Leaf(IValue::Tensor(t)))
    }

    /// A persistent id: `('storage', torch.<X>Storage, key, location, numel)`.
    fn persistent_load(&mut self, at: usize, pid: Id) -> Result<Node, ImportError> {
        let a = match &self.nodes[pid] {
            Node::Tuple(a) => a.clone(),
            other => {
                return Err(self.err(
                    at,
                    format!("persistent id is a {}, not a storage tuple", other.kind()),
                ))
            }
        };
        match a.first().map(|&i| &self.nodes[i]) {
            Some(Node::Str(s)) if s.as_str() == "storage" => {}
            Some(Node::Str(s)) => {
                return Err(self.err(
                    at,
                    format!("persistent id of kind {s:?}; only storages are allowed"),
                ))
            }
            _ => return Err(self.err(at, "persistent id is not a storage tuple")),
        }
        if a.len() != 5 {
            return Err(self.err(
                at,
                format!("storage persistent id has {} fields, expected 5", a.len()),
            ));
        }
        let dtype = match &self.nodes[a[1]] {
            Node::Global(Global::StorageType(d)) => *d,
            other => {
                return Err(self.err(
                    at,
                    format!(
                        "storage type must be a torch.<X>Storage, got a {}",
                        other.kind()
                    ),
                ))
            }
        };
        let key = match &self.nodes[a[2]] {
            Node::Str(s) => s.to_string(),
            _ => return Err(self.err(at, "storage key must be a str")),
        };
        if key.is_empty() || !key.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
            return Err(self.err(
                at,
                format!("storage key {key:?} is not a plain record name"),
            ));
        }
        let Node::Str(location) = &self.nodes[a[3]] else {
            return Err(self.err(at, "storage location must be a str"));
        };
        parse_device(location).map_err(|m| self.err(at, m))?;
        let numel = self.int_arg(at, "storage element count", a[4])?;
        if numel < 0 {
            return Err(self.err(at, format!("negative storage element count {numel}")));
        }
        if storage_nbytes(dtype, numel as u64).is_none() {
            return Err(self.err(at, format!("storage of {numel} {dtype} elements overflows")));
        }
        if let Some((d, s)) = self.loaded.get(&key) {
            if *d != dtype {
                return Err(self.err(
                    at,
                    format!("storage '{key}' is used as both {d} and {dtype}"),
                ));
            }
            let have = (s.nbytes() / d.size()) as u64;
            if have != numel as u64 {
                return Err(self.err(
                    at,
                    format!("storage '{key}' is declared with {have} and {numel} elements"),
                ));
            }
            return Ok(Node::Storage(*d, s.clone()));
        }
        let storage = self
            .storages
            .load(&key, dtype, numel as u64)
            .map_err(|e| ImportError {
                message: format!("{} (persistent id at pickle byte {at})", e.message),
                ..e
            })?;
        self.loaded.insert(key.clone(), (dtype, storage.clone()));
        self.loaded_order.push(key);
        Ok(Node::Storage(dtype, storage))
    }
}

/// What a GLOBAL names: an allowed callable or class, a dtype value, or why it is refused.
fn resolve_global(module: &str, name: &str) -> Result<Result<Global, DType>, String> {
    let qual = format!("{module}.{name}");
    Ok(Ok(match (module, name) {
        ("torch._utils", "_rebuild_tensor_v2") => Global::RebuildTensorV2,
        ("torch._utils", "_rebuild_qtensor") => {
            return Err(format!("global '{qual}': quantized tensors are not supported"))
        }
        ("torch._utils", "_rebuild_parameter") | ("torch._utils", "_rebuild_parameter_with_state") => {
            return Err(format!(
                "global '{qual}': nn.Parameter objects (torch.save pickles) are not supported in a TorchScript archive"
            ))
        }
        ("torch._utils", "_rebuild_tensor") => {
            return Err(format!("global '{qual}': the legacy tensor format is not supported"))
        }
        ("torch._utils", "_rebuild_sparse_tensor") | ("torch._utils", "_rebuild_sparse_csr_tensor") => {
            return Err(format!("global '{qual}': sparse tensors are not supported"))
        }
        ("torch._tensor", "_rebuild_from_type_v2") => {
            return Err(format!("global '{qual}': tensor subclasses are not supported"))
        }
        ("torch.jit._pickle", "build_intlist") => Global::ListOf(ListKind::Int),
        ("torch.jit._pickle", "build_tensorlist") => Global::ListOf(ListKind::Tensor),
        ("torch.jit._pickle", "build_doublelist") => Global::ListOf(ListKind::Double),
        ("torch.jit._pickle", "build_boollist") => Global::ListOf(ListKind::Bool),
        ("torch.jit._pickle", "restore_type_tag") => Global::RestoreTypeTag,
        ("torch.jit._pickle", "build_tensor_from_id") => {
            return Err(format!("global '{qual}': tensor tables are not used by archives"))
        }
        ("collections", "OrderedDict") => Global::OrderedDict,
        ("torch", "device") => Global::Device,
        ("builtins", "complex") => Global::Complex,
        ("torch", n) if n.ends_with("Storage") => Global::StorageType(storage_dtype(n)?),
        ("torch", n) => match dtype_by_name(n) {
            Some(d) => return Ok(Err(d)),
            None => return Err(format!("unknown torch global 'torch.{n}' is not allowed")),
        },
        (m, _) if m == "__torch__" || m.starts_with("__torch__.") => Global::TorchClass(qual),
        _ => {
            return Err(format!(
                "global '{qual}' is not allowed: a TorchScript archive may name only PyTorch's tensor, storage, list and device helpers and `__torch__` classes"
            ))
        }
    }))
}

/// The dtype a `torch.<name>` attribute names (`torch.float32`, `torch.long`).
fn dtype_by_name(name: &str) -> Option<DType> {
    Some(match name {
        "float32" | "float" => DType::F32,
        "float64" | "double" => DType::F64,
        "float16" | "half" => DType::F16,
        "bfloat16" => DType::BF16,
        "int64" | "long" => DType::I64,
        "int32" | "int" => DType::I32,
        "int16" | "short" => DType::I16,
        "int8" => DType::I8,
        "uint8" => DType::U8,
        "bool" => DType::Bool,
        _ => return None,
    })
}

/// A device string as `torch.device` accepts it: `cpu`, `cuda`, `cuda:N`.
fn parse_device(s: &str) -> Result<Device, String> {
    match s {
        "cpu" => Ok(Device::Cpu),
        "cuda" => Ok(Device::Cuda(0)),
        _ => match s.strip_prefix("cuda:").map(|n| n.parse::<i8>()) {
            Some(Ok(i)) if i >= 0 => Ok(Device::Cuda(i)),
            _ => Err(format!("unsupported device {s:?}")),
        },
    }
}

#[derive(Clone)]
enum Conv {
    Todo,
    InProgress,
    Done(IValue),
}

struct Converter<'a> {
    nodes: &'a [Node],
    done: Vec<Conv>,
    max_nesting: usize,
}

impl Converter<'_> {
    fn convert(&mut self, id: Id, depth: usize) -> Result<IValue, ImportError> {
        match &self.done[id] {
            Conv::Done(v) => return Ok(v.clone()),
            Conv::InProgress => {
                return Err(ImportError::new(format!(
                    "the pickle contains a reference cycle through a {}",
                    self.nodes[id].kind()
                )))
            }
            Conv::Todo => {}
        }
        if depth > self.max_nesting {
            return Err(ImportError::new(format!(
                "values nest deeper than the limit of {}",
                self.max_nesting
            )));
        }
        self.done[id] = Conv::InProgress;
        let v = match &self.nodes[id] {
            Node::None => IValue::None,
            Node::Bool(b) => IValue::Bool(*b),
            Node::Int(i) => IValue::Int(*i),
            Node::Float(f) => IValue::Double(*f),
            Node::Str(s) => IValue::Str(s.clone()),
            Node::Leaf(v) => v.clone(),
            Node::Tuple(items) => IValue::tuple(self.convert_all(items, depth)?),
            Node::List(items) => IValue::list(self.convert_all(items, depth)?),
            Node::Dict(pairs) => {
                let d = Dict::default();
                for &(k, v) in pairs {
                    let key = self.convert(k, depth + 1)?;
                    let Some(key) = DictKey::from_ivalue(&key) else {
                        return Err(ImportError::new(format!(
                            "dict key of type {} is not hashable",
                            key.kind_name()
                        )));
                    };
                    let value = self.convert(v, depth + 1)?;
                    d.insert(key, value);
                }
                IValue::Dict(d)
            }
            Node::Object(class, state) => {
                let Some(state) = state else {
                    return Err(ImportError::new(format!(
                        "object of class {class} never received its state (NEWOBJ without BUILD)"
                    )));
                };
                let state = self.convert(*state, depth + 1)?;
                // The classes of code/ are not compiled yet: the object gets a placeholder
                // class that only names it.
                IValue::Object(Arc::new(Object {
                    class: Arc::new(ClassType::new(class.clone(), false)),
                    slots: RwLock::new(vec![state]),
                }))
            }
            Node::Enum(class, value) => {
                let value = self.convert(*value, depth + 1)?;
                IValue::Enum(Arc::new(EnumValue {
                    class_name: class.clone(),
                    name: String::new(),
                    value,
                }))
            }
            Node::Global(g) => {
                return Err(ImportError::new(format!(
                    "a global ({g:?}) is used as a value; globals may only be called"
                )))
            }
            Node::Storage(..) => {
                return Err(ImportError::new(
                    "a storage is used as a value; storages may only be rebuilt into tensors",
                ))
            }
        };
        self.done[id] = Conv::Done(v.clone());
        Ok(v)
    }

    fn convert_all(&mut self, items: &[Id], depth: usize) -> Result<Vec<IValue>, ImportError> {
        items.iter().map(|&i| self.convert(i, depth + 1)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::storage::NoStorages;

    fn run(body: &[u8]) -> Result<IValue, String> {
        let mut bytes = vec![0x80, 2];
        bytes.extend_from_slice(body);
        bytes.push(b'.');
        unpickle(&bytes, &mut NoStorages, &Limits::default())
            .map(|u| u.value)
            .map_err(|e| e.to_string())
    }

    fn show(body: &[u8]) -> String {
        match run(body) {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn values() {
        let cases: &[(&[u8], &str)] = &[
            (b"N", "None"),
            (b"\x88", "True"),
            (b"K\x07", "7"),
            (b"M\x00\x01", "256"),
            (b"J\xff\xff\xff\xff", "-1"),
            (b"\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80", "-9223372036854775808"),
            (b"\x8a\x02\xff\x7f", "32767"),
            (b"\x8a\x01\xff", "-1"),
            (b"G?\xf8\x00\x00\x00\x00\x00\x00", "1.5"),
            (b"X\x02\x00\x00\x00hi", "\"hi\""),
            (b"(K\x01K\x02t", "(1, 2)"),
            (b"]K\x01aK\x02a", "[1, 2]"),
            (b"}X\x01\x00\x00\x00aK\x01s", "{\"a\": 1}"),
            (b"(K\x01K\x02d", "{1: 2}"),
            (b"ctorch\ndevice\nX\x06\x00\x00\x00cuda:1\x85R", "device(type='cuda:1')"),
            (b"cbuiltins\ncomplex\nG?\xf0\x00\x00\x00\x00\x00\x00K\x02\x86R", "(1.0+2.0j)"),
            (b"ctorch\nfloat16\n", "torch.float16"),
            (b"ctorch.jit._pickle\nbuild_intlist\n(]K\x03atR", "[3]"),
            (b"ctorch.jit._pickle\nrestore_type_tag\n}X\x0e\x00\x00\x00Dict[str, int]\x86R", "{}"),
            (b"c__torch__\nColor\nK\x02R", "__torch__.Color."),
            (b"c__torch__.m\nA\n)\x81}b", "<__torch__.m.A object>"),
            // Errors name what they refuse.
            (b"ctorch.jit._pickle\nbuild_intlist\n(]X\x00\x00\x00\x00atR", "error: pickle byte 44: torch.jit._pickle.build_intlist: element 0 is a str"),
            (b"c__torch__\nA\n)\x81}b}b", "error: pickle byte 20: BUILD on an object of __torch__.A that already has its state"),
            (b"c__torch__\nA\n)\x81", "error: object of class __torch__.A never received its state (NEWOBJ without BUILD)"),
            (b"ctorch\nFloatStorage\n", "error: a global (StorageType(F32)) is used as a value; globals may only be called"),
            (b"(K\x01", "error: pickle byte 6: pickle ended inside a MARK"),
            (b"(K\x01\x86", "error: pickle byte 5: stack underflow: TUPLE2 needs a value but the stack has none above its MARK"),
            (b"ctorch\ndevice\nX\x03\x00\x00\x00tpu\x85R", "error: pickle byte 25: unsupported device \"tpu\""),
            (b"cos\nsys tem\n", "error: pickle byte 6: GLOBAL name contains character ' '; it must be a qualified Python identifier"),
            (b"X\x05\x00\x00\x00ab", "error: pickle byte 7: unexpected end of pickle reading BINUNICODE (5 bytes needed, 3 left)"),
            (b"\xff", "error: pickle byte 2: unknown opcode 0xff"),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter(|(body, want)| show(body) != *want)
            .map(|(body, want)| {
                format!(
                    "{}\n  got:  {}\n  want: {want}",
                    String::from_utf8_lossy(body),
                    show(body)
                )
            })
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn sharing_is_preserved() {
        // A list stored once and fetched twice is one list object.
        let v = run(b"]q\x00h\x00\x86").unwrap();
        let IValue::Tuple(t) = v else { panic!() };
        assert!(t[0].is(&t[1]));
        // A DAG that doubles at each level converts in linear time.
        let mut body = b"Nq\x00".to_vec();
        for i in 0..60u8 {
            body.extend_from_slice(&[b'h', i, 0x86, b'q', i + 1]);
        }
        assert!(run(&body).is_ok());
    }
}
