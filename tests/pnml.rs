//! The PNML reader and writer through the public API: every model of `models/` loads and
//! round-trips, malformed files fail at the right place with the right words, and no input
//! makes the reader panic.

use proptest::prelude::*;
use qpor::formats::pnml::read;
use qpor::formats::pnml::write;
use qpor::net::{Decomposition, Net, NetSystem, Nupn, PlaceId, TransId, Unit};
use qpor::Model;
use qpor::{load, load_str, Format, LoadOptions, ParseError, Pos};
use std::path::{Path, PathBuf};

const PTNET: &str = "http://www.pnml.org/version-2009/grammar/ptnet";

fn pnml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            pnml_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "pnml") {
            out.push(path);
        }
    }
}

fn models() -> Vec<PathBuf> {
    let mut files = Vec::new();
    pnml_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("models"), &mut files);
    assert!(
        files.len() >= 19,
        "expected the 19 MCC nets at least, found {}",
        files.len()
    );
    files
}

fn read_file(path: &Path) -> (Net, Vec<String>) {
    let file = std::fs::File::open(path).unwrap();
    read(std::io::BufReader::new(file), &path.display().to_string()).unwrap_or_else(|e| panic!("{e}"))
}

fn to_pnml(net: &Net) -> Vec<u8> {
    let mut out = Vec::new();
    write(net, &mut out).unwrap();
    out
}

fn reread(bytes: &[u8]) -> Net {
    let (net, warnings) =
        read(bytes, "written.pnml").unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(bytes)));
    assert!(warnings.is_empty(), "{warnings:?}");
    net
}

/// The value of `name="…"` in the first `<tag …>` of `text`.
fn attribute_of(text: &str, tag: &str, name: &str) -> Option<u64> {
    let start = text.find(&format!("<{tag} "))?;
    let element = &text[start..start + text[start..].find('>')?];
    let from = element.find(&format!(" {name}=\""))? + name.len() + 3;
    element[from..from + element[from..].find('"')?].parse().ok()
}

#[test]
fn every_model_loads_and_agrees_with_its_nupn_size() {
    let mut with_nupn = 0;
    for path in models() {
        let (net, warnings) = read_file(&path);
        let shown = path.display();
        assert!(warnings.is_empty(), "{shown}: {warnings:?}");
        assert!(!net.places.is_empty() && !net.transitions.is_empty(), "{shown}");
        let text = std::fs::read_to_string(&path).unwrap();
        if let Some(places) = attribute_of(&text, "size", "places") {
            let transitions = attribute_of(&text, "size", "transitions").unwrap();
            let arcs = attribute_of(&text, "size", "arcs").unwrap();
            assert_eq!(
                (
                    net.places.len() as u64,
                    net.transitions.len() as u64,
                    net.num_arcs() as u64
                ),
                (places, transitions, arcs),
                "{shown}: counts of the NUPN size element"
            );
        }
        if let Some(nupn) = &net.nupn {
            with_nupn += 1;
            assert_eq!(
                Some(nupn.units.len() as u64),
                attribute_of(&text, "structure", "units"),
                "{shown}"
            );
            if let Err(e) = NetSystem::new(&net, Decomposition::Units) {
                panic!("{shown}: {}", e.message);
            }
        }
        NetSystem::new(&net, Decomposition::Places).unwrap();
    }
    assert!(
        with_nupn >= 13,
        "13 of the MCC nets have a NUPN block, found {with_nupn}"
    );
}

#[test]
fn a_known_model_reads_as_published() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mcc2023/Philosophers-PT-000010.pnml");
    let (net, _) = read_file(&path);
    assert_eq!(net.name.as_deref(), Some("Philosophers-PT-000010"));
    assert_eq!(
        (net.places.len(), net.transitions.len(), net.num_arcs()),
        (50, 50, 160)
    );
    assert_eq!(
        net.places.iter().map(|p| p.initial).sum::<u32>(),
        20,
        "10 thinkers, 10 forks"
    );
    let think = net.places.iter().find(|p| p.id == "Think_1").unwrap();
    assert_eq!((think.name.as_deref(), think.initial), (Some("Think_1"), 1));
    let nupn = net.nupn.as_ref().unwrap();
    assert_eq!(
        (nupn.units.len(), nupn.units[nupn.root].id.as_str(), nupn.safe),
        (21, "u0", true)
    );
    assert_eq!(nupn.units[nupn.root].subunits.len(), 20);
    let u1 = &nupn.units[1];
    let names: Vec<&str> = u1
        .places
        .iter()
        .map(|p| net.places[p.index()].id.as_str())
        .collect();
    assert_eq!(
        (u1.id.as_str(), names),
        ("u1", vec!["Fork_1", "Catch1_2", "Catch2_1", "Eat_1", "Eat_2"])
    );
}

