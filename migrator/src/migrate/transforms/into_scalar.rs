//! `x.into_scalar().elem::<f32>()` and `x.into_scalar().to_f32()` -> `x.into_scalar::<f32>()`:
//! in Burn 0.22 `into_scalar` is generic over the element type the caller wants. A bare `into_scalar()` whose type
//! nothing pins down is reported.

use ra_ap_syntax::ast::{self, HasArgList, HasGenericArgs, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode, TextRange};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::migrate::index::{TensorKind as Kind, SCALAR_ELEMENTS};
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{is_plain_call, parameter_type, segment_name, segment_names};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::IntoScalar),
    run,
    emits: &[RuleId::IntoScalarElem, RuleId::IntoScalarType],
    emits_data_rules: false,
    order: Order::Rank(180),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for call in ctx.nodes::<ast::MethodCallExpr>() {
        port_call(ctx, &call);
    }
}

/// Ports one `x.into_scalar()`.
fn port_call(ctx: &mut FileCtx, call: &ast::MethodCallExpr) {
    if !is_plain_call(call, "into_scalar") {
        return;
    }
    let Some(name) = call.name_ref() else {
        return;
    };
    let parent = call.syntax().parent().and_then(ast::MethodCallExpr::cast);
    let elem = parent.clone().filter(|p| {
        p.name_ref().is_some_and(|n| n.text() == "elem")
            && p.arg_list().is_some_and(|a| a.args().next().is_none())
    });
    if let Some(elem) = elem {
        let target = match elem.generic_arg_list() {
            Some(list) => Some(
                ctx.file
                    .slice(list.syntax().text_range())
                    .trim_start_matches("::")
                    .to_string(),
            ),
            None => context_type(ctx, elem.syntax()).map(|t| format!("<{t}>")),
        };
        match target {
            Some(target) => ask_for_element(ctx, &name, elem.syntax(), &target),
            None => ctx.push(Change::manual(
                elem.syntax().text_range(),
                RuleId::IntoScalarType,
                "name the element type: `into_scalar::<f32>()` (or the type this value needs)",
            )),
        }
        return;
    }
    // `into_scalar().to_f64()`: `ToElement`'s conversion of the backend's element to a
    // type that is itself an element in 0.22 is that element asked for directly.
    let conversion = (parent.as_ref()).and_then(|p| {
        let method = p.name_ref()?.text().to_string();
        let element = method
            .strip_prefix("to_")
            .filter(|t| SCALAR_ELEMENTS.contains(t) || *t == "bool")?;
        is_plain_call(p, &method).then(|| (p.clone(), element.to_string()))
    });
    if let Some((conversion, element)) = conversion {
        ask_for_element(ctx, &name, conversion.syntax(), &format!("<{element}>"));
        return;
    }
    // Compared with a literal, read with a float's own method, or passed to a project
    // function that converts it to one element: that says which element the 0.21 code read.
    let implied = implied_element(ctx, call).or_else(|| converted_by_callee(ctx, call.syntax()));
    if let Some(element) = implied {
        ask_for_element(ctx, &name, call.syntax(), &format!("<{element}>"));
        return;
    }
    // A place that asks for a scalar type lets the compiler infer the element type (the
    // type it names is the one to read, whatever the tensor's kind).
    if context_type(ctx, call.syntax()).is_some() {
        return;
    }
    match call.receiver().and_then(|tensor| kind_element(ctx, &tensor)) {
        Some(element) => ask_for_element(ctx, &name, call.syntax(), &format!("<{element}>")),
        None => ctx.push(Change::manual(
            call.syntax().text_range(),
            RuleId::IntoScalarType,
            "`into_scalar` is generic over the element type in Burn 0.22: write `into_scalar::<f32>()` (or the type this value needs)",
        )),
    }
}

