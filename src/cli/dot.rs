//! `qpor dot`: Graphviz pictures of a model, its prefix, its event structure or the QPOR
//! exploration tree (the views of `qpor::dot`).

use super::args::{self, AltArgs, CutoffArg, UnfoldingArg};
use super::memory::MemoryArg;
use super::{load_model, ComponentsArg, FormatArg, ModelArgs};
use clap::{Args, ValueEnum};
use qpor::dot::TreeRecorder;
use qpor::dot::{deadlock_configuration, DeadlockSearch, MAX_SEARCHED_CONFIGURATIONS};
use qpor::dot::{
    sketch_system, write_explicit_pes, write_net, write_pes, write_prefix, write_system, write_tree,
    DotOptions, Highlight, Incomplete, MarkingHighlight,
};
use qpor::engines::qpor::{check_system, LeafKind, QporOptions};
use qpor::net::{Decomposition, NetSystem};
use qpor::unfolding::prefix::{build_model, prefix_system_options, Prefix, PrefixOptions, PrefixOutcome};
use qpor::unfolding::Backend;
use qpor::unfolding::CutoffMode;
use qpor::System;
use qpor::{check_shared, read_saved_witness, replay_saved, CheckOptions, SavedStep, SavedWitness};
use qpor::{Budget, CancelToken, Silent, Verdict};
use qpor::{Model, SystemOptions};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(Args)]
pub struct DotArgs {
    /// The model: a .pnml, .ll_net or .proc file, or a .pes event structure (pes view).
    model: PathBuf,
    /// What to draw: the net (for programs: processes, resources and the statements
    /// touching them), the unfolding prefix as an occurrence net, its event structure, or
    /// the QPOR exploration tree [default: net; pes for a .pes file].
    #[arg(long, value_enum)]
    view: Option<ViewArg>,
    /// Write the picture to FILE (default: standard output).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// The picture's format: DOT text, or SVG / PNG rendered by Graphviz's `dot` program.
    #[arg(long, value_enum, default_value = "dot")]
    to: PictureFormat,
    /// The input format, when the extension does not say it.
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<FormatArg>,
    /// Programs: set a parameter (`-D N=5`); repeatable.
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    define: Vec<String>,
    /// Nets: how the net is cut into components: NUPN units when the file has them
    /// (auto), or one component per place [default: auto].
    #[arg(long, value_enum)]
    components: Option<ComponentsArg>,
    /// Programs: make every access to a shared variable a step of its own (see `check`).
    #[arg(long)]
    every_access: bool,
    /// net: `deadlock` (the dead marking a check finds, and the transitions of its
    /// witness) or `witness=FILE` (a witness saved by `check --witness-file`); prefix, pes:
    /// `deadlock` (the events of the first deadlock configuration found in the prefix) or
    /// `config=ID,ID,...` (any events, by id); for a .pes file, `config=NAME,...` or
    /// `set=NAME` (a set of the file, e.g. C).
    #[arg(long, value_name = "deadlock|witness=FILE|config=ID,...|set=NAME")]
    highlight: Option<String>,
    /// Draw at most N events (prefix, pes: the prefix builder stops there), transitions
    /// (net), statements (program structure) or calls (tree); a note in the picture says
    /// how much was left out.
    #[arg(long, value_name = "N")]
    max_events: Option<usize>,
    /// prefix, pes: the unfolding drawn, as for `qpor unfold` (default auto: program-like
    /// for programs, NUPN nets and nets given --components; general, one condition per
    /// token, for other nets).
    #[arg(long, value_enum, value_name = "auto|program|general")]
    unfolding: Option<UnfoldingArg>,
    /// net view of a program: explore at most N states to find its statements.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    max_states: usize,
    /// tree: QPOR's alternatives.
    #[command(flatten)]
    alt: AltArgs,
    /// tree, prefix, pes: the adequate order deciding cutoff events, or none.
    #[arg(long, value_enum, default_value = "erv")]
    cutoff: CutoffArg,
    /// tree: explore everything instead of stopping at the first deadlock.
    #[arg(long)]
    all: bool,
    /// tree: stop the exploration, prefix, pes: stop the prefix builder, after this many
    /// seconds (the picture says so).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    time_limit: Option<f64>,
    #[command(flatten)]
    memory: MemoryArg,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ViewArg {
    Net,
    Prefix,
    Pes,
    Tree,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PictureFormat {
    Dot,
    Svg,
    Png,
}

/// The event limit of the prefix builder for `--cutoff none` without `--max-events`: the
/// unfolding of a cyclic model is infinite, so stop at a size still worth drawing.
const MAX_EVENTS_WITHOUT_CUTOFFS: u64 = 100_000;

/// Runs `qpor dot`; returns the exit status.
pub fn run(a: DotArgs) -> Result<u8, String> {
    let view = a.view.unwrap_or(if is_pes_file(&a.model) {
        ViewArg::Pes
    } else {
        ViewArg::Net
    });
    if a.highlight.is_some() && view == ViewArg::Tree {
        return Err("--highlight applies to --view net, prefix and pes".into());
    }
    if a.unfolding.is_some() && !matches!(view, ViewArg::Prefix | ViewArg::Pes) {
        return Err("--unfolding applies to --view prefix and --view pes only".into());
    }
    let cap = a.memory.enforce()?;
    if is_pes_file(&a.model) {
        return run_explicit_pes(&a, view);
    }
    // Bad options are refused whatever the view, before the model is read.
    a.alt.mode()?;
    args::time_limit(a.time_limit)?;
    let model_args = ModelArgs {
        model: a.model.clone(),
        format: a.format,
        define: a.define.clone(),
        components: a.components,
        every_access: a.every_access,
    };
    let (loaded, system_opts) = load_model(&model_args)?;
    let shown = a.model.display().to_string();
    let mut file_name = a
        .model
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown.clone());
    // The parameters belong to the model drawn: `ssbexp.proc -D K=2`.
    for d in &a.define {
        file_name.push_str(&format!(" -D {}", d.trim()));
    }
    let drawing = Drawing {
        a: &a,
        memory: cap.token,
        model: &loaded.model,
        system_opts,
        shown,
        file_name,
    };
    let mut opts = DotOptions {
        marking: None,
        max_events: a.max_events,
        highlight: None,
        title: Some(drawing.file_name.clone()),
        incomplete: None,
    };
    // Everything that can fail is computed before the output is opened, so a failure
    // leaves no half-written picture behind.
    let picture = match view {
        ViewArg::Net => drawing.net(&mut opts)?,
        ViewArg::Prefix | ViewArg::Pes => drawing.prefix(&mut opts)?,
        ViewArg::Tree => drawing.tree(&mut opts)?,
    };
    let out = Output::open(a.output.as_deref(), a.to)?;
    match &picture {
        Picture::Net(n) => out.write_with(|w| write_net(n, &opts, w).map(|_| ())),
        Picture::System(s) => out.write_with(|w| write_system(s, &opts, w).map(|_| ())),
        Picture::Prefix(p) => out.write_with(|w| write_prefix(p, &opts, w).map(|_| ())),
        Picture::Pes(p) => out.write_with(|w| write_pes(p, &opts, w).map(|_| ())),
        Picture::Tree(t, names) => out.write_with(|w| write_tree(t, names, &opts, w).map(|_| ())),
    }?;
    Ok(0)
}

/// A model being drawn, with what every view needs.
struct Drawing<'m> {
    a: &'m DotArgs,
    /// Set when the process passes `--max-memory`.
    memory: CancelToken,
    model: &'m Model,
    system_opts: SystemOptions,
    /// The model's path as the user gave it, for messages.
    shown: String,
    /// The model's file name and parameters, for titles.
    file_name: String,
}

