//! The PEP ll_net reader and writer through the public API: every shipped net, the
//! examples of docs/paper.md#the-pep-low-level-net-format, one test per kind of malformed input (message and
//! exact position), writer errors, and property tests (round trips of random nets, no
//! panic on damaged files).

use proptest::prelude::*;
use qpor::formats::llnet::write;
use qpor::formats::llnet::{decode, parse};
use qpor::net::{Net, PlaceId};
use qpor::{load, load_str, Format, LoadOptions, ParseError};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const HEADER: &str = "PEP\nPTNet\nFORMAT_N\n";

/// Every `.ll_net` file under `models/`, sorted.
fn shipped_nets() -> Vec<PathBuf> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "ll_net") {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("models"), &mut found);
    found.sort();
    found
}

fn read_file(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    decode(&bytes).into_owned()
}

fn parse_file(path: &Path) -> Net {
    let shown = path.display().to_string();
    let (net, _) = parse(&read_file(path), &shown).unwrap_or_else(|e| panic!("{e}"));
    net
}

fn written(net: &Net) -> String {
    let mut out = Vec::new();
    write(net, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn net_of(text: &str) -> Net {
    parse(text, "test.ll_net").unwrap_or_else(|e| panic!("{e}")).0
}

/// Names of the places in `arcs`, sorted.
fn names(net: &Net, arcs: &[(PlaceId, u32)]) -> Vec<(String, u32)> {
    let mut v: Vec<(String, u32)> = arcs
        .iter()
        .map(|(p, w)| (net.places[p.index()].label().to_string(), *w))
        .collect();
    v.sort();
    v
}

fn transition<'n>(net: &'n Net, name: &str) -> &'n qpor::net::Transition {
    net.transitions
        .iter()
        .find(|t| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no transition {name}"))
}

#[test]
fn every_shipped_net_parses_with_the_published_sizes() {
    let nets = shipped_nets();
    assert!(
        nets.len() >= 19,
        "models/ll_net alone holds 19 nets, found {}",
        nets.len()
    );
    for path in &nets {
        let net = parse_file(path);
        assert!(!net.places.is_empty(), "{}: no places", path.display());
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/ll_net");
    let table = std::fs::read_to_string(dir.join("verdicts.tsv")).unwrap();
    let mut rows = table.lines();
    let head: Vec<&str> = rows.next().unwrap().split('\t').collect();
    let column = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (file, places, transitions) = (column("file"), column("places"), column("transitions"));
    let mut checked = 0;
    for row in rows.filter(|r| !r.trim().is_empty()) {
        let cells: Vec<&str> = row.split('\t').collect();
        let net = parse_file(&dir.join(cells[file]));
        assert_eq!(
            net.places.len().to_string(),
            cells[places],
            "{}: places",
            cells[file]
        );
        assert_eq!(
            net.transitions.len().to_string(),
            cells[transitions],
            "{}: transitions",
            cells[file]
        );
        checked += 1;
    }
    assert_eq!(checked, 19);
}

#[test]
fn every_shipped_net_round_trips() {
    for path in shipped_nets() {
        let net = parse_file(&path);
        let text = written(&net);
        let again = net_of(&text);
        assert_eq!(
            again,
            net,
            "{}: read → write → read changed the net",
            path.display()
        );
        assert_eq!(
            written(&again),
            text,
            "{}: writing is not idempotent",
            path.display()
        );
    }
}

#[test]
fn sparse_ids_of_sem_are_kept() {
    let net = parse_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("models/ll_net/sem.ll_net"));
    assert_eq!(net.places[0].id, "2");
    assert_eq!(net.places[0].name.as_deref(), Some("P2"));
    assert_eq!(net.transitions[0].id, "3");
    let text = written(&net);
    assert!(text.contains("\nTR\n3\"T3\"\n6\"T6\"\n"), "{text}");
    // `T3`: PT `5>3`, `16>3v4`; TP `3<4`, `3<17v4`.
    let t3 = transition(&net, "T3");
    assert_eq!(
        names(&net, &t3.pre),
        [("P16".to_string(), 1), ("P5".to_string(), 1)]
    );
    assert_eq!(
        names(&net, &t3.post),
        [("P17".to_string(), 1), ("P4".to_string(), 1)]
    );
}

#[test]
fn load_reads_an_ascii_file_from_disk() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/ll_net/sem.ll_net");
    let loaded = load(&path, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let net = loaded.model.as_net().unwrap();
    assert_eq!((net.places.len(), net.transitions.len()), (21, 15));
}

// 17 of the 19 benchmark files carry a Latin-1 `Römer` in their TX block: `parse::load`
// must decode them instead of refusing them as invalid UTF-8.
#[test]
fn load_reads_latin1_benchmark_files() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/ll_net/dp_6.fsa.ll_net");
    let loaded = load(&path, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.model.as_net().unwrap().places.len(), 36);
}

