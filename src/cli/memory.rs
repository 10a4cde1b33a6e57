//! `--max-memory`: the memory cap of every command. A watchdog thread reads the process's
//! resident memory; past the cap it sets a cancel token with the memory limit as the
//! reason, which the engines, the prefix builder and the invariant search watch (they
//! stop, inconclusive, and say why). For the work without such a check (a reader, a
//! reduction, a conversion, an output being written) it backs them up: when the process
//! is still running [`GRACE`] later, it ends with exit 3 and says why, instead of growing
//! until the kernel kills it or an allocation fails and aborts.

use clap::Args;
use qpor::{current_rss_bytes, CancelToken, StopReason};
use std::time::{Duration, Instant};

/// How long the process may stay above the cap before the watchdog ends it: the time an
/// engine that saw the limit has to stop and report.
const GRACE: Duration = Duration::from_secs(1);

/// How often the watchdog reads the process's memory.
const POLL: Duration = Duration::from_millis(20);

/// Exit status of a run stopped by a limit (inconclusive).
pub const EXIT_LIMIT: u8 = 3;

/// The `--max-memory` option, shared by every command.
#[derive(Args, Clone, Copy, Debug)]
pub struct MemoryArg {
    /// Stop (exit 3, "memory limit reached") when the process holds more than this many
    /// megabytes (MiB) [default: three quarters of the machine's memory].
    #[arg(long = "max-memory", value_name = "MB")]
    pub max_memory: Option<u64>,
}

/// The cap a command runs under, watched.
#[derive(Clone, Debug)]
pub struct MemoryCap {
    /// The cap, in megabytes (MiB).
    pub mb: u64,
    /// Set (with [`StopReason::MemoryLimit`]) when the process passes the cap.
    pub token: CancelToken,
}

impl MemoryArg {
    /// The cap (the default when none was given), with the watchdog started on it; an
    /// error for `--max-memory 0`.
    pub fn enforce(self) -> Result<MemoryCap, String> {
        let mb = match self.max_memory {
            Some(0) => return Err("--max-memory 0: expected a positive number of megabytes".into()),
            Some(mb) => mb,
            None => default_cap_mb(),
        };
        let token = CancelToken::default();
        let watched = token.clone();
        std::thread::Builder::new()
            .name("memory-watchdog".into())
            .spawn(move || watch(mb, &watched))
            .map_err(|e| format!("cannot start the memory watchdog: {e}"))?;
        Ok(MemoryCap { mb, token })
    }
}

/// Three quarters of the memory this process may use: the machine's, or its control
/// group's limit when that is smaller; of 16 GiB when neither can be read.
pub fn default_cap_mb() -> u64 {
    let total = machine_bytes().unwrap_or(16 << 30);
    let limit = cgroup_limit_bytes().map_or(total, |l| l.min(total));
    (limit / 4 * 3) >> 20
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
fn machine_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The cgroup v2 memory limit (`memory.max`), when one is set.
fn cgroup_limit_bytes() -> Option<u64> {
    std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Polls the resident memory; past `mb` megabytes, stops `token`, and ends the process
/// if it is still running [`GRACE`] later.
fn watch(mb: u64, token: &CancelToken) {
    let cap = mb.saturating_mul(1 << 20);
    let mut over_since: Option<Instant> = None;
    loop {
        std::thread::sleep(POLL);
        match over_since {
            None if current_rss_bytes() > cap => {
                token.stop(StopReason::MemoryLimit(mb));
                over_since = Some(Instant::now());
            }
            Some(since) if since.elapsed() >= GRACE => {
                eprintln!("error: memory limit of {mb} MB reached (--max-memory): stopped");
                std::process::exit(EXIT_LIMIT.into());
            }
            _ => {}
        }
    }
}