impl<'m> Drawing<'m> {
    fn in_model(&self, e: impl std::fmt::Display) -> String {
        format!("{}: {e}", self.shown)
    }

    fn system(&self, opts: &SystemOptions) -> Result<Box<dyn System + Sync + 'm>, String> {
        self.model.system(opts).map_err(|e| self.in_model(e))
    }

    /// `--view net`: the net itself, or a program's processes and resources.
    fn net(&self, opts: &mut DotOptions) -> Result<Picture<'m>, String> {
        match self.model {
            Model::Net(n) => {
                if let Some(spec) = &self.a.highlight {
                    opts.marking = self.net_marking(n, spec)?;
                }
                Ok(Picture::Net(n))
            }
            Model::Program(_) if self.a.highlight.is_some() => Err(format!(
                "--highlight on the net view applies to nets; {} is a program (draw its dead state with --view prefix --highlight deadlock)",
                self.shown
            )),
            Model::Program(_) => {
                let sys = self.system(&self.system_opts)?;
                let sketch = sketch_system(&*sys, &self.file_name, self.a.max_states.max(1))
                    .map_err(|e| self.in_model(e))?;
                Ok(Picture::System(sketch))
            }
        }
    }

    /// `--highlight deadlock|witness=FILE` on a net: the marking the witness (found by a
    /// check, or read from FILE) ends in, and the transitions it fired; `None` when the
    /// net has no deadlock.
    fn net_marking(&self, net: &qpor::net::Net, spec: &str) -> Result<Option<MarkingHighlight>, String> {
        let (witness, what) = if spec == "deadlock" {
            match self.deadlock_witness(net)? {
                Some(w) => (w, "the dead marking a check found"),
                None => return Ok(None),
            }
        } else if let Some(path) = spec.strip_prefix("witness=") {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--highlight witness={path}: cannot read: {e}"))?;
            let w = read_saved_witness(&text).map_err(|e| format!("--highlight witness={path}: {e}"))?;
            (w, "the marking the saved witness ends in")
        } else {
            return Err(format!(
                "--highlight {spec}: on the net view, expected `deadlock` or `witness=FILE`"
            ));
        };
        let sys = NetSystem::new(net, Decomposition::Places).map_err(|e| self.in_model(e))?;
        let end = replay_saved(&sys, &witness).map_err(|f| match f.step {
            Some(i) => format!("{}: the witness fails at step {i}: {}", self.shown, f.message),
            None => format!("{}: {}", self.shown, f.message),
        })?;
        let mut fired = vec![0u32; net.transitions.len()];
        for step in &witness.steps {
            if let Some(t) = net.transitions.iter().position(|t| t.id == step.id) {
                fired[t] += 1;
            }
        }
        Ok(Some(MarkingHighlight {
            tokens: sys.marking(&end.state),
            fired,
            caption: format!(
                "{what}, after {} (transitions ×times fired)",
                match witness.steps.len() {
                    1 => "1 step".to_string(),
                    n => format!("{n} steps"),
                }
            ),
        }))
    }

    /// The witness of a deadlock of `net`, found by the default check within the limits;
    /// `None` (with a warning) when the net has none.
    fn deadlock_witness(&self, net: &qpor::net::Net) -> Result<Option<SavedWitness>, String> {
        let opts = CheckOptions {
            limits: qpor::Limits {
                time_limit: args::time_limit(self.a.time_limit)?,
                ..qpor::Limits::default()
            },
            ..CheckOptions::default()
        };
        let model = std::sync::Arc::new(Model::Net(net.clone()));
        let report = check_shared(&model, &opts, &mut Silent).map_err(|e| self.in_model(e))?;
        match report.verdict {
            Verdict::NoDeadlock => {
                eprintln!("warning: --highlight deadlock: the net has no deadlock; nothing is filled");
                Ok(None)
            }
            // A deadlock check answers no properties.
            Verdict::Inconclusive | Verdict::Answered => Err(format!(
                "--highlight deadlock: {}: the check found no deadlock within the limits ({})",
                self.shown,
                report
                    .stopped
                    .map_or_else(|| "stopped".to_string(), |r| r.to_string())
            )),
            Verdict::Deadlock | Verdict::Fault => {
                let w = report.witness().expect("a deadlock verdict has a witness");
                Ok(Some(SavedWitness {
                    steps: w
                        .steps
                        .iter()
                        .map(|s| SavedStep {
                            id: s.ident().to_string(),
                            process: None,
                        })
                        .collect(),
                    kind: None,
                }))
            }
        }
    }

    /// `--view prefix|pes`: the prefix built as `qpor unfold` builds it.
    fn prefix(&self, opts: &mut DotOptions) -> Result<Picture<'m>, String> {
        let a = self.a;
        let cutoff: CutoffMode = a.cutoff.into();
        let backend: Backend = a.unfolding.unwrap_or(UnfoldingArg::Auto).into();
        let prefix_opts = PrefixOptions {
            cutoff,
            max_events: match a.max_events {
                Some(n) => Some(n as u64),
                None => (cutoff == CutoffMode::None).then_some(MAX_EVENTS_WITHOUT_CUTOFFS),
            },
            time_limit: args::time_limit(a.time_limit)?,
            cancel: Some(self.memory.clone()),
            ..PrefixOptions::default()
        };
        let built = build_model(self.model, backend, &self.system_opts, &prefix_opts)
            .map_err(|e| self.in_model(e))?;
        opts.title = Some(format!(
            "{} ({} unfolding, cutoff {})",
            self.file_name,
            built.backend,
            cutoff.name()
        ));
        opts.incomplete = incompleteness(&built, a);
        if let Some(h) = &a.highlight {
            // The system whose states and action ids the prefix's events refer to (for
            // the general backend: the net with one component per place).
            let sys = self.system(&prefix_system_options(self.model, backend, &self.system_opts))?;
            opts.highlight = Some(parse_highlight(
                h,
                &built.prefix,
                opts.incomplete.is_some(),
                &*sys,
            )?);
        }
        Ok(if a.view == Some(ViewArg::Prefix) {
            Picture::Prefix(built.prefix)
        } else {
            Picture::Pes(built.prefix)
        })
    }

    /// `--view tree`: QPOR's exploration tree, recorded as it runs.
    fn tree(&self, opts: &mut DotOptions) -> Result<Picture<'m>, String> {
        let a = self.a;
        let sys = self.system(&self.system_opts)?;
        let qpor_opts = QporOptions {
            system: self.system_opts,
            alt: a.alt.mode()?,
            cutoff: a.cutoff.into(),
            all: a.all,
            ..QporOptions::default()
        };
        let budget = Budget::new(args::time_limit(a.time_limit)?).with_cancel(self.memory.clone());
        let mut recorder = TreeRecorder::new(a.max_events);
        let report = check_system(&*sys, &qpor_opts, &budget, &mut Silent, &mut recorder)
            .map_err(|e| self.in_model(e))?;
        if report.verdict == Verdict::Fault {
            recorder.close_open_call(LeafKind::Fault);
        }
        let mut title = format!(
            "{} (k = {}, cutoff {})",
            self.file_name,
            qpor_opts.alt.label(),
            qpor_opts.cutoff.name()
        );
        if let Some(why) = &report.stopped {
            title.push_str(&format!("; stopped: {why}"));
        } else if !a.all && matches!(report.verdict, Verdict::Deadlock | Verdict::Fault) {
            title.push_str(&format!(
                "; stopped at the first {} (--all draws the whole tree)",
                report.verdict.name()
            ));
        }
        opts.title = Some(title);
        let name = move |x| match sys.action_owner(x) {
            Some(o) => format!("{}: {}", sys.component_name(o), sys.action_name(x)),
            None => sys.action_name(x),
        };
        Ok(Picture::Tree(recorder, Box::new(name)))
    }
}