#[test]
fn every_model_round_trips() {
    for path in models() {
        let (net, _) = read_file(&path);
        let first = to_pnml(&net);
        let back = reread(&first);
        assert!(
            back == net,
            "{}: read → write → read changed the net",
            path.display()
        );
        assert_eq!(to_pnml(&net), first, "{}: two writes differ", path.display());
        assert_eq!(
            to_pnml(&back),
            first,
            "{}: the re-read net writes differently",
            path.display()
        );
    }
}

#[test]
fn windows_line_ends_read_the_same() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mcc2023/Philosophers-PT-000005.pnml");
    let (net, _) = read_file(&path);
    let crlf = std::fs::read_to_string(&path).unwrap().replace('\n', "\r\n");
    let (back, _) = read(crlf.as_bytes(), "crlf.pnml").unwrap();
    assert_eq!(back, net);
    let bad = crlf.replacen("<text>1</text>", "<text>one</text>", 1);
    let line = crlf[..crlf.find("<text>1</text>").unwrap()].matches('\n').count() + 1;
    let e = read(bad.as_bytes(), "crlf.pnml").unwrap_err();
    assert_eq!(e.pos.line, line, "{e}");
    assert!(e.message.contains("found \"one\""), "{e}");
}

#[test]
fn mild_problems_are_warnings() {
    let untyped = doc("<place id=\"p\"/>\n").replace(&format!(" type=\"{PTNET}\""), "");
    let (net, warnings) = net_of(&untyped);
    assert_eq!(net.places.len(), 1);
    assert_eq!(
        warnings,
        ["bad.pnml:3:3: the net has no type attribute; reading it as a P/T net"]
    );
    let miscounted = nupn_doc(SIZE, "u0", ("p", "u1"), ("q", "")).replace("units=\"2\"", "units=\"5\"");
    let (net, warnings) = net_of(&miscounted);
    assert_eq!(net.nupn.unwrap().units.len(), 2);
    assert_eq!(
        warnings,
        ["bad.pnml:9:1: the NUPN <structure> announces 5 units, but the block has 2"]
    );
    let (net, warnings) = net_of(&doc(
        "<place id=\"p\"/>\n<toolspecific tool=\"nupn\"><size places=\"1\"/></toolspecific>\n",
    ));
    assert!(net.nupn.is_none());
    assert_eq!(
        warnings,
        ["bad.pnml:6:1: the NUPN block has no <structure>; ignoring it"]
    );
}

#[test]
fn loading_a_file_through_the_library_entry_point() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.pnml");
    let mut net = Net {
        name: Some("small".into()),
        ..Net::default()
    };
    let p = net.add_place("p", None, 1);
    net.add_transition_between("t", &[p], &[]);
    std::fs::write(&path, to_pnml(&net)).unwrap();
    let loaded = load(&path, &LoadOptions::default()).unwrap();
    assert!(loaded.warnings.is_empty());
    match loaded.model {
        Model::Net(back) => assert_eq!(back, net),
        _ => panic!("a PNML file gives a net"),
    }
}