/// `into_scalar()` (named `name`) and the call after it up to `end` (`.elem::<f32>()`,
/// `.to_f64()`) become `into_scalar::<T>()`, `turbofish` being `<T>`.
fn ask_for_element(ctx: &mut FileCtx, name: &ast::NameRef, end: &SyntaxNode, turbofish: &str) {
    ctx.push(Change::edit(
        TextRange::new(name.syntax().text_range().start(), end.text_range().end()),
        format!("into_scalar::{turbofish}()"),
        RuleId::IntoScalarElem,
        "`into_scalar` takes the element type in Burn 0.22",
    ));
}

/// Methods of `f32`/`f64` that integers do not have: a scalar read with one was a float.
const FLOAT_METHODS: &[&str] = &[
    "is_finite",
    "is_nan",
    "is_infinite",
    "is_normal",
    "sqrt",
    "exp",
    "ln",
    "log10",
    "log2",
    "powf",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fract",
    "sin",
    "cos",
    "tan",
    "tanh",
];

/// The element `x.into_scalar()` read in 0.21, where its uses say: the value itself, or the
/// `let` without a type it initializes (`let diff = x.into_scalar();`) through the uses of that
/// name in the rest of the block, is compared with a number literal (`literal_element`) or
/// read with a float's own method (`is_finite()`: `f32`), or passed to a converter
/// (`converted_by_callee`).
fn implied_element(ctx: &FileCtx, call: &ast::MethodCallExpr) -> Option<String> {
    if let Some(element) = element_implied_at(call.syntax()) {
        return Some(element);
    }
    let binding = ast::LetStmt::cast(call.syntax().parent()?)?;
    if binding.ty().is_some() {
        return None;
    }
    let ast::Pat::IdentPat(pattern) = binding.pat()? else {
        return None;
    };
    let name = pattern.name()?.text().to_string();
    let block = binding.syntax().parent()?;
    let after = binding.syntax().text_range().end();
    // Uses up to the next `let` of the same name, which would be another value.
    let until = (block.children().filter_map(ast::LetStmt::cast))
        .filter(|l| l.syntax().text_range().start() >= after)
        .find(|l| binds(l, &name))
        .map_or(block.text_range().end(), |l| {
            l.syntax().text_range().start()
        });
    (block.descendants())
        .filter(|node| node.text_range().start() >= after && node.text_range().end() <= until)
        .filter_map(ast::PathExpr::cast)
        .filter(|use_| single_name(use_).as_deref() == Some(name.as_str()))
        .find_map(|use_| {
            element_implied_at(use_.syntax()).or_else(|| converted_by_callee(ctx, use_.syntax()))
        })
}

/// The element a project function converts the value to, where `value` is its argument at a
/// position whose type is a `ToElement` parameter (`scalar_to_f32(loss.into_scalar())` with
/// `fn scalar_to_f32<E: ToElement>(value: E) -> f32 { value.to_f32() }`). In 0.21 the value
/// was the backend's element, converted there; asking for the converted element reads the same
/// value.
fn converted_by_callee(ctx: &FileCtx, value: &SyntaxNode) -> Option<String> {
    let list = ast::ArgList::cast(value.parent()?)?;
    let position = list.args().position(|arg| arg.syntax() == value)?;
    let ast::Expr::PathExpr(callee) = ast::CallExpr::cast(list.syntax().parent()?)?.expr()? else {
        return None;
    };
    let name = segment_names(&callee.path()?).pop()?;
    ctx.index.element_converters.get(&(name, position)).cloned()
}