/// What `qpor dot` draws, computed before the output is opened.
enum Picture<'m> {
    Net(&'m qpor::net::Net),
    System(qpor::dot::SystemSketch),
    Prefix(Prefix),
    Pes(Prefix),
    Tree(TreeRecorder, Box<dyn Fn(qpor::ActionId) -> String + 'm>),
}

/// What the picture of `built` must say was not built: `None` when the prefix is
/// complete. A stop with nothing queued is no stop: the next pop would have ended the
/// construction.
fn incompleteness(built: &PrefixOutcome, a: &DotArgs) -> Option<Incomplete> {
    let why = built.stopped.as_ref()?;
    if built.stats.pending == 0 {
        return None;
    }
    let why = match (a.max_events, a.time_limit) {
        (Some(n), _) if built.prefix.events.len() >= n => format!("stopped at --max-events {n}"),
        (None, _) if why.starts_with("event limit") => format!("{why} (--cutoff none without --max-events)"),
        (_, Some(s)) if why.starts_with("time limit") => format!("{why} (--time-limit {s})"),
        _ => why.clone(),
    };
    Some(Incomplete {
        why,
        pending: built.stats.pending,
    })
}

/// Whether `path` names an explicit event structure (`.pes`).
fn is_pes_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("pes"))
}

/// `qpor dot FILE.pes --view pes`: draws an explicit event structure.
fn run_explicit_pes(a: &DotArgs, view: ViewArg) -> Result<u8, String> {
    let shown = a.model.display().to_string();
    if view != ViewArg::Pes {
        return Err(format!(
            "{shown}: an event-structure file has only the pes view (use --view pes)"
        ));
    }
    let text = qpor::read_text(&a.model).map_err(|e| e.to_string())?;
    let pes = qpor::formats::pes::parse(&text, &shown, &qpor::unfolding::PesOptions::default())
        .map_err(|e| e.to_string())?;
    let file_name = a
        .model
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown.clone());
    let highlight = match &a.highlight {
        None => None,
        Some(spec) => Some(parse_pes_highlight(spec, &pes)?),
    };
    let opts = DotOptions {
        marking: None,
        max_events: a.max_events,
        highlight,
        title: Some(file_name),
        incomplete: None,
    };
    let out = Output::open(a.output.as_deref(), a.to)?;
    out.write_with(|w| write_explicit_pes(&pes, &opts, w).map(|_| ()))?;
    Ok(0)
}