#[test]
fn read_arcs_and_awkward_names_round_trip() {
    let mut net = Net {
        name: Some("odd \"net\" <&> ☃".into()),
        ..Net::default()
    };
    let p0 = net.add_place("1", Some("quotes \" ' and <tags> & amps".into()), 2);
    let p1 = net.add_place("p x", Some("ünïcødé ☃ 𝄞".into()), 0);
    let p2 = net.add_place("dup", None, 1);
    let p3 = net.add_place("dup", Some("  spaced  ".into()), 0);
    let p4 = net.add_place("cr", Some("line1\r\nline2\ttab &amp;".into()), 3);
    let t0 = net.add_transition("7", Some("]]> and &lt;".into()));
    net.add_read(t0, p0);
    net.add_pre(t0, p1, 3);
    let t1 = net.add_transition("t1", None);
    net.add_read(t1, p2);
    net.add_pre(t1, p2, 2);
    net.add_read(t1, p4);
    net.add_post(t1, p4, 5);
    net.add_post(t1, p3, 1);
    net.nupn = Some(Nupn {
        units: vec![
            Unit::new("root unit", vec![p1], vec![1, 2]),
            Unit::new("u1", vec![p3, p0], vec![]),
            Unit::new("u1", vec![], vec![]),
        ],
        root: 0,
        safe: false,
    });

    let bytes = to_pnml(&net);
    assert_eq!(to_pnml(&net), bytes, "deterministic");
    let back = reread(&bytes);

    // Numeric, blank and repeated ids are replaced; read arcs become self-loops.
    let mut expected = Net {
        name: net.name.clone(),
        ..Net::default()
    };
    for (id, p) in ["p1", "p_x", "dup", "dup_2", "cr"].iter().zip(&net.places) {
        expected.add_place(*id, p.name.clone(), p.initial);
    }
    let (e0, e1) = (
        expected.add_transition("t7", net.transitions[0].name.clone()),
        expected.add_transition("t1", None),
    );
    expected.add_pre(e0, p0, 1);
    expected.add_post(e0, p0, 1);
    expected.add_pre(e0, p1, 3);
    expected.add_pre(e1, p2, 2);
    expected.add_pre(e1, p4, 1);
    expected.add_post(e1, p4, 6);
    expected.add_post(e1, p3, 1);
    let mut nupn = net.nupn.clone().unwrap();
    nupn.units[0].id = "u0".into();
    nupn.units[2].id = "u2".into();
    expected.nupn = Some(nupn);
    assert_eq!(back, expected);
    assert_eq!(to_pnml(&back), to_pnml(&expected));
    assert_eq!(
        reread(&to_pnml(&back)),
        back,
        "a net without read arcs is a fixpoint"
    );

    let text = String::from_utf8(bytes).unwrap();
    assert!(
        text.contains("<text>odd \"net\" &lt;&amp;&gt; ☃</text>"),
        "{text}"
    );
    assert!(text.contains("line1&#13;\nline2\ttab &amp;amp;"), "{text}");
}

#[test]
fn a_net_without_a_name_gets_the_id_net() {
    let mut net = Net::default();
    net.add_place("net", None, 0);
    let back = reread(&to_pnml(&net));
    assert_eq!(
        back.name.as_deref(),
        Some("net_2"),
        "the place already has the id net"
    );
    assert_eq!(back.places, net.places);
}

#[test]
fn the_writer_refuses_a_broken_net() {
    let mut net = Net::default();
    let t = net.add_transition("t", None);
    net.add_pre(t, PlaceId(3), 1);
    let err = write(&net, Vec::new()).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("place #3"), "{err}");
}

// ---- malformed input ----

const HEAD: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
<pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\">\n  \
<net id=\"n\" type=\"http://www.pnml.org/version-2009/grammar/ptnet\">\n    \
<page id=\"pg\">\n";
const TAIL: &str = "</page>\n</net>\n</pnml>\n";

/// A document whose page holds `body`, from line 5.
fn doc(body: &str) -> String {
    format!("{HEAD}{body}{TAIL}")
}

fn error_of(text: &str) -> ParseError {
    match load_str(text, "bad.pnml", Format::Pnml, &[]) {
        Err(e) => e,
        Ok(_) => panic!("accepted:\n{text}"),
    }
}

#[track_caller]
fn assert_error(text: &str, line: usize, col: usize, needle: &str) {
    let e = error_of(text);
    assert_eq!(e.file, "bad.pnml");
    assert!(e.message.contains(needle), "expected {needle:?} in: {e}");
    assert_eq!(e.pos, Pos { line, col }, "{e}");
    assert!(
        e.to_string().starts_with(&format!("bad.pnml:{line}:{col}: ")),
        "{e}"
    );
}

/// [`assert_error`] on each (text, line, column, needle).
#[track_caller]
fn assert_errors(cases: &[(&str, usize, usize, &str)]) {
    for &(text, line, col, needle) in cases {
        assert_error(text, line, col, needle);
    }
}

fn net_of(text: &str) -> (Net, Vec<String>) {
    let loaded = load_str(text, "bad.pnml", Format::Pnml, &[]).unwrap_or_else(|e| panic!("{e}"));
    match loaded.model {
        Model::Net(net) => (net, loaded.warnings),
        _ => panic!("a PNML file gives a net"),
    }
}

const P_T: &str = "<place id=\"p\"/>\n<transition id=\"t\"/>\n";

