//! `docs/cli.md` is generated from the command line's own help, so it cannot drift from
//! what `qpor` accepts: this test builds it again from `qpor --help` and each subcommand's
//! `--help` and fails when the file differs. `QPOR_BLESS=1 cargo test --release --test
//! cli_doc` writes it anew after a change to the options.

mod cli_support;

use cli_support::qpor;

const PATH: &str = "docs/cli.md";

const INTRO: &str = "# The command line

Every option of every `qpor` command, as `qpor COMMAND --help` prints it. This page is
generated from the program itself (`tests/cli_doc.rs` fails when it is out of date), so
it is always what the binary accepts.

How to read what the commands print is in [output.md](output.md); which engine answers
what, and when the `auto` portfolio runs it, in [engines.md](engines.md); the limits in
[robustness.md](robustness.md).

Conventions that hold for every command:
- `--format` is always the format of the model read (`pnml`, `llnet`, `proc`); `--to` is
  always the format written (`qpor convert`, `qpor reduce-net`, `qpor dot`, `qpor hardness`).
- An option that the chosen engine or the model would ignore is refused (exit 2), with a
  message naming where it applies.
- Exit status: 0 no deadlock (or: the answer is yes), 1 deadlock or fault found (or: no),
  2 bad input or usage, 3 inconclusive (a limit, Ctrl-C), 4 internal error.
- `--json` prints one JSON object on standard output, errors included
  (`{\"error\": {\"message\", \"file\", \"line\", \"column\"}}`).
";

/// The text of `qpor ARGS` on standard output.
fn help(args: &[&str]) -> String {
    let o = qpor(args);
    assert!(
        o.status.success(),
        "qpor {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("help is UTF-8")
}

/// The subcommands `qpor --help` lists, in its order (without `help`).
fn subcommands(top: &str) -> Vec<String> {
    top.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// docs/cli.md as the binary's help makes it.
fn generated() -> String {
    let top = help(&["--help"]);
    let mut page = String::from(INTRO);
    page.push_str("\n## qpor\n\n```text\n");
    page.push_str(top.trim_end());
    page.push_str("\n```\n");
    for cmd in subcommands(&top) {
        page.push_str(&format!("\n## qpor {cmd}\n\n```text\n"));
        page.push_str(help(&[&cmd, "--help"]).trim_end());
        page.push_str("\n```\n");
    }
    page
}

#[test]
fn the_page_of_options_is_the_binarys_help() {
    let page = generated();
    if std::env::var_os("QPOR_BLESS").is_some() {
        std::fs::write(PATH, &page).expect("docs/cli.md is writable");
        return;
    }
    let on_disk = std::fs::read_to_string(PATH).unwrap_or_default();
    if on_disk != page {
        let first = on_disk
            .lines()
            .zip(page.lines())
            .position(|(a, b)| a != b)
            .map_or(on_disk.lines().count().min(page.lines().count()), |i| i);
        panic!(
            "{PATH} is out of date (first difference at line {}): run `QPOR_BLESS=1 cargo test --release --test cli_doc`",
            first + 1
        );
    }
}

#[test]
fn every_subcommand_is_found_in_the_top_help() {
    let cmds = subcommands(&help(&["--help"]));
    for c in ["check", "replay", "dot", "mcc", "hardness", "reduce-net"] {
        assert!(cmds.iter().any(|x| x == c), "{c} missing from {cmds:?}");
    }
}
