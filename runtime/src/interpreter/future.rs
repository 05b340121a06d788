//! Futures: the values of `prim::fork`, completed once by a task that runs on rayon's pool.
//!
//! A task is claimed by whoever gets to it first: the pool thread it was spawned on, or a
//! `wait` that finds it not started yet and runs it inline. So a wait only ever blocks on a
//! task that is running on some thread, and a saturated pool (every thread waiting) cannot
//! deadlock: queued tasks are run by their waiters.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex};

use super::error::RuntimeError;
use crate::ivalue::IValue;

type Task = Box<dyn FnOnce() -> Result<IValue, RuntimeError> + Send>;

/// The result of `fork`.
pub struct Future {
    state: Mutex<State>,
    done: Condvar,
}

enum State {
    /// Not started: whoever claims it runs it.
    Pending(Task),
    Running,
    Done(Result<IValue, RuntimeError>),
}

impl Future {
    /// A future that already holds its result.
    pub fn completed(result: Result<IValue, RuntimeError>) -> Arc<Future> {
        Arc::new(Future {
            state: Mutex::new(State::Done(result)),
            done: Condvar::new(),
        })
    }

    /// A future completed by `task`, which is queued on rayon's pool at once.
    pub fn spawn(
        task: impl FnOnce() -> Result<IValue, RuntimeError> + Send + 'static,
    ) -> Arc<Future> {
        let fut = Arc::new(Future {
            state: Mutex::new(State::Pending(Box::new(task))),
            done: Condvar::new(),
        });
        let queued = fut.clone();
        rayon::spawn(move || queued.run_if_pending());
        fut
    }

    /// Whether the result is there.
    pub fn is_done(&self) -> bool {
        matches!(*self.lock(), State::Done(_))
    }

    /// Waits for the result (running the task here if nobody has started it); the task's
    /// error is returned as is.
    pub fn wait(&self) -> Result<IValue, RuntimeError> {
        self.run_if_pending();
        let mut state = self.lock();
        loop {
            if let State::Done(result) = &*state {
                return result.clone();
            }
            state = self.done.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Runs the task if it has not been claimed yet.
    fn run_if_pending(&self) {
        let task = {
            let mut state = self.lock();
            match std::mem::replace(&mut *state, State::Running) {
                State::Pending(task) => task,
                other => {
                    *state = other;
                    return;
                }
            }
        };
        let result = catch_unwind(AssertUnwindSafe(task)).unwrap_or_else(|panic| {
            let what = super::error::panic_message(&*panic);
            Err(RuntimeError::new(format!(
                "internal error in forked code: {what}"
            )))
        });
        *self.lock() = State::Done(result);
        self.done.notify_all();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}