/// The element the place of the scalar value at `value` implies (see `implied_element`).
fn element_implied_at(value: &SyntaxNode) -> Option<String> {
    let partner = compared_with(value).or_else(|| asserted_equal_to(value));
    if let Some(element) = partner.and_then(|p| literal_element(&p)) {
        return Some(element);
    }
    // `x.into_scalar() as usize`: a cast reads any number, and `f64` holds every 0.21
    // element exactly (`f32`, `i32`, `bool`, and `i64` up to 2^53), so the cast gives what
    // it gave.
    if ast::CastExpr::can_cast(value.parent()?.kind()) {
        return Some("f64".to_string());
    }
    let method = ast::MethodCallExpr::cast(value.parent()?)?;
    let is_receiver = method.receiver().is_some_and(|r| r.syntax() == value);
    let name = method.name_ref()?.text().to_string();
    if !is_receiver {
        return None;
    }
    // `v.elem::<i32>()`: the element it is converted to is the one to read.
    if name == "elem" {
        let list = method.generic_arg_list()?;
        let mut args = list.generic_args();
        let only = args.next().filter(|_| args.next().is_none())?;
        let element = only.syntax().text().to_string();
        return SCALAR_ELEMENTS
            .contains(&element.as_str())
            .then_some(element);
    }
    FLOAT_METHODS
        .contains(&name.as_str())
        .then(|| "f32".to_string())
}

/// Whether `binding` is `let name ..` (a plain name, `mut` or not).
fn binds(binding: &ast::LetStmt, name: &str) -> bool {
    matches!(binding.pat(), Some(ast::Pat::IdentPat(p)) if p.name().is_some_and(|n| n.text() == name))
}

/// The name a path expression is, when it is one name (`tol`).
fn single_name(path: &ast::PathExpr) -> Option<String> {
    Some(path.path()?.as_single_name_ref()?.text().to_string())
}

/// What the value at `value` is compared with (`<`, `==`, ..) or combined with by arithmetic
/// (`-`, `*`, ..), as in `if x.into_scalar() > 0.5` or `(r - 10.0).abs()`: both operands
/// have one type.
fn compared_with(value: &SyntaxNode) -> Option<ast::Expr> {
    let comparison = ast::BinExpr::cast(value.parent()?)?;
    let one_type = match comparison.op_kind()? {
        ast::BinaryOp::CmpOp(_) => true,
        // A shift's operands may differ.
        ast::BinaryOp::ArithOp(op) => !matches!(op, ast::ArithOp::Shl | ast::ArithOp::Shr),
        _ => false,
    };
    if !one_type {
        return None;
    }
    let (lhs, rhs) = (comparison.lhs()?, comparison.rhs()?);
    Some(if lhs.syntax() == value { rhs } else { lhs })
}

/// What `call` is asserted equal (or unequal) to: the other of the two values of an
/// `assert_eq!`, `assert_ne!` or their `debug_` forms, which the parse opens into a call of
/// `assert_eq_(..)` (`source::open_expression_macros`).
fn asserted_equal_to(value: &SyntaxNode) -> Option<ast::Expr> {
    let arguments = ast::ArgList::cast(value.parent()?)?;
    let assertion = ast::CallExpr::cast(arguments.syntax().parent()?)?;
    let ast::Expr::PathExpr(callee) = assertion.expr()? else {
        return None;
    };
    let name = callee.path()?.as_single_name_ref()?.text().to_string();
    let opened = name.strip_suffix('_')?;
    if !matches!(
        opened,
        "assert_eq" | "assert_ne" | "debug_assert_eq" | "debug_assert_ne"
    ) {
        return None;
    }
    let mut values = arguments.args();
    let (first, second) = (values.next()?, values.next()?);
    if first.syntax() == value {
        Some(second)
    } else if second.syntax() == value {
        Some(first)
    } else {
        None
    }
}

