//! The C++ standard library's unstable sorting algorithms as GCC's libstdc++ implements them
//! (introsort with median-of-three pivots and a final insertion sort, introselect, heap
//! select). PyTorch's CPU `sort`, `topk`, `median` and `mode` call `std::sort`,
//! `std::nth_element` and `std::partial_sort`; following the same steps puts equal keys in
//! the same order, so tie-breaking indices agree with PyTorch. The "unguarded" loops carry
//! bounds checks that never trigger for a consistent comparator, so an inconsistent one
//! (NaN with `<`) cannot make them run off the slice.

const THRESHOLD: isize = 16;

/// `std::__lg`: floor(log2(n)) for n > 0.
fn lg(n: isize) -> isize {
    (isize::BITS - 1 - n.leading_zeros()) as isize
}

struct Sorter<'a, T, F> {
    v: &'a mut [T],
    less: &'a F,
}

impl<T: Copy, F: Fn(&T, &T) -> bool> Sorter<'_, T, F> {
    #[inline]
    fn lt(&self, a: isize, b: isize) -> bool {
        (self.less)(&self.v[a as usize], &self.v[b as usize])
    }

    #[inline]
    fn get(&self, i: isize) -> T {
        self.v[i as usize]
    }

    #[inline]
    fn set(&mut self, i: isize, x: T) {
        self.v[i as usize] = x;
    }

    #[inline]
    fn swap(&mut self, a: isize, b: isize) {
        self.v.swap(a as usize, b as usize);
    }

    fn move_median_to_first(&mut self, result: isize, a: isize, b: isize, c: isize) {
        if self.lt(a, b) {
            if self.lt(b, c) {
                self.swap(result, b)
            } else if self.lt(a, c) {
                self.swap(result, c)
            } else {
                self.swap(result, a)
            }
        } else if self.lt(a, c) {
            self.swap(result, a)
        } else if self.lt(b, c) {
            self.swap(result, c)
        } else {
            self.swap(result, b)
        }
    }

    fn unguarded_partition(&mut self, mut first: isize, mut last: isize, pivot: isize) -> isize {
        let hi = last;
        loop {
            while first < hi - 1 && self.lt(first, pivot) {
                first += 1;
            }
            last -= 1;
            while last > pivot && self.lt(pivot, last) {
                last -= 1;
            }
            if first >= last {
                return first;
            }
            self.swap(first, last);
            first += 1;
        }
    }

    fn unguarded_partition_pivot(&mut self, first: isize, last: isize) -> isize {
        let mid = first + (last - first) / 2;
        self.move_median_to_first(first, first + 1, mid, last - 1);
        self.unguarded_partition(first + 1, last, first)
    }

    fn unguarded_linear_insert(&mut self, mut last: isize) {
        let val = self.get(last);
        let mut next = last - 1;
        while next >= 0 && (self.less)(&val, &self.v[next as usize]) {
            let x = self.get(next);
            self.set(last, x);
            last = next;
            next -= 1;
        }
        self.set(last, val);
    }

    fn insertion_sort(&mut self, first: isize, last: isize) {
        if first == last {
            return;
        }
        for i in first + 1..last {
            if self.lt(i, first) {
                let val = self.get(i);
                self.v
                    .copy_within(first as usize..i as usize, first as usize + 1);
                self.set(first, val);
            } else {
                self.unguarded_linear_insert(i);
            }
        }
    }

    fn final_insertion_sort(&mut self, first: isize, last: isize) {
        if last - first > THRESHOLD {
            self.insertion_sort(first, first + THRESHOLD);
            for i in first + THRESHOLD..last {
                self.unguarded_linear_insert(i);
            }
        } else {
            self.insertion_sort(first, last);
        }
    }

    fn push_heap(&mut self, first: isize, mut hole: isize, top: isize, value: T) {
        let mut parent = (hole - 1) / 2;
        while hole > top && (self.less)(&self.v[(first + parent) as usize], &value) {
            let x = self.get(first + parent);
            self.set(first + hole, x);
            hole = parent;
            parent = (hole - 1) / 2;
        }
        self.set(first + hole, value);
    }

    fn adjust_heap(&mut self, first: isize, mut hole: isize, len: isize, value: T) {
        let top = hole;
        let mut second = hole;
        while second < (len - 1) / 2 {
            second = 2 * (second + 1);
            if self.lt(first + second, first + second - 1) {
                second -= 1;
            }
            let x = self.get(first + second);
            self.set(first + hole, x);
            hole = second;
        }
        if len & 1 == 0 && second == (len - 2) / 2 {
            second = 2 * (second + 1);
            let x = self.get(first + second - 1);
            self.set(first + hole, x);
            hole = second - 1;
        }
        self.push_heap(first, hole, top, value);
    }

    fn make_heap(&mut self, first: isize, last: isize) {
        let len = last - first;
        if len < 2 {
            return;
        }
        let mut parent = (len - 2) / 2;
        loop {
            let value = self.get(first + parent);
            self.adjust_heap(first, parent, len, value);
            if parent == 0 {
                return;
            }
            parent -= 1;
        }
    }

    fn pop_heap(&mut self, first: isize, last: isize, result: isize) {
        let value = self.get(result);
        let x = self.get(first);
        self.set(result, x);
        self.adjust_heap(first, 0, last - first, value);
    }

    fn heap_select(&mut self, first: isize, middle: isize, last: isize) {
        self.make_heap(first, middle);
        for i in middle..last {
            if self.lt(i, first) {
                self.pop_heap(first, middle, i);
            }
        }
    }

    fn sort_heap(&mut self, first: isize, mut last: isize) {
        while last - first > 1 {
            last -= 1;
            self.pop_heap(first, last, last);
        }
    }

    fn partial_sort(&mut self, first: isize, middle: isize, last: isize) {
        self.heap_select(first, middle, last);
        self.sort_heap(first, middle);
    }

    fn introsort_loop(&mut self, first: isize, mut last: isize, mut depth: isize) {
        while last - first > THRESHOLD {
            if depth == 0 {
                self.partial_sort(first, last, last);
                return;
            }
            depth -= 1;
            let cut = self.unguarded_partition_pivot(first, last);
            self.introsort_loop(cut, last, depth);
            last = cut;
        }
    }

    fn introselect(&mut self, mut first: isize, nth: isize, mut last: isize, mut depth: isize) {
        while last - first > 3 {
            if depth == 0 {
                self.heap_select(first, nth + 1, last);
                self.swap(first, nth);
                return;
            }
            depth -= 1;
            let cut = self.unguarded_partition_pivot(first, last);
            if cut <= nth {
                first = cut;
            } else {
                last = cut;
            }
        }
        self.insertion_sort(first, last);
    }
}

