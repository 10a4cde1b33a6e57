//! The layer rule of `src/lib.rs`: each top module imports only the modules below it. Read
//! from the source text (comments and doc examples left out), so that a new import that
//! breaks the rule fails here rather than in review.

use std::fs;
use std::path::{Path, PathBuf};

/// The library's modules, lowest first, as `src/lib.rs` lists them.
const LAYERS: &[&str] = &[
    "source",
    "system",
    "engine",
    "unfold",
    "parse",
    "explicit",
    "stubborn",
    "walk",
    "qpor",
    "prefix_sat",
    "structural",
    "check",
    "export",
    "hardness",
    "mcc",
];

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

/// The top modules that the code (not the comments) of `file` names as `crate::X`.
fn crate_modules_used(file: &Path) -> Vec<String> {
    let text = fs::read_to_string(file).unwrap();
    let mut used = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !used.contains(&name) {
                used.push(name);
            }
        }
    }
    used
}

#[test]
fn every_module_imports_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut broken = Vec::new();
    for (level, layer) in LAYERS.iter().enumerate() {
        let mut files = Vec::new();
        let dir = src.join(layer);
        if dir.is_dir() {
            rust_files(&dir, &mut files);
        } else {
            files.push(src.join(format!("{layer}.rs")));
        }
        for file in files {
            for used in crate_modules_used(&file) {
                let Some(at) = LAYERS.iter().position(|l| *l == used) else {
                    continue;
                };
                if at > level {
                    broken.push(format!("{} uses crate::{used}", file.display()));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "imports against the layer rule:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_rule_names_every_module_of_the_library() {
    let lib = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| {
            l.strip_prefix("pub mod ")
                .or_else(|| l.strip_prefix("mod "))?
                .strip_suffix(';')
        })
        .collect();
    let mut expected: Vec<&str> = LAYERS.to_vec();
    expected.sort_unstable();
    let mut declared_sorted = declared.clone();
    declared_sorted.sort_unstable();
    assert_eq!(
        declared_sorted, expected,
        "src/lib.rs declares other modules than the layers"
    );
}
