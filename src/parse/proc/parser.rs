//! Text to syntax tree: the pest grammar `grammars/proc.pest`, a pre-scan that bounds the
//! nesting depth before pest runs, and the conversion of pest's pairs into [`ast`] nodes.
//!
//! Expressions come out of the grammar as flat operand/operator sequences; they are folded
//! here by precedence with an explicit operator stack (shunting-yard), so that neither a
//! long chain `a + b + c + …` nor a run of prefix operators costs recursion.

use super::ast::*;
use super::Diag;
use pest::iterators::Pair;
use pest::Parser;

#[derive(pest_derive::Parser)]
#[grammar = "grammars/proc.pest"]
struct ProcParser;

/// Deepest nesting of brackets (`(`, `[`, `{`) accepted; deeper input is refused before
/// parsing, which bounds the recursion of the grammar and of every later pass.
pub(crate) const MAX_NESTING: usize = 64;

/// Deepest expression tree accepted (operators and brackets along one path).
pub(crate) const MAX_EXPR_DEPTH: usize = 200;

/// Parses a whole file.
pub(crate) fn parse_file(text: &str) -> Result<File, Diag> {
    prescan(text)?;
    let mut pairs = ProcParser::parse(Rule::program, text).map_err(|e| pest_error(text, e))?;
    let program = pairs.next().ok_or_else(|| Diag::at(0, "empty input"))?;
    let mut items = Vec::new();
    for p in program.into_inner() {
        if p.as_rule() == Rule::EOI {
            break;
        }
        items.push(item(p)?);
    }
    Ok(File { items })
}

/// Refuses input nested deeper than [`MAX_NESTING`], skipping comments.
fn prescan(text: &str) -> Result<(), Diag> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
                continue;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(Diag::at(
                        i,
                        format!("brackets nested more than {MAX_NESTING} levels deep"),
                    ));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

fn rule_words(r: Rule) -> Option<&'static str> {
    Some(match r {
        Rule::kw_const => "`const`",
        Rule::kw_param => "`param`",
        Rule::kw_var => "`var`",
        Rule::kw_mutex => "`mutex`",
        Rule::kw_sem => "`sem`",
        Rule::kw_chan => "`chan`",
        Rule::kw_process => "`process`",
        Rule::kw_init => "`init`",
        Rule::kw_in => "`in`",
        Rule::kw_or => "`or`",
        Rule::kw_else => "`else`",
        Rule::kw_bool | Rule::kw_int | Rule::range | Rule::type_spec => {
            "a type (`bool`, `int` or a range `lo..=hi`)"
        }
        Rule::ident | Rule::target | Rule::decl_name | Rule::init_entry => "a name",
        Rule::int_lit => "a number",
        Rule::expr | Rule::operand | Rule::paren | Rule::indexed | Rule::kw_true | Rule::kw_false => {
            "an expression"
        }
        Rule::op_neg | Rule::op_not => "an expression",
        Rule::op_or
        | Rule::op_and
        | Rule::op_eq
        | Rule::op_ne
        | Rule::op_le
        | Rule::op_ge
        | Rule::op_lt
        | Rule::op_gt
        | Rule::op_add
        | Rule::op_sub
        | Rule::op_pow
        | Rule::op_mul
        | Rule::op_div
        | Rule::op_mod => "an operator",
        Rule::dots => "`..` or `..=`",
        Rule::block => "a block `{ … }`",
        Rule::assign_op => "`=`",
        Rule::send_op => "`!`",
        Rule::recv_op => "`?`",
        Rule::var_decl
        | Rule::lock_stmt
        | Rule::unlock_stmt
        | Rule::wait_stmt
        | Rule::signal_stmt
        | Rule::spawn_stmt
        | Rule::join_stmt
        | Rule::if_stmt
        | Rule::while_stmt
        | Rule::for_stmt
        | Rule::loop_stmt
        | Rule::choose_stmt
        | Rule::assert_stmt
        | Rule::skip_stmt
        | Rule::break_stmt
        | Rule::continue_stmt
        | Rule::send_stmt
        | Rule::recv_stmt
        | Rule::assign_stmt => "a statement",
        r if is_statement_keyword(r) => "a statement",
        Rule::const_decl
        | Rule::param_decl
        | Rule::mutex_decl
        | Rule::sem_decl
        | Rule::chan_decl
        | Rule::process_def
        | Rule::init_decl => "a declaration",
        Rule::list_init | Rule::init_value => "an initial value",
        Rule::proc_index | Rule::init_sel => "`[`",
        Rule::else_if | Rule::else_block => "`else`",
        Rule::EOI => "end of file",
        Rule::semi => "`;`",
        Rule::rbrace => "`}`",
        _ => return None,
    })
}

