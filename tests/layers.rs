//! The architecture of `src/lib.rs`, read from the source text (comments and unit tests
//! left out), so that an import that breaks it fails here rather than in review:
//! - each top module imports only the levels below it;
//! - the engines are peers: none imports another;
//! - no folder takes part in an import loop with its siblings (e.g. the program unfolding
//!   and the prefix builder, which once needed each other).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The library's modules, lowest level first, as `src/lib.rs` lists them; the modules of
/// one level are peers, which may not import each other.
const LEVELS: &[&[&str]] = &[
    &["source"],
    &["system"],
    &["engine"],
    &["space"],
    &["unfold"],
    &["parse"],
    &["explicit", "stubborn", "walk", "qpor", "prefix_sat", "structural"],
    &["check"],
    &["export"],
    &["hardness"],
    &["mcc"],
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a source file: comments dropped, and the unit tests at its end (whose
/// `super` is the file itself, and which may reach anywhere) cut off.
fn code_of(text: &str) -> String {
    let mut code = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("mod tests") {
            break;
        }
        code.push_str(line.split("//").next().unwrap_or(""));
        code.push('\n');
    }
    code
}

/// The module path of a file below `src/`: `unfold/program/events.rs` is
/// `[unfold, program, events]`, a folder's `mod.rs` is the folder's path.
fn module_of(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src()).unwrap();
    let mut path: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    let last = path.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        path.push(stem.to_string());
    }
    path
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The absolute module paths that `code`, the code of the module at `module`, names by
/// `crate::…` or `super::…` (braced lists give one path per item, by its first name).
fn named_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !is_ident(bytes[i - 1]);
        let rest: String = bytes[i..bytes.len().min(i + 7)].iter().collect();
        let mut base: Option<Vec<String>> = None;
        let mut j = i;
        if starts_word && rest.starts_with("crate::") {
            base = Some(Vec::new());
            j += "crate::".len();
        } else if starts_word && rest.starts_with("super::") {
            let mut up = 0;
            while bytes[j..].iter().collect::<String>().starts_with("super::") {
                up += 1;
                j += "super::".len();
            }
            base = Some(module[..module.len().saturating_sub(up)].to_vec());
        }
        let Some(mut path) = base else {
            i += 1;
            continue;
        };
        loop {
            let name: String = bytes[j..].iter().take_while(|c| is_ident(**c)).collect();
            if !name.is_empty() {
                j += name.len();
                path.push(name);
                if bytes[j..].iter().collect::<String>().starts_with("::") {
                    j += 2;
                    continue;
                }
                out.push(path);
            } else if bytes.get(j) == Some(&'{') {
                let end = bytes[j..]
                    .iter()
                    .position(|c| *c == '}')
                    .map_or(bytes.len(), |e| j + e);
                let list: String = bytes[j + 1..end].iter().collect();
                for item in list.split(',') {
                    let first: String = item.trim().chars().take_while(|c| is_ident(*c)).collect();
                    if !first.is_empty() && first != "self" {
                        let mut p = path.clone();
                        p.push(first);
                        out.push(p);
                    }
                }
                j = end;
            } else {
                out.push(path);
            }
            break;
        }
        i = j.max(i + 1);
    }
    out
}

/// A source file: where it is, its module path, and the module paths its code names.
type SourceFile = (PathBuf, Vec<String>, Vec<Vec<String>>);

/// Every library file with the paths its code names.
fn library_files() -> Vec<SourceFile> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let module = module_of(&f);
            let paths = named_paths(&code_of(&fs::read_to_string(&f).unwrap()), &module);
            (f, module, paths)
        })
        .collect()
}

fn level_of(module: &str) -> Option<usize> {
    LEVELS.iter().position(|l| l.contains(&module))
}

