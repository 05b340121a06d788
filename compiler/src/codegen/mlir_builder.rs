//! Small helpers over melior's operation builders: each appends one operation to a block and
//! returns its result, so that lowerings read like the arithmetic they emit.

use melior::dialect::arith::{self, CmpfPredicate, CmpiPredicate};
use melior::ir::attribute::{FloatAttribute, IntegerAttribute};
use melior::ir::operation::OperationBuilder;
use melior::ir::r#type::IntegerType;
use melior::ir::{Block, BlockLike, Location, Operation, Type, Value};
use melior::Context;

/// Appends operations to one block at one location.
#[derive(Clone, Copy)]
pub struct Emit<'c, 'a> {
    pub ctx: &'c Context,
    pub block: &'a Block<'c>,
    pub loc: Location<'c>,
}

impl<'c, 'a> Emit<'c, 'a> {
    pub fn new(ctx: &'c Context, block: &'a Block<'c>, loc: Location<'c>) -> Self {
        Emit { ctx, block, loc }
    }

    /// Appends `op` and returns its single result.
    pub fn push(&self, op: Operation<'c>) -> Value<'c, 'a> {
        let op = self.block.append_operation(op);
        op.result(0).expect("operation has a result").into()
    }

    pub fn f32(&self) -> Type<'c> {
        Type::float32(self.ctx)
    }

    pub fn i32(&self) -> Type<'c> {
        IntegerType::new(self.ctx, 32).into()
    }

    pub fn index(&self) -> Type<'c> {
        Type::index(self.ctx)
    }

    pub fn const_f32(&self, x: f64) -> Value<'c, 'a> {
        // Round to float32 first: PyTorch converts a Scalar to the tensor's dtype.
        let attr = FloatAttribute::new(self.ctx, self.f32(), x as f32 as f64);
        self.push(arith::constant(self.ctx, attr.into(), self.loc))
    }

    pub fn const_i32(&self, x: i32) -> Value<'c, 'a> {
        let attr = IntegerAttribute::new(self.i32(), x as i64);
        self.push(arith::constant(self.ctx, attr.into(), self.loc))
    }

    pub fn const_index(&self, x: i64) -> Value<'c, 'a> {
        let attr = IntegerAttribute::new(self.index(), x);
        self.push(arith::constant(self.ctx, attr.into(), self.loc))
    }

    pub fn addf(&self, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::addf(a, b, self.loc))
    }

    pub fn subf(&self, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::subf(a, b, self.loc))
    }

    pub fn mulf(&self, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::mulf(a, b, self.loc))
    }

    pub fn divf(&self, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::divf(a, b, self.loc))
    }

    pub fn negf(&self, a: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::negf(a, self.loc))
    }

    pub fn cmpf(&self, p: CmpfPredicate, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::cmpf(self.ctx, p, a, b, self.loc))
    }

    pub fn cmpi(&self, p: CmpiPredicate, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::cmpi(self.ctx, p, a, b, self.loc))
    }

    pub fn select(&self, c: Value<'c, '_>, t: Value<'c, '_>, f: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::select(c, t, f, self.loc))
    }

    pub fn addi(&self, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::addi(a, b, self.loc))
    }

    pub fn subi(&self, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::subi(a, b, self.loc))
    }

    pub fn muli(&self, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::muli(a, b, self.loc))
    }

    pub fn divui(&self, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::divui(a, b, self.loc))
    }

    pub fn remui(&self, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::remui(a, b, self.loc))
    }

    pub fn shli(&self, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::shli(a, b, self.loc))
    }

    pub fn shrui(&self, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::shrui(a, b, self.loc))
    }

    pub fn shrsi(&self, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::shrsi(a, b, self.loc))
    }

    pub fn andi(&self, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::andi(a, b, self.loc))
    }

    pub fn ori(&self, a: Value<'c, '_>, b: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(arith::ori(a, b, self.loc))
    }

    /// Reinterprets the bits of `a` as type `ty` (`arith.bitcast`).
    pub fn bitcast(&self, a: Value<'c, '_>, ty: Type<'c>) -> Value<'c, 'a> {
        self.push(arith::bitcast(a, ty, self.loc))
    }

    pub fn sitofp(&self, a: Value<'c, '_>, ty: Type<'c>) -> Value<'c, 'a> {
        self.push(arith::sitofp(a, ty, self.loc))
    }

    pub fn fptosi(&self, a: Value<'c, '_>, ty: Type<'c>) -> Value<'c, 'a> {
        self.push(arith::fptosi(a, ty, self.loc))
    }

    pub fn truncf(&self, a: Value<'c, '_>, ty: Type<'c>) -> Value<'c, 'a> {
        self.push(arith::truncf(a, ty, self.loc))
    }

    pub fn index_castui(&self, a: Value<'c, '_>, ty: Type<'c>) -> Value<'c, 'a> {
        self.push(arith::index_castui(a, ty, self.loc))
    }

    /// A one-operand op of the `math` dialect (`math.exp`, `math.log`, ...).
    pub fn math_unary(&self, name: &str, a: Value<'c, '_>) -> Value<'c, 'a> {
        self.push(
            OperationBuilder::new(name, self.loc)
                .add_operands(&[a])
                .add_results(&[self.f32()])
                .build()
                .expect("valid math operation"),
        )
    }

    /// An `nvvm.read.ptx.sreg.*` special register (thread and block ids).
    pub fn nvvm_sreg(&self, name: &str) -> Value<'c, 'a> {
        self.push(
            OperationBuilder::new(&format!("nvvm.read.ptx.sreg.{name}"), self.loc)
                .add_results(&[self.i32()])
                .build()
                .expect("valid nvvm operation"),
        )
    }
}
