//! Every link in the repository's text points at something in the repository, the way
//! `tests/layers.rs` holds imports to the layer rule. A person who clones qpor must be able
//! to follow every reference a comment or a page makes.
//!
//! The checked files are the tracked text files (`git ls-files`, or a walk of the tree
//! without `target/` and `.git/` when git is missing): Markdown, Rust, shell, Python,
//! grammars, manifests, models in the process language, CNF and PES files, and `.ci/run`.
//! Each is held to four rules, reported as `file:line: what`:
//!
//! - **(a) links**: a Markdown link `[text](target)` (or image) with a relative target
//!   names a file or folder that exists, resolved from the linking file's folder; links to
//!   `http(s)` and `mailto` are not followed;
//! - **(b) anchors**: a link to a heading of a Markdown file (the file's name, `#`, the
//!   anchor) — in a Markdown link, or written in any text with the file's path from the
//!   root — names a heading of that file, under GitHub's rule for anchors (lowercase,
//!   spaces to `-`, punctuation dropped, `-1`, `-2` … for repeats);
//! - **(c) outside paths**: no text names the design notes kept outside the repository
//!   (the names are listed in [`OUTSIDE`]), nor the notes on the paper under another path
//!   than the one in `docs/` (pages in `docs/` may name their sibling without the folder);
//! - **(d) paths**: a path written from one of [`CHECKED_ROOTS`] and ending in one of
//!   [`CHECKED_EXTENSIONS`] (trailing punctuation aside) exists, relative to the root of
//!   the repository.
//!
//! In Rust files, rules (b) and (d) read comments only (test code may name files that do
//! not exist on purpose); rules (a) and (b) read Markdown outside code spans and fences.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::process::Command;

/// Names of files that live outside the repository (kept apart so that this file does not
/// name them itself).
const OUTSIDE: &[&str] = &[
    concat!("..", "/shared"),
    concat!("shared", "/research"),
    concat!("DESIGN", ".md"),
    concat!("cunf", ".md"),
    concat!("dpu", ".md"),
    concat!("peers", ".md"),
];

/// The notes on the paper, whose only place is `docs/`.
const PAPER: &str = concat!("paper", ".md");

/// The folders whose paths rule (d) checks.
const CHECKED_ROOTS: &[&str] = &["docs", "src", "tests", "benches", "models", "grammars"];

/// The endings of the paths rule (d) checks.
const CHECKED_EXTENSIONS: &[&str] = &[
    ".md", ".rs", ".pest", ".sh", ".py", ".pnml", ".ll_net", ".proc", ".tsv", ".cnf",
];

/// The endings of the files whose text is checked.
const TEXT_EXTENSIONS: &[&str] = &[
    ".md", ".rs", ".sh", ".py", ".pest", ".toml", ".proc", ".cnf", ".pes",
];

/// The repository as the checker sees it: every path that exists (files and the folders
/// above them) and the text of the files to check.
struct Repo {
    paths: HashSet<String>,
    texts: Vec<(String, String)>,
}

impl Repo {
    /// A repository from (path, text) pairs, every file being both present and checked.
    fn from_texts(files: &[(&str, &str)]) -> Repo {
        let names: Vec<String> = files.iter().map(|(p, _)| p.to_string()).collect();
        Repo {
            paths: with_folders(&names),
            texts: files
                .iter()
                .map(|(p, t)| (p.to_string(), t.to_string()))
                .collect(),
        }
    }

    /// The repository this test runs in.
    fn on_disk(root: &Path) -> Repo {
        let names: Vec<String> = tracked_files(root)
            .into_iter()
            .filter(|name| root.join(name).is_file())
            .collect();
        let mut texts = Vec::new();
        for name in &names {
            if is_checked_text(name) {
                if let Ok(text) = std::fs::read_to_string(root.join(name)) {
                    texts.push((name.clone(), text));
                }
            }
        }
        Repo {
            paths: with_folders(&names),
            texts,
        }
    }

    fn text_of(&self, path: &str) -> Option<&str> {
        self.texts
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, t)| t.as_str())
    }
}

fn is_checked_text(name: &str) -> bool {
    name == ".ci/run" || TEXT_EXTENSIONS.iter().any(|e| name.ends_with(e))
}

/// The file names and every folder above them.
fn with_folders(names: &[String]) -> HashSet<String> {
    let mut paths = HashSet::new();
    for name in names {
        paths.insert(name.clone());
        let mut rest = name.as_str();
        while let Some(i) = rest.rfind('/') {
            rest = &rest[..i];
            paths.insert(rest.to_string());
        }
    }
    paths
}

/// Tracked and untracked-but-not-ignored files, relative to `root`; a walk of the tree when
/// git cannot answer.
fn tracked_files(root: &Path) -> Vec<String> {
    let git = Command::new("git")
        .args(["ls-files", "--cached", "--others", "--exclude-standard"])
        .current_dir(root)
        .output();
    if let Ok(out) = git {
        if out.status.success() {
            return String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_string)
                .collect();
        }
    }
    let mut names = Vec::new();
    walk(root, root, &mut names);
    names
}

