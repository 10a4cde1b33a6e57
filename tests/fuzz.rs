//! The fuzzing harness (issue 18): a mutation loop on stable Rust, in a test binary of its
//! own (`harness = false`). Targets:
//! - `pnml`, `llnet`, `proc`, `dimacs`, `pes`: the readers, on mutations of the corpus in
//!   `tests/fuzz-corpus/<target>/`; a model that reads is also checked briefly, so the
//!   systems built from odd but valid models are exercised too;
//! - `cli`: the `qpor` binary with mutated command lines over the real subcommands,
//!   options and values, on shipped models;
//! - `diff`: small P/T nets made from the bytes, on which every engine must agree with
//!   the explicit oracle (verdicts, and with `--all` the dead markings).
//!
//! Every input runs under `catch_unwind`; a watchdog ends the run when one input takes
//! longer than [`HANG`], and the process's memory is read every few inputs against
//! [`MEMORY_CAP`]. A failing input is written to `tests/fuzz-corpus/<target>/crash-<hash>`
//! (it then runs first on every later run, as every corpus file does) and the run fails.
//!
//! `cargo test --release --test fuzz` runs a short seeded run of every target (CI);
//! `QPOR_FUZZ_INPUTS=N` (per target), `QPOR_FUZZ_SEED=S` and `QPOR_FUZZ_TARGETS=a,b`
//! choose another run (docs/robustness.md).

mod engine_support;
mod net_support;

use engine_support::dead_states;
use net_support::NetSpec;
use qpor::{
    check, current_rss_bytes, CheckOptions, EngineChoice, EngineName, Format, Limits, Model, PortfolioChoice,
    Silent, Verdict,
};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One input running longer than this is a hang.
const HANG: Duration = Duration::from_secs(30);

/// The process holding more than this after an input is a failure.
const MEMORY_CAP: u64 = 2 << 30;

/// Inputs per target in the default (CI) run.
const DEFAULT_INPUTS: [(&str, u64); 7] = [
    ("pnml", 3000),
    ("llnet", 3000),
    ("proc", 3000),
    ("dimacs", 3000),
    ("pes", 3000),
    ("cli", 150),
    ("diff", 300),
];

/// Tokens the mutator inserts, per target: the words a reader reacts to.
fn dictionary(target: &str) -> &'static [&'static str] {
    match target {
        "pnml" => &[
            "<place id=\"p9\">",
            "</place>",
            "<transition id=\"t9\"/>",
            "<arc id=\"a9\" source=\"p0\" target=\"t0\">",
            "</arc>",
            "<initialMarking><text>4294967295</text></initialMarking>",
            "<inscription><text>0</text></inscription>",
            "<page id=\"g\">",
            "</page>",
            "<referencePlace id=\"r\" ref=\"p0\"/>",
            "<toolspecific tool=\"nupn\" version=\"1.1\"><size places=\"2\" transitions=\"1\" arcs=\"2\"/>\
             <structure units=\"1\" root=\"u0\" safe=\"true\"><unit id=\"u0\"><places>p0 p1</places>\
             <subunits/></unit></structure></toolspecific>",
            "<!DOCTYPE x [<!ENTITY e \"ee\">]>",
            "&e;",
            "<![CDATA[1]]>",
            " type=\"inhibitor\"",
            "<net id=\"n2\" type=\"http://www.pnml.org/version-2009/grammar/ptnet\">",
        ],
        "llnet" => &[
            "PL\n",
            "TR\n",
            "TP\n",
            "PT\n",
            "RA\n",
            "PTP\n",
            "DPL ",
            "M1",
            "m1",
            "k1",
            "w2",
            "\"p\"",
            "1<2\n",
            "2>1\n",
            "4294967296",
            "@-9",
            "%\n",
            "'q'",
            "\n",
        ],
        "proc" => &[
            "process ",
            "init ",
            "param N = 3;\n",
            "var x: 0..=3 = 0;\n",
            "mutex m;\n",
            "sem s = 2;\n",
            "chan c[2];\n",
            "lock m;",
            "unlock m;",
            "assert x == 0;",
            "choice { skip; } or { skip; }",
            "while x < 3 { x += 1; }",
            "if x == 1 { skip; } else { skip; }",
            "[i in 0..N]",
            "c ! 1;",
            "c ? x;",
            "spawn p;",
            "x = x / 0;",
            "{",
            "}",
            ";",
            "4294967296",
        ],
        "dimacs" => &[
            "p cnf 3 2\n",
            "c x\n",
            " 0\n",
            "-",
            "2147483648",
            "%\n",
            "\n",
            "1 -1 ",
        ],
        "pes" => &[
            "event ",
            "#",
            "<",
            "set C { }",
            "set D {",
            "}",
            "\"label\"",
            "\n",
            "qpor-pes 1\n",
        ],
        _ => &[],
    }
}

