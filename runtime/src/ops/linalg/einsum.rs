//! `torch.einsum`: the equation parsed with PyTorch's rules and messages (ellipsis, implicit
//! output, repeated subscripts as diagonals, size-1 broadcasting), then the operands
//! contracted left to right, each pairwise contraction one bmm over permuted and reshaped
//! views. Subscripts summed away are contracted against a broadcast of the other side (or a
//! ones tensor), so every sum is a product too.

use super::products::bmm;
use crate::bail;
use crate::tensor::{Tensor, TensorResult};

/// A subscript: a letter, or one of the dims an ellipsis covers (numbered from the right).
#[derive(Copy, Clone, PartialEq, Eq, Debug, PartialOrd, Ord)]
enum Label {
    Ellipsis(usize),
    Letter(u8),
}

impl Label {
    fn name(self) -> String {
        match self {
            Label::Letter(c) => (c as char).to_string(),
            Label::Ellipsis(_) => "...".into(),
        }
    }
}

/// One operand's subscripts: letters before the ellipsis, whether it has one, letters after.
struct Term {
    before: Vec<u8>,
    ellipsis: bool,
    after: Vec<u8>,
}

fn parse_term(s: &str, what: &str) -> TensorResult<Term> {
    let mut term = Term {
        before: Vec::new(),
        ellipsis: false,
        after: Vec::new(),
    };
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'.' {
            if term.ellipsis || !s[i..].starts_with("...") {
                bail!("einsum(): found '.' for {what} that is not part of any ellipsis");
            }
            term.ellipsis = true;
            i += 3;
            continue;
        }
        if !c.is_ascii_alphabetic() {
            bail!(
                "einsum(): invalid subscript given at index {i} in the equation string, subscripts must be in [a-zA-Z]"
            );
        }
        if term.ellipsis {
            term.after.push(c);
        } else {
            term.before.push(c);
        }
        i += 1;
    }
    Ok(term)
}

/// An operand during contraction: the tensor and the label of each of its dims.
struct Operand {
    t: Tensor,
    labels: Vec<Label>,
}

