//! What every pass gets: logging selected by `EMBER_LOG` and a rewrite budget from
//! `EMBER_OPT_LIMIT`, modelled on PyTorch's `PYTORCH_JIT_LOG_LEVEL` and `PYTORCH_JIT_OPT_LIMIT`.
//!
//! `EMBER_LOG=dce:>cse:>>canonicalize` turns on logging for passes by name; each `>` raises the
//! level: none is `dump` (the graph before and after), `>` adds `update` (each rewrite), `>>` adds
//! `debug`. `EMBER_OPT_LIMIT=cse=3:dce=0` lets a pass make only that many rewrites, to bisect a
//! bad rewrite. `EMBER_TIME_PASSES=1` prints how long each pass took (LLVM's `-time-passes`).

use std::io::Write;

use hashbrown::HashMap;

/// How much a pass logs, from least to most.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Dump,
    Update,
    Debug,
}

/// Settings read once from the environment (or given by a tool or test).
#[derive(Clone, Debug, Default)]
pub struct PassConfig {
    log: HashMap<String, LogLevel>,
    limits: HashMap<String, usize>,
    /// Print each pass's time on stderr.
    pub time_passes: bool,
}

impl PassConfig {
    /// Reads `EMBER_LOG` and `EMBER_OPT_LIMIT`.
    pub fn from_env() -> Result<PassConfig, String> {
        let log = std::env::var("EMBER_LOG").unwrap_or_default();
        let limit = std::env::var("EMBER_OPT_LIMIT").unwrap_or_default();
        let mut config = PassConfig::parse(&log, &limit)?;
        config.time_passes = std::env::var("EMBER_TIME_PASSES").is_ok_and(|v| v == "1");
        Ok(config)
    }

    /// Parses the two settings; bad entries are an error naming the entry.
    pub fn parse(log: &str, limit: &str) -> Result<PassConfig, String> {
        let mut config = PassConfig::default();
        for entry in log.split(':').map(str::trim).filter(|e| !e.is_empty()) {
            let name = entry.trim_start_matches('>');
            let level = match entry.len() - name.len() {
                0 => LogLevel::Dump,
                1 => LogLevel::Update,
                _ => LogLevel::Debug,
            };
            if name.is_empty() {
                return Err(format!("EMBER_LOG: entry '{entry}' names no pass"));
            }
            config.log.insert(name.to_string(), level);
        }
        for entry in limit.split(':').map(str::trim).filter(|e| !e.is_empty()) {
            let (name, n) = entry
                .split_once('=')
                .ok_or_else(|| format!("EMBER_OPT_LIMIT: entry '{entry}' is not PASS=N"))?;
            let n: usize = n
                .trim()
                .parse()
                .map_err(|_| format!("EMBER_OPT_LIMIT: '{n}' in '{entry}' is not a count"))?;
            config.limits.insert(name.trim().to_string(), n);
        }
        Ok(config)
    }

    /// The context one run of pass `name` gets.
    pub fn context_for(&self, name: &'static str) -> PassContext {
        PassContext {
            pass: name,
            log_level: self.log.get(name).copied(),
            remaining: self.limits.get(name).copied(),
        }
    }
}

/// Handed to a pass while it runs.
#[derive(Debug)]
pub struct PassContext {
    pass: &'static str,
    log_level: Option<LogLevel>,
    /// Rewrites left before the limit stops the pass (`None`: no limit).
    remaining: Option<usize>,
}

impl PassContext {
    /// A context with no logging and no limit.
    pub fn unlimited(pass: &'static str) -> PassContext {
        PassContext {
            pass,
            log_level: None,
            remaining: None,
        }
    }

    /// Asks to make one rewrite. Returns `false` once the `EMBER_OPT_LIMIT` budget is spent;
    /// the pass must then leave the graph as it is.
    pub fn may_rewrite(&mut self) -> bool {
        match &mut self.remaining {
            None => true,
            Some(0) => false,
            Some(n) => {
                *n -= 1;
                true
            }
        }
    }

    pub fn logs(&self, level: LogLevel) -> bool {
        self.log_level.is_some_and(|l| l >= level)
    }

    /// Writes `message` to stderr, prefixed with the pass name, if `level` is on for this pass.
    pub fn log(&self, level: LogLevel, message: impl FnOnce() -> String) {
        if self.logs(level) {
            let mut err = std::io::stderr().lock();
            for line in message().lines() {
                let _ = writeln!(err, "[{}] {}", self.pass, line);
            }
        }
    }

    pub fn pass_name(&self) -> &'static str {
        self.pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_levels_and_limits() {
        let c = PassConfig::parse("dce:>cse:>>inline", "cse=3").unwrap();
        assert!(c.context_for("dce").logs(LogLevel::Dump));
        assert!(!c.context_for("dce").logs(LogLevel::Update));
        assert!(c.context_for("cse").logs(LogLevel::Update));
        assert!(c.context_for("inline").logs(LogLevel::Debug));
        let mut cx = c.context_for("cse");
        assert!(cx.may_rewrite() && cx.may_rewrite() && cx.may_rewrite());
        assert!(!cx.may_rewrite());
        assert!(c.context_for("dce").may_rewrite());
        assert!(PassConfig::parse("", "cse").is_err());
        assert!(PassConfig::parse("", "cse=x").is_err());
    }
}