/// The element to ask for where `x.into_scalar()` is compared with `partner`, a number
/// literal (`assert!(diff.into_scalar() < 1e-6)`, `assert_eq!(n.into_scalar(), 3)`), whose
/// element type 0.22 cannot infer. In 0.21 the value was the backend's element and the
/// literal took its type, so the literal's kind tells the tensor's: a float literal, a float
/// tensor, read as `f32`, the float element of every 0.21 backend unless its type names
/// another (`NdArray<f64>`, which `backend-element-generics` reports); an integer literal, an
/// int tensor, read as `i64`, which holds every 0.21 int element exactly, so the comparison is
/// the same. A suffix (`1e-6f64`, `0u8`) names the element itself.
fn literal_element(partner: &ast::Expr) -> Option<String> {
    if let ast::Expr::PathExpr(name) = partner {
        return literal_element(&bound_literal(name)?);
    }
    let literal = match partner {
        ast::Expr::Literal(literal) => literal.clone(),
        ast::Expr::PrefixExpr(negated) if negated.op_kind() == Some(ast::UnaryOp::Neg) => {
            match negated.expr()? {
                ast::Expr::Literal(literal) => literal,
                _ => return None,
            }
        }
        _ => return None,
    };
    let (float, suffix) = match literal.kind() {
        ast::LiteralKind::FloatNumber(number) => (true, number.suffix().map(str::to_string)),
        ast::LiteralKind::IntNumber(number) => (false, number.suffix().map(str::to_string)),
        _ => return None,
    };
    match suffix {
        Some(suffix) => SCALAR_ELEMENTS.contains(&suffix.as_str()).then_some(suffix),
        None if float => Some("f32".to_string()),
        None => Some("i64".to_string()),
    }
}

/// The number literal a name stands for where a `let` without a type before it, in a block
/// around it, binds it to one (`let tol = 0.01;` for `tol`).
fn bound_literal(name: &ast::PathExpr) -> Option<ast::Expr> {
    let binding = binding_before(name.syntax(), &single_name(name)?)?;
    match (binding.ty(), binding.initializer()?) {
        (None, literal @ (ast::Expr::Literal(_) | ast::Expr::PrefixExpr(_))) => Some(literal),
        _ => None,
    }
}

/// The `let` that binds `name` where it is used at `at`: the last one before it in the
/// innermost block around it that has one.
fn binding_before(at: &SyntaxNode, name: &str) -> Option<ast::LetStmt> {
    last_let_before(at, |binding| binds(binding, name).then_some(())).map(|(binding, _)| binding)
}

/// The last `let` before `at` of which `read` makes something, in the innermost block around
/// `at` that has one, with what `read` made of it.
fn last_let_before<T>(
    at: &SyntaxNode,
    read: impl Fn(&ast::LetStmt) -> Option<T>,
) -> Option<(ast::LetStmt, T)> {
    let start = at.text_range().start();
    at.ancestors()
        .filter_map(ast::StmtList::cast)
        .find_map(|block| {
            (block.statements())
                .filter_map(|statement| match statement {
                    ast::Stmt::LetStmt(binding) => Some(binding),
                    _ => None,
                })
                .filter(|binding| binding.syntax().text_range().end() <= start)
                .filter_map(|binding| read(&binding).map(|found| (binding, found)))
                .last()
        })
}

/// The scalar type the place of `expr` asks for, where its text says so: the annotation of
/// the `let` it initializes, or the return type of the function whose value it is (its body's
/// last expression, or a `return`), also inside `Ok(..)`/`Some(..)` for a `Result`/`Option` of
/// a scalar. Only Rust's own scalar types count: `into_scalar` infers its element type from
/// them, where a type parameter may not be an element.
fn context_type(ctx: &FileCtx, expr: &SyntaxNode) -> Option<String> {
    let parent = expr.parent()?;
    if let Some(binding) = ast::LetStmt::cast(parent.clone()) {
        let ty = ctx
            .file
            .slice(binding.ty()?.syntax().text_range())
            .to_string();
        return Some(ty);
    }
    // `Ok(value)`, `Some(value)`: the value is the first argument of the result type.
    if let Some(wrapper) = (ast::ArgList::cast(parent.clone()))
        .and_then(|args| args.syntax().parent())
        .and_then(ast::CallExpr::cast)
        .filter(|call| call.arg_list().is_some_and(|a| a.args().count() == 1))
    {
        let Some(ast::Expr::PathExpr(callee)) = wrapper.expr() else {
            return None;
        };
        let name = callee.path()?.as_single_name_ref()?.text().to_string();
        let outer = if name == "Ok" {
            "Result"
        } else if name == "Some" {
            "Option"
        } else {
            return None;
        };
        let ast::Type::PathType(ret) = returned_type(wrapper.syntax())? else {
            return None;
        };
        let segment = ret.path()?.segment()?;
        if segment.name_ref()?.text() != outer {
            return None;
        }
        let first = segment.generic_arg_list()?.generic_args().next()?;
        return scalar_type_name(&first.syntax().text().to_string());
    }
    // `(a.into_scalar(), b)` returned as `(f32, Vec<f32>)`: the element at its position.
    if let Some(tuple) = ast::TupleExpr::cast(parent) {
        let position = tuple.fields().position(|field| field.syntax() == expr)?;
        let ast::Type::TupleType(returned) = returned_type(tuple.syntax())? else {
            return None;
        };
        return scalar_type_name(&returned.fields().nth(position)?.syntax().text().to_string());
    }
    scalar_type_name(&returned_type(expr)?.syntax().text().to_string())
}