/// What the text shows at `offset`, for "found …".
fn found_at(text: &str, offset: usize) -> String {
    let rest = text.get(offset..).unwrap_or("");
    let Some(c) = rest.chars().next() else {
        return "end of file".to_string();
    };
    if c.is_ascii_alphanumeric() || c == '_' {
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .take(40)
            .collect();
        format!("`{word}`")
    } else if c.is_whitespace() {
        "white space".to_string()
    } else {
        crate::parse::char_shown(c)
    }
}

fn pest_error(text: &str, e: pest::error::Error<Rule>) -> Diag {
    let offset = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let mut words: Vec<&'static str> = Vec::new();
    // Punctuation tokens (string literals in the grammar) are not rules, so pest cannot
    // name them; guess the usual one from the character that failed.
    if let pest::error::ErrorVariant::ParsingError { positives, .. } = &e.variant {
        for r in positives {
            if let Some(w) = rule_words(*r) {
                if !words.contains(&w) {
                    words.push(w);
                }
            }
        }
    }
    let expected = match words.len() {
        0 => "valid syntax".to_string(),
        1 => words[0].to_string(),
        n => format!("{} or {}", words[..n - 1].join(", "), words[n - 1]),
    };
    let found = found_at(text, offset);
    let message = if words.is_empty() {
        format!("unexpected {found}")
    } else {
        format!("expected {expected}, found {found}")
    };
    Diag::at(offset, message)
}

fn span_of(p: &Pair<'_, Rule>) -> Span {
    let s = p.as_span();
    Span {
        start: s.start(),
        end: s.end(),
    }
}

fn ident(p: Pair<'_, Rule>) -> Ident {
    Ident {
        name: p.as_str().to_string(),
        span: span_of(&p),
    }
}

/// Takes the next pair, which the grammar guarantees; a missing one is reported as a
/// syntax error at `at` rather than a panic.
fn next<'i>(it: &mut pest::iterators::Pairs<'i, Rule>, at: usize) -> Result<Pair<'i, Rule>, Diag> {
    it.next()
        .ok_or_else(|| Diag::at(at, "[qpor internal bug] the grammar and the front end disagree"))
}

/// The keywords a statement begins with.
fn is_statement_keyword(r: Rule) -> bool {
    matches!(
        r,
        Rule::kw_lock
            | Rule::kw_unlock
            | Rule::kw_wait
            | Rule::kw_signal
            | Rule::kw_spawn
            | Rule::kw_join
            | Rule::kw_if
            | Rule::kw_while
            | Rule::kw_for
            | Rule::kw_loop
            | Rule::kw_choose
            | Rule::kw_assert
            | Rule::kw_skip
            | Rule::kw_break
            | Rule::kw_continue
    )
}

/// Skips keyword pairs, which carry no information beyond their rule.
fn is_keyword(r: Rule) -> bool {
    is_statement_keyword(r)
        || matches!(
            r,
            Rule::kw_const
                | Rule::kw_param
                | Rule::kw_var
                | Rule::kw_mutex
                | Rule::kw_sem
                | Rule::kw_chan
                | Rule::kw_process
                | Rule::kw_init
                | Rule::kw_else
                | Rule::kw_in
                | Rule::kw_or
        )
}

