//! The loop nest of the typed pointwise kernels, as PyTorch's TensorIterator builds it: the
//! operands (output first) are broadcast to one shape, size-1 dims dropped and neighbouring
//! dims merged wherever every operand steps through them as one, so a contiguous or
//! chunked view (`chunk`, `narrow`, `select`) is one long row and a transposed or expanded
//! one keeps only the dims it needs. The innermost dim is run as a row: contiguous rows go
//! straight to the vector loops, strided ones through a small gathered block, broadcast
//! ones as a single value. No per-element offset tables.

use smallvec::SmallVec;

/// The most operands (output included) of one nest.
pub(crate) const MAX_OPERANDS: usize = 5;

/// Elements per parallel task.
const CHUNK: usize = 1 << 13;

/// Elements a strided row is gathered in at a time (on the stack).
pub(crate) const BLOCK: usize = 256;

/// Per-operand element offsets or strides.
pub(crate) type Offsets = [isize; MAX_OPERANDS];

/// A loop nest over the broadcast shape, dims outermost first.
#[derive(Clone, Debug)]
pub(crate) struct Nest {
    sizes: SmallVec<[usize; 6]>,
    /// Per dim, each operand's stride in elements (0 where it is broadcast).
    strides: SmallVec<[Offsets; 6]>,
}

impl Nest {
    /// The nest over `shape` where operand `k` steps by `strides[k]` (its strides expanded to
    /// `shape`, 0 on broadcast dims).
    pub fn new(shape: &[i64], strides: &[&[i64]]) -> Nest {
        debug_assert!(strides.len() <= MAX_OPERANDS);
        let mut sizes: SmallVec<[usize; 6]> = SmallVec::new();
        let mut steps: SmallVec<[Offsets; 6]> = SmallVec::new();
        for (d, &size) in shape.iter().enumerate() {
            if size == 1 {
                continue;
            }
            let mut s = [0isize; MAX_OPERANDS];
            for (k, st) in strides.iter().enumerate() {
                s[k] = st[d] as isize;
            }
            if let (Some(outer_size), Some(outer)) = (sizes.last_mut(), steps.last_mut()) {
                // The outer dim steps over exactly this dim's span in every operand: merge.
                if (0..strides.len()).all(|k| outer[k] == s[k] * size as isize) {
                    *outer_size *= size as usize;
                    *outer = s;
                    continue;
                }
            }
            sizes.push(size as usize);
            steps.push(s);
        }
        if sizes.is_empty() {
            sizes.push(1);
            steps.push([0; MAX_OPERANDS]);
        }
        Nest {
            sizes,
            strides: steps,
        }
    }

    pub fn numel(&self) -> usize {
        self.sizes.iter().product()
    }

    /// Each operand's stride along the rows.
    pub fn inner(&self) -> Offsets {
        *self.strides.last().expect("a nest has a dim")
    }

    /// Calls `run(offsets, len)` for elements `[start, end)` in row-major order, one call per
    /// piece of a row: `offsets` are each operand's element offset at the piece's start.
    #[inline(always)]
    pub fn for_each_run(&self, start: usize, end: usize, mut run: impl FnMut(&Offsets, usize)) {
        if start >= end {
            return;
        }
        let nd = self.sizes.len();
        let inner = self.sizes[nd - 1];
        // The multi-index of `start` and the offsets there.
        let mut index: SmallVec<[usize; 6]> = SmallVec::from_elem(0, nd);
        let mut offs = [0isize; MAX_OPERANDS];
        let mut rest = start;
        for d in (0..nd).rev() {
            index[d] = rest % self.sizes[d];
            rest /= self.sizes[d];
            for (o, s) in offs.iter_mut().zip(&self.strides[d]) {
                *o += index[d] as isize * s;
            }
        }
        let mut pos = start;
        while pos < end {
            let len = (inner - index[nd - 1]).min(end - pos);
            run(&offs, len);
            pos += len;
            if pos >= end {
                break;
            }
            // To the start of the next row: undo the inner position, then step the odometer.
            let step = &self.strides[nd - 1];
            for (o, s) in offs.iter_mut().zip(step) {
                *o -= index[nd - 1] as isize * s;
            }
            index[nd - 1] = 0;
            let mut d = nd - 1;
            while d > 0 {
                d -= 1;
                index[d] += 1;
                for (o, s) in offs.iter_mut().zip(&self.strides[d]) {
                    *o += s;
                }
                if index[d] < self.sizes[d] {
                    break;
                }
                for (o, s) in offs.iter_mut().zip(&self.strides[d]) {
                    *o -= self.sizes[d] as isize * s;
                }
                index[d] = 0;
            }
        }
    }
}

