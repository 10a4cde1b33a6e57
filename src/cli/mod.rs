//! What every subcommand shares: loading a model, the progress line, writing output.

use clap::{Args, ValueEnum};
use qpor::net::Decomposition;
use qpor::SystemOptions;
use qpor::{Format, LoadOptions, Loaded};
use qpor::{Observer, Progress};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

pub mod args;
pub mod check;
pub mod convert;
pub mod decide;
pub mod dot;
pub mod hardness;
pub mod info;
pub mod mcc;
pub mod memory;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod reduce_net;
pub mod replay;
pub mod unfold;

#[derive(Args, Clone)]
pub struct ModelArgs {
    /// The model: a .pnml, .ll_net or .proc file, or `-` for standard input (with --format).
    pub model: PathBuf,
    /// The input format, when the extension does not say it.
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Programs: set a parameter (`-D N=5`; `qpor info` lists them); repeatable.
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    pub define: Vec<String>,
    /// Nets: how the net is cut into components: NUPN units when the file has them
    /// (auto), or one component per place [default: auto].
    #[arg(long, value_enum)]
    pub components: Option<ComponentsArg>,
    /// Programs: make every access to a shared variable a step of its own. By default the
    /// accesses to a variable that one mutex guards everywhere are folded into the step
    /// that takes the mutex, and those to a variable whose accesses never race (see
    /// `qpor info`) into the step before them: fewer interleavings, the same dead states
    /// and faults.
    #[arg(long)]
    pub every_access: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum FormatArg {
    Pnml,
    Llnet,
    Proc,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum NetFormatArg {
    Pnml,
    Llnet,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ComponentsArg {
    Auto,
    Places,
    Units,
}

impl ModelArgs {
    /// The model's name in reports: its path, or `<stdin>`.
    pub fn shown(&self) -> String {
        if self.model.as_os_str() == "-" {
            "<stdin>".into()
        } else {
            self.model.display().to_string()
        }
    }
}

/// Reads the model of `args`, printing the reader's warnings on stderr.
pub fn load_model(args: &ModelArgs) -> Result<(Loaded, SystemOptions), String> {
    let mut defines = Vec::new();
    for d in &args.define {
        let (name, value) = d
            .split_once('=')
            .ok_or_else(|| format!("-D {d}: expected NAME=VALUE"))?;
        let value: i64 = value
            .trim()
            .parse()
            .map_err(|_| format!("-D {d}: the value must be an integer"))?;
        defines.push((name.trim().to_string(), value));
    }
    let opts = LoadOptions {
        format: args.format.map(|f| match f {
            FormatArg::Pnml => Format::Pnml,
            FormatArg::Llnet => Format::LlNet,
            FormatArg::Proc => Format::Proc,
        }),
        defines,
    };
    let loaded = qpor::load(&args.model, &opts).map_err(|e| e.to_string())?;
    if let (Some(d), qpor::Model::Net(_)) = (args.define.first(), &loaded.model) {
        return Err(format!(
            "-D {d}: {} is a net, which has no parameters (-D sets the `param`s of a .proc program)",
            args.shown()
        ));
    }
    match &loaded.model {
        qpor::Model::Net(_) if args.every_access => {
            return Err(format!(
                "--every-access: {} is a net; the option splits the shared-variable accesses of a .proc program",
                args.shown()
            ))
        }
        qpor::Model::Program(_) if args.components.is_some() => {
            return Err(format!(
                "--components: {} is a program, whose components are its processes and resources; the option cuts a net",
                args.shown()
            ))
        }
        _ => {}
    }
    for w in &loaded.warnings {
        eprintln!("warning: {w}");
    }
    let system = SystemOptions {
        decomposition: match args.components {
            None | Some(ComponentsArg::Auto) => None,
            Some(ComponentsArg::Places) => Some(Decomposition::Places),
            Some(ComponentsArg::Units) => Some(Decomposition::Units),
        },
        every_access: args.every_access,
        ..SystemOptions::default()
    };
    Ok((loaded, system))
}

/// Runs `job` on its own thread and waits for it until `deadline` (if any): `None` when the
/// deadline passed first. The job is then left to the process's exit; this is how reading
/// a huge model stays within `--time-limit`.
pub fn until_deadline<T: Send + 'static>(
    deadline: Option<Instant>,
    job: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let Some(deadline) = deadline else {
        return Some(job());
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(job());
    });
    rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .ok()
}

/// A progress line on stderr, drawn only when stderr is a terminal.
pub struct ProgressLine {
    bar: Option<indicatif::ProgressBar>,
}

impl ProgressLine {
    /// A progress line, drawn only if `enabled` and stderr is a terminal.
    pub fn new(enabled: bool) -> ProgressLine {
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            bar
        });
        ProgressLine { bar }
    }

    /// Clears the line.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Observer for ProgressLine {
    fn progress(&mut self, p: &Progress) {
        if let Some(bar) = &self.bar {
            let parts: Vec<String> = p.counters.iter().map(|(n, v)| format!("{n} {v}")).collect();
            let rate = p
                .counters
                .first()
                .map(|(_, v)| *v as f64 / p.seconds.max(1e-9))
                .unwrap_or(0.0);
            bar.set_message(format!(
                "{}: {}, {:.0}/s, {:.1} s",
                p.engine,
                parts.join(", "),
                rate,
                p.seconds
            ));
            bar.tick();
        }
    }
}

/// Writes `bytes` to `path`, or to standard output. A reader that has gone away (`qpor
/// check … | head`) is no error: nothing more can be shown, and the command's exit status
/// still tells its answer.
pub fn write_output(path: Option<&Path>, bytes: &[u8]) -> Result<(), String> {
    match path {
        Some(p) => std::fs::write(p, bytes).map_err(|e| format!("{}: cannot write: {e}", p.display())),
        None => {
            let mut out = std::io::stdout().lock();
            match out.write_all(bytes).and_then(|()| out.flush()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(format!("cannot write to standard output: {e}"))
                }
                _ => Ok(()),
            }
        }
    }
}

/// Streams what `write` writes to standard output, buffered, with [`write_output`]'s
/// treatment of a reader that has gone away.
pub fn stream_output(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), String> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match write(&mut out).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to standard output: {e}"))
        }
        _ => Ok(()),
    }
}

/// Prints `text` on standard output (see [`write_output`]).
pub fn print_text(text: &str) -> Result<(), String> {
    write_output(None, text.as_bytes())
}