/// docs/paper.md#the-pep-low-level-net-format: two processes taking two locks in opposite order.
const LOCKS: &str = "PEP
PTNet
FORMAT_N
% two processes taking two locks in opposite order
PL
1\"p1.idle\"40@40M1
2\"p1.hasA\"40@80
3\"p1.hasAB\"40@120
4\"p2.idle\"200@40M1
5\"p2.hasB\"200@80
6\"p2.hasBA\"200@120
7\"lockA\"120@20M1
8\"lockB\"120@140M1
TR
1\"p1.takeA\"60@60
2\"p1.takeB\"60@100
3\"p1.release\"20@100
4\"p2.takeB\"180@60
5\"p2.takeA\"180@100
6\"p2.release\"220@100
TP
1<2
2<3
3<1
3<7
3<8
4<5
5<6
6<4
6<7
6<8
PT
1>1
7>1
2>2
8>2
3>3
4>4
8>4
5>5
7>5
6>6
";

fn one(name: &str) -> Vec<(String, u32)> {
    vec![(name.to_string(), 1)]
}

fn ones(names: &[&str]) -> Vec<(String, u32)> {
    let mut v: Vec<(String, u32)> = names.iter().map(|n| (n.to_string(), 1)).collect();
    v.sort();
    v
}

#[test]
fn the_two_locks_example_parses() {
    let loaded = load_str(LOCKS, "locks.ll_net", Format::LlNet, &[]).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    let net = loaded.model.as_net().unwrap();
    assert_eq!(net.places.len(), 8);
    assert_eq!(net.transitions.len(), 6);
    let marked: Vec<&str> = net
        .places
        .iter()
        .filter(|p| p.initial == 1)
        .map(|p| p.label())
        .collect();
    assert_eq!(marked, ["p1.idle", "p2.idle", "lockA", "lockB"]);
    assert!(net.places.iter().all(|p| p.initial <= 1));
    assert_eq!(net.num_arcs(), 20);
    let t = transition(net, "p1.takeA");
    assert_eq!(names(net, &t.pre), ones(&["p1.idle", "lockA"]));
    assert_eq!(names(net, &t.post), one("p1.hasA"));
    let t = transition(net, "p1.takeB");
    assert_eq!(names(net, &t.pre), ones(&["p1.hasA", "lockB"]));
    assert_eq!(names(net, &t.post), one("p1.hasAB"));
    let t = transition(net, "p1.release");
    assert_eq!(names(net, &t.pre), one("p1.hasAB"));
    assert_eq!(names(net, &t.post), ones(&["p1.idle", "lockA", "lockB"]));
    let t = transition(net, "p2.takeA");
    assert_eq!(names(net, &t.pre), ones(&["p2.hasB", "lockA"]));
    assert_eq!(names(net, &t.post), one("p2.hasBA"));
    assert!(net.transitions.iter().all(|t| t.read.is_empty()));
    assert_eq!(net.places[6].id, "7");
    assert_eq!(net.transitions[5].id, "6");
}