fn main() {
    let seed: u64 = env_number("QPOR_FUZZ_SEED").unwrap_or(1);
    let per_target = env_number("QPOR_FUZZ_INPUTS");
    let chosen: Option<Vec<String>> = std::env::var("QPOR_FUZZ_TARGETS")
        .ok()
        .map(|s| s.split(',').map(str::to_string).collect());
    let watch = Watchdog::start();
    // Panics are caught and reported per input; the default hook would print each one.
    panic::set_hook(Box::new(|_| {}));
    let started = Instant::now();
    let mut total = 0;
    for (target, default) in DEFAULT_INPUTS {
        if chosen.as_ref().is_some_and(|c| !c.iter().any(|t| t == target)) {
            continue;
        }
        let inputs = per_target.unwrap_or(default);
        let t0 = Instant::now();
        let ran = Fuzzer::new(target, seed, &watch).run(inputs);
        total += ran;
        let valid = match target {
            "cli" => format!(
                " ({} past the argument checks)",
                VALID_COMMAND_LINES.load(Ordering::Relaxed)
            ),
            _ => String::new(),
        };
        println!(
            "fuzz {target}: {ran} inputs{valid} in {:.1} s",
            t0.elapsed().as_secs_f64()
        );
    }
    println!(
        "fuzz: {total} inputs, seed {seed}, {:.1} s, peak {} MB, no failure",
        started.elapsed().as_secs_f64(),
        qpor::peak_rss_bytes() >> 20
    );
}

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// Ends the process when one input runs longer than [`HANG`], saving it first.
#[derive(Clone)]
struct Watchdog {
    /// Milliseconds since `epoch` when the current input started; 0 between inputs.
    since: Arc<AtomicU64>,
    current: Arc<Mutex<(String, Vec<u8>)>>,
    epoch: Instant,
}

impl Watchdog {
    fn start() -> Watchdog {
        let w = Watchdog {
            since: Arc::new(AtomicU64::new(0)),
            current: Arc::new(Mutex::new((String::new(), Vec::new()))),
            epoch: Instant::now(),
        };
        let watched = w.clone();
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(200));
            let since = watched.since.load(Ordering::Relaxed);
            let now = watched.epoch.elapsed().as_millis() as u64;
            if since != 0 && now.saturating_sub(since) > HANG.as_millis() as u64 {
                let (target, input) = watched.current.lock().unwrap().clone();
                let file = save_crash(&target, &input);
                eprintln!(
                    "fuzz {target}: an input ran past {HANG:?} (a hang): {}",
                    file.display()
                );
                std::process::exit(1);
            }
        });
        w
    }

    fn begin(&self, target: &str, input: &[u8]) {
        *self.current.lock().unwrap() = (target.to_string(), input.to_vec());
        let now = (self.epoch.elapsed().as_millis() as u64).max(1);
        self.since.store(now, Ordering::Relaxed);
    }

    fn end(&self) {
        self.since.store(0, Ordering::Relaxed);
    }
}

fn corpus_dir(target: &str) -> PathBuf {
    Path::new("tests/fuzz-corpus").join(target)
}

/// Writes a failing input to the corpus; its path.
fn save_crash(target: &str, input: &[u8]) -> PathBuf {
    let mut h = DefaultHasher::new();
    input.hash(&mut h);
    let dir = corpus_dir(target);
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join(format!("crash-{:016x}", h.finish()));
    let _ = std::fs::write(&file, input);
    file
}

