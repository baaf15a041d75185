//! The rule registry `build.rs` generates from `rules/*.toml` (`RuleId`, one variant per
//! built-in rule, `TransformId`, one per transform a rule names, and `ModuleId`, one per module
//! a rule names), `RuleKey`, the id a finding carries, and `RuleHome`, what a module that
//! implements rules declares. It sits below the rule set and the backend table, which both
//! name rules.

use std::fmt;

use serde::{Deserialize, Serialize};

include!(concat!(env!("OUT_DIR"), "/rule_registry.rs"));

/// How far the tool may go on its own with a rule's matches (a rule file's `applicability`),
/// and with one fix (`edit::Fix`, where the rule's is the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Applied by `--apply`.
    Safe,
    /// Reported with guidance, never edited.
    Manual,
}

impl fmt::Display for Applicability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Applicability::Safe => "safe",
            Applicability::Manual => "manual",
        })
    }
}

/// What a rule's findings mean for the port (a rule file's `severity`): whether a site left as
/// it is keeps the port from compiling, or compiles and may behave differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// The port does not compile under Burn 0.22 until the site is ported (a removed item, a
    /// changed signature; or a change other rules' edits need, such as a Cargo feature).
    Error,
    /// The port compiles with the site as it is, but may behave differently from 0.21 (NaN
    /// propagation, another default device, deprecated items that warn).
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// What a module of the migrate wing that implements rules outside the transforms declares
/// (its `HOME`), as a transform declares its facts in its descriptor: the rules whose findings
/// it makes, exactly those whose file names it (`module = ".."`; a test checks both ways).
#[derive(Debug, Clone, Copy)]
pub struct RuleHome {
    pub module: ModuleId,
    pub emits: &'static [RuleId],
}

impl RuleId {
    /// The built-in rule with this id, if there is one.
    pub fn from_id(id: &str) -> Option<RuleId> {
        RuleId::ALL.iter().copied().find(|r| r.as_str() == id)
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A data rule from a user's rule file (`--rules DIR`): its interned id and its file's
/// applicability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UserRule {
    pub id: &'static str,
    pub applicability: Applicability,
}

/// The rule a change or finding belongs to: a built-in rule, or a data rule from a user's
/// rule file, which has no `RuleId`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleKey {
    Builtin(RuleId),
    User(UserRule),
    /// Edits the tool makes for its own purposes in a scratch copy (verify moving devices,
    /// adding the memory watch, applying rustc's suggestions): no rule file declares them.
    Tool(&'static str),
}

impl RuleKey {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKey::Builtin(id) => id.as_str(),
            RuleKey::User(rule) => rule.id,
            RuleKey::Tool(id) => id,
        }
    }

    /// The rule file's applicability: how far `--apply` goes with the rule's fixes unless the
    /// code that makes a fix says otherwise (`edit::Change::with_applicability`). The tool's
    /// own edits in its scratch copies are safe.
    pub fn applicability(self) -> Applicability {
        match self {
            RuleKey::Builtin(id) => id.applicability(),
            RuleKey::User(rule) => rule.applicability,
            RuleKey::Tool(_) => Applicability::Safe,
        }
    }

    /// The built-in rule, unless this is a user's data rule.
    pub fn builtin(self) -> Option<RuleId> {
        match self {
            RuleKey::Builtin(id) => Some(id),
            RuleKey::User(_) | RuleKey::Tool(_) => None,
        }
    }
}

impl From<RuleId> for RuleKey {
    fn from(id: RuleId) -> Self {
        RuleKey::Builtin(id)
    }
}

/// Reports list rules by id, whichever kind they are.
impl Ord for RuleKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for RuleKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq<RuleId> for RuleKey {
    fn eq(&self, other: &RuleId) -> bool {
        *self == RuleKey::Builtin(*other)
    }
}

/// Comparing with a written id (a suppression comment, a rule file's `id`).
impl PartialEq<str> for RuleKey {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<String> for RuleKey {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl fmt::Display for RuleKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Placeholder until `RuleSet::add` sets the real key.
pub(crate) fn unset_rule() -> RuleKey {
    RuleKey::Tool("")
}