/// `torch.einsum(equation, operands)`.
pub fn einsum(equation: &str, operands: &[Tensor]) -> TensorResult<Tensor> {
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.find("->") {
        Some(i) => (&eq[..i], Some(&eq[i + 2..])),
        None => (&eq[..], None),
    };
    let terms_src: Vec<&str> = lhs.split(',').collect();
    if terms_src.len() > operands.len() {
        bail!("einsum(): fewer operands were provided than specified in the equation");
    }
    if terms_src.len() < operands.len() {
        bail!("einsum(): more operands were provided than specified in the equation");
    }
    let terms: Vec<Term> = terms_src
        .iter()
        .map(|s| parse_term(s, "operand"))
        .collect::<TensorResult<_>>()?;

    // Label every dim; ellipsis dims are numbered from the right so they align.
    let mut ops: Vec<Operand> = Vec::new();
    let mut ell_dims = 0usize;
    for (i, (term, t)) in terms.iter().zip(operands).enumerate() {
        let nd = t.dim();
        let named = term.before.len() + term.after.len();
        if !term.ellipsis && named != nd {
            bail!("einsum(): the number of subscripts in the equation ({named}) does not match the number of dimensions ({nd}) for operand {i} and no ellipsis was given");
        }
        if term.ellipsis && named > nd {
            bail!("einsum(): the number of subscripts in the equation ({named}) is more than the number of dimensions ({nd}) for operand {i}");
        }
        let covered = nd - named;
        ell_dims = ell_dims.max(covered);
        let mut labels: Vec<Label> = term.before.iter().map(|&c| Label::Letter(c)).collect();
        labels.extend((0..covered).rev().map(Label::Ellipsis));
        labels.extend(term.after.iter().map(|&c| Label::Letter(c)));
        ops.push(Operand {
            t: t.clone(),
            labels,
        });
    }

    // The output subscripts.
    let output: Vec<Label> = match rhs {
        Some(r) => {
            let term = parse_term(r, "output")?;
            let mut out: Vec<Label> = term.before.iter().map(|&c| Label::Letter(c)).collect();
            if term.ellipsis {
                out.extend((0..ell_dims).rev().map(Label::Ellipsis));
            }
            out.extend(term.after.iter().map(|&c| Label::Letter(c)));
            for (k, l) in out.iter().enumerate() {
                if let Label::Letter(c) = l {
                    if out[..k].contains(l) {
                        bail!(
                            "einsum(): output subscript {} appears more than once in the output",
                            *c as char
                        );
                    }
                    if !ops.iter().any(|o| o.labels.contains(l)) {
                        bail!(
                            "einsum(): output subscript {} does not appear in the equation for any input operand",
                            *c as char
                        );
                    }
                }
            }
            out
        }
        None => {
            let mut out: Vec<Label> = (0..ell_dims).rev().map(Label::Ellipsis).collect();
            let mut letters: Vec<u8> = Vec::new();
            for c in terms.iter().flat_map(|t| t.before.iter().chain(&t.after)) {
                let count = terms
                    .iter()
                    .flat_map(|t| t.before.iter().chain(&t.after))
                    .filter(|&&d| d == *c)
                    .count();
                if count == 1 {
                    letters.push(*c);
                }
            }
            letters.sort_unstable();
            out.extend(letters.into_iter().map(Label::Letter));
            out
        }
    };

    // Repeated subscripts within an operand take its diagonal.
    for (i, op) in ops.iter_mut().enumerate() {
        take_diagonals(op, i)?;
    }
    check_sizes(&ops)?;

    // Contract left to right.
    let mut iter = ops.into_iter();
    let mut acc = iter.next().expect("einsum has at least one operand");
    let rest: Vec<Operand> = iter.collect();
    for (i, next) in rest.iter().enumerate() {
        let keep: Vec<Label> = output
            .iter()
            .chain(rest[i + 1..].iter().flat_map(|o| o.labels.iter()))
            .copied()
            .collect();
        acc = contract(&acc, next, &keep)?;
    }
    // Sum what the output drops, against ones.
    let dropped: Vec<usize> = (0..acc.labels.len())
        .filter(|&d| !output.contains(&acc.labels[d]))
        .collect();
    if !dropped.is_empty() {
        let sizes: Vec<i64> = dropped.iter().map(|&d| acc.t.sizes()[d]).collect();
        let ones = Tensor::scalar(1.0, acc.t.dtype())?.expand(&sizes)?;
        let labels = dropped.iter().map(|&d| acc.labels[d]).collect();
        acc = contract(&acc, &Operand { t: ones, labels }, &output)?;
    }
    let perm: Vec<i64> = output
        .iter()
        .map(|l| acc.labels.iter().position(|m| m == l).unwrap() as i64)
        .collect();
    acc.t.permute(&perm)
}

fn take_diagonals(op: &mut Operand, index: usize) -> TensorResult<()> {
    loop {
        let mut pair = None;
        'find: for a in 0..op.labels.len() {
            for b in a + 1..op.labels.len() {
                if op.labels[a] == op.labels[b] {
                    pair = Some((a, b));
                    break 'find;
                }
            }
        }
        let Some((a, b)) = pair else { return Ok(()) };
        let s = op.t.sizes();
        if s[a] != s[b] {
            bail!(
                "einsum(): subscript {} is repeated for operand {index} but the sizes don't match, {} != {}",
                op.labels[a].name(),
                s[b],
                s[a]
            );
        }
        let label = op.labels[a];
        op.t = op.t.diagonal(0, a as i64, b as i64)?;
        op.labels.remove(b);
        op.labels.remove(a);
        op.labels.push(label);
    }
}

/// Every subscript has one size across operands, up to size-1 broadcasting.
fn check_sizes(ops: &[Operand]) -> TensorResult<()> {
    let mut seen: Vec<(Label, i64)> = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let sizes = op.t.sizes();
        for (d, &l) in op.labels.iter().enumerate() {
            let s = sizes[d];
            match seen.iter_mut().find(|(m, _)| *m == l) {
                None => seen.push((l, s)),
                Some((_, prev)) => {
                    if *prev == 1 {
                        *prev = s;
                    } else if s != 1 && s != *prev {
                        bail!(
                            "einsum(): subscript {} has size {s} for operand {i} which does not broadcast with previously seen size {prev}",
                            l.name()
                        );
                    }
                }
            }
        }
    }
    Ok(())
}