fn walk(root: &Path, dir: &Path, names: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        if path.is_dir() {
            if name != "target" && name != ".git" {
                walk(root, &path, names);
            }
        } else if let Ok(rel) = path.strip_prefix(root) {
            names.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// `path` relative to the folder of `from`, with `.` and `..` resolved; `None` when it
/// climbs above the root.
fn resolve(from: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// GitHub's anchor for a heading's text.
fn slug(heading: &str) -> String {
    let mut out = String::new();
    for c in heading.trim().chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else if c == ' ' {
            out.push('-');
        }
    }
    out
}

/// The anchors of a Markdown text's ATX headings (outside code fences), repeats numbered.
fn anchors(markdown: &str) -> HashSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = HashSet::new();
    let mut in_fence = false;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || !line.starts_with('#') {
            continue;
        }
        let text = line.trim_start_matches('#');
        if !text.starts_with(' ') {
            continue;
        }
        let base = slug(text.trim().trim_end_matches('#'));
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

/// A line of Markdown with its code spans blanked out.
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else {
            out.push(if in_code { ' ' } else { c });
        }
    }
    out
}

/// The targets of the Markdown links on a line (code spans already removed).
fn link_targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        let inside = rest[..end].trim();
        let target = inside.split_whitespace().next().unwrap_or("");
        let target = target.trim_start_matches('<').trim_end_matches('>');
        if !target.is_empty() {
            out.push(target.to_string());
        }
    }
    out
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-')
}

fn is_anchor_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// The references to headings of Markdown files written in a text: (path, anchor).
fn md_anchor_refs(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find(".md#") {
        let at = from + i;
        let start = text[..at]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| is_path_char(c))
            .last()
            .map_or(at, |(j, _)| j);
        let after = at + ".md#".len();
        let anchor: String = text[after..].chars().take_while(|&c| is_anchor_char(c)).collect();
        if start < at {
            out.push((text[start..at + 3].to_string(), anchor));
        }
        from = after;
    }
    out
}

/// The paths rule (d) checks in a text: a checked folder, then path characters, ending in
/// a checked extension once trailing punctuation is stripped.
fn repository_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut k = 0;
    while k < chars.len() {
        let (i, c) = chars[k];
        let starts_word = k == 0 || !is_path_char(chars[k - 1].1);
        if starts_word && is_path_char(c) {
            let mut m = k;
            while m < chars.len() && is_path_char(chars[m].1) {
                m += 1;
            }
            let end = chars.get(m).map_or(text.len(), |&(j, _)| j);
            let token = text[i..end].trim_end_matches(['.', '/', '-']);
            let rooted = CHECKED_ROOTS
                .iter()
                .any(|r| token.strip_prefix(r).is_some_and(|t| t.starts_with('/')));
            if rooted && CHECKED_EXTENSIONS.iter().any(|e| token.ends_with(e)) {
                out.push(token.to_string());
            }
            k = m;
        } else {
            k += 1;
        }
    }
    out
}

/// What rules (b), (c) and (d) read of a line: the comment of a Rust line, else all of it.
fn prose<'l>(file: &str, line: &'l str) -> Option<&'l str> {
    if file.ends_with(".rs") {
        line.find("//").map(|i| &line[i..])
    } else {
        Some(line)
    }
}