/// Runs `body(start, end)` over `0..n`: in chunks on the kernel pool when `n >= threshold`,
/// otherwise on the calling thread.
pub(crate) fn split(n: usize, threshold: usize, body: impl Fn(usize, usize) + Sync) {
    if n >= threshold && n > CHUNK {
        crate::parallel::for_each(n.div_ceil(CHUNK), |c| {
            body(c * CHUNK, ((c + 1) * CHUNK).min(n))
        });
    } else {
        body(0, n);
    }
}

/// One float32 input of a contiguous run: a pointer or a single value.
#[derive(Copy, Clone)]
pub(crate) enum Feed {
    Ptr(*const f32),
    One(f32),
}

/// The float32 input at `p` with stride `s` over `len` elements as a [`Feed`], gathering
/// it into `buf` when it is neither contiguous nor broadcast.
///
/// # Safety
/// `p` addresses `len` floats at stride `s`; `len <= BLOCK`.
#[inline(always)]
pub(crate) unsafe fn feed(p: *const f32, s: isize, len: usize, buf: &mut [f32; BLOCK]) -> Feed {
    match s {
        1 => Feed::Ptr(p),
        0 => Feed::One(*p),
        _ => {
            for (i, v) in buf[..len].iter_mut().enumerate() {
                *v = *p.offset(i as isize * s);
            }
            Feed::Ptr(buf.as_ptr())
        }
    }
}

/// Runs a row of `len` float32 outputs at `o` (stride `so`) through `block(out, len)`, a
/// contiguous writer: directly when the output is contiguous, otherwise into a block that is
/// scattered after; `block` gets pieces of at most [`BLOCK`] elements and their start.
///
/// # Safety
/// `o` addresses `len` floats at stride `so`.
#[inline(always)]
pub(crate) unsafe fn write_row(
    o: *mut f32,
    so: isize,
    len: usize,
    mut block: impl FnMut(*mut f32, usize, usize),
) {
    let mut start = 0;
    while start < len {
        let m = (len - start).min(BLOCK);
        if so == 1 {
            block(o.add(start), start, m);
        } else {
            let mut buf = [0f32; BLOCK];
            block(buf.as_mut_ptr(), start, m);
            for (i, &v) in buf[..m].iter().enumerate() {
                *o.offset((start + i) as isize * so) = v;
            }
        }
        start += m;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(n: &Nest, start: usize, end: usize) -> Vec<(Offsets, usize)> {
        let mut v = Vec::new();
        n.for_each_run(start, end, |o, len| v.push((*o, len)));
        v
    }

    #[test]
    fn merges_dims_and_walks_rows() {
        // A chunk of a [4, 8] matrix ([4, 2] at stride 8) beside a contiguous output.
        let nest = Nest::new(&[4, 2], &[&[2, 1], &[8, 1]]);
        assert_eq!(nest.sizes.as_slice(), &[4, 2]);
        let r = runs(&nest, 1, 6);
        assert_eq!(r.len(), 3);
        assert_eq!((r[0].0[0], r[0].0[1], r[0].1), (1, 1, 1));
        assert_eq!((r[1].0[0], r[1].0[1], r[1].1), (2, 8, 2));
        assert_eq!((r[2].0[0], r[2].0[1], r[2].1), (4, 16, 2));
        // Contiguous operands merge into one row; size-1 dims vanish; broadcast keeps 0.
        let nest = Nest::new(&[3, 1, 5], &[&[5, 5, 1], &[5, 5, 1], &[0, 0, 1]]);
        assert_eq!(nest.sizes.as_slice(), &[3, 5]);
        let nest = Nest::new(&[3, 1, 5], &[&[5, 5, 1], &[5, 5, 1]]);
        assert_eq!(nest.sizes.as_slice(), &[15]);
        assert_eq!(runs(&nest, 0, 15).len(), 1);
        // A 0-dim nest is one element.
        let nest = Nest::new(&[], &[&[], &[]]);
        assert_eq!((nest.numel(), runs(&nest, 0, 1).len()), (1, 1));
        // A transposed operand: every run has the transposed stride inside.
        let nest = Nest::new(&[2, 3], &[&[3, 1], &[1, 2]]);
        assert_eq!(nest.inner()[1], 2);
        let r = runs(&nest, 0, 6);
        assert_eq!(r.iter().map(|x| x.0[1]).collect::<Vec<_>>(), vec![0, 1]);
    }
}