fn weighted(weight: &str) -> String {
    doc(&format!(
        "{P_T}<arc id=\"a\" source=\"p\" target=\"t\">\n  <inscription><text>{weight}</text></inscription>\n</arc>\n"
    ))
}

fn marked(marking: &str) -> String {
    doc(&format!(
        "<place id=\"p\">\n<initialMarking>\n<text>{marking}</text>\n</initialMarking>\n</place>\n"
    ))
}

#[test]
fn xml_syntax_errors() {
    assert_errors(&[
        (
            &doc("<place id=\"p\">\n  </plac>\n"),
            6,
            3,
            "malformed XML: ill-formed document: expected `</place>`, but `</plac>` was found",
        ),
        (
            &doc("<place id=p1/>\n"),
            5,
            11,
            "malformed XML: attribute values must be in quotes",
        ),
        (
            &format!("{HEAD}<place id=\"p"),
            5,
            1,
            "not found before end of input",
        ),
        (
            &format!("{}<pnml/>\n", doc("")),
            8,
            1,
            "after the end of the <pnml> element",
        ),
        (
            &doc("<place id=\"p\"><name><text>a &nbsp; b</text></name></place>\n"),
            5,
            29,
            "unknown entity &nbsp;",
        ),
    ]);
    let mut latin1 = format!("{HEAD}<place id=\"p\"><name><text>caf").into_bytes();
    latin1.extend_from_slice(b"\xe9</text></name></place>\n");
    latin1.extend_from_slice(TAIL.as_bytes());
    let e = read(latin1.as_slice(), "bad.pnml").unwrap_err();
    assert!(e.message.contains("not valid UTF-8"), "{e}");
    assert_eq!(e.pos, Pos { line: 5, col: 27 }, "{e}");
}

#[test]
fn truncated_and_empty_documents() {
    let cut = format!("{HEAD}<place id=\"p\">\n  <initialMarking>\n    <text>1");
    assert_errors(&[
        (
            &cut,
            7,
            12,
            "the file ends inside <text> (opened at line 7, column 5)",
        ),
        ("", 1, 1, "the file holds no XML element"),
        (
            "<?xml version=\"1.0\"?>\n<html/>",
            2,
            1,
            "expected a PNML document (root element <pnml>), found <html>",
        ),
        (
            "<pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\">\n  <!-- no net -->\n</pnml>\n",
            1,
            1,
            "the PNML document holds no <net> element",
        ),
    ]);
}

#[test]
fn missing_and_duplicate_ids() {
    assert_errors(&[
        (&doc("  <place>\n  </place>\n"), 5, 3, "<place> needs an id attribute"),
        (&doc("<transition id=\"\"/>\n"), 5, 1, "the id of this <transition> is empty"),
        (&doc("<place id=\"x\"/>\n<transition id=\"y\"/>\n  <transition id=\"x\"/>\n"), 7, 3, "duplicate id x: the place at line 5, column 1 already has it"),
        (&doc("<page id=\"inner\">\n<transition id=\"x\"/>\n</page>\n<referencePlace id=\"x\" ref=\"y\"/>\n"), 8, 1, "duplicate id x: the transition at line 6, column 1"),
        (&doc("<place id=\"p\"/>\n<arc id=\"a\" source=\"p\"/>\n"), 6, 1, "arc a has no target attribute"),
        (&doc("<arc source=\"p\" target=\"t\"/>\n"), 5, 1, "<arc> needs an id attribute"),
    ]);
}

#[test]
fn bad_arcs() {
    assert_errors(&[
        (&doc("<transition id=\"t\"/>\n<arc id=\"a\" source=\"ghost\" target=\"t\"/>\n"), 6, 1, "the arc from ghost to t starts at ghost, which is not a place or transition of the net"),
        (&doc("<place id=\"p\"/>\n<arc id=\"a\" source=\"p\" target=\"nowhere\"/>\n"), 6, 1, "goes to nowhere, which is not a place or transition"),
        (&doc("<place id=\"p\"/>\n<place id=\"q\"/>\n<arc id=\"a\" source=\"p\" target=\"q\"/>\n"), 7, 1, "joins two places; an arc must join a place and a transition"),
        (&doc("<transition id=\"t\"/>\n<transition id=\"u\"/>\n  <arc id=\"a\" source=\"t\" target=\"u\"/>\n"), 7, 3, "joins two transitions"),
        (&doc(&format!(
            "{P_T}<arc id=\"a1\" source=\"p\" target=\"t\"><inscription><text>4294967295</text></inscription></arc>\n  \
             <arc id=\"a2\" source=\"p\" target=\"t\"/>\n"
        )), 8, 3, "the weights of the parallel arcs from p to t add up to more than 4294967295"),
    ]);
}

