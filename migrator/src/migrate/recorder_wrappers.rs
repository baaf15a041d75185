//! Functions of the workspace that take a Burn recorder only to hand it on:
//! `fn load<R: FileRecorder<B>>(mut self, path: &str, recorder: &R) -> Result<Self, RecorderError>`
//! whose body calls `self.model.load_file(path, recorder, &self.device)`. Burn 0.22 has no
//! recorders, and `save_file`/`load_file` lose the argument (`save-file-recorder`,
//! `load-file-recorder`), so the parameter and its type parameter have nothing left to carry:
//! they go (`recorder-parameter`), and so does the argument at every call that passes a Burn
//! recorder there. The index knows these functions by name (`Index::recorder_params`), the
//! transforms read their syntax from here (through the index, which answers what a path names
//! in Burn and which type parameters are backends).

use std::collections::HashMap;

use ra_ap_syntax::ast::{self, HasGenericParams, HasName, HasTypeBounds};
use ra_ap_syntax::{AstNode, SyntaxKind, SyntaxNode};

use crate::util::syntax::{segment_names, type_as_ident};

/// A function's recorder parameter: the generic parameter list (whose other parameters are
/// backends), the parameter, and its position among the parameters after `self`.
pub struct RecorderParameter {
    pub generics: ast::GenericParamList,
    pub param: ast::Param,
    pub position: usize,
}

/// `function`'s recorder parameter, if it has one: one generic parameter `R` is bounded by one
/// of Burn's recorder traits (`FileRecorder`, `Recorder`), the others are backends, and no
/// `where` clause; one parameter is typed `R` or `&R`, `R` is named nowhere else, and the body
/// uses that parameter only as the recorder argument of `save_file`/`load_file` calls (at
/// least once). `burn_name` says what a path of the function's file names in Burn; `backends`
/// are the function's backend type parameters.
pub fn recorder_parameter(
    function: &ast::Fn,
    burn_name: &dyn Fn(&ast::Path) -> Option<String>,
    backends: &[String],
) -> Option<RecorderParameter> {
    let generics = function.generic_param_list()?;
    let bounded_by_a_recorder = |param: &ast::TypeParam| {
        (param.type_bound_list().into_iter())
            .flat_map(|list| list.bounds())
            .filter_map(|bound| match bound.ty()? {
                ast::Type::PathType(ty) => ty.path(),
                _ => None,
            })
            .any(|path| burn_name(&path).is_some_and(|name| name.ends_with("Recorder")))
    };
    // The other generic parameters are backends, which the port removes too: the whole list
    // goes.
    let mut recorder_types = Vec::new();
    for param in generics.generic_params() {
        match param {
            ast::GenericParam::TypeParam(param) if bounded_by_a_recorder(&param) => {
                recorder_types.push(param)
            }
            ast::GenericParam::TypeParam(param)
                if param
                    .name()
                    .is_some_and(|n| backends.iter().any(|b| b == n.text())) => {}
            _ => return None,
        }
    }
    let [recorder_type] = recorder_types.as_slice() else {
        return None;
    };
    let type_name = recorder_type.name()?.text().to_string();
    if function.where_clause().is_some() {
        return None;
    }
    let params: Vec<ast::Param> = function.param_list()?.params().collect();
    let typed_by = |param: &ast::Param| {
        let ty = match param.ty() {
            Some(ast::Type::RefType(reference)) => reference.ty(),
            other => other,
        };
        ty.and_then(|ty| type_as_ident(&ty)).as_deref() == Some(type_name.as_str())
    };
    let mut typed: Vec<(usize, &ast::Param)> = params
        .iter()
        .enumerate()
        .filter(|(_, p)| typed_by(p))
        .collect();
    let (position, param) = typed.pop().filter(|_| typed.is_empty())?;
    // `R` only in its own declaration and that parameter's type.
    let declared_or_typed = |token: &ra_ap_syntax::SyntaxToken| {
        let range = token.text_range();
        generics.syntax().text_range().contains_range(range)
            || param.syntax().text_range().contains_range(range)
    };
    let named_elsewhere = (function.syntax().descendants_with_tokens())
        .filter_map(|element| element.into_token())
        .any(|token| {
            token.kind() == SyntaxKind::IDENT
                && token.text() == type_name
                && !declared_or_typed(&token)
        });
    let Some(ast::Pat::IdentPat(pattern)) = param.pat() else {
        return None;
    };
    let name = pattern.name()?.text().to_string();
    let uses: Vec<ast::NameRef> = (function.body()?.syntax().descendants())
        .filter_map(ast::NameRef::cast)
        .filter(|n| n.text() == name)
        .collect();
    let only_handed_on = !uses.is_empty() && uses.iter().all(|n| is_recorder_argument(n.syntax()));
    (!named_elsewhere && only_handed_on).then(|| RecorderParameter {
        generics,
        param: param.clone(),
        position,
    })
}

