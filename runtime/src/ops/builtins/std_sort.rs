//! `std::sort` as libstdc++ implements it (introsort: median-of-three quicksort down to
//! 16-element runs, then insertion sort). PyTorch sorts lists with it, so with a comparator
//! that is not a strict weak order (floats with NaN) or with elements that compare equal but
//! differ (tensors), only the same algorithm puts elements where PyTorch puts them. The
//! unguarded loops of the C++ are bounds-checked here, so inconsistent comparators cannot run
//! off the slice.

const THRESHOLD: usize = 16;

/// Sorts `v` with `less` exactly as `std::sort(v.begin(), v.end(), less)`. `less` may fail;
/// the first failure is returned (the order is then unspecified).
pub fn std_sort<T>(
    v: &mut [T],
    less: &mut dyn FnMut(&T, &T) -> Result<bool, String>,
) -> Result<(), String> {
    if v.len() < 2 {
        return Ok(());
    }
    let depth = 2 * (usize::BITS - 1 - v.len().leading_zeros()) as usize;
    introsort_loop(v, 0, v.len(), depth, less)?;
    final_insertion_sort(v, less)
}

fn introsort_loop<T>(
    v: &mut [T],
    first: usize,
    mut last: usize,
    mut depth: usize,
    less: &mut dyn FnMut(&T, &T) -> Result<bool, String>,
) -> Result<(), String> {
    while last - first > THRESHOLD {
        if depth == 0 {
            return heap_sort(&mut v[first..last], less);
        }
        depth -= 1;
        let cut = partition_pivot(v, first, last, less)?;
        introsort_loop(v, cut, last, depth, less)?;
        last = cut;
    }
    Ok(())
}

fn partition_pivot<T>(
    v: &mut [T],
    first: usize,
    last: usize,
    less: &mut dyn FnMut(&T, &T) -> Result<bool, String>,
) -> Result<usize, String> {
    let mid = first + (last - first) / 2;
    move_median_to_first(v, first, first + 1, mid, last - 1, less)?;
    // Unguarded partition of [first + 1, last) around v[first].
    let (mut lo, mut hi) = (first + 1, last);
    loop {
        while lo < last && less(&v[lo], &v[first])? {
            lo += 1;
        }
        hi -= 1;
        while hi > first && less(&v[first], &v[hi])? {
            hi -= 1;
        }
        if lo >= hi {
            return Ok(lo);
        }
        v.swap(lo, hi);
        lo += 1;
    }
}

fn move_median_to_first<T>(
    v: &mut [T],
    result: usize,
    a: usize,
    b: usize,
    c: usize,
    less: &mut dyn FnMut(&T, &T) -> Result<bool, String>,
) -> Result<(), String> {
    let pick = if less(&v[a], &v[b])? {
        if less(&v[b], &v[c])? {
            b
        } else if less(&v[a], &v[c])? {
            c
        } else {
            a
        }
    } else if less(&v[a], &v[c])? {
        a
    } else if less(&v[b], &v[c])? {
        c
    } else {
        b
    };
    v.swap(result, pick);
    Ok(())
}

fn final_insertion_sort<T>(
    v: &mut [T],
    less: &mut dyn FnMut(&T, &T) -> Result<bool, String>,
) -> Result<(), String> {
    let n = v.len();
    insertion_sort(&mut v[..n.min(THRESHOLD)], less)?;
    for i in THRESHOLD..n {
        linear_insert(v, i, less)?;
    }
    Ok(())
}

fn insertion_sort<T>(
    v: &mut [T],
    less: &mut dyn FnMut(&T, &T) -> Result<bool, String>,
) -> Result<(), String> {
    for i in 1..v.len() {
        if less(&v[i], &v[0])? {
            v[..=i].rotate_right(1);
        } else {
            linear_insert(v, i, less)?;
        }
    }
    Ok(())
}

/// `__unguarded_linear_insert`: moves `v[i]` left while it is less than its left neighbour.
fn linear_insert<T>(
    v: &mut [T],
    i: usize,
    less: &mut dyn FnMut(&T, &T) -> Result<bool, String>,
) -> Result<(), String> {
    let mut at = i;
    while at > 0 && less(&v[at], &v[at - 1])? {
        v.swap(at, at - 1);
        at -= 1;
    }
    Ok(())
}

/// libstdc++'s heap sort fallback (`make_heap` then `sort_heap`), for depth-limited ranges.
fn heap_sort<T>(
    v: &mut [T],
    less: &mut dyn FnMut(&T, &T) -> Result<bool, String>,
) -> Result<(), String> {
    let n = v.len();
    if n < 2 {
        return Ok(());
    }
    let mut parent = (n - 2) / 2;
    loop {
        adjust_heap(v, parent, n, less)?;
        if parent == 0 {
            break;
        }
        parent -= 1;
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        adjust_heap(v, 0, end, less)?;
    }
    Ok(())
}

/// `__adjust_heap`: sifts the hole at `hole` down to a leaf, then pushes the value back up.
fn adjust_heap<T>(
    v: &mut [T],
    top: usize,
    len: usize,
    less: &mut dyn FnMut(&T, &T) -> Result<bool, String>,
) -> Result<(), String> {
    let mut hole = top;
    let mut child = hole;
    while child < (len.saturating_sub(1)) / 2 {
        child = 2 * (child + 1);
        if less(&v[child], &v[child - 1])? {
            child -= 1;
        }
        v.swap(hole, child);
        hole = child;
    }
    if len.is_multiple_of(2) && child == (len.saturating_sub(2)) / 2 {
        child = 2 * (child + 1);
        v.swap(hole, child - 1);
        hole = child - 1;
    }
    // __push_heap: the value now at `hole` rises while its parent is less.
    while hole > top {
        let parent = (hole - 1) / 2;
        if !less(&v[parent], &v[hole])? {
            break;
        }
        v.swap(parent, hole);
        hole = parent;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut v: Vec<f64>) -> Vec<f64> {
        std_sort(&mut v, &mut |a: &f64, b: &f64| Ok(a != b && a < b)).unwrap();
        v
    }

    #[test]
    fn sorts_total_orders_like_any_sort() {
        // A deterministic pseudo-random sequence, lengths around the 16-element threshold and
        // large enough to partition several times.
        let mut x = 12345u64;
        for n in [0usize, 1, 2, 5, 15, 16, 17, 33, 100, 1000] {
            let v: Vec<f64> = (0..n)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((x >> 33) % 50) as f64
                })
                .collect();
            let mut want = v.clone();
            want.sort_by(|a, b| a.partial_cmp(b).unwrap());
            assert_eq!(sorted(v), want, "n = {n}");
        }
        let mut h: Vec<i64> = (0..200).rev().collect();
        heap_sort(&mut h, &mut |a: &i64, b: &i64| Ok(a < b)).unwrap();
        assert_eq!(h, (0..200).collect::<Vec<_>>());
    }

    #[test]
    fn nan_lands_where_pytorch_puts_it() {
        // `l.sort()` of [3.0, nan, 1.0] under torch.jit.script.
        let got = sorted(vec![3.0, f64::NAN, 1.0]);
        assert_eq!((got[0], got[1]), (1.0, 3.0));
        assert!(got[2].is_nan());
    }
}