#[test]
fn parallel_arcs_are_summed_into_one_weight() {
    // As LoLA and verifypn read them: two arcs p → t of weight 1 are one arc of weight 2,
    // so t needs two tokens. One warning for the whole net, at the first repeat in the file.
    let text = doc(&format!(
        "{P_T}<place id=\"q\"/>\n<arc id=\"a1\" source=\"p\" target=\"t\"/>\n\
         <arc id=\"a2\" source=\"t\" target=\"q\"/>\n  <arc id=\"a3\" source=\"p\" target=\"t\"/>\n\
         <arc id=\"a4\" source=\"t\" target=\"q\"><inscription><text>3</text></inscription></arc>\n\
         <arc id=\"a5\" source=\"p\" target=\"t\"/>\n"
    ));
    let (net, warnings) = net_of(&text);
    let (p, q) = (PlaceId(0), PlaceId(1));
    assert_eq!(net.transitions[0].pre, vec![(p, 3)]);
    assert_eq!(net.transitions[0].post, vec![(q, 4)]);
    assert_eq!(net.num_arcs(), 2);
    assert_eq!(
        warnings,
        ["bad.pnml:10:3: 5 parallel arcs summed into 2 weights (first: p → t, here and at line 8, column 1)"]
    );
    // Written back, the net has one arc of each summed weight and reads without a warning.
    let again = reread(&to_pnml(&net));
    assert_eq!(again, net);
}

#[test]
fn bad_weights() {
    assert_errors(&[
        (&weighted(" -2"), 8, 23, "the weight of arc a is negative (-2)"),
        (&weighted("0"), 8, 22, "the weight of arc a is 0"),
        (&weighted("two"), 8, 22, "expected an arc weight (a whole number from 1 to 4294967295) as the inscription of arc a, found \"two\""),
        (&weighted("4294967296"), 8, 22, "the weight of arc a (4294967296) is too large"),
        (&weighted(""), 8, 16, "the inscription of arc a is empty"),
    ]);
    let (net, _) = net_of(&weighted("4294967295"));
    assert_eq!(net.transitions[0].pre, vec![(PlaceId(0), u32::MAX)]);
}

#[test]
fn bad_markings() {
    assert_errors(&[
        (
            &marked("-1"),
            7,
            7,
            "the initial marking of place p is negative (-1)",
        ),
        (
            &marked("\n  many\n"),
            8,
            3,
            "expected a number of tokens (0 to 4294967295) as the initial marking of place p, found \"many\"",
        ),
        (
            &marked("99999999999"),
            7,
            7,
            "the initial marking of place p (99999999999) is too large",
        ),
        (&marked("1.5"), 7, 7, "found \"1.5\""),
    ]);
    let (net, _) = net_of(&marked(" 4294967295 "));
    assert_eq!(net.places[0].initial, u32::MAX);
}

#[test]
fn bad_references() {
    assert_errors(&[
        (
            &doc("<referencePlace id=\"r\" ref=\"ghost\"/>\n"),
            5,
            1,
            "referencePlace r refers to ghost, which is not a node of the net",
        ),
        (
            &doc(
                "<referenceTransition id=\"r1\" ref=\"r2\"/>\n<referenceTransition id=\"r2\" ref=\"r1\"/>\n",
            ),
            5,
            1,
            "the reference nodes r1 → r2 → r1 form a cycle",
        ),
        (
            &doc("<referencePlace id=\"me\" ref=\"me\"/>\n"),
            5,
            1,
            "me → me form a cycle",
        ),
        (
            &doc("<transition id=\"t\"/>\n<referencePlace id=\"r\" ref=\"t\"/>\n"),
            6,
            1,
            "referencePlace r refers to t, which is not a place",
        ),
        (
            &doc("<referencePlace id=\"r\"/>\n"),
            5,
            1,
            "referencePlace r has no ref attribute",
        ),
    ]);
}