struct Fuzzer<'w> {
    target: &'static str,
    rng: SmallRng,
    seeds: Vec<Vec<u8>>,
    watch: &'w Watchdog,
}

impl<'w> Fuzzer<'w> {
    fn new(target: &'static str, seed: u64, watch: &'w Watchdog) -> Fuzzer<'w> {
        let mut seeds: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(corpus_dir(target))
            .map(|d| {
                d.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
                    .collect()
            })
            .unwrap_or_default();
        seeds.sort();
        let mut seeds: Vec<Vec<u8>> = seeds.into_iter().map(|(_, b)| b).collect();
        if seeds.is_empty() {
            seeds.push(Vec::new());
        }
        let mut h = DefaultHasher::new();
        target.hash(&mut h);
        Fuzzer {
            target,
            rng: SmallRng::seed_from_u64(seed ^ h.finish()),
            seeds,
            watch,
        }
    }

    /// Runs every corpus file as it is, then mutations, `inputs` in all; how many ran.
    fn run(&mut self, inputs: u64) -> u64 {
        let mut ran = 0;
        for i in 0..inputs {
            let input = match self.seeds.get(i as usize) {
                Some(s) => s.clone(),
                None => self.mutant(),
            };
            self.one(&input);
            ran += 1;
        }
        ran
    }

    fn one(&mut self, input: &[u8]) {
        self.watch.begin(self.target, input);
        let target = self.target;
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| run_target(target, input)));
        self.watch.end();
        let failure = match outcome {
            Ok(Ok(())) => None,
            Ok(Err(why)) => Some(why),
            Err(p) => Some(format!(
                "panic: {}",
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            )),
        };
        let failure = failure.or_else(|| {
            let rss = current_rss_bytes();
            (rss > MEMORY_CAP).then(|| format!("the process holds {} MB", rss >> 20))
        });
        if let Some(why) = failure {
            let file = save_crash(target, input);
            panic::set_hook(Box::new(|info| eprintln!("{info}")));
            panic!("fuzz {target}: {why}; input saved as {}", file.display());
        }
    }

    /// A mutation of a corpus file: one to four edits among byte flips, inserted and
    /// deleted ranges, dictionary words, extreme numbers and splices.
    fn mutant(&mut self) -> Vec<u8> {
        // The targets that make their input from bytes (no corpus of files) take fresh
        // random bytes: mutations of an empty seed would be mostly zeros.
        if matches!(self.target, "cli" | "diff") {
            return (0..64).map(|_| self.rng.random()).collect();
        }
        let base = self.rng.random_range(0..self.seeds.len());
        let mut b = self.seeds[base].clone();
        for _ in 0..self.rng.random_range(1..=4) {
            let at = if b.is_empty() {
                0
            } else {
                self.rng.random_range(0..=b.len())
            };
            match self.rng.random_range(0..7) {
                0 if at < b.len() => b[at] ^= 1 << self.rng.random_range(0..8),
                1 => b.insert(at, self.rng.random()),
                2 if at < b.len() => {
                    let end = (at + self.rng.random_range(1..=16)).min(b.len());
                    b.drain(at..end);
                }
                3 => {
                    let words = dictionary(self.target);
                    if !words.is_empty() {
                        let w = words[self.rng.random_range(0..words.len())];
                        b.splice(at..at, w.bytes());
                    }
                }
                4 => {
                    let n = [
                        "0",
                        "1",
                        "2",
                        "4294967295",
                        "4294967296",
                        "18446744073709551616",
                        "-1",
                    ][self.rng.random_range(0..7)];
                    b.splice(at..at, n.bytes());
                }
                5 if at < b.len() => {
                    let end = (at + self.rng.random_range(1..=64)).min(b.len());
                    let copy = b[at..end].to_vec();
                    b.splice(at..at, copy);
                }
                _ => {
                    let other = &self.seeds[self.rng.random_range(0..self.seeds.len())];
                    if !other.is_empty() {
                        let from = self.rng.random_range(0..other.len());
                        let end = (from + self.rng.random_range(1..=128)).min(other.len());
                        let piece = other[from..end].to_vec();
                        b.splice(at..at, piece);
                    }
                }
            }
        }
        b
    }
}

