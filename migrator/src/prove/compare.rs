//! Compares what two runs of a program printed: the same words in the same order, and the
//! same numbers within a tolerance (Burn 0.21 on NdArray and 0.22 on Flex round differently
//! in the last bits). Where a printed tensor ran is no result: the port runs on another device
//! by design, so the `device:` and `backend:` lines of Burn's tensor `Display` are left out.

/// One piece of printed output.
#[derive(Debug, Clone, PartialEq)]
enum Token<'a> {
    Number(f64, &'a str),
    Text(&'a str),
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let starts_number = c.is_ascii_digit()
            || (c == b'-'
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
                && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()));
        if starts_number {
            let start = i;
            i += 1;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
                let mut j = i + 1;
                if j < bytes.len() && (bytes[j] == b'-' || bytes[j] == b'+') {
                    j += 1;
                }
                if j < bytes.len() && bytes[j].is_ascii_digit() {
                    i = j;
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let literal = text[start..i].trim_end_matches('.');
            match literal.parse::<f64>() {
                Ok(value) => out.push(Token::Number(value, literal)),
                Err(_) => out.push(Token::Text(literal)),
            }
            continue;
        }
        let start = i;
        while i < bytes.len()
            && !bytes[i].is_ascii_whitespace()
            && !bytes[i].is_ascii_digit()
            && bytes[i] != b'-'
        {
            i += 1;
        }
        if i == start {
            i += 1;
        }
        out.push(Token::Text(&text[start..i]));
    }
    out
}

/// Tolerances for numbers: equal when `|a - b| <= atol + rtol * |a|`.
#[derive(Debug, Clone, Copy)]
pub struct Tolerance {
    pub atol: f64,
    pub rtol: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance {
            atol: 1e-4,
            rtol: 1e-4,
        }
    }
}

/// `text` without the placement lines of the tensors it prints. Burn's `Display` of a tensor
/// (`Tensor {`, then two-space-indented fields, then `}`) writes `  device:  {:?},` (0.21:
/// `Cpu`; 0.22: `Device<Flex(Cpu)>`) and, in 0.21 only, `  backend:  {:?},` (burn-tensor
/// 0.21.0 and 0.22.1, `src/tensor/api/base.rs`). Data, shape, kind and dtype stay compared.
fn without_tensor_placement(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tensor = false;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end();
        if content.ends_with("Tensor {") {
            in_tensor = true;
        } else if in_tensor && content == "}" {
            in_tensor = false;
        } else if in_tensor
            && (content.starts_with("  device:  ") || content.starts_with("  backend:  "))
        {
            continue;
        }
        out.push_str(line);
    }
    out
}

/// `None` when the outputs agree; otherwise the first difference, in words (token numbers
/// count without the tensors' placement lines).
pub fn first_difference(expected: &str, actual: &str, tolerance: Tolerance) -> Option<String> {
    let (expected, actual) = (
        without_tensor_placement(expected),
        without_tensor_placement(actual),
    );
    let (left, right) = (tokens(&expected), tokens(&actual));
    for (index, pair) in left.iter().zip(&right).enumerate() {
        match pair {
            (Token::Number(a, a_text), Token::Number(b, b_text)) => {
                if (a - b).abs() > tolerance.atol + tolerance.rtol * a.abs() {
                    return Some(format!("token {index}: number {a_text} became {b_text}"));
                }
            }
            (Token::Text(a), Token::Text(b)) if a == b => {}
            (a, b) => {
                return Some(format!(
                    "token {index}: {} became {}",
                    describe(a),
                    describe(b)
                ))
            }
        }
    }
    if left.len() != right.len() {
        return Some(format!("{} tokens became {}", left.len(), right.len()));
    }
    None
}

fn describe(token: &Token) -> String {
    match token {
        Token::Number(_, text) => format!("number {text}"),
        Token::Text(text) => format!("`{text}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_within_tolerance_agree() {
        let t = Tolerance::default();
        assert_eq!(
            first_difference("loss 0.123456 step 3", "loss 0.12346 step 3", t),
            None
        );
        assert_eq!(first_difference("x=-1.5e-3,", "x=-1.50001e-3,", t), None);
    }

    #[test]
    fn numbers_outside_tolerance_differ() {
        let diff = first_difference("loss 0.1234", "loss 0.1300", Tolerance::default()).unwrap();
        assert!(diff.contains("0.1234") && diff.contains("0.1300"), "{diff}");
    }

    #[test]
    fn words_and_lengths_must_match() {
        let t = Tolerance::default();
        assert!(first_difference("epoch 1 ok", "epoch 1 failed", t).is_some());
        assert!(first_difference("a 1 b 2", "a 1 b", t).is_some());
        assert!(first_difference("3/9", "4/9", t).is_some());
        assert_eq!(first_difference("accuracy 8/9", "accuracy 8/9", t), None);
    }

    #[test]
    fn where_a_printed_tensor_ran_is_not_compared_but_its_values_are() {
        let t = Tolerance::default();
        let old = "x = Tensor {\n  data:\n[1.0, 2.0],\n  shape:  [2],\n  device:  Cpu,\n  backend:  \"ndarray\",\n  kind:  \"Float\",\n  dtype:  \"f32\",\n}\n";
        let new = "x = Tensor {\n  data:\n[1.0, 2.0],\n  shape:  [2],\n  device:  Device<Flex(Cpu)>,\n  kind:  \"Float\",\n  dtype:  \"f32\",\n}\n";
        assert_eq!(first_difference(old, new, t), None);
        let other_values = new.replace("2.0", "3.0");
        assert!(first_difference(old, &other_values, t).is_some());
        let other_dtype = new.replace("f32", "f16");
        assert!(first_difference(old, &other_dtype, t).is_some());
        // Outside a tensor, a `device:` line is the program's own output.
        assert!(first_difference("  device:  Cpu,\n", "  device:  Gpu,\n", t).is_some());
    }
}