/// Methods whose result is an `Int` tensor, whatever they are called on.
const TO_INT: &[&str] = &["argmax", "argmin", "argsort", "int", "argwhere", "nonzero"];
/// Methods whose result is a `Bool` tensor.
const TO_BOOL: &[&str] = &[
    "equal",
    "not_equal",
    "equal_elem",
    "not_equal_elem",
    "greater",
    "greater_elem",
    "greater_equal",
    "greater_equal_elem",
    "lower",
    "lower_elem",
    "lower_equal",
    "lower_equal_elem",
    "any",
    "all",
    "any_dim",
    "all_dim",
    "is_nan",
    "is_inf",
    "bool",
    "is_close",
    "bool_and",
    "bool_or",
    "bool_not",
];
/// Methods whose result has the kind of the tensor they are called on.
const SAME_KIND: &[&str] = &[
    "clone",
    "detach",
    "sum",
    "sum_dim",
    "mean",
    "mean_dim",
    "prod",
    "prod_dim",
    "max",
    "min",
    "max_dim",
    "min_dim",
    "reshape",
    "flatten",
    "squeeze",
    "squeeze_dim",
    "squeeze_dims",
    "unsqueeze",
    "unsqueeze_dim",
    "unsqueeze_dims",
    "slice",
    "select",
    "narrow",
    "gather",
    "transpose",
    "swap_dims",
    "permute",
    "flip",
    "expand",
    "repeat",
    "repeat_dim",
    "to_device",
    "abs",
    "neg",
    "add",
    "sub",
    "mul",
    "div",
    "add_scalar",
    "sub_scalar",
    "mul_scalar",
    "div_scalar",
    "clamp",
    "clamp_min",
    "clamp_max",
    "sort",
    "sort_descending",
    "cumsum",
];

/// The element to ask for where the tensor's kind shows (`argmax(..)`, a binding declared
/// `Tensor<1, Int>`): an `Int` tensor reads as `i64`, which holds every 0.21 int element
/// exactly; a `Bool` one as `bool`; one declared `Float` as `f32`, as `literal_element`
/// reads a float.
fn kind_element(ctx: &FileCtx, tensor: &ast::Expr) -> Option<String> {
    let element = match tensor_kind(ctx, tensor)? {
        Kind::Float => "f32",
        Kind::Int => "i64",
        Kind::Bool => "bool",
    };
    Some(element.to_string())
}