fn inner(p: Pair<'_, Rule>) -> pest::iterators::Pairs<'_, Rule> {
    p.into_inner()
}

/// The pairs that carry information: keywords and terminators left out.
fn content(p: Pair<'_, Rule>) -> Vec<Pair<'_, Rule>> {
    inner(p)
        .filter(|q| !is_keyword(q.as_rule()) && !matches!(q.as_rule(), Rule::semi | Rule::rbrace))
        .collect()
}

fn item(p: Pair<'_, Rule>) -> Result<ItemAt, Diag> {
    let span = span_of(&p);
    let at = span.start;
    let item = match p.as_rule() {
        Rule::const_decl | Rule::param_decl => {
            let is_const = p.as_rule() == Rule::const_decl;
            let mut it = content(p).into_iter();
            let name = ident(it.next().ok_or_else(|| internal(at))?);
            let value = expr(it.next().ok_or_else(|| internal(at))?)?;
            if is_const {
                Item::Const(name, value)
            } else {
                Item::Param(name, value)
            }
        }
        Rule::var_decl => Item::Var(var_decl(p)?),
        Rule::mutex_decl => {
            let names = content(p)
                .into_iter()
                .map(decl_name)
                .collect::<Result<Vec<_>, _>>()?;
            Item::Mutex(names)
        }
        Rule::sem_decl => {
            let (names, init) = names_and_rest(p, expr)?;
            Item::Sem(names, init)
        }
        Rule::chan_decl => {
            let (names, ty) = names_and_rest(p, |q| {
                let s = span_of(&q);
                Ok((type_spec(q)?, s))
            })?;
            Item::Chan(names, ty)
        }
        Rule::process_def => {
            let mut it = content(p).into_iter();
            let name = ident(it.next().ok_or_else(|| internal(at))?);
            let mut index = None;
            let mut body = None;
            for q in it {
                match q.as_rule() {
                    Rule::proc_index => {
                        let mut jt = content(q).into_iter();
                        let v = ident(jt.next().ok_or_else(|| internal(at))?);
                        let r = range(jt.next().ok_or_else(|| internal(at))?)?;
                        index = Some((v, r));
                    }
                    _ => body = Some(block(q)?),
                }
            }
            Item::Process(ProcessDef {
                name,
                index,
                body: body.ok_or_else(|| internal(at))?,
                span,
            })
        }
        Rule::init_decl => {
            let mut entries = Vec::new();
            for q in content(p) {
                let espan = span_of(&q);
                let mut jt = content(q).into_iter();
                let name = ident(jt.next().ok_or_else(|| internal(at))?);
                let sel = match jt.next() {
                    None => InitSel::All,
                    Some(s) => {
                        let x = next(&mut s.into_inner(), at)?;
                        match x.as_rule() {
                            Rule::range => InitSel::Range(range(x)?),
                            _ => InitSel::One(expr(x)?),
                        }
                    }
                };
                entries.push(InitEntry {
                    name,
                    sel,
                    span: espan,
                });
            }
            Item::Init(entries)
        }
        _ => return Err(internal(at)),
    };
    Ok(ItemAt { item, span })
}

fn internal(at: usize) -> Diag {
    Diag::at(at, "[qpor internal bug] the grammar and the front end disagree")
}

/// A name with an optional bracketed expression (`f`, `f[i]`), and its span.
fn indexed_name(p: Pair<'_, Rule>) -> Result<(Ident, Option<Expr>, Span), Diag> {
    let span = span_of(&p);
    let mut it = p.into_inner();
    let name = ident(next(&mut it, span.start)?);
    let index = it.next().map(expr).transpose()?;
    Ok((name, index, span))
}

/// The names a declaration declares, and the other part it may have (a semaphore's
/// initial value, a channel's type), read by `rest`.
fn names_and_rest<T>(
    p: Pair<'_, Rule>,
    mut rest: impl FnMut(Pair<'_, Rule>) -> Result<T, Diag>,
) -> Result<(Vec<DeclName>, Option<T>), Diag> {
    let mut names = Vec::new();
    let mut other = None;
    for q in content(p) {
        match q.as_rule() {
            Rule::decl_name => names.push(decl_name(q)?),
            _ => other = Some(rest(q)?),
        }
    }
    Ok((names, other))
}

fn decl_name(p: Pair<'_, Rule>) -> Result<DeclName, Diag> {
    let (name, size, span) = indexed_name(p)?;
    Ok(DeclName { name, size, span })
}

fn var_decl(p: Pair<'_, Rule>) -> Result<VarDecl, Diag> {
    let span = span_of(&p);
    let mut names = Vec::new();
    let mut ty = None;
    let mut ty_span = span;
    let mut init = None;
    for q in content(p) {
        match q.as_rule() {
            Rule::decl_name => names.push(decl_name(q)?),
            Rule::type_spec => {
                ty_span = span_of(&q);
                ty = Some(type_spec(q)?);
            }
            Rule::init_value => {
                let x = next(&mut q.into_inner(), span.start)?;
                init = Some(match x.as_rule() {
                    Rule::list_init => {
                        let ls = span_of(&x);
                        InitValue::List(x.into_inner().map(expr).collect::<Result<_, _>>()?, ls)
                    }
                    _ => InitValue::One(expr(x)?),
                });
            }
            _ => return Err(internal(span.start)),
        }
    }
    Ok(VarDecl {
        names,
        ty: ty.ok_or_else(|| internal(span.start))?,
        ty_span,
        init,
        span,
    })
}

fn type_spec(p: Pair<'_, Rule>) -> Result<TypeSpec, Diag> {
    let at = span_of(&p).start;
    let x = next(&mut p.into_inner(), at)?;
    Ok(match x.as_rule() {
        Rule::kw_bool => TypeSpec::Bool,
        Rule::kw_int => TypeSpec::Int,
        _ => TypeSpec::Range(range(x)?),
    })
}

fn range(p: Pair<'_, Rule>) -> Result<Range, Diag> {
    let span = span_of(&p);
    let mut it = p.into_inner();
    let lo = expr(next(&mut it, span.start)?)?;
    let dots = next(&mut it, span.start)?;
    let hi = expr(next(&mut it, span.start)?)?;
    Ok(Range {
        lo,
        hi,
        inclusive: dots.as_str() == "..=",
        span,
    })
}

fn target(p: Pair<'_, Rule>) -> Result<Target, Diag> {
    let (name, index, span) = indexed_name(p)?;
    Ok(Target { name, index, span })
}

fn block(p: Pair<'_, Rule>) -> Result<Block, Diag> {
    let span = span_of(&p);
    let stmts = content(p).into_iter().map(stmt).collect::<Result<Vec<_>, _>>()?;
    Ok(Block { stmts, span })
}

fn stmt(p: Pair<'_, Rule>) -> Result<Stmt, Diag> {
    let span = span_of(&p);
    let at = span.start;
    let rule = p.as_rule();
    if rule == Rule::var_decl {
        return Ok(Stmt {
            kind: StmtKind::Var(var_decl(p)?),
            span,
        });
    }
    let parts = content(p);
    let kind = match rule {
        Rule::lock_stmt => StmtKind::Lock(target(first(&parts, at)?)?),
        Rule::unlock_stmt => StmtKind::Unlock(target(first(&parts, at)?)?),
        Rule::wait_stmt => StmtKind::Wait(target(first(&parts, at)?)?),
        Rule::signal_stmt => StmtKind::Signal(target(first(&parts, at)?)?),
        Rule::spawn_stmt => StmtKind::Spawn(target(first(&parts, at)?)?),
        Rule::join_stmt => StmtKind::Join(target(first(&parts, at)?)?),
        Rule::send_stmt => {
            let t = target(first(&parts, at)?)?;
            let v = parts.get(2).cloned().map(expr).transpose()?;
            StmtKind::Send(t, v)
        }
        Rule::recv_stmt => {
            let t = target(first(&parts, at)?)?;
            let v = parts.get(2).cloned().map(target).transpose()?;
            StmtKind::Recv(t, v)
        }
        Rule::assign_stmt => {
            let t = target(first(&parts, at)?)?;
            let op = match parts.get(1).map(|q| q.as_str()) {
                Some("+=") => AssignOp::Add,
                Some("-=") => AssignOp::Sub,
                _ => AssignOp::Set,
            };
            let v = expr(parts.get(2).cloned().ok_or_else(|| internal(at))?)?;
            StmtKind::Assign(t, op, v)
        }
        Rule::if_stmt => {
            let mut arms = Vec::new();
            let mut otherwise = None;
            let mut it = parts.into_iter();
            let c = expr(it.next().ok_or_else(|| internal(at))?)?;
            let b = block(it.next().ok_or_else(|| internal(at))?)?;
            arms.push((c, b));
            for q in it {
                match q.as_rule() {
                    Rule::else_if => {
                        let mut jt = content(q).into_iter();
                        let c = expr(jt.next().ok_or_else(|| internal(at))?)?;
                        let b = block(jt.next().ok_or_else(|| internal(at))?)?;
                        arms.push((c, b));
                    }
                    _ => {
                        let b = content(q).into_iter().next().ok_or_else(|| internal(at))?;
                        otherwise = Some(block(b)?);
                    }
                }
            }
            StmtKind::If(arms, otherwise)
        }
        Rule::while_stmt => {
            let mut it = parts.into_iter();
            let c = expr(it.next().ok_or_else(|| internal(at))?)?;
            let b = block(it.next().ok_or_else(|| internal(at))?)?;
            StmtKind::While(c, b)
        }
        Rule::for_stmt => {
            let mut it = parts.into_iter();
            let v = ident(it.next().ok_or_else(|| internal(at))?);
            let r = range(it.next().ok_or_else(|| internal(at))?)?;
            let b = block(it.next().ok_or_else(|| internal(at))?)?;
            StmtKind::For(v, r, b)
        }
        Rule::loop_stmt => StmtKind::Loop(block(first(&parts, at)?)?),
        Rule::choose_stmt => StmtKind::Choose(parts.into_iter().map(block).collect::<Result<_, _>>()?),
        Rule::assert_stmt => StmtKind::Assert(expr(first(&parts, at)?)?),
        Rule::skip_stmt => StmtKind::Skip,
        Rule::break_stmt => StmtKind::Break,
        Rule::continue_stmt => StmtKind::Continue,
        _ => return Err(internal(at)),
    };
    Ok(Stmt { kind, span })
}

fn first<'i>(parts: &[Pair<'i, Rule>], at: usize) -> Result<Pair<'i, Rule>, Diag> {
    parts.first().cloned().ok_or_else(|| internal(at))
}

