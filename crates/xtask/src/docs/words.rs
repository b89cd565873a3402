//! The shell-like word splitter: a `console` block's command read as a
//! shell would read it, without a shell.

/// Splits a command into words as a POSIX shell would, for the little a
/// doc example needs: blanks separate words, `'...'` is literal, `"..."`
/// keeps `\"` and `\\`, `\` outside quotes takes the next character as it
/// is, and a `#` that starts a word starts a comment. What only a shell
/// could do is refused, since no shell runs the command.
pub(super) fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '#' if !in_word => break,
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("a `'` quote is not closed".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("a `\"` quote is not closed".into()),
                        },
                        Some(c @ ('$' | '`')) => {
                            return Err(format!(
                                "`{c}` inside double quotes expands in a shell; use single quotes"
                            ))
                        }
                        Some(c) => word.push(c),
                        None => return Err("a `\"` quote is not closed".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("a `\\` ends the line: write each command on one line".into()),
                }
            }
            '|' | '&' | ';' | '<' | '>' | '(' | ')' | '$' | '`' | '*' | '?' | '[' | '{' | '}' | '~' => {
                return Err(format!(
                    "an unquoted `{c}` means something to a shell, and no shell runs here; quote it \
                     (pipes and redirections belong in an `sh` block)"
                ))
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        split_words(line).unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    #[test]
    fn words_split_as_a_shell_splits_them() {
        assert_eq!(words("lbsim run  --seed 7"), ["lbsim", "run", "--seed", "7"]);
        assert_eq!(
            words("lbsim run --url 'http://x/#v=1&seed=7' --names \"a b\",c"),
            ["lbsim", "run", "--url", "http://x/#v=1&seed=7", "--names", "a b,c"]
        );
        // Quotes join with what touches them; inside single quotes nothing
        // is special, inside double quotes `\"` and `\\` are.
        assert_eq!(
            words(r#"lbsim x 'it'"s" "a\"b\\c" 'd\e' f\ g"#),
            ["lbsim", "x", "its", "a\"b\\c", "d\\e", "f g"]
        );
        assert_eq!(words("lbsim x ''"), ["lbsim", "x", ""]);
        // A `#` that starts a word starts a comment; inside a word it is text.
        assert_eq!(
            words("lbsim url --base http://h/#x  # the link"),
            ["lbsim", "url", "--base", "http://h/#x"]
        );
    }

    #[test]
    fn what_only_a_shell_could_do_is_refused() {
        for line in [
            "lbsim run | head",
            "lbsim run > out",
            "lbsim run --seed $SEED",
            "lbsim run --key-format user-{i}",
            "lbsim run 'open",
            "lbsim run \"open",
            "lbsim run \"$HOME\"",
            "lbsim run \\",
        ] {
            assert!(split_words(line).is_err(), "{line}");
        }
    }
}