/// Parses `--highlight config=NAME,...` (event names, or `e<index>`) or `set=NAME` (a set
/// of the file) for an explicit event structure.
fn parse_pes_highlight(spec: &str, pes: &qpor::unfolding::Pes) -> Result<Highlight, String> {
    if let Some(name) = spec.strip_prefix("set=") {
        let set = pes
            .set(name.trim())
            .ok_or_else(|| format!("--highlight set={name}: the file has no set called `{name}`"))?;
        let mut events: Vec<u32> = set.iter().map(|e| e.0).collect();
        events.sort_unstable();
        events.dedup();
        return Ok(Highlight {
            events,
            caption: format!("the set {}", name.trim()),
        });
    }
    let Some(list) = spec.strip_prefix("config=") else {
        return Err(format!(
            "--highlight {spec}: for an event-structure file, expected `config=NAME,NAME,...` or `set=NAME`"
        ));
    };
    let mut events = Vec::new();
    for part in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let by_index = || {
            part.strip_prefix('e')
                .and_then(|d| d.parse::<u32>().ok())
                .filter(|&i| (i as usize) < pes.len())
        };
        let id = pes
            .find(part)
            .map(|e| e.0)
            .or_else(by_index)
            .ok_or_else(|| format!("--highlight config=...: there is no event `{part}`"))?;
        events.push(id);
    }
    events.sort_unstable();
    events.dedup();
    let names: Vec<&str> = events
        .iter()
        .map(|&e| pes.name(qpor::unfolding::PesEventId(e)))
        .collect();
    Ok(Highlight {
        caption: format!("the events {}", names.join(", ")),
        events,
    })
}