fn bin_op(r: Rule) -> Option<BinOp> {
    Some(match r {
        Rule::op_or => BinOp::Or,
        Rule::op_and => BinOp::And,
        Rule::op_eq => BinOp::Eq,
        Rule::op_ne => BinOp::Ne,
        Rule::op_le => BinOp::Le,
        Rule::op_ge => BinOp::Ge,
        Rule::op_lt => BinOp::Lt,
        Rule::op_gt => BinOp::Gt,
        Rule::op_add => BinOp::Add,
        Rule::op_sub => BinOp::Sub,
        Rule::op_pow => BinOp::Pow,
        Rule::op_mul => BinOp::Mul,
        Rule::op_div => BinOp::Div,
        Rule::op_mod => BinOp::Mod,
        _ => return None,
    })
}

/// An expression tree node with the depth of its subtree.
struct Sized {
    e: Expr,
    depth: usize,
}

fn join_span(a: Span, b: Span) -> Span {
    Span {
        start: a.start.min(b.start),
        end: a.end.max(b.end),
    }
}

fn deep(at: usize) -> Diag {
    Diag::at(
        at,
        format!("expression nested more than {MAX_EXPR_DEPTH} levels deep; split it with local variables"),
    )
}

fn reduce(operands: &mut Vec<Sized>, op: BinOp, at: usize) -> Result<(), Diag> {
    let (Some(b), Some(a)) = (operands.pop(), operands.pop()) else {
        return Err(internal(at));
    };
    let depth = a.depth.max(b.depth) + 1;
    if depth > MAX_EXPR_DEPTH {
        return Err(deep(a.e.span.start));
    }
    let span = join_span(a.e.span, b.e.span);
    operands.push(Sized {
        e: Expr {
            kind: ExprKind::Binary(op, Box::new(a.e), Box::new(b.e)),
            span,
        },
        depth,
    });
    Ok(())
}

