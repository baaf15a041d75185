//! Dependency entries of a Cargo manifest, read and edited with `toml_edit` so that what is
//! not changed keeps its layout: which package an entry names, the dependency tables, and
//! additions to feature lists and inline tables in the style they are written in (one line,
//! or TOML 1.1's tables spread over lines).

use toml_edit::{Array, Item, Table, Value};

/// The package a dependency entry names: its `package` field, else the package cargo metadata
/// found behind the key (`renamed`), else the key itself.
pub fn package_of(key: &str, item: &Item, renamed: &[(String, String)]) -> String {
    let field = (item.as_table_like())
        .and_then(|t| t.get("package"))
        .and_then(Item::as_str);
    match field {
        Some(package) => package.to_string(),
        None => (renamed.iter())
            .find(|(k, _)| k == key)
            .map_or_else(|| key.to_string(), |(_, package)| package.clone()),
    }
}

pub fn workspace_dependencies(root: &Table) -> Option<&dyn toml_edit::TableLike> {
    root.get("workspace")
        .and_then(Item::as_table_like)
        .and_then(|w| w.get("dependencies"))
        .and_then(Item::as_table_like)
}

/// The `features` list of a dependency entry, made where it has none: `x = "0.22"` becomes
/// an inline table that can carry one (its comment stays after it), and in a table of its
/// own (`[dependencies.x]`) what ended the last value's line ends the new key's instead.
pub fn feature_list_mut(item: &mut Item) -> Option<&mut Array> {
    if let Some(Value::String(version)) = item.as_value() {
        let decor = version.decor().clone();
        let mut bare = version.clone();
        *bare.decor_mut() = toml_edit::Decor::default();
        let mut inline = toml_edit::InlineTable::new();
        inline.insert("version", Value::String(bare));
        let mut value = Value::InlineTable(inline);
        *value.decor_mut() = decor;
        *item = Item::Value(value);
    }
    if let Some(inline) = item.as_inline_table_mut() {
        if !inline.contains_key("features") {
            push_inline_key(inline, "features", Value::Array(Array::new()));
        }
    }
    let dep = item.as_table_like_mut()?;
    if dep.get("features").is_none() {
        let trailing = dep.iter_mut().last().and_then(|(_, last)| {
            let value = last.as_value_mut()?;
            let suffix = value.decor().suffix().cloned();
            value.decor_mut().set_suffix("");
            suffix
        });
        dep.insert("features", toml_edit::value(Array::new()));
        if let (Some(suffix), Some(features)) = (
            trailing,
            dep.get_mut("features").and_then(Item::as_value_mut),
        ) {
            features.decor_mut().set_suffix(suffix);
        }
    }
    dep.get_mut("features").and_then(Item::as_array_mut)
}

pub fn is_optional(entry: &Item) -> bool {
    entry
        .as_table_like()
        .and_then(|d| d.get("optional"))
        .and_then(Item::as_bool)
        .unwrap_or(false)
}

/// Appends `key = value` to an inline table in the table's own style: the space before the
/// closing brace (`{ workspace = true }`) stays before the brace, not before the new comma.
/// In a table spread over lines (TOML 1.1) the new key gets a line of its own
/// (`own_line`).
fn push_inline_key(table: &mut toml_edit::InlineTable, key: &str, mut value: Value) {
    let indent = table
        .iter()
        .last()
        .and_then(|(last, _)| table.key(last))
        .and_then(|last| line_indent(last.leaf_decor().prefix()));
    let suffix = table.iter_mut().last().and_then(|(_, last)| {
        let suffix = last.decor().suffix().cloned();
        last.decor_mut().set_suffix("");
        suffix
    });
    let Some(indent) = indent else {
        if let Some(suffix) = suffix {
            value.decor_mut().set_suffix(suffix);
        }
        table.insert(key, value);
        return;
    };
    let suffix = suffix.as_ref().and_then(|s| s.as_str()).unwrap_or_default();
    let key_prefix = if table.trailing_comma() {
        let trailing = table.trailing().as_str().unwrap_or_default().to_string();
        let (prefix, after) = own_line(&trailing, &indent);
        table.set_trailing(after);
        // Space between the last value and its comma stays there; the new value's comma
        // follows it directly.
        if let Some((_, last)) = table.iter_mut().last() {
            last.decor_mut().set_suffix(suffix);
        }
        value.decor_mut().set_suffix("");
        prefix
    } else {
        let (prefix, after) = own_line(suffix, &indent);
        value.decor_mut().set_suffix(after);
        prefix
    };
    table.insert(key, value);
    if let Some(mut new_key) = table.key_mut(key) {
        new_key.leaf_decor_mut().set_prefix(key_prefix);
    }
}

