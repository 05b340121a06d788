//! Deterministic mutations for the fuzz targets' mutation tests in CI: the same damaged inputs
//! on every run (truncations, byte flips, splices of tokens, duplicated and dropped ranges),
//! so a test of a few seconds repeats part of what a fuzzing run explores.

/// A xorshift generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `data` with one mutation; `tokens` are spliced in (the format's punctuation and keywords).
pub fn mutate(rng: &mut Rng, data: &[u8], tokens: &[&str]) -> Vec<u8> {
    let mut out = data.to_vec();
    let at = rng.below(out.len() + 1);
    match rng.below(6) {
        0 => out.truncate(at),
        1 => {
            if at < out.len() {
                out[at] ^= 1 << rng.below(8);
            }
        }
        2 => {
            let token = tokens[rng.below(tokens.len())].as_bytes();
            out.splice(at..at, token.iter().copied());
        }
        3 => {
            let end = (at + 1 + rng.below(16)).min(out.len());
            if at < end {
                out.drain(at..end);
            }
        }
        4 => {
            // Repeat a range elsewhere (repeated lines, nested brackets).
            let end = (at + 1 + rng.below(64)).min(out.len());
            let piece = out[at.min(end)..end].to_vec();
            let to = rng.below(out.len() + 1);
            out.splice(to..to, piece);
        }
        _ => {
            if at < out.len() {
                out[at] = rng.next() as u8;
            }
        }
    }
    out
}

/// Runs `check` on `rounds` mutants of each seed (1 to 4 mutations each) and on the seeds
/// themselves; returns how many `check` accepted (`Ok(true)`-like count) and how many it
/// refused, or the first property that failed with its input.
pub fn run<T>(
    seeds: &[Vec<u8>],
    rounds: usize,
    tokens: &[&str],
    seed: u64,
    check: impl Fn(&[u8]) -> Result<T, String>,
    accepted: impl Fn(&T) -> bool,
) -> Result<(usize, usize), String> {
    let mut rng = Rng(seed);
    let (mut yes, mut no) = (0, 0);
    for s in seeds {
        let mut inputs = vec![s.clone()];
        for round in 0..rounds {
            let mut m = s.clone();
            for _ in 0..=(round % 4) {
                m = mutate(&mut rng, &m, tokens);
            }
            inputs.push(m);
        }
        for input in inputs {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&input)))
                .map_err(|_| format!("panicked on {:?}", String::from_utf8_lossy(&input)))?;
            match outcome {
                Ok(v) if accepted(&v) => yes += 1,
                Ok(_) => no += 1,
                Err(e) => return Err(format!("{e}\ninput: {:?}", String::from_utf8_lossy(&input))),
            }
        }
    }
    Ok((yes, no))
}