fn tensor_kind(ctx: &FileCtx, tensor: &ast::Expr) -> Option<Kind> {
    let returned = |name: &str| ctx.index.returned_tensor_kind(ctx.file_id, name);
    match tensor {
        ast::Expr::MethodCallExpr(call) => {
            let name = call.name_ref()?.text().to_string();
            if TO_INT.contains(&name.as_str()) {
                Some(Kind::Int)
            } else if TO_BOOL.contains(&name.as_str()) {
                Some(Kind::Bool)
            } else if name == "float" {
                Some(Kind::Float)
            } else if SAME_KIND.contains(&name.as_str()) {
                tensor_kind(ctx, &call.receiver()?)
            } else if let Some(kind) = burn_method_kind(ctx, call, &name) {
                Some(kind)
            } else {
                // A method of the workspace's that returns one kind of tensor, whichever
                // type's method it is (`model.forward(x)`).
                returned(&name)
            }
        }
        ast::Expr::ParenExpr(inner) => tensor_kind(ctx, &inner.expr()?),
        // `-x`, and `a - b` or `a * 2.0`: arithmetic keeps the tensor's kind.
        ast::Expr::PrefixExpr(negated) if negated.op_kind() == Some(ast::UnaryOp::Neg) => {
            tensor_kind(ctx, &negated.expr()?)
        }
        ast::Expr::BinExpr(arithmetic)
            if matches!(arithmetic.op_kind(), Some(ast::BinaryOp::ArithOp(_))) =>
        {
            (arithmetic.lhs().and_then(|lhs| tensor_kind(ctx, &lhs)))
                .or_else(|| arithmetic.rhs().and_then(|rhs| tensor_kind(ctx, &rhs)))
        }
        // `Tensor::<B, 1, Int>::arange(..)`: the turbofish says; a workspace function by name.
        ast::Expr::CallExpr(call) => {
            let ast::Expr::PathExpr(callee) = call.expr()? else {
                return None;
            };
            let path = callee.path()?;
            if let Some(owner) = path.qualifier() {
                if ctx.index.burn_name(ctx.file_id, &owner).as_deref() == Some("Tensor") {
                    let ty = ast::make::ty_path(owner);
                    return ctx.index.declared_tensor_kind(ctx.file_id, &ty);
                }
            }
            returned(&segment_name(&path.segment()?))
        }
        // `geometry.velocity`: a field the workspace's structs declare as one kind of tensor.
        ast::Expr::FieldExpr(field) => {
            let name = field.name_ref()?.text().to_string();
            ctx.index.tensor_kinds.fields.get(&name).copied()
        }
        ast::Expr::PathExpr(path) => {
            let name = single_name(path)?;
            match binding_before(path.syntax(), &name) {
                Some(binding) => match binding.ty() {
                    Some(ty) => ctx.index.declared_tensor_kind(ctx.file_id, &ty),
                    // `let loss = diff.mean();`: the value it was bound to, where nothing
                    // binds the name between the `let` and the use (a closure's or loop's
                    // pattern there would be another value).
                    None if !bound_between(&binding, path.syntax(), &name) => {
                        tensor_kind(ctx, &binding.initializer()?)
                    }
                    None => None,
                },
                None => tuple_element_kind(ctx, path.syntax(), &name).or_else(|| {
                    let ty = parameter_type(path.syntax(), &name)?;
                    ctx.index.declared_tensor_kind(ctx.file_id, &ty)
                }),
            }
        }
        _ => None,
    }
}

/// `let (values, indices) = scores.max_dim_with_indices(1);`: the kind of the element `name`
/// binds, where the tuple comes from a method of a tensor whose kind is known, as Burn 0.21's
/// listing writes `Tensor`'s method (`(Self, Tensor<B, D, Int>)`).
fn tuple_element_kind(ctx: &FileCtx, at: &SyntaxNode, name: &str) -> Option<Kind> {
    let (binding, position) = last_let_before(at, |binding| {
        let ast::Pat::TuplePat(tuple) = binding.pat()? else {
            return None;
        };
        tuple.fields().position(|field| {
            matches!(field, ast::Pat::IdentPat(p) if p.name().is_some_and(|n| n.text() == name))
        })
    })?;
    if binding.ty().is_some() || bound_between(&binding, at, name) {
        return None;
    }
    let ast::Expr::MethodCallExpr(call) = binding.initializer()? else {
        return None;
    };
    let receiver = tensor_kind(ctx, &call.receiver()?)?;
    let method = call.name_ref()?.text().to_string();
    let returned = crate::rules::framework::method_return_0_21("Tensor", &method)?;
    let elements = top_level_parts(returned.strip_prefix('(')?.strip_suffix(')')?);
    match *elements.get(position)? {
        "Self" => Some(receiver),
        element => listed_tensor_kind(element),
    }
}

