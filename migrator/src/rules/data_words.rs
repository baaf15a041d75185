//! The words a data rule needs written: each rule finds only what spells one of its words
//! (`DataRule::words`), so the data rules step runs a rule only on a file whose text holds one.
//! One automaton over the words of every rule reads a file once, where a search per word
//! would read it a hundred times.

use aho_corasick::AhoCorasick;

#[derive(Debug, Clone)]
pub struct DataRuleWords {
    /// Over every word of every rule; `None` when no rule has words.
    automaton: Option<AhoCorasick>,
    /// For each word of the automaton, the rules (by their place among the data rules) that
    /// have it.
    rules_of_word: Vec<Vec<usize>>,
    /// Rules that may find something whatever the text (`DataRule::words` is `None`).
    unfiltered: Vec<usize>,
    rule_count: usize,
}

impl DataRuleWords {
    /// From each rule's words (`DataRule::words`), in the order of the data rules.
    pub fn new<'w>(rules: impl Iterator<Item = Option<Vec<&'w str>>>) -> Self {
        let mut words: Vec<&str> = Vec::new();
        let mut rules_of_word: Vec<Vec<usize>> = Vec::new();
        let mut unfiltered = Vec::new();
        let mut rule_count = 0;
        for (rule, rule_words) in rules.enumerate() {
            rule_count += 1;
            let Some(rule_words) = rule_words else {
                unfiltered.push(rule);
                continue;
            };
            for word in rule_words {
                match words.iter().position(|w| *w == word) {
                    Some(at) => rules_of_word[at].push(rule),
                    None => {
                        words.push(word);
                        rules_of_word.push(vec![rule]);
                    }
                }
            }
        }
        // Words are names from the rule files: an automaton over them cannot fail to build
        // short of a size limit, and then every rule runs.
        // A DFA: it reads a file fastest, and a hundred short words make a small one.
        let automaton = (!words.is_empty())
            .then(|| {
                AhoCorasick::builder()
                    .kind(Some(aho_corasick::AhoCorasickKind::DFA))
                    .build(&words)
                    .or_else(|_| AhoCorasick::new(&words))
                    .ok()
            })
            .flatten();
        if automaton.is_none() && !words.is_empty() {
            unfiltered = (0..rule_count).collect();
        }
        DataRuleWords {
            automaton,
            rules_of_word,
            unfiltered,
            rule_count,
        }
    }

    /// For each data rule (in `RuleSet::data_rules` order), whether `text` holds one of its
    /// words: whether the rule may find anything in it.
    pub fn may_match(&self, text: &str) -> Vec<bool> {
        let mut may = vec![false; self.rule_count];
        for &rule in &self.unfiltered {
            may[rule] = true;
        }
        if let Some(automaton) = &self.automaton {
            // Overlapping: a word inside another (`Record` in `ModelRecord`) counts too.
            for found in automaton.find_overlapping_iter(text) {
                for &rule in &self.rules_of_word[found.pattern().as_usize()] {
                    may[rule] = true;
                }
            }
        }
        may
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_may_match_where_one_of_its_words_is_written() {
        let rules = [
            Some(vec!["Recorder"]),
            Some(vec!["metric", "Old"]),
            Some(vec!["padding", "Recorder"]),
            None,
            Some(vec![]),
        ];
        let words = DataRuleWords::new(rules.into_iter());
        assert_eq!(
            words.may_match("use burn::record::FileRecorder;"),
            [true, false, true, true, false]
        );
        assert_eq!(
            words.may_match("x.padding + metric::Loss + Gone"),
            [false, true, true, true, false]
        );
        assert_eq!(words.may_match(""), [false, false, false, true, false]);
        let none = DataRuleWords::new([None, Some(vec![])].into_iter());
        assert_eq!(none.may_match("anything"), [true, false]);
    }
}
