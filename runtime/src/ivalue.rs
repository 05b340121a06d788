//! IValue: the values TorchScript programs compute with, a tagged union of 16 bytes (a tag
//! and one word). Lists, dicts and objects are shared and mutable like Python's: cloning an
//! IValue shares them. Tuples and strings are immutable.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, RwLock};

use indexmap::IndexMap;

use crate::tensor::{DType, Device, Tensor};
use crate::unit::ClassType;

pub use crate::interpreter::Future;

/// A value of a TorchScript program.
#[derive(Clone)]
pub enum IValue {
    None,
    Bool(bool),
    Int(i64),
    Double(f64),
    Complex(Arc<(f64, f64)>),
    Tensor(Tensor),
    Str(Arc<String>),
    Device(Device),
    ScalarType(DType),
    List(List),
    Tuple(Arc<Vec<IValue>>),
    Dict(Dict),
    Object(Arc<Object>),
    Enum(Arc<EnumValue>),
    Future(Arc<Future>),
    Generator(Arc<Mutex<Generator>>),
    /// The value of `prim::Uninitialized`: never observed by a correct program.
    Uninitialized,
}

/// A shared, mutable list (`List[T]`).
#[derive(Clone, Default)]
pub struct List(pub Arc<RwLock<Vec<IValue>>>);

/// A shared, mutable, insertion-ordered dict (`Dict[K, V]`).
#[derive(Clone, Default)]
pub struct Dict(pub Arc<RwLock<IndexMap<DictKey, IValue>>>);

/// A class instance: its class and its attribute slots (in the class's slot order; a module's
/// parameters, buffers and submodules are slots too).
pub struct Object {
    pub class: Arc<ClassType>,
    pub slots: RwLock<Vec<IValue>>,
}

impl Object {
    /// A new instance of `class` with every slot None.
    pub fn new(class: Arc<ClassType>) -> Object {
        let n = class.num_attributes();
        Object {
            class,
            slots: RwLock::new(vec![IValue::None; n]),
        }
    }

    pub fn class_name(&self) -> &str {
        &self.class.qualname
    }

    /// The value in slot `i`, or None when the object has no such slot.
    pub fn slot(&self, i: usize) -> Option<IValue> {
        self.slots
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(i)
            .cloned()
    }

    /// Sets slot `i`, growing the slots when the class gained attributes after the object
    /// was made (classes grow while they are compiled).
    pub fn set_slot(&self, i: usize, v: IValue) {
        let mut slots = self.slots.write().unwrap_or_else(|e| e.into_inner());
        if slots.len() <= i {
            slots.resize(i + 1, IValue::None);
        }
        slots[i] = v;
    }

    /// The attribute named `name`, looked up through the class.
    pub fn attr(&self, name: &str) -> Option<IValue> {
        self.slot(self.class.attribute_slot(name)?)
    }

    /// Sets the attribute named `name`; false when the class has no such attribute.
    pub fn set_attr(&self, name: &str, v: IValue) -> bool {
        match self.class.attribute_slot(name) {
            Some(i) => {
                self.set_slot(i, v);
                true
            }
            None => false,
        }
    }
}

/// A value of a TorchScript enum.
pub struct EnumValue {
    pub class_name: String,
    pub name: String,
    pub value: IValue,
}

/// A seeded random number generator (`torch.Generator`): PyTorch's CPU generator state.
#[derive(Clone, Debug)]
pub struct Generator {
    pub seed: u64,
    /// The engine, built from `seed` on the first draw (so a generator can be made in a const).
    pub engine: Option<Box<crate::ops::create::mt19937::Mt19937>>,
    /// The second normal of the last Box-Muller pair (`next_double_normal_sample`).
    pub next_double_normal: Option<f64>,
}

impl Generator {
    pub const fn new(seed: u64) -> Generator {
        Generator {
            seed,
            engine: None,
            next_double_normal: None,
        }
    }
}

/// A dict key: the hashable IValues, compared as Python compares them (tensors by identity).
#[derive(Clone)]
pub enum DictKey {
    None,
    Bool(bool),
    Int(i64),
    Double(f64),
    Str(Arc<String>),
    Tensor(Tensor),
    Device(Device),
}