/// Runs one input on `target`: `Err` with what went wrong when an answer is wrong (a
/// panic is caught by the caller).
fn run_target(target: &str, input: &[u8]) -> Result<(), String> {
    match target {
        "pnml" | "llnet" | "proc" => read_model(target, input),
        "dimacs" => {
            let text = String::from_utf8_lossy(input);
            let _ = qpor::formats::dimacs::parse(&text, "fuzz.cnf");
            Ok(())
        }
        "pes" => {
            let text = String::from_utf8_lossy(input);
            let _ = qpor::formats::pes::parse(&text, "fuzz.pes", &qpor::unfolding::PesOptions::default());
            Ok(())
        }
        "cli" => command_line(input),
        "diff" => differential(input),
        _ => Err(format!("unknown target {target}")),
    }
}

/// Reads a model; one that reads is checked for a moment by the portfolio, so the systems
/// built from odd but valid models run too.
fn read_model(target: &str, input: &[u8]) -> Result<(), String> {
    let format = match target {
        "pnml" => Format::Pnml,
        "llnet" => Format::LlNet,
        _ => Format::Proc,
    };
    let text = String::from_utf8_lossy(input);
    let Ok(loaded) = qpor::load_str(&text, "fuzz", format, &[]) else {
        return Ok(());
    };
    let opts = CheckOptions {
        engine: EngineChoice::Auto(PortfolioChoice {
            jobs: Some(2),
            ..PortfolioChoice::default()
        }),
        limits: Limits {
            time_limit: Some(Duration::from_millis(50)),
            max_states: Some(2_000),
            max_events: Some(2_000),
            max_memory_mb: Some(1024),
            ..Limits::default()
        },
        ..CheckOptions::default()
    };
    match check(&loaded.model, &opts, &mut Silent) {
        Err(qpor::EngineError::Internal(e)) => Err(format!("internal error: {e}")),
        _ => Ok(()),
    }
}

/// The subcommands the command-line target runs: the models each reads, whether it takes
/// `--time-limit`, and the options it takes (the target picks others now and then).
type Subcommand = (
    &'static str,
    &'static [&'static str],
    bool,
    &'static [&'static str],
);
const SUBCOMMANDS: [Subcommand; 8] = [
    (
        "check",
        &NET_MODELS,
        true,
        &[
            "--engine",
            "--max-states",
            "--max-events",
            "--jobs",
            "--threads",
            "-k",
            "--optimal",
            "--sdpor",
            "--cutoff",
            "--unfolding",
            "--all",
            "--json",
            "-D",
            "--components",
            "--order",
            "--witness",
            "--seed",
            "--reduce",
            "--time-limit",
        ],
    ),
    (
        "unfold",
        &NET_MODELS,
        true,
        &[
            "--max-events",
            "--cutoff",
            "--unfolding",
            "--json",
            "-D",
            "--components",
        ],
    ),
    (
        "dot",
        &NET_MODELS,
        true,
        &[
            "--view",
            "--max-events",
            "--max-states",
            "-k",
            "--optimal",
            "--cutoff",
            "--unfolding",
            "--all",
            "-D",
        ],
    ),
    (
        "info",
        &NET_MODELS,
        true,
        &["--json", "-D", "--components", "--time-limit"],
    ),
    ("convert", &NET_MODELS, false, &["-D"]),
    ("reduce-net", &NET_MODELS, true, &["--json", "--time-limit"]),
    (
        "hardness",
        &["models/cnf/three-vars.cnf", "models/cnf/pigeonhole-3-2.cnf"],
        false,
        &[],
    ),
    ("decide", &["tests/fuzz-corpus/pes/three-vars.pes"], false, &[]),
];
const NET_MODELS: [&str; 4] = [
    "models/nets/philosophers-5.pnml",
    "models/nets/producer-consumer-4.ll_net",
    "models/proc/philosophers.proc",
    "models/proc/spat.proc",
];