/// The parts of `list` between its top-level `, ` (`Self, Tensor<B, D, Int>`).
fn top_level_parts(list: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut from) = (Vec::new(), 0usize, 0);
    for (i, c) in list.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(list[from..i].trim());
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(list[from..].trim());
    parts
}

/// The kind of a tensor type as Burn's listing writes it: `Tensor<B, 1>` (the backend and the
/// dimensions, of the default kind), `Tensor<B, D, Int>`.
fn listed_tensor_kind(ty: &str) -> Option<Kind> {
    let arguments = top_level_parts(ty.strip_prefix("Tensor<")?.strip_suffix('>')?);
    match arguments.as_slice() {
        [_, _] | [_, _, "Float"] => Some(Kind::Float),
        [_, _, "Int"] => Some(Kind::Int),
        [_, _, "Bool"] => Some(Kind::Bool),
        _ => None,
    }
}

/// The kind of tensor a method of a Burn type built right there returns
/// (`CrossEntropyLoss::new(None, &device).forward(x, y)`), as Burn 0.21's API listing has it.
fn burn_method_kind(ctx: &FileCtx, call: &ast::MethodCallExpr, method: &str) -> Option<Kind> {
    let ast::Expr::CallExpr(built) = call.receiver()? else {
        return None;
    };
    let ast::Expr::PathExpr(constructor) = built.expr()? else {
        return None;
    };
    let constructor = constructor.path()?;
    let owner = constructor.qualifier()?;
    let owner = ctx.index.burn_name(ctx.file_id, &owner)?;
    let constructor = segment_name(&constructor.segment()?);
    if crate::rules::framework::method_return_0_21(&owner, &constructor)? != "Self" {
        return None;
    }
    listed_tensor_kind(crate::rules::framework::method_return_0_21(&owner, method)?)
}

/// Whether a pattern of the function around `at` binds `name` after `binding` and before `at`
/// (`let loss = ..; for loss in losses { loss.. }`): the use may read that value instead.
fn bound_between(binding: &ast::LetStmt, at: &SyntaxNode, name: &str) -> bool {
    let Some(function) = at.ancestors().find_map(ast::Fn::cast) else {
        return true;
    };
    let (after, before) = (binding.syntax().text_range().end(), at.text_range().start());
    (function.syntax().descendants())
        .filter_map(ast::IdentPat::cast)
        .filter(|pattern| pattern.name().is_some_and(|n| n.text() == name))
        .any(|pattern| {
            let start = pattern.syntax().text_range().start();
            after <= start && start < before
        })
}

/// The return type of the function whose value `expr` is: its body's tail expression, or the
/// operand of a `return`.
fn returned_type(expr: &SyntaxNode) -> Option<ast::Type> {
    let parent = expr.parent()?;
    let function = if ast::ReturnExpr::can_cast(parent.kind()) {
        parent.ancestors().find_map(ast::Fn::cast)?
    } else {
        let list = ast::StmtList::cast(parent)?;
        if list.tail_expr()?.syntax() != expr {
            return None;
        }
        let body = list.syntax().parent().and_then(ast::BlockExpr::cast)?;
        ast::Fn::cast(body.syntax().parent()?)?
    };
    function.ret_type()?.ty()
}

/// `name` when it is one of Rust's scalar types.
fn scalar_type_name(name: &str) -> Option<String> {
    const SCALARS: [&str; 15] = [
        "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64",
        "u128", "usize", "bool",
    ];
    SCALARS.contains(&name).then(|| name.to_string())
}