/// `std::sort(v.begin(), v.end(), less)`.
pub fn sort<T: Copy, F: Fn(&T, &T) -> bool>(v: &mut [T], less: &F) {
    let n = v.len() as isize;
    if n == 0 {
        return;
    }
    let mut s = Sorter { v, less };
    s.introsort_loop(0, n, lg(n) * 2);
    s.final_insertion_sort(0, n);
}

/// `std::nth_element(v.begin(), v.begin() + nth, v.end(), less)`.
pub fn nth_element<T: Copy, F: Fn(&T, &T) -> bool>(v: &mut [T], nth: usize, less: &F) {
    let n = v.len() as isize;
    if n == 0 || nth as isize >= n {
        return;
    }
    let mut s = Sorter { v, less };
    s.introselect(0, nth as isize, n, lg(n) * 2);
}

/// `std::partial_sort(v.begin(), v.begin() + middle, v.end(), less)`.
pub fn partial_sort<T: Copy, F: Fn(&T, &T) -> bool>(v: &mut [T], middle: usize, less: &F) {
    let n = v.len() as isize;
    let middle = (middle as isize).min(n);
    if middle == 0 {
        return;
    }
    let mut s = Sorter { v, less };
    s.partial_sort(0, middle, n);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator for test data.
    fn data(n: usize, seed: u64, range: u64) -> Vec<(u64, usize)> {
        let mut x = seed;
        (0..n)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 33) % range, i)
            })
            .collect()
    }

    #[test]
    fn sorts_selects_and_partially_sorts() {
        let less = |a: &(u64, usize), b: &(u64, usize)| a.0 < b.0;
        for n in [0, 1, 2, 3, 5, 16, 17, 40, 300, 2000] {
            for range in [3, 1000] {
                let v = data(n, n as u64 + range, range);
                let mut want: Vec<u64> = v.iter().map(|p| p.0).collect();
                want.sort();
                let mut s = v.clone();
                sort(&mut s, &less);
                assert_eq!(s.iter().map(|p| p.0).collect::<Vec<_>>(), want);
                for nth in [0, n / 2, n.saturating_sub(1)] {
                    if n == 0 {
                        continue;
                    }
                    let mut s = v.clone();
                    nth_element(&mut s, nth, &less);
                    assert_eq!(s[nth].0, want[nth]);
                    assert!(s[..nth].iter().all(|p| p.0 <= want[nth]));
                    assert!(s[nth..].iter().all(|p| p.0 >= want[nth]));
                }
                let k = n / 3;
                let mut s = v.clone();
                partial_sort(&mut s, k, &less);
                assert_eq!(s[..k].iter().map(|p| p.0).collect::<Vec<_>>(), want[..k]);
            }
        }
    }

    #[test]
    fn small_sorts_keep_equal_keys_in_order_and_nan_does_not_panic() {
        // At most 16 elements, std::sort is an insertion sort: stable.
        let less = |a: &(u64, usize), b: &(u64, usize)| a.0 < b.0;
        let mut v = data(16, 7, 2);
        sort(&mut v, &less);
        assert!(v.windows(2).all(|w| w[0].0 < w[1].0 || w[0].1 < w[1].1));
        let mut f: Vec<f64> = (0..500)
            .map(|i| {
                if i % 7 == 0 {
                    f64::NAN
                } else {
                    (i * 37 % 101) as f64
                }
            })
            .collect();
        sort(&mut f, &|a: &f64, b: &f64| a < b);
        nth_element(&mut f, 250, &|a: &f64, b: &f64| a < b);
    }
}