#[test]
fn every_module_imports_only_the_levels_below_it_and_engines_are_peers() {
    let mut broken = Vec::new();
    for (file, module, paths) in library_files() {
        let Some(top) = module.first() else { continue };
        if top == "cli" {
            continue; // the binary's, which uses the public face only
        }
        let Some(level) = level_of(top) else { continue };
        for used in paths.iter().filter_map(|p| p.first()) {
            let Some(at) = level_of(used) else { continue };
            if at > level || (at == level && used != top) {
                broken.push(format!("{} uses crate::{used}", file.display()));
            }
        }
    }
    broken.dedup();
    assert!(
        broken.is_empty(),
        "imports against the layer rule:\n{}",
        broken.join("\n")
    );
}

/// The import graph between the children (files and folders) of the module at `dir`:
/// child → the siblings its code names.
fn sibling_edges(dir: &[String], files: &[SourceFile]) -> BTreeMap<String, BTreeSet<String>> {
    let children: BTreeSet<&String> = files
        .iter()
        .filter(|(_, m, _)| m.len() > dir.len() && m.starts_with(dir))
        .map(|(_, m, _)| &m[dir.len()])
        .collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (_, module, paths) in files {
        if module.len() <= dir.len() || !module.starts_with(dir) {
            continue;
        }
        let from = &module[dir.len()];
        for p in paths {
            if p.len() > dir.len() && p.starts_with(dir) {
                let to = &p[dir.len()];
                if to != from && children.contains(to) {
                    edges.entry(from.clone()).or_default().insert(to.clone());
                }
            }
        }
    }
    edges
}

/// The nodes of `edges` that reach `from` and are reached from it.
fn cycle_through(from: &str, edges: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<String> {
    let reach = |start: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![start.to_string()];
        while let Some(n) = todo.pop() {
            for m in edges.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    todo.push(m.clone());
                }
            }
        }
        seen
    };
    let forward = reach(from);
    forward.into_iter().filter(|n| reach(n).contains(from)).collect()
}

#[test]
fn no_folder_is_in_an_import_loop_with_its_siblings() {
    let files = library_files();
    let mut dirs: BTreeSet<Vec<String>> = BTreeSet::new();
    for (file, module, _) in &files {
        if file.file_name().is_some_and(|n| n == "mod.rs") {
            dirs.insert(module[..module.len() - 1].to_vec());
        }
    }
    let mut loops = Vec::new();
    for dir in &dirs {
        let edges = sibling_edges(dir, &files);
        let folder_base = dirs
            .iter()
            .filter(|d| d.len() == dir.len() + 1 && d.starts_with(dir));
        for folder in folder_base {
            let name = folder.last().unwrap();
            let cycle = cycle_through(name, &edges);
            if !cycle.is_empty() {
                loops.push(format!("src/{}: {name} ↔ {:?}", dir.join("/"), cycle));
            }
        }
    }
    assert!(loops.is_empty(), "folders in import loops:\n{}", loops.join("\n"));
}

#[test]
fn paths_are_read_as_rust_resolves_them() {
    let module: Vec<String> = ["unfold", "prefix", "builder", "order"]
        .map(String::from)
        .to_vec();
    let code =
        "use super::super::keys::Key;\nuse crate::unfold::{cutoff::X, general};\nlet a = supersede::x;";
    let paths = named_paths(code, &module);
    let as_text: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        as_text,
        ["unfold::prefix::keys::Key", "unfold::cutoff", "unfold::general"]
    );
    let edges = {
        let mut e: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        e.entry("a".into()).or_default().insert("b".into());
        e.entry("b".into()).or_default().insert("a".into());
        e.entry("b".into()).or_default().insert("c".into());
        e
    };
    assert_eq!(
        cycle_through("a", &edges),
        BTreeSet::from(["a".to_string(), "b".to_string()])
    );
    assert!(cycle_through("c", &edges).is_empty());
}

#[test]
fn the_rule_names_every_module_of_the_library() {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let mut declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| {
            l.strip_prefix("pub mod ")
                .or_else(|| l.strip_prefix("mod "))?
                .strip_suffix(';')
        })
        .collect();
    let mut expected: Vec<&str> = LEVELS.iter().flat_map(|l| l.iter().copied()).collect();
    expected.sort_unstable();
    declared.sort_unstable();
    assert_eq!(
        declared, expected,
        "src/lib.rs declares other modules than the levels"
    );
}