#[test]
fn read_arcs_in_both_spellings() {
    // As Cunf's documentation suggests: make p1.takeB only test lockB.
    let tested = LOCKS.replace("8>2\n", "") + "RA\n2<8\n";
    let net = net_of(&tested);
    let t = transition(&net, "p1.takeB");
    assert_eq!(names(&net, &t.pre), one("p1.hasA"));
    assert_eq!(t.read, vec![PlaceId(7)]);
    assert_eq!(net.num_arcs(), 20);
    // `p>t` names the place first; Cunf would read transition 8 and place 2.
    let natural = LOCKS.replace("8>2\n", "") + "RA\n8>2\n";
    assert_eq!(net_of(&natural), net);
    // `@` carries no direction: the transition comes first, as in Cunf.
    let at = LOCKS.replace("8>2\n", "") + "RA\n2@8\n";
    assert_eq!(net_of(&at), net);
    assert!(written(&net).ends_with("PT\n1>1\n7>1\n2>2\n3>3\n4>4\n8>4\n5>5\n7>5\n6>6\nRA\n2<8\n"));
}

#[test]
fn weights_and_markings_above_one() {
    let text = format!("{HEADER}DPT w1t1\nPL\n1\"a\"M3\n2\"b\"\nTR\n1\"t\"\nTP\n1<2w3\nPT\n1>1 w2 t1\n");
    let net = net_of(&text);
    assert_eq!(net.places[0].initial, 3);
    assert_eq!(net.transitions[0].post, vec![(PlaceId(1), 3)]);
    assert_eq!(net.transitions[0].pre, vec![(PlaceId(0), 2)]);
    let out = written(&net);
    assert_eq!(
        out,
        format!("{HEADER}PL\n1\"a\"M3\n2\"b\"\nTR\n1\"t\"\nTP\n1<2w3\nPT\n1>1w2\n")
    );
    assert_eq!(net_of(&out), net);
}

#[test]
fn no_marked_place_is_a_dead_marking_not_an_error() {
    let net = net_of(&format!("{HEADER}PL\n\"a\"\nTR\n\"t\"\nTP\nPT\n1>1\n"));
    assert_eq!(net.initial_marking(), vec![0]);
}

#[test]
fn a_place_repeating_the_same_marking_is_accepted() {
    // buf100.ll_net writes `M1m1M1`.
    let net = net_of(&format!("{HEADER}PL\n\"P1\"106@78M1m1M1\nTR\nTP\nPT\n"));
    assert_eq!(net.places[0].initial, 1);
}

#[test]
fn crlf_line_endings_read_like_newlines() {
    assert_eq!(net_of(&LOCKS.replace('\n', "\r\n")), net_of(LOCKS));
}

#[test]
fn names_are_optional_and_written_as_ids() {
    let net = net_of(&format!("{HEADER}PL\n1M1\n2\nTR\n1\nTP\n1<2\nPT\n1>1\n"));
    assert_eq!(net.places[0].name, None);
    assert_eq!(net.transitions[0].id, "1");
    let out = written(&net);
    assert_eq!(
        out,
        format!("{HEADER}PL\n1\"1\"M1\n2\"2\"\nTR\n1\"1\"\nTP\n1<2\nPT\n1>1\n")
    );
}