/// Folds a flat `operand (op operand)*` sequence by precedence. All binary operators are
/// left-associative except `**`; comparisons do not chain.
pub(crate) fn expr(p: Pair<'_, Rule>) -> Result<Expr, Diag> {
    let at = span_of(&p).start;
    let mut operands: Vec<Sized> = Vec::new();
    let mut ops: Vec<BinOp> = Vec::new();
    let mut last_cmp: Option<BinOp> = None;
    for q in p.into_inner() {
        if let Some(op) = bin_op(q.as_rule()) {
            if is_comparison(op) {
                if let Some(prev) = last_cmp {
                    return Err(Diag::at(
                        span_of(&q).start,
                        format!(
                            "comparisons do not chain: `{}` follows `{}`; combine them with `&&` or use parentheses",
                            symbol(op),
                            symbol(prev)
                        ),
                    ));
                }
                last_cmp = Some(op);
            } else if precedence(op) < 3 {
                last_cmp = None;
            }
            while let Some(&top) = ops.last() {
                let pops = if op == BinOp::Pow {
                    precedence(top) > precedence(op)
                } else {
                    precedence(top) >= precedence(op)
                };
                if !pops {
                    break;
                }
                ops.pop();
                reduce(&mut operands, top, at)?;
            }
            ops.push(op);
        } else {
            operands.push(operand(q)?);
        }
    }
    while let Some(top) = ops.pop() {
        reduce(&mut operands, top, at)?;
    }
    match (operands.pop(), operands.is_empty()) {
        (Some(s), true) => Ok(s.e),
        _ => Err(internal(at)),
    }
}

