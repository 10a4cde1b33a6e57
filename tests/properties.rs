//! Reachability properties (`qpor check --query`, `--properties`): the explicit engine's
//! answers against an independent search of the markings on random nets and formulas,
//! against the contest's published answers on a shipped net, and the command line's
//! output, exit statuses and errors.

mod net_support;

use net_support::random_net;
use proptest::prelude::*;
use qpor::engines::prefix_sat::PrefixSatCounters;
use qpor::engines::stubborn::SearchOrder;
use qpor::net::{Net, PlaceId, TransId};
use qpor::properties::{parse_query, read_properties, Formula, Property, Quantifier, Sum};
use qpor::unfolding::Backend;
use qpor::{check, CheckOptions, EngineChoice, Limits, Model, Question, Silent, UnfoldingChoice, Verdict};
use std::collections::{HashSet, VecDeque};
use std::process::Command;

/// Every reachable marking of `net`, by a plain breadth-first search of its own (at most
/// `max` of them; `None` beyond).
fn markings(net: &Net, max: usize) -> Option<Vec<Vec<u32>>> {
    let m0 = net.initial_marking();
    let mut seen = HashSet::from([m0.clone()]);
    let mut order = vec![m0.clone()];
    let mut todo = VecDeque::from([m0]);
    while let Some(m) = todo.pop_front() {
        for t in 0..net.transitions.len() {
            let mut next = m.clone();
            if net.fire(&mut next, TransId(t as u32)) && seen.insert(next.clone()) {
                if seen.len() > max {
                    return None;
                }
                order.push(next.clone());
                todo.push_back(next);
            }
        }
    }
    Some(order)
}

/// A random formula over `places` places and `transitions` transitions, `depth` deep.
fn formula(places: usize, transitions: usize, depth: u32) -> impl Strategy<Value = Formula> {
    let sum = (prop::collection::vec(0..places as u32, 0..3), 0u64..4).prop_map(|(ps, c)| Sum {
        places: ps.into_iter().map(PlaceId).collect(),
        constant: c,
    });
    let leaf = prop_oneof![
        (sum.clone(), sum).prop_map(|(a, b)| Formula::Le(a, b)),
        prop::collection::vec(0..transitions as u32, 0..3)
            .prop_map(|ts| Formula::Fireable(ts.into_iter().map(TransId).collect())),
        any::<bool>().prop_map(Formula::Const),
    ];
    leaf.prop_recursive(depth, 16, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|f| Formula::Not(Box::new(f))),
            prop::collection::vec(inner.clone(), 0..3).prop_map(Formula::And),
            prop::collection::vec(inner, 0..3).prop_map(Formula::Or),
        ]
    })
}

fn answers_of(engine: EngineChoice, net: &Net, properties: &[Property], millis: u64) -> Vec<Option<bool>> {
    answers_with(engine, None, net, properties, millis)
}

/// The answers of prefix-sat, whether its prefix was complete and how many targets it
/// found too large to encode: the prefix is capped at
/// `max_events` because a prefix of a net that is not safe, whose tokens repeat labels, is
/// finite but may be exponentially larger than the net's markings (McMillan's size order
/// alone decides its cutoffs), and this test must end whatever nets proptest draws.
fn prefix_sat_answers(
    backend: Backend,
    net: &Net,
    properties: &[Property],
    max_events: u64,
) -> (Vec<Option<bool>>, bool, u64) {
    let opts = CheckOptions {
        engine: EngineChoice::PrefixSat {
            unfolding: UnfoldingChoice {
                backend,
                ..UnfoldingChoice::default()
            },
        },
        reduce: None,
        question: Question::Reachability(properties.to_vec().into()),
        limits: Limits {
            max_events: Some(max_events),
            ..Limits::default()
        },
        ..CheckOptions::default()
    };
    let r =
        check(&Model::Net(net.clone()), &opts, &mut Silent).expect("the check runs and its witnesses replay");
    let too_large = r
        .stats
        .counters
        .typed::<PrefixSatCounters>()
        .expect("prefix-sat's counters")
        .targets_too_large;
    (
        r.properties.iter().map(|p| p.value).collect(),
        r.stopped.is_none(),
        too_large,
    )
}

/// The answers of `engine`, on the net reduced first when `reduce` says so.
fn answers_with(
    engine: EngineChoice,
    reduce: Option<bool>,
    net: &Net,
    properties: &[Property],
    millis: u64,
) -> Vec<Option<bool>> {
    let opts = CheckOptions {
        engine,
        reduce,
        question: Question::Reachability(properties.to_vec().into()),
        limits: Limits {
            time_limit: (millis > 0).then(|| std::time::Duration::from_millis(millis)),
            ..Limits::default()
        },
        ..CheckOptions::default()
    };
    let r =
        check(&Model::Net(net.clone()), &opts, &mut Silent).expect("the check runs and its witnesses replay");
    r.properties.iter().map(|p| p.value).collect()
}