/// Appends `value` to `array`; in an array of one element a line, on a line of its own
/// (`own_line`).
pub fn push_keeping_layout(array: &mut Array, value: impl Into<Value>) {
    let mut value = value.into();
    let Some(indent) = array
        .iter()
        .last()
        .and_then(|l| line_indent(l.decor().prefix()))
    else {
        array.push(value);
        return;
    };
    let prefix = if array.trailing_comma() {
        let trailing = array.trailing().as_str().unwrap_or_default().to_string();
        let (prefix, after) = own_line(&trailing, &indent);
        array.set_trailing(after);
        prefix
    } else {
        let last = array.len() - 1;
        let suffix = (array.get_mut(last))
            .and_then(|l| {
                let suffix = l.decor().suffix()?.as_str()?.to_string();
                l.decor_mut().set_suffix("");
                Some(suffix)
            })
            .unwrap_or_default();
        let (prefix, after) = own_line(&suffix, &indent);
        value.decor_mut().set_suffix(after);
        prefix
    };
    value.decor_mut().set_prefix(prefix);
    array.push_formatted(value);
}

/// The indentation of an element of a list spread over lines (its prefix ends in a line
/// break and spaces); `None` for an element on the line of the one before.
fn line_indent(prefix: Option<&toml_edit::RawString>) -> Option<String> {
    let prefix = prefix?.as_str()?;
    Some(prefix[prefix.rfind('\n')? + 1..].to_string())
}

/// A new last element for a list spread over lines: what followed the old last element
/// (`end`: ` # comment\n` then the indentation of the closing bracket; after its comma where
/// the list has a trailing one) is cut at its last line break. The part before stays on the
/// old element's line, after the comma that now follows it; the new element starts the next
/// line, indented as `indent`; the rest closes the list after it. Returns the new element's
/// prefix and what follows it.
fn own_line(end: &str, indent: &str) -> (String, String) {
    match end.rfind('\n') {
        Some(at) => (format!("{}\n{indent}", &end[..at]), end[at..].to_string()),
        None => (format!("\n{indent}"), end.to_string()),
    }
}

const DEPENDENCY_KINDS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];

/// The package-level dependency tables of a manifest (not `[workspace.dependencies]`): each
/// kind, then each target's.
pub fn dependency_tables(root: &Table) -> Vec<&dyn toml_edit::TableLike> {
    let mut tables = kinds_of(root);
    if let Some(targets) = root.get("target").and_then(Item::as_table_like) {
        for (_, target) in targets.iter() {
            tables.extend(target.as_table_like().map(kinds_of).unwrap_or_default());
        }
    }
    tables
}

/// The dependency tables directly in `table` (a package's, or a target's).
fn kinds_of(table: &dyn toml_edit::TableLike) -> Vec<&dyn toml_edit::TableLike> {
    (DEPENDENCY_KINDS.iter())
        .filter_map(|k| table.get(k).and_then(Item::as_table_like))
        .collect()
}

/// `f` on each table `dependency_tables` gives, in that order, mutably.
pub fn for_each_dependency_table_mut(
    root: &mut Table,
    mut f: impl FnMut(&mut dyn toml_edit::TableLike),
) {
    for kind in DEPENDENCY_KINDS {
        if let Some(table) = root.get_mut(kind).and_then(Item::as_table_like_mut) {
            f(table);
        }
    }
    if let Some(targets) = root.get_mut("target").and_then(Item::as_table_like_mut) {
        for (_, target) in targets.iter_mut() {
            for kind in DEPENDENCY_KINDS {
                if let Some(table) = (target.as_table_like_mut())
                    .and_then(|t| t.get_mut(kind))
                    .and_then(Item::as_table_like_mut)
                {
                    f(table);
                }
            }
        }
    }
}