/// Parses `--highlight deadlock` or `--highlight config=ID,ID,...` for the prefix `p`
/// (`incomplete`: only the start of the complete prefix was built), whose events replay on
/// `sys`.
fn parse_highlight(spec: &str, p: &Prefix, incomplete: bool, sys: &dyn System) -> Result<Highlight, String> {
    if spec == "deadlock" {
        return match deadlock_configuration(p, sys, MAX_SEARCHED_CONFIGURATIONS)? {
            DeadlockSearch::Found(events) => Ok(Highlight {
                caption: format!("the first deadlock configuration found ({} events)", events.len()),
                events,
            }),
            // Only a complete prefix holds a configuration for every reachable state.
            DeadlockSearch::NotFound if incomplete => {
                eprintln!(
                    "warning: --highlight deadlock: no deadlock among the {} events built (the prefix is incomplete); nothing is filled",
                    p.events.len()
                );
                Ok(Highlight {
                    events: Vec::new(),
                    caption: "no deadlock among the events built (nothing filled)".into(),
                })
            }
            DeadlockSearch::NotFound => {
                eprintln!("warning: --highlight deadlock: the model has no deadlock; nothing is filled");
                Ok(Highlight {
                    events: Vec::new(),
                    caption: "no deadlock (nothing filled)".into(),
                })
            }
            DeadlockSearch::LimitReached(n) => Err(format!(
                "--highlight deadlock: no deadlock found in the first {n} configurations of the prefix"
            )),
        };
    }
    let Some(list) = spec.strip_prefix("config=") else {
        return Err(format!(
            "--highlight {spec}: expected `deadlock` or `config=ID,ID,...`"
        ));
    };
    let mut events = Vec::new();
    for part in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let digits = part.strip_prefix('e').unwrap_or(part);
        let id: u32 = digits
            .parse()
            .map_err(|_| format!("--highlight config=...: `{part}` is not an event id"))?;
        if id as usize >= p.events.len() {
            return Err(format!(
                "--highlight config=...: there is no event e{id} ({} {} events)",
                if incomplete {
                    "the builder stopped after"
                } else {
                    "the prefix has"
                },
                p.events.len()
            ));
        }
        events.push(id);
    }
    events.sort_unstable();
    events.dedup();
    Ok(Highlight {
        caption: format!(
            "the events {}",
            events
                .iter()
                .map(|e| format!("e{e}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        events,
    })
}

/// Where the DOT text goes: a file, standard output, or the standard input of `dot`.
enum Output {
    Text(Option<PathBuf>),
    Render {
        child: std::process::Child,
        format: &'static str,
    },
}

impl Output {
    fn open(path: Option<&Path>, format: PictureFormat) -> Result<Output, String> {
        let t = match format {
            PictureFormat::Dot => return Ok(Output::Text(path.map(Path::to_path_buf))),
            PictureFormat::Svg => "svg",
            PictureFormat::Png => "png",
        };
        let mut cmd = Command::new("dot");
        cmd.arg(format!("-T{t}")).stdin(Stdio::piped());
        if let Some(p) = path {
            cmd.arg("-o").arg(p);
        }
        match cmd.spawn() {
            Ok(child) => Ok(Output::Render { child, format: t }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(format!(
                "--to {t} needs Graphviz's `dot` program, which is not installed (not found on PATH); \
                 install Graphviz (e.g. `apt-get install graphviz`) or use --to dot"
            )),
            Err(e) => Err(format!("cannot run Graphviz's `dot`: {e}")),
        }
    }

    /// Streams the picture written by `f` to the destination.
    fn write_with(self, f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), String> {
        match self {
            Output::Text(Some(path)) => {
                let file =
                    File::create(&path).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
                let mut w = BufWriter::new(file);
                f(&mut w)
                    .and_then(|_| w.flush())
                    .map_err(|e| format!("{}: cannot write: {e}", path.display()))
            }
            Output::Text(None) => {
                let stdout = io::stdout();
                let mut w = BufWriter::new(stdout.lock());
                f(&mut w)
                    .and_then(|_| w.flush())
                    .map_err(|e| format!("cannot write to standard output: {e}"))
            }
            Output::Render { mut child, format } => {
                let written = {
                    let stdin = child.stdin.take().expect("dot's stdin is piped");
                    let mut w = BufWriter::new(stdin);
                    f(&mut w).and_then(|_| w.flush())
                };
                let status = child
                    .wait()
                    .map_err(|e| format!("Graphviz's `dot` did not finish: {e}"))?;
                if !status.success() {
                    return Err(format!("Graphviz's `dot -T{format}` failed ({status})"));
                }
                written.map_err(|e| format!("cannot send the picture to Graphviz's `dot`: {e}"))
            }
        }
    }
}