fn operand(p: Pair<'_, Rule>) -> Result<Sized, Diag> {
    let at = span_of(&p).start;
    let mut prefixes: Vec<(UnOp, usize)> = Vec::new();
    let mut base: Option<Sized> = None;
    for q in p.into_inner() {
        match q.as_rule() {
            Rule::op_neg => prefixes.push((UnOp::Neg, span_of(&q).start)),
            Rule::op_not => prefixes.push((UnOp::Not, span_of(&q).start)),
            _ => base = Some(primary(q)?),
        }
    }
    let mut s = base.ok_or_else(|| internal(at))?;
    while let Some((op, start)) = prefixes.pop() {
        if s.depth + 1 > MAX_EXPR_DEPTH {
            return Err(deep(start));
        }
        // Fold `-5` into a literal so that constant negative numbers stay leaves.
        if let (UnOp::Neg, ExprKind::Int(v)) = (op, &s.e.kind) {
            s.e = Expr {
                kind: ExprKind::Int(v.wrapping_neg()),
                span: join_span(
                    Span {
                        start,
                        end: start + 1,
                    },
                    s.e.span,
                ),
            };
            continue;
        }
        let span = join_span(
            Span {
                start,
                end: start + 1,
            },
            s.e.span,
        );
        s = Sized {
            depth: s.depth + 1,
            e: Expr {
                kind: ExprKind::Unary(op, Box::new(s.e)),
                span,
            },
        };
    }
    Ok(s)
}

fn primary(p: Pair<'_, Rule>) -> Result<Sized, Diag> {
    let span = span_of(&p);
    let leaf = |kind| Sized {
        e: Expr { kind, span },
        depth: 1,
    };
    Ok(match p.as_rule() {
        Rule::int_lit => {
            let v: i64 = p
                .as_str()
                .parse()
                .map_err(|_| Diag::at(span.start, format!("the number {} is too large", p.as_str())))?;
            leaf(ExprKind::Int(v))
        }
        Rule::kw_true => leaf(ExprKind::Bool(true)),
        Rule::kw_false => leaf(ExprKind::Bool(false)),
        Rule::ident => leaf(ExprKind::Name(ident(p))),
        Rule::indexed => {
            let mut it = p.into_inner();
            let name = ident(next(&mut it, span.start)?);
            let idx = expr(next(&mut it, span.start)?)?;
            let d = expr_depth(&idx) + 1;
            if d > MAX_EXPR_DEPTH {
                return Err(deep(span.start));
            }
            Sized {
                e: Expr {
                    kind: ExprKind::Index(name, Box::new(idx)),
                    span,
                },
                depth: d,
            }
        }
        Rule::paren => {
            let e = expr(next(&mut p.into_inner(), span.start)?)?;
            let d = expr_depth(&e);
            Sized { e, depth: d }
        }
        _ => return Err(internal(span.start)),
    })
}

/// Depth of an already-bounded tree (used for sub-expressions folded separately).
fn expr_depth(e: &Expr) -> usize {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Name(_) => 1,
        ExprKind::Index(_, i) => expr_depth(i) + 1,
        ExprKind::Unary(_, a) => expr_depth(a) + 1,
        ExprKind::Binary(_, a, b) => expr_depth(a).max(expr_depth(b)) + 1,
    }
}