fn explicit_answers(net: &Net, properties: &[Property]) -> Vec<Option<bool>> {
    answers_of(EngineChoice::Explicit, net, properties, 0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The explicit engine answers as the markings say: `EF φ` when one satisfies φ, `AG φ`
    /// when all do; so do the portfolio and the stubborn search, and the walk and the state
    /// equation never contradict it; every witness is replayed by the check (or the check
    /// fails). The nets have weights and read arcs.
    #[test]
    fn every_engine_answers_as_the_markings_say(
        (spec, reads, formulas) in random_net(2..=5, 1..=6, false, 2, 2).prop_flat_map(|spec| {
            let (np, nt) = (spec.marking.len(), spec.transitions.len());
            (
                Just(spec),
                prop::collection::vec((0..nt as u32, 0..np as u32), 0..3),
                prop::collection::vec((formula(np, nt, 3), any::<bool>()), 1..5),
            )
        })
    ) {
        let mut net = spec.build();
        for (t, p) in reads {
            net.add_read(TransId(t), PlaceId(p));
        }
        let Some(all) = markings(&net, 3_000) else { return Ok(()); };
        let properties: Vec<Property> = formulas
            .into_iter()
            .enumerate()
            .map(|(i, (formula, ef))| Property {
                id: format!("p{i}"),
                quantifier: if ef { Quantifier::Ef } else { Quantifier::Ag },
                formula,
            })
            .collect();
        let expected: Vec<Option<bool>> = properties
            .iter()
            .map(|p| {
                let holds = |m: &Vec<u32>| p.formula.holds(&net, m);
                Some(match p.quantifier {
                    Quantifier::Ef => all.iter().any(holds),
                    Quantifier::Ag => all.iter().all(holds),
                })
            })
            .collect();
        prop_assert_eq!(explicit_answers(&net, &properties), expected.clone());
        // The walk decides only what a marking it meets decides, never wrongly; the
        // portfolio (walk and explicit search, answers merged) decides everything.
        let walked = answers_of(EngineChoice::Walk { seed: 7 }, &net, &properties, 30);
        for ((w, e), p) in walked.iter().zip(&expected).zip(&properties) {
            prop_assert!(w.is_none() || w == e, "{}: walk {:?}, truth {:?}", p.id, w, e);
            if w.is_some() {
                prop_assert_eq!(*w, Some(p.value_when_reached(true)), "only witnesses decide");
            }
        }
        prop_assert_eq!(answers_of(EngineChoice::default(), &net, &properties, 0), expected.clone());
        // The stubborn search, in every order, explores a reduced graph completely.
        for order in [SearchOrder::Depth, SearchOrder::Breadth, SearchOrder::Best] {
            let answers = answers_of(EngineChoice::Stubborn { order }, &net, &properties, 0);
            prop_assert_eq!(answers, expected.clone(), "stubborn, {:?}", order);
        }
        // The structural reductions that keep what the properties read keep their
        // values: the complete searches on the reduced net answer the same, and their
        // witnesses, lifted, replay on the original.
        prop_assert_eq!(
            answers_with(EngineChoice::Explicit, Some(true), &net, &properties, 0),
            expected.clone(),
            "explicit on the reduced net"
        );
        let stubborn = EngineChoice::Stubborn { order: SearchOrder::Depth };
        prop_assert_eq!(
            answers_with(stubborn, Some(true), &net, &properties, 0),
            expected.clone(),
            "stubborn on the reduced net"
        );
        // The complete prefix and the SAT solver, with either unfolding, decide everything;
        // a prefix cut at its event cap decides only what a replayed witness shows.
        for backend in [Backend::General, Backend::Program] {
            let (answers, complete, too_large) = prefix_sat_answers(backend, &net, &properties, 20_000);
            for ((a, e), p) in answers.iter().zip(&expected).zip(&properties) {
                prop_assert!(a.is_none() || a == e, "{}: prefix-sat {:?}, truth {:?}", p.id, a, e);
            }
            if complete {
                let unknown = answers.iter().filter(|a| a.is_none()).count() as u64;
                prop_assert_eq!(unknown, too_large, "prefix-sat, {:?}: unknown only when too large", backend);
            }
        }
        // The state equation decides what it proves or fires, never wrongly.
        if cfg!(feature = "lp") {
            let solved = answers_of(EngineChoice::Lp, &net, &properties, 0);
            for ((a, e), p) in solved.iter().zip(&expected).zip(&properties) {
                prop_assert!(a.is_none() || a == e, "{}: lp {:?}, truth {:?}", p.id, a, e);
            }
        }
    }
}

proptest! {
    /// A formula's distance to its aim is 0 exactly where it already has that value, on
    /// every reachable marking of random nets: a search guided by it stops where the
    /// formula says, whatever else the guide gets wrong.
    #[test]
    fn the_distance_is_zero_exactly_where_the_formula_has_its_aim(
        (spec, f) in random_net(2..=4, 1..=5, false, 2, 2).prop_flat_map(|spec| {
            let (np, nt) = (spec.marking.len(), spec.transitions.len());
            (Just(spec), formula(np, nt, 3))
        })
    ) {
        let net = spec.build();
        let Some(all) = markings(&net, 500) else { return Ok(()); };
        for m in &all {
            let holds = f.holds(&net, m);
            prop_assert_eq!(f.distance(&net, m, holds), 0);
            prop_assert!(f.distance(&net, m, !holds) > 0);
        }
    }
}

/// The shipped net's two contest examinations, answered as the contest published.
#[test]
fn the_contest_properties_of_a_shipped_net_get_the_published_answers() {
    let net_file = "models/mcc2023/Philosophers-PT-000005.pnml";
    let Model::Net(net) = qpor::load(net_file.as_ref(), &Default::default()).unwrap().model else {
        panic!("a net")
    };
    let answers = std::fs::read_to_string("models/mcc2023/properties/answers.tsv").unwrap();
    let mut checked = 0;
    for exam in ["ReachabilityCardinality", "ReachabilityFireability"] {
        let file = format!("models/mcc2023/properties/Philosophers-PT-000005/{exam}.xml");
        let properties = read_properties(&std::fs::read_to_string(&file).unwrap(), &file, &net).unwrap();
        assert_eq!(properties.len(), 16, "{file}");
        for (p, value) in properties.iter().zip(explicit_answers(&net, &properties)) {
            let published = answers
                .lines()
                .find_map(|l| {
                    l.split('\t')
                        .nth(2)
                        .filter(|id| *id == p.id)
                        .and(l.split('\t').nth(3))
                })
                .unwrap_or_else(|| panic!("{}: no published answer", p.id));
            assert_eq!(value, Some(published == "TRUE"), "{}", p.id);
            checked += 1;
        }
    }
    assert_eq!(checked, 32);
}

fn qpor(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_qpor"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn queries_answer_on_the_command_line_with_witnesses_and_exit_statuses() {
    let net = "models/nets/philosophers-5.pnml";
    let o = qpor(&[
        "check",
        net,
        "--query",
        "EF FIREABLE(t1)",
        "--query",
        "AG p1 <= 1",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "answered");
    assert_eq!(v["properties"][0]["id"], "query-1");
    assert_eq!(v["properties"].as_array().unwrap().len(), 2);
    // A text report names each property with its value.
    let o = qpor(&["check", net, "--query", "EF p1 + p2 >= 9"]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("1 of 1 property answered") && text.contains("query: FALSE"),
        "{text}"
    );
    // An unknown place is an error at its column; programs are refused.
    let o = qpor(&["check", net, "--query", "EF nowhere >= 1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--query:1:4: no place `nowhere`"));
    let o = qpor(&["check", "models/proc/pi.proc", "--query", "EF TRUE"]);
    assert_eq!(o.status.code(), Some(2));
    // An engine that does not answer properties says so; so do options for deadlocks.
    let o = qpor(&["check", net, "--engine", "qpor", "--query", "EF TRUE"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("does not answer reachability properties"));
    let o = qpor(&["check", net, "--all", "--query", "EF TRUE"]);
    assert_eq!(o.status.code(), Some(2));
    // The stubborn search, the prefix and the state equation answer, each with its own
    // witness.
    for engine in ["stubborn", "prefix-sat", "lp"]
        .into_iter()
        .filter(|e| *e != "lp" || cfg!(feature = "lp"))
    {
        let o = qpor(&[
            "check",
            net,
            "--engine",
            engine,
            "--query",
            "EF FIREABLE(t1)",
            "--json",
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{engine}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["properties"][0]["value"], true, "{engine}");
        assert_eq!(v["properties"][0]["decided_by"], engine);
    }
}

#[test]
fn a_search_out_of_states_leaves_the_undecided_properties_unknown() {
    let Model::Net(net) = qpor::load("models/mcc2023/Dekker-PT-010.pnml".as_ref(), &Default::default())
        .unwrap()
        .model
    else {
        panic!("a net")
    };
    let first = &net.places[0].id;
    let properties = vec![
        parse_query("EF TRUE", "--query", &net, "now").unwrap(),
        parse_query(&format!("AG {first} <= 1000"), "--query", &net, "never").unwrap(),
    ];
    let opts = CheckOptions {
        engine: EngineChoice::Explicit,
        question: Question::Reachability(properties.into()),
        limits: Limits {
            max_states: Some(50),
            ..Limits::default()
        },
        ..CheckOptions::default()
    };
    let r = check(&Model::Net(net), &opts, &mut Silent).unwrap();
    assert_eq!(r.verdict, Verdict::Inconclusive);
    assert_eq!(r.properties[0].value, Some(true));
    assert_eq!(r.properties[1].value, None);
    assert!(r.stopped.is_some());
}

#[test]
fn two_properties_under_one_id_are_refused() {
    let (mut net, [p]) = Net::with_places([("p", 1)]);
    net.add_transition_between("t", &[p], &[]);
    let properties = vec![
        parse_query("EF p >= 1", "--query", &net, "same").unwrap(),
        parse_query("AG p <= 1", "--query", &net, "same").unwrap(),
    ];
    let opts = CheckOptions {
        question: Question::Reachability(properties.into()),
        ..CheckOptions::default()
    };
    let e = check(&Model::Net(net), &opts, &mut Silent).unwrap_err();
    assert!(e.to_string().contains("property id `same` appears twice"), "{e}");
}