/// Options with the values they take (none for a flag).
const OPTIONS: [(&str, &[&str]); 22] = [
    (
        "--engine",
        &["auto", "qpor", "explicit", "walk", "stubborn", "lp", "prefix-sat"],
    ),
    ("--max-states", &["1", "10", "1000"]),
    ("--max-events", &["1", "10", "1000"]),
    ("--jobs", &["1", "2", "3"]),
    ("--threads", &["1", "2", "3"]),
    ("-k", &["1", "2", "5"]),
    ("--optimal", &[]),
    ("--sdpor", &[]),
    ("--cutoff", &["erv", "mcmillan", "causal", "distance", "none"]),
    ("--distance-states", &["1", "100"]),
    ("--unfolding", &["auto", "program", "general"]),
    ("--all", &[]),
    ("--json", &[]),
    ("--view", &["net", "prefix", "pes", "tree"]),
    ("--to", &["pnml", "llnet", "pes", "program", "net"]),
    ("-D", &["N=2", "N=3", "S=2", "R=2"]),
    ("--components", &["auto", "places", "units"]),
    ("--order", &["depth", "breadth", "best"]),
    ("--witness", &["process", "states"]),
    ("--seed", &["0", "7"]),
    ("--reduce", &["on", "off"]),
    ("--time-limit", &["0.5", "1"]),
];

/// Values that no option takes, or that test its bounds.
const WILD: [&str; 12] = [
    "0",
    "-1",
    "1e20",
    "1e400",
    "nan",
    "inf",
    "",
    "18446744073709551616",
    "x",
    "N=-1",
    "N=99999999",
    "é",
];