/// Every broken reference of the repository, as `file:line: what`, sorted.
fn problems(repo: &Repo) -> Vec<String> {
    let mut found = BTreeSet::new();
    let mut anchor_cache: HashMap<String, HashSet<String>> = HashMap::new();
    let mut check_anchor =
        |found: &mut BTreeSet<(String, usize, String)>, file: &str, n: usize, target: &str, anchor: &str| {
            let Some(text) = repo.text_of(target) else {
                return;
            };
            let known = anchor_cache
                .entry(target.to_string())
                .or_insert_with(|| anchors(text));
            if !known.contains(anchor) {
                found.insert((file.to_string(), n, format!("no heading #{anchor} in {target}")));
            }
        };
    for (file, text) in &repo.texts {
        let is_markdown = file.ends_with(".md");
        let in_docs = file.starts_with("docs/") && !file["docs/".len()..].contains('/');
        let mut in_fence = false;
        for (k, line) in text.lines().enumerate() {
            let n = k + 1;
            // (c): anywhere in the text.
            for name in OUTSIDE {
                if line.contains(name) {
                    found.insert((file.clone(), n, format!("names {name}, outside the repository")));
                }
            }
            if !in_docs {
                let mut from = 0;
                while let Some(i) = line[from..].find(PAPER) {
                    let at = from + i;
                    if !line[..at].ends_with("docs/") {
                        found.insert((
                            file.clone(),
                            n,
                            format!("names a {PAPER} other than docs/{PAPER}"),
                        ));
                    }
                    from = at + 1;
                }
            }
            // (a) and (b) in Markdown links.
            if is_markdown {
                let trimmed = line.trim_start();
                if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                    in_fence = !in_fence;
                    continue;
                }
                if !in_fence {
                    for target in link_targets(&without_code_spans(line)) {
                        if target.starts_with("http://")
                            || target.starts_with("https://")
                            || target.starts_with("mailto:")
                        {
                            continue;
                        }
                        let (path, anchor) = match target.split_once('#') {
                            Some((p, a)) => (p, Some(a)),
                            None => (target.as_str(), None),
                        };
                        let resolved = if path.is_empty() {
                            Some(file.clone())
                        } else {
                            resolve(file, path)
                        };
                        match resolved {
                            Some(r) if repo.paths.contains(&r) => {
                                if let Some(a) = anchor.filter(|_| r.ends_with(".md")) {
                                    check_anchor(&mut found, file, n, &r, a);
                                }
                            }
                            _ => {
                                found.insert((file.clone(), n, format!("link to {target}: no such file")));
                            }
                        }
                    }
                }
            }
            let Some(prose) = prose(file, line) else {
                continue;
            };
            // (b) in text: a Markdown file from the root, or a sibling in Markdown.
            for (path, anchor) in md_anchor_refs(prose) {
                let from_root = path.trim_start_matches("./").to_string();
                let sibling = resolve(file, &path);
                let target = if is_markdown && sibling.as_ref().is_some_and(|s| repo.paths.contains(s)) {
                    sibling.unwrap()
                } else {
                    from_root
                };
                if repo.paths.contains(&target) {
                    check_anchor(&mut found, file, n, &target, &anchor);
                } else if !is_markdown {
                    found.insert((file.clone(), n, format!("{path}: no such file")));
                }
            }
            // (d): paths from the root (a Markdown link's target is rule (a)'s).
            let targets = if is_markdown {
                link_targets(&without_code_spans(line))
            } else {
                Vec::new()
            };
            for path in repository_paths(prose) {
                if !repo.paths.contains(&path) && !targets.iter().any(|t| t.split('#').next() == Some(&path))
                {
                    found.insert((file.clone(), n, format!("{path}: no such file")));
                }
            }
        }
    }
    found
        .into_iter()
        .map(|(file, n, what)| format!("{file}:{n}: {what}"))
        .collect()
}

#[test]
fn every_reference_points_into_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = Repo::on_disk(root);
    assert!(
        repo.texts.iter().any(|(p, _)| p == "src/lib.rs"),
        "the checker found no source files under {}",
        root.display()
    );
    let broken = problems(&repo);
    assert!(
        broken.is_empty(),
        "{} broken references:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn the_checker_finds_each_kind_of_broken_reference() {
    // Built from pieces, so that this file does not itself break the rules it checks.
    let comment = "/".repeat(2);
    let outside = concat!("../", "shared/notes.md");
    let design = concat!("DESIGN", ".md");
    let paper = concat!("paper", ".md");
    let page = "# Title\n\n## Good section\n\n\
                [ok](other.md) [ok](other.md#a-heading) [self](#good-section)\n\
                [web](https://example.org/x.md) `[code](nowhere.md)`\n\
                [dangling](nowhere.md)\n\
                [bad anchor](other.md#no-such-heading)\n";
    let other = "# A heading\n\n```\n# not a heading\n```\n";
    let rust = format!(
        "{comment}! See docs/page.md#good-section and src/lib.rs.\n\
         {comment}! See docs/page.md#missing, src/gone.rs, {design} and {paper}.\n\
         let p = \"tests/not-a-comment.rs\";\n\
         {comment} {outside}\n"
    );
    let repo = Repo::from_texts(&[
        ("docs/page.md", page),
        ("docs/other.md", other),
        ("src/lib.rs", &rust),
    ]);
    assert_eq!(
        problems(&repo),
        [
            "docs/page.md:7: link to nowhere.md: no such file".to_string(),
            "docs/page.md:8: no heading #no-such-heading in docs/other.md".to_string(),
            format!("src/lib.rs:2: names {design}, outside the repository"),
            format!("src/lib.rs:2: names a {paper} other than docs/{paper}"),
            "src/lib.rs:2: no heading #missing in docs/page.md".to_string(),
            "src/lib.rs:2: src/gone.rs: no such file".to_string(),
            format!(
                "src/lib.rs:4: names {}, outside the repository",
                concat!("..", "/shared")
            ),
        ]
    );
}

#[test]
fn anchors_follow_the_rule_of_github() {
    let text = "# Deadlock, termination and fault\n## QPOR: Algorithm 1\n## Theorem 4.1\n\
                ## Theorem 4.1\n### `--cutoff` and the ll_net format\n";
    let found = anchors(text);
    for a in [
        "deadlock-termination-and-fault",
        "qpor-algorithm-1",
        "theorem-41",
        "theorem-41-1",
        "--cutoff-and-the-ll_net-format",
    ] {
        assert!(found.contains(a), "missing {a} in {found:?}");
    }
    assert_eq!(
        repository_paths("see `models/nets/a.pnml`, tests/*.rs and src/x.rs."),
        ["models/nets/a.pnml", "src/x.rs"]
    );
    assert_eq!(
        resolve("models/proc/README.md", "../../docs/paper.md").as_deref(),
        Some("docs/paper.md")
    );
}
