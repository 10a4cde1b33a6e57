//! The `qpor` command line: maps arguments to library options and results to exit codes.
//! Each subcommand lives in its own module under `cli/`.

mod cli;

use clap::{Parser, Subcommand};
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::process::ExitCode;

/// The system's allocator, except that an allocation the system refuses ends the process
/// with exit 3 and a message saying so, where Rust's default handler aborts (exit 134).
/// The memory watchdog (`--max-memory`) stops runs before this in the common case; this
/// catches one huge allocation refused at once (a 34 GB vector on a 24 GB machine did
/// abort before the readers and builders were bounded).
struct ExitWhenRefused;

/// Prints why and exits with the limit status; `size` is the refused request in bytes.
#[cold]
fn refused(size: usize) -> ! {
    // Formatting to the unbuffered standard error allocates nothing.
    let _ = writeln!(
        std::io::stderr(),
        "error: out of memory: the system refused {size} bytes (exit 3, as at --max-memory)"
    );
    std::process::exit(3)
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so
// `System`'s guarantees hold; a null result, which `System` returns only when it could not
// allocate, never returns (`refused` exits the process).
unsafe impl GlobalAlloc for ExitWhenRefused {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is `System::alloc`'s.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            refused(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            refused(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from `System` with `layout`; the caller's contract is
        // `System::realloc`'s.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            refused(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: ExitWhenRefused = ExitWhenRefused;

/// Exit status for bad input or usage (clap uses 2 for usage errors too).
const EXIT_BAD_INPUT: u8 = 2;

#[derive(Parser)]
#[command(
    name = "qpor",
    version,
    about = "Deadlock checking of Petri nets and concurrent programs with unfoldings and QPOR",
    after_help = "Exit status: 0 no deadlock, 1 deadlock or fault found, 2 bad input or usage, 3 inconclusive, 4 internal error (a witness that did not replay on the model: please report it)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a model for deadlocks (and, for programs, faults).
    Check(cli::check::CheckArgs),
    /// Print sizes and structure of a model.
    Info(cli::info::InfoArgs),
    /// Convert a model to another net format.
    Convert(cli::convert::ConvertArgs),
    /// Make an NP-hardness instance of the QPOR paper (PES, program or net) from a CNF
    /// formula.
    Hardness(cli::hardness::HardnessArgs),
    /// Shrink a net with structural reductions that keep deadlocks, and write the result.
    ReduceNet(cli::reduce_net::ReduceNetArgs),
    /// Answer a hardness instance with qpor's own Alt or cex (exit 0 yes, 1 no).
    Decide(cli::decide::DecideArgs),
    /// Replay a saved witness (from `check --witness-file` or `check --json`) on a model
    /// (exit 0 it does what it claims, 1 it fails, naming the step).
    Replay(cli::replay::ReplayArgs),
    /// Draw a model, its unfolding prefix, its event structure or the QPOR exploration
    /// tree with Graphviz (DOT, SVG, PNG).
    Dot(cli::dot::DotArgs),
    /// Answer a Model Checking Contest examination (ReachabilityDeadlock, OneSafe) on a
    /// contest directory, as the contest runs tools.
    Mcc(cli::mcc::MccArgs),
    /// Build the complete finite prefix of a model's unfolding (ERV) and its statistics.
    Unfold(cli::unfold::UnfoldArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(a) => cli::check::run(a),
        Command::Info(a) => cli::info::run(a),
        Command::Convert(a) => cli::convert::run(a),
        Command::Hardness(a) => cli::hardness::run(a),
        Command::ReduceNet(a) => cli::reduce_net::run(a),
        Command::Decide(a) => cli::decide::run(a),
        Command::Replay(a) => cli::replay::run(a),
        Command::Dot(a) => cli::dot::run(a),
        Command::Unfold(a) => cli::unfold::run(a),
        Command::Mcc(a) => cli::mcc::run(a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(message) => {
            eprintln!("error: {message}");
            // A script that asked for JSON reads standard output: the error is there too.
            if std::env::args_os().skip(2).any(|a| a == "--json") {
                println!("{}", error_json(&message));
            }
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

/// The JSON form of an error: `{"error": {"message": …}}`, with `file`, `line` and
/// `column` when the message starts with the `file:line:col: ` of a reader's error.
fn error_json(message: &str) -> serde_json::Value {
    let at = message
        .char_indices()
        .filter(|&(_, c)| c == ':')
        .find_map(|(i, _)| {
            let (line, rest) = message[i + 1..].split_once(':')?;
            let (column, text) = rest.split_once(": ")?;
            Some((
                &message[..i],
                line.parse::<u64>().ok()?,
                column.parse::<u64>().ok()?,
                text,
            ))
        });
    let error = match at {
        Some((file, line, column, text)) if !file.is_empty() => serde_json::json!({
            "message": text,
            "file": file,
            "line": line,
            "column": column,
        }),
        _ => serde_json::json!({ "message": message }),
    };
    serde_json::json!({ "error": error })
}
