//! Reductions, scans, sorting and softmax: `sum`/`mean`/`prod`, `max`/`min`/`argmax`,
//! `any`/`all`, `var`/`std`/`norm`/`logsumexp`, `cumsum`/`cummax`, `sort`/`topk`/`median`,
//! `softmax`/`log_softmax`, every overload of each (dim lists, keepdim, `dtype=`, `out=`).

mod args;
mod logical;
mod minmax;
mod norms;
mod output;
mod plan;
mod scan;
mod softmax;
mod sort;
mod stats;
mod stdsort;
mod sum_mean;
mod unique;

pub(crate) use sum_mean::{lane_sum, lane_sums};

use super::registry::Registry;

pub fn register(r: &mut Registry) {
    sum_mean::register(r);
    minmax::register(r);
    logical::register(r);
    stats::register(r);
    scan::register(r);
    sort::register(r);
    softmax::register(r);
    unique::register(r);
    norms::register(r);
}

#[cfg(test)]
mod tests;
