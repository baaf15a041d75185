//! The report wing: what people and tools read. [`emit`] renders migration reports (diffs,
//! diagnostics, JSON), [`book`] generates the guide from the rules, [`progress`] shows the
//! steps of long commands. The renderers of the other commands: [`migrate`] (the flow of
//! `--check`, `--diff` and `--apply`), [`verify`], [`bench`] and [`probe`] (with `framework`).

pub mod bench;
pub mod book;
pub mod emit;
pub mod migrate;
pub mod probe;
pub mod progress;
pub mod verify;

/// How a command reports: for people, or as JSON for tools.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
}