/// Two places and a NUPN block (size line 8, structure line 9, units lines 10–11).
fn nupn_doc(size: &str, root: &str, u0: (&str, &str), u1: (&str, &str)) -> String {
    doc(&format!(
        "<place id=\"p\"/>\n<place id=\"q\"/>\n<toolspecific tool=\"nupn\" version=\"1.1\">\n\
         <size {size}/>\n<structure units=\"2\" root=\"{root}\" safe=\"true\">\n\
         <unit id=\"u0\"><places>{}</places><subunits>{}</subunits></unit>\n\
         <unit id=\"u1\"><places>{}</places><subunits>{}</subunits></unit>\n\
         </structure>\n</toolspecific>\n",
        u0.0, u0.1, u1.0, u1.1
    ))
}

const SIZE: &str = "places=\"2\" transitions=\"0\" arcs=\"0\"";

#[test]
fn bad_nupn_blocks() {
    let good = nupn_doc(SIZE, "u0", ("p", "u1"), ("q", ""));
    let (net, warnings) = net_of(&good);
    assert!(warnings.is_empty(), "{warnings:?}");
    let nupn = net.nupn.unwrap();
    assert_eq!(
        (
            nupn.root,
            nupn.units[0].subunits.clone(),
            nupn.units[1].places.clone()
        ),
        (0, vec![1], vec![PlaceId(1)])
    );

    assert_errors(&[
        (
            &nupn_doc(SIZE, "u0", ("p", "u1"), ("q  zz", "")),
            11,
            26,
            "NUPN unit u1 lists zz, which is not a place of the net",
        ),
        (
            &nupn_doc(SIZE, "u0", ("p", "u1"), ("q p", "")),
            11,
            25,
            "place p is in NUPN units u0 and u1; a place belongs to one unit at most",
        ),
        (
            &nupn_doc(SIZE, "u0", ("p", ""), ("q", "")),
            11,
            1,
            "NUPN unit u1 is neither the root unit (u0) nor a subunit of another unit",
        ),
        (
            &nupn_doc(SIZE, "top", ("p", "u1"), ("q", "")),
            9,
            1,
            "the NUPN root unit top is not one of the block's units",
        ),
        (
            &nupn_doc(SIZE, "u0", ("p", "u1 u9"), ("q", "")),
            10,
            46,
            "NUPN unit u0 lists u9 as a subunit, which is not a unit of the block",
        ),
        (
            &nupn_doc(SIZE, "u0", ("p", "u1"), ("q", "u0")),
            11,
            43,
            "the root unit u0 cannot be a subunit",
        ),
    ]);

    let (_, warnings) = net_of(&nupn_doc(
        "places=\"3\" transitions=\"0\" arcs=\"0\"",
        "u0",
        ("p", "u1"),
        ("q", ""),
    ));
    assert_eq!(
        warnings,
        ["bad.pnml:8:1: the NUPN <size> says 3 places, 0 transitions and 0 arcs, but the net has 2, 0 and 0"]
    );
}

// ---- what is refused, and the shapes of nets that are read ----

#[test]
fn coloured_nets_are_refused() {
    let symmetric = "<pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\">\n\
                     <net id=\"s\" type=\"http://www.pnml.org/version-2009/grammar/symmetricnet\">\n\
                     <page id=\"pg\"/>\n</net>\n</pnml>\n";
    assert_error(
        symmetric,
        2,
        1,
        "coloured (symmetric) nets are not supported: the net's type is http://www.pnml.org/version-2009/grammar/symmetricnet",
    );
    let declared = HEAD.replace(
        "<page id=\"pg\">\n",
        "<declaration>\n  <structure/>\n</declaration>\n<page id=\"pg\">\n",
    );
    assert_errors(&[
        (
            &format!("{declared}{TAIL}"),
            4,
            5,
            "coloured (symmetric) nets are not supported: found <declaration>",
        ),
        (
            &doc("<place id=\"p\">\n  <hlinitialMarking><text>1'dot</text></hlinitialMarking>\n</place>\n"),
            6,
            3,
            "coloured (symmetric) nets are not supported: found <hlinitialMarking>",
        ),
        (
            &doc("<place id=\"p\">\n  <type><text>Dot</text><structure/></type>\n</place>\n"),
            6,
            3,
            "coloured (symmetric) nets are not supported: place p has a <type>",
        ),
    ]);
}