/// Loads `text` the way the CLI does for inline input and returns its error.
fn error(text: &str) -> ParseError {
    match load_str(text, "bad.ll_net", Format::LlNet, &[]) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

/// Asserts that `text` fails at `line`:`col` with a message containing `needle`.
fn assert_error(text: &str, line: usize, col: usize, needle: &str) {
    let e = error(text);
    assert!(e.message.contains(needle), "expected {needle:?} in: {e}");
    assert_eq!((e.pos.line, e.pos.col), (line, col), "wrong position: {e}");
    assert_eq!(e.file, "bad.ll_net");
    assert!(
        e.to_string().starts_with(&format!("bad.ll_net:{line}:{col}: ")),
        "{e}"
    );
}

/// A valid net body after the header, for the errors below to damage.
const BODY: &str = "PL\n1\"a\"M1\n2\"b\"\nTR\n1\"t\"\nTP\n1<2\nPT\n1>1\n";

/// The header and [`BODY`] with `from` replaced by `to`.
fn damaged(from: &str, to: &str) -> String {
    format!("{HEADER}{}", BODY.replace(from, to))
}

/// [`assert_error`] on each (text, line, column, needle).
fn assert_errors(cases: &[(String, usize, usize, &str)]) {
    for (text, line, col, needle) in cases {
        assert_error(text, *line, *col, needle);
    }
}

#[test]
fn missing_header_line() {
    assert_errors(&[
        (
            format!("PTNet\nFORMAT_N\n{BODY}"),
            1,
            1,
            "expected the header line `PEP`, found `PTNet`",
        ),
        (
            format!("PEP\nPTNet\n{BODY}"),
            3,
            1,
            "expected `FORMAT_N` or `FORMAT_N2` on the third header line, found `PL`",
        ),
        ("PEP\nPTNet".to_string(), 2, 6, "the file ends inside the header"),
    ]);
}

#[test]
fn unknown_format_word() {
    assert_error(
        &format!("PEP\nPetriNet\nFORMAT_N\n{BODY}"),
        2,
        1,
        "expected `PTNet` or `PetriBox` on the second header line, found `PetriNet`",
    );
}

#[test]
fn missing_mandatory_blocks() {
    assert_errors(&[
        (
            format!("{HEADER}TR\n1\"t\"\nTP\nPT\n"),
            4,
            1,
            "missing block PL (places): expected it before TR",
        ),
        (
            format!("{HEADER}PL\n\"a\"\nTP\nPT\n"),
            6,
            1,
            "missing block TR (transitions)",
        ),
        (
            format!("{HEADER}PL\n\"a\"\nTR\n\"t\"\nPT\n1>1\n"),
            8,
            1,
            "missing block TP (transition-to-place arcs): expected it before PT",
        ),
        (
            format!("{HEADER}PL\n\"a\"\nTR\n\"t\"\nTP\n1<1\n"),
            10,
            1,
            "missing block PT (place-to-transition arcs): the file ends before it",
        ),
    ]);
}

#[test]
fn block_out_of_order() {
    assert_errors(&[
        (
            format!("{HEADER}PL\n\"a\"\nTR\n\"t\"\nPT\n1>1\nTP\n1<1\n"),
            8,
            1,
            "block PT is out of order: TP must come before it",
        ),
        (
            format!("{HEADER}PL\n\"a\"\nTR\n\"t\"\nTP\nPT\nBL\n"),
            10,
            1,
            "block BL is out of order or repeated: it cannot follow PT",
        ),
        (
            format!("{HEADER}PL\n\"a\"\nXY\nTR\n"),
            6,
            1,
            "unknown block keyword `XY`",
        ),
    ]);
}

#[test]
fn unknown_field_letter() {
    assert_errors(&[
        (
            format!("{HEADER}PL\n1\"a\"M1q3\nTR\nTP\nPT\n"),
            5,
            7,
            "unknown field `q` in this place line",
        ),
        (
            format!("{HEADER}PL\n\"a\"\nTR\n\"t\"\nTP\n1<1 M1\nPT\n"),
            9,
            5,
            "unknown field `M` in this arc line",
        ),
        (
            format!("{HEADER}PL\n\"a\"\nTR\n4\"t\"\n\"u\"M1\n"),
            8,
            4,
            "unknown field `M` in this transition line",
        ),
    ]);
}

#[test]
fn unterminated_string() {
    assert_error(
        &format!("{HEADER}PL\n1\"a\"\n2  \"b\nTR\nTP\nPT\n"),
        6,
        4,
        "unterminated string: the closing \" is missing on this line",
    );
}

#[test]
fn duplicate_id() {
    assert_errors(&[
        (
            format!("{HEADER}PL\n1\"a\"\n1\"b\"\nTR\nTP\nPT\n"),
            6,
            1,
            "duplicate place id 1: line 5 already has it",
        ),
        (
            format!("{HEADER}PL\nTR\n\"t\"\n  1\"u\"\nTP\nPT\n"),
            7,
            3,
            "duplicate transition id 1: line 6",
        ),
    ]);
}

#[test]
fn unknown_place_id_in_an_arc() {
    assert_errors(&[
        (
            damaged("1<2", "1<9"),
            10,
            3,
            "unknown place id 9: PL defines no place 9",
        ),
        (damaged("1>1", "3>1"), 12, 1, "unknown place id 3"),
    ]);
}

#[test]
fn unknown_transition_id() {
    assert_errors(&[
        (
            damaged("1<2", "2<2"),
            10,
            1,
            "unknown transition id 2: TR defines no transition 2",
        ),
        (damaged("1>1", "1>5"), 12, 3, "unknown transition id 5"),
    ]);
}

#[test]
fn parallel_arcs_are_summed_into_one_weight() {
    // As LoLA and verifypn read them: TP 1<2 twice (w1 + w2) is one arc of weight 3, PT
    // 1>1 twice is one of weight 2, so t needs two tokens; RA 1>2 twice is one read arc.
    let text =
        format!("{HEADER}PL\n\"a\"M2\n\"b\"\nTR\n\"t\"\nTP\n1<2\n\n1<2w2\nPT\n1>1\n1>1\nRA\n2>1\n2>1\n");
    let (net, warnings) = parse(&text, "par.ll_net").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(net.transitions[0].post, vec![(PlaceId(1), 3)]);
    assert_eq!(net.transitions[0].pre, vec![(PlaceId(0), 2)]);
    assert_eq!(net.transitions[0].read, vec![PlaceId(1)]);
    assert_eq!(
        warnings,
        [
            "par.ll_net:12:1: 4 parallel arcs summed into 2 weights; 2 repeated read arcs merged into one \
          read arc (first: 1<2, here and at line 10)"
        ]
    );
    // Written back, each summed arc is one line with its weight, read without a warning.
    let (again, warnings) = parse(&written(&net), "again.ll_net").unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(again.transitions, net.transitions);
}

#[test]
fn parallel_arcs_whose_weights_overflow() {
    assert_error(
        &format!("{HEADER}PL\n\"a\"\n\"b\"\nTR\n\"t\"\nTP\n1<2w4294967295\n1<2\nPT\n"),
        11,
        1,
        "the weights of the parallel arcs 1<2 add up to more than 4294967295",
    );
}

#[test]
fn zero_weight() {
    assert_errors(&[
        (damaged("1<2", "1<2 w0"), 10, 6, "zero arc weight w0"),
        (damaged("1<2", "1<2w2w3"), 10, 6, "conflicting weights w2 and w3"),
    ]);
}

#[test]
fn negative_marking() {
    assert_errors(&[
        (damaged("M1", "M-1"), 5, 6, "negative initial marking -1"),
        (
            damaged("M1", "M1M2"),
            5,
            7,
            "conflicting initial markings M1 and M2",
        ),
    ]);
}

#[test]
fn missing_id_after_autonumbering_was_switched_off() {
    assert_error(
        &format!("{HEADER}PL\n\"a\"\n5\"b\"\n\n\"c\"\nTR\nTP\nPT\n"),
        8,
        1,
        "missing place id: ids are mandatory from line 6 on, whose id 5 is not its position 2",
    );
}

#[test]
fn number_overflow() {
    assert_errors(&[
        (
            damaged("M1", "M4294967296"),
            5,
            6,
            "initial marking 4294967296 is too large",
        ),
        (
            damaged("1<2", "1<2w99999999999"),
            10,
            5,
            "arc weight 99999999999 is too large",
        ),
        (
            damaged("2\"b\"", "4294967296\"b\""),
            6,
            1,
            "place id 4294967296 is too large",
        ),
    ]);
}

#[test]
fn arc_lines_must_name_both_ends_the_right_way() {
    assert_errors(&[
        (damaged("1<2", "1>2"), 10, 2, "expected `<` in a TP line"),
        (damaged("1>1", "1<1"), 12, 2, "expected `>` in a PT line"),
        (damaged("1<2", "1 2"), 10, 1, "a lone number 1 on a TP line"),
        (damaged("1<2", "w2"), 10, 1, "expected an arc t<p on this TP line"),
        (damaged("1<2", "1<"), 10, 3, "expected a number after `<`"),
        (damaged("1<2", "1<2 1<2"), 10, 5, "second arc 1<2 on one TP line"),
    ]);
}

#[test]
fn other_line_errors() {
    assert_errors(&[
        (
            damaged("M1", "Mx"),
            5,
            6,
            "expected a number after `M`, found `x`",
        ),
        (
            damaged("2\"b\"", "2\"b\"n10"),
            6,
            8,
            "expected `@` between the two coordinates after `n10`",
        ),
        (
            damaged("2\"b\"", "2\"b\"'c'"),
            6,
            5,
            "second name \"c\" on one place line",
        ),
        (damaged("2\"b\"", "0\"b\""), 6, 1, "place id 0: ids start at 1"),
        (
            damaged("2\"b\"", "2\"b\"#"),
            6,
            5,
            "unexpected `#` in this place line",
        ),
        (
            format!("{HEADER}{}RA\n1<1w2\n", BODY),
            14,
            5,
            "read arc with weight w2",
        ),
        (
            format!("{HEADER}DPL s7q\n{BODY}"),
            4,
            7,
            "unknown field `q` in this defaults line",
        ),
        (
            format!("{HEADER}{BODY}TX\nN1@1\"x\"q\n"),
            14,
            8,
            "unknown field `q` in this text line",
        ),
    ]);
}

#[test]
fn warnings_name_ignored_information() {
    let loaded = load_str(
        &format!("{HEADER}DPT w2\n{}", BODY.replace("M1", "M1k1")),
        "w.ll_net",
        Format::LlNet,
        &[],
    )
    .unwrap();
    assert_eq!(loaded.warnings.len(), 2, "{:?}", loaded.warnings);
    assert!(
        loaded.warnings[0].starts_with("w.ll_net:4:6: default arc weight w2 ignored"),
        "{:?}",
        loaded.warnings
    );
    assert!(
        loaded.warnings[1].starts_with("w.ll_net:6:7: capacity fields (k) ignored on 1 place:"),
        "{:?}",
        loaded.warnings
    );
}

fn one_place(name: &str) -> Net {
    let mut net = Net::default();
    net.add_place("1", Some(name.to_string()), 1);
    net
}

#[test]
fn unwritable_names_are_io_errors_that_name_them() {
    for (name, why) in [
        ("say \"it's\"", "both \" and '"),
        ("two\nlines", "line break"),
        ("cr\rhere", "line break"),
    ] {
        let mut out = Vec::new();
        let e = write(&one_place(name), &mut out).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        let text = e.to_string();
        assert!(
            text.contains(&format!("{name:?}")) && text.contains(why),
            "{text}"
        );
        assert!(out.is_empty(), "nothing is written before the error");
    }
    let mut net = Net::default();
    net.add_transition("1", Some("a\"b'c".into()));
    let e = write(&net, Vec::new()).unwrap_err();
    assert!(e.to_string().contains("transition name"), "{e}");
}

#[test]
fn awkward_names_round_trip() {
    for name in [
        "λ→µ ∀x",
        "it's",
        "say \"hi\"",
        "% not a comment",
        "",
        "  spaced  ",
        "TR",
        "1<2",
        "x@y",
    ] {
        let net = one_place(name);
        let text = written(&net);
        let back = net_of(&text);
        assert_eq!(back, net, "{name:?} as {text:?}");
    }
    assert!(written(&one_place("it's")).contains("\n1\"it's\"M1\n"));
    assert!(written(&one_place("say \"hi\"")).contains("\n1'say \"hi\"'M1\n"));
}

#[test]
fn latin1_text_is_read_as_latin1() {
    let bytes = [HEADER.as_bytes(), b"PL\n\"R\xf6mer\"\nTR\nTP\nPT\n"].concat();
    let net = net_of(&decode(&bytes));
    assert_eq!(net.places[0].name.as_deref(), Some("Römer"));
}

/// A random net with canonical ids, as the reader produces them, and names the writer can
/// quote.
fn arb_net() -> impl Strategy<Value = Net> {
    let name = "[a-zA-Z0-9 _.'%<>@λ-]{0,6}";
    (1usize..6, 0usize..5).prop_flat_map(move |(np, nt)| {
        let places = proptest::collection::vec((name, 0u32..4), np);
        let arcs = proptest::collection::vec((0..np, 0u32..3, 0u32..3, any::<bool>()), 0..12);
        let trans = proptest::collection::vec((name, arcs), nt);
        let sparse = any::<bool>();
        (places, trans, sparse).prop_map(|(places, trans, sparse)| {
            let mut net = Net::default();
            let id = |i: usize| if sparse { 3 * i + 2 } else { i + 1 };
            for (i, (name, m)) in places.into_iter().enumerate() {
                net.add_place(id(i).to_string(), Some(name), m);
            }
            for (i, (name, arcs)) in trans.into_iter().enumerate() {
                let t = net.add_transition(id(i).to_string(), Some(name));
                for (p, pre, post, read) in arcs {
                    let p = PlaceId(p as u32);
                    if pre > 0 && net.transitions[t.index()].pre_weight(p) == 0 {
                        net.add_pre(t, p, pre);
                    }
                    if post > 0 && net.transitions[t.index()].post_weight(p) == 0 {
                        net.add_post(t, p, post);
                    }
                    if read {
                        net.add_read(t, p);
                    }
                }
            }
            net
        })
    })
}

/// A shipped file damaged in one of three ways.
fn arb_damage() -> impl Strategy<Value = (usize, usize, Vec<(usize, char)>, bool)> {
    let chars = prop_oneof![
        Just('\n'),
        Just('"'),
        Just('\''),
        Just('%'),
        Just('<'),
        Just('>'),
        Just('@'),
        Just('-'),
        Just('M'),
        Just('w'),
        Just('9'),
        Just(' '),
        Just('P'),
        Just('T'),
        any::<char>(),
    ];
    (
        0usize..19,
        any::<usize>(),
        proptest::collection::vec((any::<usize>(), chars), 0..6),
        any::<bool>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_nets_round_trip(net in arb_net()) {
        let text = written(&net);
        let back = parse(&text, "random.ll_net").map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?.0;
        prop_assert_eq!(&back, &net);
        prop_assert_eq!(written(&back), text);
    }

    #[test]
    fn damaged_files_give_errors_not_panics((file, cut, edits, truncate) in arb_damage()) {
        let nets = shipped_nets();
        let mut chars: Vec<char> = read_file(&nets[file % nets.len()]).chars().collect();
        for (at, c) in edits {
            let i = at % chars.len();
            chars[i] = c;
        }
        if truncate {
            chars.truncate(cut % (chars.len() + 1));
        }
        let text: String = chars.into_iter().collect();
        match parse(&text, "damaged.ll_net") {
            Ok((net, _)) => prop_assert!(net.places.len() <= text.lines().count()),
            Err(e) => {
                prop_assert!(e.pos.line >= 1 && e.pos.line <= text.lines().count() + 1, "{}", e);
                prop_assert!(e.pos.col >= 1);
                prop_assert!(!e.message.is_empty());
            }
        }
    }
}

#[test]
fn reported_sets_of_arcs_survive_writing() {
    // The writer orders arcs by transition; the reader must not depend on file order.
    let net = net_of(LOCKS);
    let mut lines: Vec<&str> = LOCKS.lines().collect();
    let tp = lines.iter().position(|l| *l == "TP").unwrap();
    let pt = lines.iter().position(|l| *l == "PT").unwrap();
    lines[tp + 1..pt].reverse();
    let reordered = net_of(&(lines.join("\n") + "\n"));
    assert_eq!(reordered, net);
    let arcs = |n: &Net| -> BTreeSet<(usize, usize, u32)> {
        n.transitions
            .iter()
            .enumerate()
            .flat_map(|(t, tr)| tr.post.iter().map(move |(p, w)| (t, p.index(), *w)))
            .collect()
    };
    assert_eq!(arcs(&net_of(&written(&net))), arcs(&net));
}
