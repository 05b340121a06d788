//! Interned `namespace::name` symbols. The set of namespaces is open: `aten`, `prim`, `attr`,
//! `onnx` and any user namespace intern the same way.

use std::fmt;
use std::sync::{OnceLock, RwLock};

use hashbrown::HashMap;

/// An interned qualified name such as `aten::add` or `prim::If`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Symbol(u32);

struct Interner {
    ids: HashMap<&'static str, Symbol>,
    names: Vec<&'static str>,
}

fn interner() -> &'static RwLock<Interner> {
    static INTERNER: OnceLock<RwLock<Interner>> = OnceLock::new();
    INTERNER.get_or_init(|| {
        RwLock::new(Interner {
            ids: HashMap::new(),
            names: Vec::new(),
        })
    })
}

impl Symbol {
    /// Interns `qualified` (e.g. `"aten::add"`). Names are leaked once per distinct symbol, so
    /// memory stays bounded by the distinct names seen.
    pub fn new(qualified: &str) -> Symbol {
        if let Some(&s) = interner().read().unwrap().ids.get(qualified) {
            return s;
        }
        let mut w = interner().write().unwrap();
        if let Some(&s) = w.ids.get(qualified) {
            return s;
        }
        let leaked: &'static str = Box::leak(qualified.to_owned().into_boxed_str());
        let s = Symbol(w.names.len() as u32);
        w.names.push(leaked);
        w.ids.insert(leaked, s);
        s
    }

    /// `Symbol::ns("aten", "add")` is `aten::add`.
    pub fn ns(namespace: &str, name: &str) -> Symbol {
        Symbol::new(&format!("{namespace}::{name}"))
    }

    pub fn aten(name: &str) -> Symbol {
        Symbol::ns("aten", name)
    }

    pub fn prim(name: &str) -> Symbol {
        Symbol::ns("prim", name)
    }

    pub fn attr(name: &str) -> Symbol {
        Symbol::ns("attr", name)
    }

    /// The full `namespace::name` spelling.
    pub fn as_str(self) -> &'static str {
        interner().read().unwrap().names[self.0 as usize]
    }

    /// The part before `::` (empty when the symbol has no namespace).
    pub fn namespace(self) -> &'static str {
        let s = self.as_str();
        s.find("::").map_or("", |i| &s[..i])
    }

    /// The part after `::`, as PyTorch's `toUnqualString`.
    pub fn unqualified(self) -> &'static str {
        let s = self.as_str();
        s.find("::").map_or(s, |i| &s[i + 2..])
    }

    pub fn is_prim(self) -> bool {
        self.namespace() == "prim"
    }

    pub fn is_aten(self) -> bool {
        self.namespace() == "aten"
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Symbol({})", self.as_str())
    }
}

/// Well-known symbols, spelled once.
pub mod sym {
    use super::Symbol;
    macro_rules! symbols {
        ($($fn_name:ident => $text:literal),* $(,)?) => {
            $(#[inline] pub fn $fn_name() -> Symbol { Symbol::new($text) })*
        };
    }
    symbols! {
        param => "prim::Param",
        ret => "prim::Return",
        constant => "prim::Constant",
        if_ => "prim::If",
        loop_ => "prim::Loop",
        with => "prim::With",
        enter => "prim::Enter",
        exit => "prim::Exit",
        tuple_construct => "prim::TupleConstruct",
        tuple_unpack => "prim::TupleUnpack",
        tuple_index => "prim::TupleIndex",
        tuple_slice => "prim::TupleSlice",
        list_construct => "prim::ListConstruct",
        list_unpack => "prim::ListUnpack",
        dict_construct => "prim::DictConstruct",
        call_function => "prim::CallFunction",
        call_method => "prim::CallMethod",
        get_attr => "prim::GetAttr",
        set_attr => "prim::SetAttr",
        raise_exception => "prim::RaiseException",
        uninitialized => "prim::Uninitialized",
        fusion_group => "prim::FusionGroup",
        tensor_expr_group => "prim::TensorExprGroup",
        differentiable_graph => "prim::DifferentiableGraph",
        fallback_graph => "prim::FallbackGraph",
        profile => "prim::profile",
        type_check => "prim::TypeCheck",
        attr_value => "attr::value",
        attr_subgraph => "attr::Subgraph",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_stable_and_splits_namespaces() {
        let a = Symbol::new("aten::add");
        assert_eq!(a, Symbol::aten("add"));
        assert_eq!(a.namespace(), "aten");
        assert_eq!(a.unqualified(), "add");
        assert_eq!(Symbol::new("mylib::custom_op").namespace(), "mylib");
        assert_ne!(a, Symbol::new("aten::sub"));
    }
}