#[test]
fn special_arcs_are_refused() {
    assert_errors(&[
        (
            &doc(&format!(
                "{P_T}<arc id=\"a\" source=\"p\" target=\"t\" type=\"inhibitor\"/>\n"
            )),
            7,
            1,
            "inhibitor arcs are not supported",
        ),
        (
            &doc(&format!(
                "{P_T}<arc id=\"a\" source=\"p\" target=\"t\">\n  <type value=\"reset\"/>\n</arc>\n"
            )),
            8,
            3,
            "reset arcs are not supported",
        ),
    ]);
    let (net, _) = net_of(&doc(&format!(
        "{P_T}<arc id=\"a\" source=\"p\" target=\"t\" type=\"normal\"/>\n"
    )));
    assert_eq!(net.num_arcs(), 1);
}

#[test]
fn several_nets_give_a_warning_and_the_first_net() {
    let text = format!(
        "{}  <net id=\"second\" type=\"{PTNET}\"><page id=\"x\"><place id=\"other\"/></page></net>\n\
         <net id=\"third\" type=\"symmetric nets are not even looked at\"/>\n</pnml>\n",
        doc("<place id=\"p\"/>\n").trim_end().trim_end_matches("</pnml>")
    );
    let (net, warnings) = net_of(&text);
    assert_eq!(net.places.len(), 1);
    assert_eq!(net.places[0].id, "p");
    assert_eq!(
        warnings,
        ["bad.pnml:8:3: the file holds 3 nets; using the first (n)"]
    );
}

#[test]
fn reference_nodes_resolve_across_pages() {
    let text = format!(
        "<pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\">\n<net id=\"refs\" type=\"{PTNET}\">\n\
         <name><text>two pages</text></name>\n\
         <page id=\"A\"><page id=\"A1\">\n\
           <place id=\"p\"><initialMarking><text>1</text></initialMarking></place>\n\
           <transition id=\"t1\"><name><text>first</text></name></transition>\n\
           <referencePlace id=\"rq\" ref=\"q\"/>\n\
           <arc id=\"a1\" source=\"p\" target=\"t1\"/>\n\
           <arc id=\"a2\" source=\"t1\" target=\"rq\"><inscription><text>2</text></inscription></arc>\n\
         </page></page>\n\
         <page id=\"B\">\n\
           <arc id=\"a3\" source=\"q\" target=\"rt1\"/>\n\
           <arc id=\"a4\" source=\"t2\" target=\"rp2\"/>\n\
           <arc id=\"a5\" source=\"rq\" target=\"t2\"/>\n\
           <place id=\"q\"/>\n\
           <transition id=\"t2\"/>\n\
           <referenceTransition id=\"rt1\" ref=\"t1\"/>\n\
           <referencePlace id=\"rp2\" ref=\"rp1\"/>\n\
           <referencePlace id=\"rp1\" ref=\"p\"/>\n\
         </page>\n</net>\n</pnml>\n"
    );
    let (net, warnings) = net_of(&text);
    assert!(warnings.is_empty(), "{warnings:?}");
    let mut expected = Net {
        name: Some("two pages".into()),
        ..Net::default()
    };
    let p = expected.add_place("p", None, 1);
    let q = expected.add_place("q", None, 0);
    let t1 = expected.add_transition("t1", Some("first".into()));
    let t2 = expected.add_transition("t2", None);
    expected.add_pre(t1, p, 1);
    expected.add_post(t1, q, 2);
    expected.add_pre(t1, q, 1);
    expected.add_post(t2, p, 1);
    expected.add_pre(t2, q, 1);
    assert_eq!(net, expected);
    assert_eq!(
        net.transitions[1].post,
        vec![(PlaceId(0), 1)],
        "through the chain rp2 → rp1 → p"
    );

    // Two arcs that only meet through a reference are still parallel: t1 → rq (weight 2)
    // and t1 → q add up, and the warning names the nodes, not the reference.
    let twice = text
        .replace("<arc id=\"a5\" source=\"rq\"", "<arc id=\"a5\" source=\"t1\"")
        .replace("target=\"t2\"/>", "target=\"q\"/>");
    let (net, warnings) = net_of(&twice);
    assert_eq!(net.transitions[0].post, vec![(PlaceId(1), 3)]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("2 parallel arcs summed into one weight (first: t1 → q, here and at line 9"),
        "{warnings:?}"
    );
}

