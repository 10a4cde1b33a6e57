//! Global names: collecting them (pass 1), looking them up with the errors for names
//! declared twice or used before their declaration, and source snippets for messages.

use super::super::ast::{self, Item, Span};
use super::super::Diag;
use super::{Front, Global};

impl Front<'_> {
    /// Pass 1: every global name with where it is declared; a name declared twice is an
    /// error.
    pub(crate) fn collect_names(&mut self, file: &ast::File) -> Result<(), Diag> {
        for at in &file.items {
            let mut names: Vec<&ast::Ident> = Vec::new();
            match &at.item {
                Item::Const(n, _) | Item::Param(n, _) => names.push(n),
                Item::Var(d) => names.extend(d.names.iter().map(|n| &n.name)),
                Item::Mutex(ns) | Item::Sem(ns, _) | Item::Chan(ns, _) => {
                    names.extend(ns.iter().map(|n| &n.name))
                }
                Item::Process(p) => names.push(&p.name),
                Item::Init(_) => {}
            }
            for n in names {
                if self.declared.contains_key(&n.name) {
                    return Err(self.already(&n.name, n.span));
                }
                self.declared.insert(n.name.clone(), n.span);
            }
        }
        Ok(())
    }

    /// "`x` is already declared at l:c", for a second declaration of `name` at `span`.
    pub(crate) fn already(&self, name: &str, span: Span) -> Diag {
        match self.declared.get(name) {
            Some(prev) => {
                let p = self.lines.pos(prev.start);
                Diag::at(
                    span.start,
                    format!("`{name}` is already declared at {}:{}", p.line, p.col),
                )
            }
            None => Diag::at(span.start, format!("`{name}` is already declared")),
        }
    }

    /// The global called `name`, `None` if there is none (the caller looks at locals first).
    /// A global declared later in the file than where it is needed in a constant context
    /// is an error of its own.
    pub(crate) fn global(&self, name: &str, span: Span) -> Result<Option<Global>, Diag> {
        match self.globals.get(name) {
            Some(g) => Ok(Some(*g)),
            None => match self.declared.get(name) {
                Some(d) => {
                    let p = self.lines.pos(d.start);
                    Err(Diag::at(
                        span.start,
                        format!(
                            "`{name}` is used before its declaration at {}:{}; constants must be declared before they are used",
                            p.line, p.col
                        ),
                    ))
                }
                None => Ok(None),
            },
        }
    }

    /// "unknown name `x`".
    pub(crate) fn unknown(&self, name: &str, span: Span) -> Diag {
        Diag::at(span.start, format!("unknown name `{name}`"))
    }

    /// The source text of a span on one line, shortened, for messages and action names.
    pub(crate) fn snippet(&self, span: Span) -> String {
        let raw = self.text.get(span.start..span.end).unwrap_or("");
        let mut s = String::new();
        let mut space = false;
        for c in raw.chars() {
            if c.is_whitespace() {
                space = true;
                continue;
            }
            if space && !s.is_empty() {
                s.push(' ');
            }
            space = false;
            s.push(c);
            if s.chars().count() > 60 {
                s.push('…');
                break;
            }
        }
        s
    }
}