/// Contracts two operands, keeping the labels in `keep` and summing the others away.
fn contract(a: &Operand, b: &Operand, keep: &[Label]) -> TensorResult<Operand> {
    let (mut a_t, mut a_l) = (a.t.clone(), a.labels.clone());
    let (mut b_t, mut b_l) = (b.t.clone(), b.labels.clone());
    // A label only one side has and nobody keeps is summed: broadcast it onto the other
    // side so the product contracts it.
    for l in a.labels.clone() {
        if !b_l.contains(&l) && !keep.contains(&l) {
            let size = a_t.sizes()[a_l.iter().position(|m| *m == l).unwrap()];
            b_t = append_broadcast_dim(&b_t, size)?;
            b_l.push(l);
        }
    }
    for l in b.labels.clone() {
        if !a_l.contains(&l) && !keep.contains(&l) {
            let size = b_t.sizes()[b_l.iter().position(|m| *m == l).unwrap()];
            a_t = append_broadcast_dim(&a_t, size)?;
            a_l.push(l);
        }
    }
    // Shared labels broadcast size 1 against the other side.
    let (sa, sb) = (a_t.sizes().to_vec(), b_t.sizes().to_vec());
    let mut ea = sa.clone();
    let mut eb = sb.clone();
    for (i, l) in a_l.iter().enumerate() {
        if let Some(j) = b_l.iter().position(|m| m == l) {
            let s = sa[i].max(sb[j]);
            let s = if sa[i] == 0 || sb[j] == 0 { 0 } else { s };
            ea[i] = s;
            eb[j] = s;
        }
    }
    let a_t = a_t.expand(&ea)?;
    let b_t = b_t.expand(&eb)?;

    let batch: Vec<Label> = a_l
        .iter()
        .filter(|l| b_l.contains(l) && keep.contains(l))
        .copied()
        .collect();
    let summed: Vec<Label> = a_l
        .iter()
        .filter(|l| b_l.contains(l) && !keep.contains(l))
        .copied()
        .collect();
    let a_only: Vec<Label> = a_l.iter().filter(|l| !b_l.contains(l)).copied().collect();
    let b_only: Vec<Label> = b_l.iter().filter(|l| !a_l.contains(l)).copied().collect();
    let pos = |ls: &[Label], l: &Label| ls.iter().position(|m| m == l).unwrap() as i64;
    let size_of = |t: &Tensor, ls: &[Label], group: &[Label]| -> Vec<i64> {
        group
            .iter()
            .map(|l| t.sizes()[pos(ls, l) as usize])
            .collect()
    };
    let (bs, ks) = (size_of(&a_t, &a_l, &batch), size_of(&a_t, &a_l, &summed));
    let (ms, ns) = (size_of(&a_t, &a_l, &a_only), size_of(&b_t, &b_l, &b_only));
    let prod = |v: &[i64]| v.iter().product::<i64>();
    let perm_a: Vec<i64> = batch
        .iter()
        .chain(&a_only)
        .chain(&summed)
        .map(|l| pos(&a_l, l))
        .collect();
    let perm_b: Vec<i64> = batch
        .iter()
        .chain(&summed)
        .chain(&b_only)
        .map(|l| pos(&b_l, l))
        .collect();
    let a3 = a_t
        .permute(&perm_a)?
        .reshape(&[prod(&bs), prod(&ms), prod(&ks)])?;
    let b3 = b_t
        .permute(&perm_b)?
        .reshape(&[prod(&bs), prod(&ks), prod(&ns)])?;
    let out = bmm(&a3, &b3)?;
    let shape: Vec<i64> = bs.iter().chain(&ms).chain(&ns).copied().collect();
    let labels = batch.into_iter().chain(a_only).chain(b_only).collect();
    Ok(Operand {
        t: out.view(&shape)?,
        labels,
    })
}

/// `t` with one more (last) dim of `size`, broadcast with stride 0.
fn append_broadcast_dim(t: &Tensor, size: i64) -> TensorResult<Tensor> {
    let u = t.unsqueeze(t.dim() as i64)?;
    let mut sizes = u.sizes().to_vec();
    *sizes.last_mut().unwrap() = size;
    u.expand(&sizes)
}
