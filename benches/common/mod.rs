//! Running the `qpor` binary from a bench: one process per run, so that the peak memory
//! reported is the run's own.

use serde_json::Value;
use std::process::Command;

/// What one `qpor check --json` run reported.
pub struct Run {
    /// `deadlock`, `no-deadlock`, `fault` or `inconclusive`.
    pub verdict: String,
    /// The report's `stats` object.
    pub stats: Value,
    /// Seconds, as the engine measured them.
    pub seconds: f64,
    /// Peak resident memory in MB.
    pub rss_mb: f64,
}

impl Run {
    /// A counter of the report (0 when absent).
    pub fn stat(&self, name: &str) -> u64 {
        self.stats[name].as_u64().unwrap_or(0)
    }
}

/// Runs `qpor check MODEL ARGS --json -q` from the repository root.
pub fn check(model: &str, args: &[String]) -> Run {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_qpor"))
        .arg("check")
        .arg(model)
        .args(args)
        .args(["--json", "-q"])
        .output()
        .expect("the qpor binary runs");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{model} {args:?}: no JSON ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    Run {
        verdict: json["verdict"].as_str().unwrap_or("?").to_string(),
        seconds: json["stats"]["seconds"].as_f64().unwrap_or(0.0),
        rss_mb: json["stats"]["peak_rss_bytes"].as_u64().unwrap_or(0) as f64 / 1e6,
        stats: json["stats"].clone(),
    }
}

/// The value of environment variable `name`, parsed, or `default`.
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