#[test]
fn a_net_without_pages() {
    let text = format!(
        "<pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\"><net id=\"flat\" type=\"{PTNET}\">\
         <place id=\"p\"><name><graphics><offset x=\"0\" y=\"0\"/></graphics><text>P</text></name>\
         <graphics><position x=\"1\" y=\"2\"/></graphics>\
         <initialMarking><text>3</text></initialMarking>\
         <toolspecific tool=\"elsewhere\"><structure/><anything/></toolspecific></place>\
         <transition id=\"t\"/><arc id=\"a\" source=\"p\" target=\"t\"><inscription><text>3</text></inscription></arc>\
         </net></pnml>"
    );
    let (net, _) = net_of(&text);
    assert_eq!(net.name.as_deref(), Some("flat"), "no name: the id");
    assert_eq!(
        (net.places[0].name.as_deref(), net.places[0].initial),
        (Some("P"), 3)
    );
    assert_eq!(net.transitions[0].pre, vec![(PlaceId(0), 3)]);
    assert_eq!(net.transitions[0].post, vec![]);
    let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
    assert_eq!(sys.step_of(TransId(0)).touched.len(), 1);
}

#[test]
fn entities_and_character_references_in_names() {
    let (net, _) = net_of(&doc(
        "<place id=\"p&#x31;\"><name><text>a &lt;b&gt; &amp; &quot;c&apos; &#233;&#x1D11E;</text></name></place>\n",
    ));
    assert_eq!(net.places[0].id, "p1");
    assert_eq!(net.places[0].name.as_deref(), Some("a <b> & \"c' é𝄞"));
}

// ---- no input makes the reader panic ----

/// A small net using most of what the reader knows: pages, references, weights, NUPN.
fn sample() -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\">\n\
         <net id=\"s\" type=\"{PTNET}\"><name><text>sample ☃</text></name>\n<page id=\"a\">\n\
         <place id=\"p\"><name><text>P &amp; Q</text></name><initialMarking><text>1</text></initialMarking></place>\n\
         <place id=\"q\"/><transition id=\"t\"><graphics><position x=\"1\" y=\"1\"/></graphics></transition>\n\
         <arc id=\"a1\" source=\"p\" target=\"t\"><inscription><text>1</text></inscription></arc>\n\
         <arc id=\"a2\" source=\"t\" target=\"rq\"/>\n<!-- comment -->\n\
         <page id=\"b\"><referencePlace id=\"rq\" ref=\"q\"/><transition id=\"u\"/>\n\
         <arc id=\"a3\" source=\"rq\" target=\"u\"/><arc id=\"a4\" source=\"u\" target=\"p\"/></page>\n\
         <toolspecific tool=\"nupn\" version=\"1.1\"><size places=\"2\" transitions=\"2\" arcs=\"4\"/>\n\
         <structure units=\"2\" root=\"u0\" safe=\"true\"><unit id=\"u0\"><places/><subunits>u1</subunits></unit>\n\
         <unit id=\"u1\"><places>p q</places><subunits/></unit></structure></toolspecific>\n\
         </page></net>\n</pnml>\n"
    )
}

#[test]
fn the_sample_is_valid() {
    let (net, warnings) = net_of(&sample());
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        (net.places.len(), net.transitions.len(), net.num_arcs()),
        (2, 2, 4)
    );
    NetSystem::new(&net, Decomposition::Units).unwrap();
}

fn check_error_position(text: &[u8], result: Result<(Net, Vec<String>), ParseError>) {
    if let Err(e) = result {
        let lines = text.iter().filter(|&&b| b == b'\n').count() + 1;
        assert!(e.pos.line >= 1 && e.pos.line <= lines, "{e}");
        assert!(e.pos.col >= 1, "{e}");
        assert!(!e.message.is_empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn truncated_files_are_refused(cut in any::<prop::sample::Index>()) {
        let text = sample().into_bytes();
        let end = text.len() - 1; // after "</pnml>", only the final newline
        let cut = cut.index(text.len() + 1);
        let result = read(&text[..cut], "cut.pnml");
        if cut < end {
            prop_assert!(result.is_err(), "cut at {} accepted", cut);
        } else {
            prop_assert!(result.is_ok());
        }
        check_error_position(&text[..cut], result);
    }

    #[test]
    fn flipped_bytes_never_panic(
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        model in 0usize..2,
    ) {
        let mut text = if model == 0 {
            sample().into_bytes()
        } else {
            std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mcc2023/SwimmingPool-PT-01.pnml")).unwrap()
        };
        for (at, byte) in flips {
            let i = at.index(text.len());
            text[i] = byte;
        }
        let result = read(text.as_slice(), "flipped.pnml");
        check_error_position(&text, result);
    }
}
