//! The README's quick start runs as written: every command line of its fenced `sh` blocks
//! ends with `# exit N`, and running it (with `qpor` and `cargo run --release --` replaced
//! by the binary under test, in the repository's root) exits with status N. The README
//! stays short enough to read in five minutes.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest a README may be.
const MAX_README_LINES: usize = 150;

/// How long one quick-start command may run.
const TIMEOUT: Duration = Duration::from_secs(120);

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines of the `## Quick start` section, up to the next `## ` heading.
fn quick_start(readme: &str) -> Vec<&str> {
    let mut lines = readme.lines().skip_while(|l| l.trim_end() != "## Quick start");
    assert!(
        lines.next().is_some(),
        "README.md has no `## Quick start` section"
    );
    lines.take_while(|l| !l.starts_with("## ")).collect()
}

/// One command of the quick start and the exit status its annotation promises.
#[derive(Debug)]
struct Annotated {
    command: String,
    status: i32,
}

/// The command lines of the fenced `sh` blocks of `section`, each with its `# exit N`.
/// Blank lines and comment lines are skipped, and so is `cargo test` (it would run this
/// test again).
fn commands(section: &[&str]) -> Vec<Annotated> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut in_other = false;
    for line in section {
        let trimmed = line.trim();
        if let Some(info) = trimmed.strip_prefix("```") {
            match (in_sh, in_other) {
                (false, false) if info.trim() == "sh" => in_sh = true,
                (false, false) => in_other = true,
                _ => (in_sh, in_other) = (false, false),
            }
            continue;
        }
        if !in_sh || trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with("cargo test") {
            continue;
        }
        let (command, note) = trimmed
            .rsplit_once("# exit ")
            .unwrap_or_else(|| panic!("quick-start command without `# exit N` at its end: {trimmed}"));
        let status = note
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("`# exit {note}` is not a status: {trimmed}"));
        out.push(Annotated {
            command: command.trim().to_string(),
            status,
        });
    }
    out
}

/// `command` with every `qpor` and `cargo run --release --` at the start of a simple
/// command (the line's start, or after `&&`, `||`, `;`, `|`) replaced by `bin`.
fn substitute(command: &str, bin: &str) -> String {
    let quoted = format!("'{}'", bin.replace('\'', r"'\''"));
    let words: Vec<&str> = command.split(' ').collect();
    let mut out: Vec<String> = Vec::new();
    let mut at_start = true;
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        if at_start && word == "qpor" {
            out.push(quoted.clone());
        } else if at_start && words[i..].starts_with(&["cargo", "run", "--release", "--"]) {
            out.push(quoted.clone());
            i += 3;
        } else {
            out.push(word.to_string());
        }
        if !word.is_empty() {
            at_start = matches!(word, "&&" | "||" | ";" | "|") || word.ends_with(';');
        }
        i += 1;
    }
    out.join(" ")
}

/// Runs `script` with `sh -c` in the repository's root; its exit status, or `None` when
/// it ran past [`TIMEOUT`] (then it is killed). Its output goes to files in `scratch`,
/// returned for the failure message.
fn run(script: &str, scratch: &Path) -> (Option<i32>, String) {
    let stdout = scratch.join("stdout");
    let stderr = scratch.join("stderr");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TMPDIR", scratch)
        .stdin(Stdio::null())
        .stdout(fs::File::create(&stdout).unwrap())
        .stderr(fs::File::create(&stderr).unwrap())
        .spawn()
        .expect("sh runs");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the command can be waited for") {
            break status.code();
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let tail = |p: &Path| {
        let text = fs::read_to_string(p).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    };
    (
        status,
        format!("stdout:\n{}\nstderr:\n{}", tail(&stdout), tail(&stderr)),
    )
}

#[test]
fn the_readme_is_short() {
    let n = readme().lines().count();
    assert!(
        n <= MAX_README_LINES,
        "README.md has {n} lines, at most {MAX_README_LINES}"
    );
}

#[test]
fn every_quick_start_command_exits_as_annotated() {
    let text = readme();
    let commands = commands(&quick_start(&text));
    assert!(
        !commands.is_empty(),
        "the quick start has no `sh` block with commands"
    );
    let bin = env!("CARGO_BIN_EXE_qpor");
    let mut failures = Vec::new();
    for c in &commands {
        let scratch = tempfile::tempdir().unwrap();
        let script = substitute(&c.command, bin);
        let (status, output) = run(&script, scratch.path());
        if status != Some(c.status) {
            let got = status.map_or("a timeout".to_string(), |s| format!("exit {s}"));
            failures.push(format!(
                "`{}`: expected exit {}, got {got}\n{output}",
                c.command, c.status
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn commands_are_read_with_their_status_and_substituted() {
    let section = [
        "text",
        "```sh",
        "qpor check a.pnml   # exit 1",
        "cargo test --release",
        "",
        "d=$(mktemp -d) && cp a $d/m && qpor mcc $d   # exit 0",
        "```",
        "```text",
        "qpor not a command",
        "```",
        "```sh",
        "cargo run --release -- info a.pnml # exit 2",
        "```",
    ];
    let c = commands(&section);
    assert_eq!(c.len(), 3, "{c:?}");
    assert_eq!((c[0].command.as_str(), c[0].status), ("qpor check a.pnml", 1));
    assert_eq!(c[1].status, 0);
    assert_eq!(c[2].status, 2);
    assert_eq!(substitute(&c[0].command, "/b/qpor"), "'/b/qpor' check a.pnml");
    assert_eq!(
        substitute(&c[1].command, "/b/qpor"),
        "d=$(mktemp -d) && cp a $d/m && '/b/qpor' mcc $d"
    );
    assert_eq!(substitute(&c[2].command, "/b/qpor"), "'/b/qpor' info a.pnml");
    assert_eq!(substitute("echo qpor", "/b/qpor"), "echo qpor");
}
