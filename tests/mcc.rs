//! `qpor mcc` on directories laid out as the Model Checking Contest lays them out: the exact
//! answer lines, with and without a property file, coloured nets, unknown examinations,
//! OneSafe, and the BK_ environment variables.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

/// A contest directory holding a copy of `model` as `model.pnml`.
fn contest_dir(model: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(model, dir.path().join("model.pnml")).unwrap();
    dir
}

fn mcc(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_qpor"));
    cmd.arg("mcc").arg(dir).arg("-q").args(args);
    cmd.env_remove("BK_EXAMINATION").env_remove("BK_TIME_CONFINEMENT");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the qpor binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The answer line and the techniques of a `FORMULA` answer.
fn formula(o: &Output) -> (String, Vec<String>) {
    let out = stdout(o);
    let line = out.trim_end().to_string();
    assert_eq!(out.lines().count(), 1, "one line: {out}{}", stderr(o));
    let techniques = line
        .split_once(" TECHNIQUES ")
        .map(|(_, t)| t.split(' ').map(String::from).collect())
        .unwrap_or_default();
    (line, techniques)
}

/// [`formula`] of a run that must exit 0 with an answer line starting with `start`.
fn answer(o: &Output, start: &str) -> (String, Vec<String>) {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    let (line, techniques) = formula(o);
    assert!(line.starts_with(start), "{line}");
    (line, techniques)
}

const KNOWN: [&str; 11] = [
    "STATE_EQUATION",
    "SAT_SMT",
    "STRUCTURAL_REDUCTION",
    "NET_UNFOLDING",
    "PARTIAL_ORDER_REDUCTION",
    "EXPLICIT",
    "STUBBORN_SETS",
    "RANDOM_WALK",
    "COLLATERAL_PROCESSING",
    "USE_NUPN",
    "TOPOLOGICAL",
];

#[test]
fn a_reachable_deadlock_is_true_with_the_id_of_the_property_file() {
    let dir = contest_dir("models/nets/philosophers-5.pnml");
    fs::write(
        dir.path().join("ReachabilityDeadlock.xml"),
        "<?xml version=\"1.0\"?>\n<property-set xmlns=\"http://mcc.lip6.fr/\">\n  <property>\n    \
         <id>Philosophers-PT-000005-ReachabilityDeadlock-0</id>\n    <description>deadlock</description>\n  \
         </property>\n</property-set>\n",
    )
    .unwrap();
    let o = mcc(dir.path(), &[], &[("BK_EXAMINATION", "ReachabilityDeadlock")]);
    let (line, techniques) = answer(
        &o,
        "FORMULA Philosophers-PT-000005-ReachabilityDeadlock-0 TRUE TECHNIQUES ",
    );
    assert!(!techniques.is_empty());
    assert!(techniques.iter().all(|t| KNOWN.contains(&t.as_str())), "{line}");
}

#[test]
fn without_a_property_file_the_id_is_the_examination() {
    let dir = contest_dir("models/nets/token-ring-5.pnml");
    let o = mcc(dir.path(), &["--examination", "ReachabilityDeadlock"], &[]);
    let (line, _) = answer(&o, "FORMULA ReachabilityDeadlock FALSE TECHNIQUES ");
    // The token ring shrinks to one transition before any engine runs.
    assert!(line.contains(" STRUCTURAL_REDUCTION"), "{line}");
}

#[test]
fn the_option_overrides_the_environment() {
    let dir = contest_dir("models/nets/philosophers-5.pnml");
    let o = mcc(
        dir.path(),
        &["--examination", "ReachabilityDeadlock", "--time-limit", "30"],
        &[
            ("BK_EXAMINATION", "OneSafe"),
            ("BK_TIME_CONFINEMENT", "not a number"),
        ],
    );
    assert!(
        formula(&o).0.starts_with("FORMULA ReachabilityDeadlock TRUE"),
        "{}",
        stdout(&o)
    );
    let o = mcc(
        dir.path(),
        &[],
        &[
            ("BK_EXAMINATION", "ReachabilityDeadlock"),
            ("BK_TIME_CONFINEMENT", "x"),
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("BK_TIME_CONFINEMENT=x"), "{}", stderr(&o));
    let o = mcc(dir.path(), &[], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("BK_EXAMINATION"), "{}", stderr(&o));
}

#[test]
fn coloured_nets_and_other_examinations_do_not_compete() {
    let dir = contest_dir("models/nets/philosophers-5.pnml");
    let o = mcc(dir.path(), &[], &[("BK_EXAMINATION", "LTLFireability")]);
    assert_eq!(stdout(&o), "DO_NOT_COMPETE\n");
    assert_eq!(o.status.code(), Some(0));
    // The contest's flag file …
    fs::write(dir.path().join("iscolored"), "TRUE\n").unwrap();
    let o = mcc(dir.path(), &[], &[("BK_EXAMINATION", "ReachabilityDeadlock")]);
    assert_eq!(stdout(&o), "DO_NOT_COMPETE\n");
    // … or, without it, the net itself.
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("model.pnml"),
        "<?xml version=\"1.0\"?>\n<pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\">\n\
         <net id=\"c\" type=\"http://www.pnml.org/version-2009/grammar/symmetricnet\"><page id=\"g\"/></net>\n</pnml>\n",
    )
    .unwrap();
    let o = mcc(dir.path(), &[], &[("BK_EXAMINATION", "ReachabilityDeadlock")]);
    assert_eq!(stdout(&o), "DO_NOT_COMPETE\n", "{}", stderr(&o));
    // … or an inhibitor arc: no P/T net either.
    let net = fs::read_to_string("models/nets/token-ring-5.pnml").unwrap();
    let inhibited = net.replacen("<arc ", "<arc type=\"inhibitor\" ", 1);
    fs::write(dir.path().join("model.pnml"), inhibited).unwrap();
    let o = mcc(dir.path(), &[], &[("BK_EXAMINATION", "ReachabilityDeadlock")]);
    assert_eq!(stdout(&o), "DO_NOT_COMPETE\n", "{}", stderr(&o));
}

#[test]
fn a_property_file_that_is_not_xml_is_named_and_the_examination_stands_for_its_id() {
    let dir = contest_dir("models/nets/token-ring-5.pnml");
    fs::write(dir.path().join("ReachabilityDeadlock.xml"), "not xml <<\n").unwrap();
    let o = mcc(dir.path(), &["--examination", "ReachabilityDeadlock"], &[]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(out.starts_with("FORMULA ReachabilityDeadlock FALSE"), "{out}");
    assert!(
        err.contains("ReachabilityDeadlock.xml: no property <id> could be read"),
        "{err}"
    );
}

#[test]
fn an_unreadable_model_cannot_be_computed() {
    let dir = tempfile::tempdir().unwrap();
    let o = mcc(dir.path(), &["--examination", "ReachabilityDeadlock"], &[]);
    assert_eq!(stdout(&o), "FORMULA ReachabilityDeadlock CANNOT_COMPUTE\n");
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("model.pnml: cannot read"), "{}", stderr(&o));
}

#[test]
fn one_safe_from_nupn_invariants_or_exploration() {
    let one_safe = |model: &str| mcc(contest_dir(model).path(), &["--examination", "OneSafe"], &[]);
    for (model, answer) in [
        // Declared safe by its NUPN block.
        (
            "models/mcc2023/Philosophers-PT-000005.pnml",
            "FORMULA OneSafe TRUE TECHNIQUES USE_NUPN\n",
        ),
        // Safe by place invariants (every philosopher and fork is a 1-token cycle).
        (
            "models/nets/philosophers-5.pnml",
            "FORMULA OneSafe TRUE TECHNIQUES TOPOLOGICAL\n",
        ),
    ] {
        let o = one_safe(model);
        assert_eq!(stdout(&o), answer, "{}", stderr(&o));
    }
    // Not safe: the producer puts two items at a time into the buffer.
    let o = one_safe("models/nets/producer-consumer-4.pnml");
    let (line, techniques) = formula(&o);
    assert!(line.starts_with("FORMULA OneSafe FALSE TECHNIQUES "), "{line}");
    assert!(
        techniques.iter().any(|t| t == "EXPLICIT" || t == "RANDOM_WALK"),
        "{line}"
    );
}

/// The reachability examinations: one exact line per property of the file, in its order,
/// each with the contest's published answer.
#[test]
fn reachability_examinations_answer_every_property_with_one_line() {
    let dir = contest_dir("models/mcc2023/Philosophers-PT-000005.pnml");
    let answers = fs::read_to_string("models/mcc2023/properties/answers.tsv").unwrap();
    for exam in ["ReachabilityCardinality", "ReachabilityFireability"] {
        fs::copy(
            format!("models/mcc2023/properties/Philosophers-PT-000005/{exam}.xml"),
            dir.path().join(format!("{exam}.xml")),
        )
        .unwrap();
        let o = mcc(dir.path(), &["--examination", exam, "--time-limit", "60"], &[]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let expected: Vec<String> = answers
            .lines()
            .filter(|l| l.split('\t').nth(1) == Some(exam))
            .map(|l| {
                let cols: Vec<&str> = l.split('\t').collect();
                format!("FORMULA {} {} TECHNIQUES", cols[2], cols[3])
            })
            .collect();
        assert_eq!(expected.len(), 16);
        let out = stdout(&o);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 16, "{out}");
        for (line, expected) in lines.iter().zip(&expected) {
            let (answer, techniques) = line.split_at(expected.len());
            assert_eq!(answer, expected, "{exam}");
            let techniques: Vec<&str> = techniques.split_whitespace().collect();
            assert!(
                !techniques.is_empty() && techniques.iter().all(|t| KNOWN.contains(t)),
                "{line}"
            );
        }
    }
    // Without its property file the examination cannot be computed.
    let empty = contest_dir("models/nets/philosophers-5.pnml");
    let o = mcc(empty.path(), &["--examination", "ReachabilityFireability"], &[]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stdout(&o).contains("CANNOT_COMPUTE"), "{}", stdout(&o));
}