impl DictKey {
    /// The key form of `v`, or `None` for unhashable values.
    pub fn from_ivalue(v: &IValue) -> Option<DictKey> {
        Some(match v {
            IValue::None => DictKey::None,
            IValue::Bool(b) => DictKey::Bool(*b),
            IValue::Int(i) => DictKey::Int(*i),
            IValue::Double(d) => DictKey::Double(*d),
            IValue::Str(s) => DictKey::Str(s.clone()),
            IValue::Tensor(t) => DictKey::Tensor(t.clone()),
            IValue::Device(d) => DictKey::Device(*d),
            _ => return None,
        })
    }

    pub fn to_ivalue(&self) -> IValue {
        match self {
            DictKey::None => IValue::None,
            DictKey::Bool(b) => IValue::Bool(*b),
            DictKey::Int(i) => IValue::Int(*i),
            DictKey::Double(d) => IValue::Double(*d),
            DictKey::Str(s) => IValue::Str(s.clone()),
            DictKey::Tensor(t) => IValue::Tensor(t.clone()),
            DictKey::Device(d) => IValue::Device(*d),
        }
    }
}

impl PartialEq for DictKey {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (DictKey::None, DictKey::None) => true,
            (DictKey::Bool(a), DictKey::Bool(b)) => a == b,
            (DictKey::Int(a), DictKey::Int(b)) => a == b,
            // Keys compare by bits so NaN keys are found again, as Python finds the same object.
            (DictKey::Double(a), DictKey::Double(b)) => a.to_bits() == b.to_bits(),
            (DictKey::Str(a), DictKey::Str(b)) => a == b,
            (DictKey::Tensor(a), DictKey::Tensor(b)) => a.is_same(b),
            (DictKey::Device(a), DictKey::Device(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for DictKey {}

impl Hash for DictKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        std::mem::discriminant(self).hash(h);
        match self {
            DictKey::None => {}
            DictKey::Bool(b) => b.hash(h),
            DictKey::Int(i) => i.hash(h),
            DictKey::Double(d) => d.to_bits().hash(h),
            DictKey::Str(s) => s.hash(h),
            DictKey::Tensor(t) => t.identity().hash(h),
            DictKey::Device(d) => d.hash(h),
        }
    }
}

impl List {
    pub fn new(items: Vec<IValue>) -> List {
        List(Arc::new(RwLock::new(items)))
    }

