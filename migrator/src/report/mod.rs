//! The report wing: what people and tools read. [`emit`] renders migration reports (diffs,
//! diagnostics, JSON), [`book`] generates the guide from the rules, [`progress`] shows the
//! steps of long commands; [`verify`] renders what each command found.

pub mod book;
pub mod emit;
pub mod progress;
pub mod verify;
