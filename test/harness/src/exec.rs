//! Running one shell command with a deadline. The command runs in its own process group so
//! that a timeout kills the whole pipeline, not just the shell; its output goes to files, not
//! pipes, so a background process that keeps a descriptor open cannot hang the harness.

use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// Output kept per stream in a report; the rest is cut from the front (the end of a log
/// usually says what went wrong).
const MAX_REPORTED_BYTES: u64 = 64 * 1024;

/// How one command ended.
#[derive(Clone, Debug)]
pub struct CommandResult {
    /// `None` when the command was killed at the deadline.
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
}

impl CommandResult {
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }
}

/// What the environment of a command is.
pub struct CommandEnv<'a> {
    /// The `PATH` the command sees.
    pub path: &'a str,
    /// The working directory.
    pub cwd: &'a Path,
    /// Where the command's stdout and stderr are captured: `<capture>.stdout`, `.stderr`.
    pub capture: &'a Path,
}

/// Runs `command` with `bash -o pipefail -c`, killing it (and everything it started in its
/// process group) at `deadline`.
pub fn run_command(
    command: &str,
    env: &CommandEnv,
    deadline: Instant,
) -> io::Result<CommandResult> {
    let out_path = with_suffix(env.capture, ".stdout");
    let err_path = with_suffix(env.capture, ".stderr");
    let mut cmd = Command::new("bash");
    cmd.arg("-o")
        .arg("pipefail")
        .arg("-c")
        .arg(command)
        .current_dir(env.cwd)
        .env("PATH", env.path)
        .stdin(Stdio::null())
        .stdout(File::create(&out_path)?)
        .stderr(File::create(&err_path)?)
        .process_group(0);
    // The developer's own settings must not change what the tools print.
    for (key, _) in std::env::vars_os() {
        if key
            .to_str()
            .is_some_and(|k| k.starts_with("EMBER_") || k == "FILECHECK_OPTS")
        {
            cmd.env_remove(key);
        }
    }
    let mut child = cmd.spawn()?;
    let mut pause = Duration::from_millis(1);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        let now = Instant::now();
        if now >= deadline {
            kill_process_group(child.id());
            child.wait()?;
            break None;
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    };
    Ok(CommandResult {
        status,
        stdout: read_tail(&out_path)?,
        stderr: read_tail(&err_path)?,
    })
}

/// `path` with `suffix` appended to its last component (`x.ir` -> `x.ir.stdout`).
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Sends SIGKILL to process group `pgid`, through the shell's `kill` so that no binding to
/// libc is needed.
fn kill_process_group(pgid: u32) {
    let _ = Command::new("bash")
        .arg("-c")
        .arg("kill -KILL -- \"-$1\"")
        .arg("kill")
        .arg(pgid.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// The last [`MAX_REPORTED_BYTES`] of a capture file, as text.
fn read_tail(path: &Path) -> io::Result<String> {
    let len = fs::metadata(path)?.len();
    let mut file = File::open(path)?;
    let mut bytes = Vec::new();
    let mut text = String::new();
    if len > MAX_REPORTED_BYTES {
        io::copy(
            &mut (&mut file).take(len - MAX_REPORTED_BYTES),
            &mut io::sink(),
        )?;
        text.push_str(&format!(
            "[... {} bytes cut ...]\n",
            len - MAX_REPORTED_BYTES
        ));
    }
    file.take(MAX_REPORTED_BYTES).read_to_end(&mut bytes)?;
    text.push_str(&String::from_utf8_lossy(&bytes));
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(command: &str, seconds: u64) -> CommandResult {
        let dir = std::env::temp_dir().join(format!("ember-lit-exec-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let capture = dir.join(format!("c{}", command.len()));
        let path = std::env::var("PATH").unwrap();
        let env = CommandEnv {
            path: &path,
            cwd: &dir,
            capture: &capture,
        };
        run_command(command, &env, Instant::now() + Duration::from_secs(seconds)).unwrap()
    }

    #[test]
    fn captures_output_and_status() {
        let r = run("echo out; echo err >&2; exit 3", 30);
        assert_eq!(
            (
                r.status.unwrap().code(),
                r.stdout.as_str(),
                r.stderr.as_str()
            ),
            (Some(3), "out\n", "err\n")
        );
        assert!(run("true", 30).success());
    }

    #[test]
    fn pipefail_is_on() {
        assert!(!run("false | true", 30).success());
    }

    #[test]
    fn deadline_kills_the_whole_pipeline() {
        let start = Instant::now();
        let r = run("sleep 30 | sleep 30; echo unreachable", 1);
        assert!(r.status.is_none());
        assert!(r.stdout.is_empty());
        assert!(start.elapsed() < Duration::from_secs(10));
    }
}
