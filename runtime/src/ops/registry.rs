//! The registry of operators: builders keyed by node kind. A builder sees the node (its
//! attributes, input and output counts and types) and returns the [`Operation`] to run.
//!
//! One kind may have several builders, each for the nodes its predicate accepts: `aten::add`
//! on ints and floats is a scalar builtin, `aten::add` with a tensor input a tensor operator.
//! The first builder whose predicate accepts the node builds it.

use std::sync::OnceLock;

use ember_dialects::{Graph, Node, Symbol};
use hashbrown::HashMap;

use super::Operation;

/// Builds the operation of one node, or says why the node cannot run.
pub type Builder = fn(&Graph, Node) -> Result<Operation, String>;

/// Decides whether a builder applies to a node (from its input types, input count, ...).
pub type Predicate = fn(&Graph, Node) -> bool;

/// All registered builders by kind.
pub struct Registry {
    by_kind: HashMap<Symbol, Vec<(Option<Predicate>, Builder)>>,
}

impl Registry {
    fn new() -> Registry {
        let mut r = Registry {
            by_kind: HashMap::new(),
        };
        super::prim::register(&mut r);
        super::builtins::register(&mut r);
        super::pointwise::register(&mut r);
        super::shape::register(&mut r);
        super::index::register(&mut r);
        super::create::register(&mut r);
        super::linalg::register(&mut r);
        super::nn::register(&mut r);
        super::reduce::register(&mut r);
        super::rnn::register(&mut r);
        super::attention::register(&mut r);
        #[cfg(feature = "torchvision")]
        super::torchvision::register(&mut r);
        r
    }

    /// Registers `builder` for every node of kind `kind` (`"prim::TupleConstruct"`) that no
    /// builder with a predicate claimed.
    pub fn add(&mut self, kind: &str, builder: Builder) {
        self.by_kind
            .entry(Symbol::new(kind))
            .or_default()
            .push((None, builder));
    }

    /// Registers `builder` for the nodes of kind `kind` that `when` accepts. Builders with a
    /// predicate are tried before the unconditional one, in registration order.
    pub fn add_if(&mut self, kind: &str, when: Predicate, builder: Builder) {
        let list = self.by_kind.entry(Symbol::new(kind)).or_default();
        let at = list
            .iter()
            .position(|(p, _)| p.is_none())
            .unwrap_or(list.len());
        list.insert(at, (Some(when), builder));
    }

    /// The operation for node `n`, or a load-time error naming the op.
    pub fn build(&self, g: &Graph, n: Node) -> Result<Operation, String> {
        let kind = g.kind(n);
        let Some(builders) = self.by_kind.get(&kind) else {
            return Err(format!(
                "unknown operator '{kind}': Ember has no implementation of it"
            ));
        };
        for (when, builder) in builders {
            if when.is_none_or(|p| p(g, n)) {
                return builder(g, n);
            }
        }
        let types: Vec<String> = g
            .node_inputs(n)
            .iter()
            .map(|&v| g.ty(v).to_string())
            .collect();
        Err(format!(
            "operator '{kind}' has no implementation for inputs ({})",
            types.join(", ")
        ))
    }

    pub fn has(&self, kind: Symbol) -> bool {
        self.by_kind.contains_key(&kind)
    }
}

/// The process-wide registry.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(Registry::new)
}

/// A predicate: the node has at least one `Tensor`-typed input.
pub fn has_tensor_input(g: &Graph, n: Node) -> bool {
    g.node_inputs(n).iter().any(|&v| g.ty(v).is_tensor())
}