    pub fn len(&self) -> usize {
        self.0.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A snapshot of the items.
    pub fn to_vec(&self) -> Vec<IValue> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn push(&self, v: IValue) {
        self.0.write().unwrap_or_else(|e| e.into_inner()).push(v);
    }

    /// Whether two handles are the same list object.
    pub fn is_same(&self, other: &List) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Dict {
    pub fn len(&self) -> usize {
        self.0.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn insert(&self, k: DictKey, v: IValue) {
        self.0
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(k, v);
    }

    pub fn get(&self, k: &DictKey) -> Option<IValue> {
        self.0
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(k)
            .cloned()
    }

    /// A snapshot of the entries in insertion order.
    pub fn items(&self) -> Vec<(DictKey, IValue)> {
        self.0
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

impl IValue {
    pub fn str(s: impl Into<String>) -> IValue {
        IValue::Str(Arc::new(s.into()))
    }

    pub fn tuple(items: Vec<IValue>) -> IValue {
        IValue::Tuple(Arc::new(items))
    }

    pub fn list(items: Vec<IValue>) -> IValue {
        IValue::List(List::new(items))
    }

    /// The TorchScript name of the value's kind, for error messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            IValue::None => "NoneType",
            IValue::Bool(_) => "bool",
            IValue::Int(_) => "int",
            IValue::Double(_) => "float",
            IValue::Complex(_) => "complex",
            IValue::Tensor(_) => "Tensor",
            IValue::Str(_) => "str",
            IValue::Device(_) => "Device",
            IValue::ScalarType(_) => "ScalarType",
            IValue::List(_) => "List",
            IValue::Tuple(_) => "Tuple",
            IValue::Dict(_) => "Dict",
            IValue::Object(_) => "Object",
            IValue::Enum(_) => "Enum",
            IValue::Future(_) => "Future",
            IValue::Generator(_) => "Generator",
            IValue::Uninitialized => "Uninitialized",
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            IValue::Int(i) => Some(*i),
            IValue::Bool(b) => Some(*b as i64),
            _ => None,
        }
    }

    pub fn as_double(&self) -> Option<f64> {
        match self {
            IValue::Double(d) => Some(*d),
            IValue::Int(i) => Some(*i as f64),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            IValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_tensor(&self) -> Option<&Tensor> {
        match self {
            IValue::Tensor(t) => Some(t),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            IValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Python's `is`: identity for shared objects, value equality for immutable scalars.
    pub fn is(&self, other: &IValue) -> bool {
        match (self, other) {
            (IValue::None, IValue::None) => true,
            (IValue::Bool(a), IValue::Bool(b)) => a == b,
            (IValue::Tensor(a), IValue::Tensor(b)) => a.is_same(b),
            (IValue::List(a), IValue::List(b)) => a.is_same(b),
            (IValue::Dict(a), IValue::Dict(b)) => Arc::ptr_eq(&a.0, &b.0),
            (IValue::Object(a), IValue::Object(b)) => Arc::ptr_eq(a, b),
            (IValue::Tuple(a), IValue::Tuple(b)) => Arc::ptr_eq(a, b),
            (IValue::Str(a), IValue::Str(b)) => Arc::ptr_eq(a, b),
            (IValue::Device(a), IValue::Device(b)) => a == b,
            (IValue::Enum(a), IValue::Enum(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// Python's `repr` of a float as TorchScript's `str()` prints it: shortest round-trip digits,
/// always with a decimal point or exponent, `inf`, `nan`.
pub fn format_float(d: f64) -> String {
    ember_dialects::floatfmt::format_python_float(d)
}

impl fmt::Debug for IValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IValue::None => f.write_str("None"),
            IValue::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            IValue::Int(i) => write!(f, "{i}"),
            IValue::Double(d) => f.write_str(&format_float(*d)),
            IValue::Complex(c) => write!(f, "({}+{}j)", format_float(c.0), format_float(c.1)),
            IValue::Tensor(t) => write!(f, "{t:?}"),
            IValue::Str(s) => write!(f, "{s:?}"),
            IValue::Device(d) => write!(f, "device(type='{d}')"),
            IValue::ScalarType(d) => write!(f, "{d}"),
            IValue::List(l) => f.debug_list().entries(l.to_vec()).finish(),
            IValue::Tuple(t) => {
                let mut tf = f.debug_tuple("");
                for x in t.iter() {
                    tf.field(x);
                }
                tf.finish()
            }
            IValue::Dict(d) => f
                .debug_map()
                .entries(d.items().into_iter().map(|(k, v)| (k.to_ivalue(), v)))
                .finish(),
            IValue::Object(o) => write!(f, "<{} object>", o.class_name()),
            IValue::Enum(e) => write!(f, "{}.{}", e.class_name, e.name),
            IValue::Future(_) => f.write_str("<Future>"),
            IValue::Generator(g) => write!(
                f,
                "<Generator seed={}>",
                g.lock().map(|g| g.seed).unwrap_or(0)
            ),
            IValue::Uninitialized => f.write_str("<uninitialized>"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<IValue>(), 16);
    }

    #[test]
    fn lists_and_dicts_are_shared() {
        let l = IValue::list(vec![IValue::Int(1)]);
        let alias = l.clone();
        if let IValue::List(list) = &l {
            list.push(IValue::Int(2));
        }
        match &alias {
            IValue::List(list) => assert_eq!(list.len(), 2),
            _ => unreachable!(),
        }
        assert!(l.is(&alias));
        let d = Dict::default();
        d.insert(DictKey::Str(Arc::new("b".into())), IValue::Int(1));
        d.insert(DictKey::Str(Arc::new("a".into())), IValue::Int(2));
        d.insert(DictKey::Str(Arc::new("b".into())), IValue::Int(3));
        let keys: Vec<String> = d
            .items()
            .iter()
            .map(|(k, _)| format!("{:?}", k.to_ivalue()))
            .collect();
        assert_eq!(keys, vec!["\"b\"", "\"a\""]);
        assert_eq!(
            d.get(&DictKey::Str(Arc::new("b".into())))
                .and_then(|v| v.as_int()),
            Some(3)
        );
        assert!(DictKey::from_ivalue(&l).is_none());
    }

    #[test]
    fn floats_print_like_python() {
        let cases = [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (1e16, "1e+16"),
            (1.5e-5, "1.5e-05"),
            (123456789.0, "123456789.0"),
            (f64::INFINITY, "inf"),
            (f64::NAN, "nan"),
            (0.0001, "0.0001"),
            (-0.0, "-0.0"),
        ];
        for (v, s) in cases {
            assert_eq!(format_float(v), s, "{v}");
        }
    }
}