/// Whether `name_ref` is the whole recorder argument (`recorder` or `&recorder`) of a
/// `save_file(path, recorder)` or `load_file(path, recorder, device)` call.
pub fn is_recorder_argument(name_ref: &SyntaxNode) -> bool {
    let Some(path_expr) = name_ref.ancestors().find_map(ast::PathExpr::cast) else {
        return false;
    };
    let path_is_plain = path_expr.path().is_some_and(|p| p.qualifier().is_none());
    let Some(argument) = argument_of_a_call(path_expr.syntax()) else {
        return false;
    };
    path_is_plain
        && argument.method
        && argument.position == 1
        && matches!(
            (argument.callee.as_str(), argument.count),
            ("save_file", 2) | ("load_file", 3)
        )
}

/// Whether the argument `argument` of a call hands a Burn recorder to a workspace function's
/// recorder parameter (`Index::recorder_params`): the call is named like such a function and
/// passes as many arguments, and this one is at the recorder's position.
pub fn is_wrapper_recorder_argument(
    recorder_params: &HashMap<(String, usize), usize>,
    argument: &SyntaxNode,
) -> bool {
    let Some(argument) = argument_of_a_call(argument) else {
        return false;
    };
    recorder_params.get(&(argument.callee, argument.count)) == Some(&argument.position)
}

/// Where an expression stands as a call's argument.
struct CallArgument {
    /// The method's name, or the last segment of the called function's path.
    callee: String,
    /// Whether the call is a method call.
    method: bool,
    position: usize,
    /// How many arguments the call passes.
    count: usize,
}

/// The call `expr` (or `&expr`) is an argument of.
fn argument_of_a_call(expr: &SyntaxNode) -> Option<CallArgument> {
    let argument = whole_argument(expr);
    let list = argument.parent().and_then(ast::ArgList::cast)?;
    let call = list.syntax().parent()?;
    let (callee, method) = if let Some(method) = ast::MethodCallExpr::cast(call.clone()) {
        (method.name_ref()?.text().to_string(), true)
    } else {
        let ast::Expr::PathExpr(callee) = ast::CallExpr::cast(call)?.expr()? else {
            return None;
        };
        (segment_names(&callee.path()?).pop()?, false)
    };
    let args: Vec<ast::Expr> = list.args().collect();
    let position = args.iter().position(|a| *a.syntax() == argument)?;
    Some(CallArgument {
        callee,
        method,
        position,
        count: args.len(),
    })
}

/// `&expr` where `expr` is borrowed, else `expr`.
fn whole_argument(expr: &SyntaxNode) -> SyntaxNode {
    (expr.parent())
        .filter(|p| ast::RefExpr::can_cast(p.kind()))
        .unwrap_or_else(|| expr.clone())
}

/// Whether `value` makes one of Burn's recorders: `CompactRecorder::new()`,
/// `NamedMpkFileRecorder::<FullPrecisionSettings>::default()`, or the unit value itself.
pub fn builds_a_burn_recorder(
    burn_name: &dyn Fn(&ast::Path) -> Option<String>,
    value: &ast::Expr,
) -> bool {
    let path = match value {
        ast::Expr::CallExpr(call) => match call.expr() {
            Some(ast::Expr::PathExpr(callee)) => callee.path().and_then(|p| p.qualifier()),
            _ => None,
        },
        ast::Expr::PathExpr(value) => value.path(),
        _ => None,
    };
    // Every item of Burn 0.21 named `..Recorder` is one of `burn::record`'s recorders.
    path.and_then(|path| burn_name(&path))
        .is_some_and(|name| name.ends_with("Recorder"))
}

/// `Index::recorder_params` of the workspace's functions: by name and number of parameters
/// (a call passes as many arguments), the recorder parameter's position. Functions of one
/// name and number that disagree count for none.
pub fn positions(
    functions: impl Iterator<Item = (usize, ast::Fn)>,
    parameter_of: impl Fn(usize, &ast::Fn) -> Option<RecorderParameter>,
) -> HashMap<(String, usize), usize> {
    let mut found: HashMap<(String, usize), Option<usize>> = HashMap::new();
    for (file, function) in functions {
        let (Some(name), Some(params)) = (function.name(), function.param_list()) else {
            continue;
        };
        let key = (name.text().to_string(), params.params().count());
        let answer = parameter_of(file, &function).map(|r| r.position);
        match found.get(&key) {
            Some(earlier) if *earlier != answer => {
                found.insert(key, None);
            }
            Some(_) => {}
            None => {
                found.insert(key, answer);
            }
        }
    }
    (found.into_iter())
        .filter_map(|(key, answer)| Some((key, answer?)))
        .collect()
}