/// A command line from the bytes: a subcommand on a model it reads and up to four
/// options, mostly with values they take and now and then a wild one, run with a short
/// time limit: a panic (101), an abort or a signal is a failure, as is a run past its
/// limit by seconds.
fn command_line(input: &[u8]) -> Result<(), String> {
    let mut b = Bytes { input, at: 0 };
    let (sub, models, timed, takes) = SUBCOMMANDS[b.below(SUBCOMMANDS.len())];
    let mut args: Vec<String> = vec![sub.to_string(), models[b.below(models.len())].to_string()];
    // The output format these need, among those they write.
    let formats: &[&str] = match sub {
        "convert" | "reduce-net" => &["pnml", "llnet"],
        "hardness" => &["pes", "program", "net"],
        _ => &[],
    };
    if !formats.is_empty() {
        args.extend(["--to".to_string(), formats[b.below(formats.len())].to_string()]);
    }
    for _ in 0..b.below(5) {
        let (name, values) = if takes.is_empty() || b.below(8) == 0 {
            OPTIONS[b.below(OPTIONS.len())]
        } else {
            let name = takes[b.below(takes.len())];
            *OPTIONS
                .iter()
                .find(|o| o.0 == name)
                .expect("every option a subcommand takes is listed")
        };
        if args.iter().any(|a| a == name) {
            continue;
        }
        args.push(name.to_string());
        if b.below(8) == 0 {
            args.push(WILD[b.below(WILD.len())].to_string());
        } else if !values.is_empty() {
            args.push(values[b.below(values.len())].to_string());
        }
    }
    if timed && !args.iter().any(|a| a == "--time-limit") {
        args.extend(["--time-limit".to_string(), "2".to_string()]);
    }
    args.extend(["--max-memory".to_string(), "2000".to_string()]);
    if sub == "decide" {
        args.insert(1, "alt".to_string());
    }
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_qpor"))
        .args(&args)
        .output()
        .map_err(|e| format!("cannot run qpor: {e}"))?;
    let took = started.elapsed();
    let code = out.status.code();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if code.is_none() || code == Some(101) || stderr.contains("panicked") {
        return Err(format!(
            "qpor {} ended with {:?}: {stderr}",
            args.join(" "),
            out.status
        ));
    }
    if took > Duration::from_secs(10) {
        return Err(format!("qpor {} took {took:?}", args.join(" ")));
    }
    // How many command lines got past the argument checks, for the summary line.
    if code != Some(2) {
        VALID_COMMAND_LINES.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

/// Command lines of the `cli` target that ran (exit other than 2).
static VALID_COMMAND_LINES: AtomicU64 = AtomicU64::new(0);

/// A small net from the bytes (up to 6 places and 6 transitions, weights up to 2, up to 2
/// tokens a place; one in three nets has unit weights and at most one token a place, for
/// the engines that need a safe net), on which every engine must agree with the oracle.
fn differential(input: &[u8]) -> Result<(), String> {
    let mut b = Bytes { input, at: 0 };
    let places = 1 + b.below(6);
    let transitions = 1 + b.below(6);
    let unit = b.below(3) == 0;
    let (weights, tokens) = if unit { (1, 1) } else { (2, 2) };
    let marking: Vec<u32> = (0..places).map(|_| b.below(tokens + 1) as u32).collect();
    let spec = NetSpec {
        marking,
        transitions: (0..transitions)
            .map(|_| {
                let ins = 1 + b.below(3);
                let pre = b.arcs(ins, places, weights);
                let outs = b.below(3);
                let post = b.arcs(outs, places, weights);
                (pre, post)
            })
            .collect(),
    };
    let model = Model::Net(spec.build());
    // Each engine gets the size limit it takes (the others would be refused).
    let limited = |engine: EngineName, time_limit| CheckOptions {
        engine: engine.with_defaults(),
        all: true,
        limits: Limits {
            time_limit: Some(time_limit),
            max_states: qpor::validate::applies_to("--max-states", engine).then_some(2_000),
            max_events: qpor::validate::applies_to("--max-events", engine).then_some(5_000),
            ..Limits::default()
        },
        ..CheckOptions::default()
    };
    let oracle = check(
        &model,
        &limited(EngineName::Explicit, Duration::from_secs(2)),
        &mut Silent,
    )
    .map_err(|e| format!("the oracle failed: {e}"))?;
    // An unbounded net stops the oracle; its partial answer is no reference (and with
    // `--all` its thousands of dead states, each with a witness as long as the run,
    // make a report of hundreds of megabytes).
    if oracle.stopped.is_some() {
        return Ok(());
    }
    let truth = dead_states(&oracle);
    for engine in EngineName::ALL {
        // Under `--all` the walk never ends by itself, nor the portfolio that runs it:
        // a moment is enough for them on these nets.
        let time_limit = match engine {
            EngineName::Walk => Duration::from_millis(20),
            EngineName::Auto => Duration::from_millis(300),
            _ => Duration::from_secs(2),
        };
        let opts = limited(engine, time_limit);
        let r = match check(&model, &opts, &mut Silent) {
            Ok(r) => r,
            Err(qpor::EngineError::Internal(e)) => return Err(format!("{engine:?}: internal error: {e}")),
            Err(qpor::EngineError::Options(e)) => return Err(format!("{engine:?}: options refused: {e}")),
            Err(_) => continue,
        };
        let found = dead_states(&r);
        let wrong = match r.verdict {
            Verdict::Inconclusive => false,
            Verdict::NoDeadlock => !truth.is_empty(),
            _ => !found.is_subset(&truth),
        };
        let complete = r.stopped.is_none() && matches!(engine, EngineName::Explicit | EngineName::Stubborn);
        if wrong || (complete && found != truth) {
            return Err(format!(
                "{engine:?} answered {:?} with {found:?}; the oracle has {truth:?} on {spec:?}",
                r.verdict
            ));
        }
    }
    Ok(())
}

/// The fuzz bytes read one at a time, zeros past the end.
struct Bytes<'a> {
    input: &'a [u8],
    at: usize,
}

impl Bytes<'_> {
    /// The next byte, modulo `n`.
    fn below(&mut self, n: usize) -> usize {
        let b = self.input.get(self.at).copied().unwrap_or(0) as usize;
        self.at += 1;
        b % n
    }

    /// `n` arcs to distinct places among `places`, weights from 1 to `weights`.
    fn arcs(&mut self, n: usize, places: usize, weights: usize) -> Vec<(usize, u32)> {
        let mut a: Vec<(usize, u32)> = (0..n)
            .map(|_| (self.below(places), 1 + self.below(weights) as u32))
            .collect();
        a.sort_unstable();
        a.dedup_by_key(|x| x.0);
        a
    }
}
