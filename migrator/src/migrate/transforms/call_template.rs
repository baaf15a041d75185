//! Argument templates of data rules (`args = ["{1}", "Box::new({0})"]`): the call's
//! original arguments put into a template in one pass over the template.
//!
//! One pass, because an argument is user text: a string literal like `"runs/{1}/model"` must
//! come out as written. Replacing placeholders one after another would read the text already
//! put in and fill its `{1}` with another argument (`"runs/&rec/model"`, which compiles and
//! saves somewhere else).

/// One original argument of the call.
pub struct Argument<'a> {
    /// The argument as written.
    pub text: &'a str,
    /// Whether it must be parenthesized to take a method call (`(a + b).f()`).
    pub needs_parens_as_receiver: bool,
}

/// `template` with each `{N}` replaced by argument `N`; a placeholder naming no argument,
/// and every other brace, stays as written. An argument followed by `.` in the template is
/// a receiver and is parenthesized when it needs to be.
pub fn fill(template: &str, arguments: &[Argument]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after_open = &rest[open + 1..];
        let digits = after_open
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after_open.len());
        let argument = (digits > 0 && after_open[digits..].starts_with('}'))
            .then(|| after_open[..digits].parse::<usize>().ok())
            .flatten()
            .and_then(|index| arguments.get(index));
        match argument {
            Some(argument) => {
                rest = &after_open[digits + 1..];
                if argument.needs_parens_as_receiver && rest.starts_with('.') {
                    out.push('(');
                    out.push_str(argument.text);
                    out.push(')');
                } else {
                    out.push_str(argument.text);
                }
            }
            None => {
                out.push('{');
                rest = after_open;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> Argument<'_> {
        Argument {
            text,
            needs_parens_as_receiver: false,
        }
    }

    #[test]
    fn placeholders_are_filled_and_other_braces_kept() {
        let sum = || Argument {
            text: "a + b",
            needs_parens_as_receiver: true,
        };
        assert_eq!(
            fill(
                "{1}.with_output_size({0}) {2} {x} {} {",
                &[plain("size"), sum()]
            ),
            "(a + b).with_output_size(size) {2} {x} {} {"
        );
        // Not a receiver: no parentheses.
        assert_eq!(fill("f({1})", &[plain("size"), sum()]), "f(a + b)");
    }

    #[test]
    fn arguments_that_look_like_placeholders_come_out_as_written() {
        let path = r#""runs/{1}/model""#;
        assert_eq!(
            fill("{0}", &[plain(path), plain("&rec")]),
            r#""runs/{1}/model""#
        );
    }

    /// Templates built from known pieces: literal text (with braces that are not placeholders)
    /// and placeholders, filled with arguments full of `{N}`, braces and `$`. The expected
    /// text is the pieces with each placeholder's argument, known by construction.
    #[test]
    fn any_template_is_its_pieces_with_the_arguments_in_place() {
        const ARGUMENT_BITS: [&str; 8] = ["{0}", "{1}", "{", "}", "$", "x", "\"s{2}\"", "{{}}"];
        const LITERAL_BITS: [&str; 7] = ["(", ")", ", ", "{", "}", "{x}", "Box::new"];
        let mut random = crate::util::test_random::numbers(0x7e57_a1a5);
        for _ in 0..5_000 {
            let arguments: Vec<String> = (0..1 + random(3))
                .map(|_| {
                    (0..random(5))
                        .map(|_| ARGUMENT_BITS[random(ARGUMENT_BITS.len())])
                        .collect()
                })
                .collect();
            let filled_in: Vec<Argument> = arguments.iter().map(|a| plain(a)).collect();
            let (mut template, mut expected) = (String::new(), String::new());
            for _ in 0..random(6) {
                if random(2) == 0 {
                    let index = random(arguments.len());
                    template.push_str(&format!("{{{index}}}"));
                    expected.push_str(&arguments[index]);
                } else {
                    // No literal bit starts with a digit, so a literal `{` never completes
                    // a placeholder: `{` then `{0}` is the brace, then the placeholder.
                    let literal = LITERAL_BITS[random(LITERAL_BITS.len())];
                    template.push_str(literal);
                    expected.push_str(literal);
                }
            }
            assert_eq!(
                fill(&template, &filled_in),
                expected,
                "template {template:?}"
            );
        }
    }
}
