//! `--split-input-file` and `--verify-diagnostics`: the input cut into independent chunks at
//! `// -----` / `# -----` lines, and the `expected-error` annotations of each chunk, as mlir-opt
//! reads them.

/// One chunk of the input and the line (0-based) where it starts in the whole file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk<'a> {
    pub text: &'a str,
    pub first_line: u32,
}

/// Whether a line is a split marker.
fn is_split_marker(line: &str) -> bool {
    matches!(line.trim(), "// -----" | "# -----")
}

/// Cuts `text` at marker lines. Each chunk keeps the blank line count of its position so
/// positions inside it translate back with `first_line`.
pub fn split_input(text: &str) -> Vec<Chunk<'_>> {
    let mut chunks = Vec::new();
    let mut start = 0usize;
    let mut start_line = 0u32;
    let mut offset = 0usize;
    for (line_no, line) in text.split_inclusive('\n').enumerate() {
        if is_split_marker(line) {
            chunks.push(Chunk {
                text: &text[start..offset],
                first_line: start_line,
            });
            start = offset + line.len();
            start_line = line_no as u32 + 1;
        }
        offset += line.len();
    }
    chunks.push(Chunk {
        text: &text[start..],
        first_line: start_line,
    });
    chunks
}

/// An `expected-error` annotation: the message must be reported on `line` (1-based, within
/// the chunk).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    pub line: u32,
    pub message: String,
    /// Where the annotation itself is (1-based line within the chunk), for reporting.
    pub annotation_line: u32,
}

/// Reads the `expected-error` annotations of a chunk: `expected-error {{msg}}` (same line),
/// `@+N`, `@-N`, `@above`, `@below` (the next line that is not itself an annotation).
pub fn expected_errors(chunk: &str) -> Result<Vec<Expected>, (u32, String)> {
    let lines: Vec<&str> = chunk.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let here = i as u32 + 1;
        let Some(at) = line.find("expected-error") else {
            continue;
        };
        let rest = &line[at + "expected-error".len()..];
        let (target, rest) = if let Some(spec) = rest.trim_start().strip_prefix('@') {
            let end = spec
                .find(|c: char| c.is_whitespace() || c == '{')
                .unwrap_or(spec.len());
            let (offset, rest) = spec.split_at(end);
            let target = match offset {
                "above" => here.checked_sub(1),
                "below" => (i + 1..lines.len())
                    .find(|&j| !lines[j].contains("expected-error"))
                    .map(|j| j as u32 + 1),
                _ => offset
                    .parse::<i64>()
                    .ok()
                    .and_then(|d| u32::try_from(here as i64 + d).ok()),
            };
            match target {
                Some(t) if t >= 1 => (t, rest),
                _ => return Err((here, format!("bad expected-error location '@{offset}'"))),
            }
        } else {
            (here, rest)
        };
        let rest = rest.trim_start();
        let message = rest
            .strip_prefix("{{")
            .and_then(|m| m.find("}}").map(|end| m[..end].to_string()))
            .ok_or_else(|| {
                (
                    here,
                    "expected-error needs a message in {{...}}".to_string(),
                )
            })?;
        out.push(Expected {
            line: target,
            message,
            annotation_line: here,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_both_marker_styles() {
        let text = "a\nb\n// -----\nc\n# -----\nd\n";
        let chunks = split_input(text);
        assert_eq!(
            chunks,
            vec![
                Chunk {
                    text: "a\nb\n",
                    first_line: 0
                },
                Chunk {
                    text: "c\n",
                    first_line: 3
                },
                Chunk {
                    text: "d\n",
                    first_line: 5
                },
            ]
        );
        assert_eq!(
            split_input("x"),
            vec![Chunk {
                text: "x",
                first_line: 0
            }]
        );
    }

    #[test]
    fn reads_annotation_forms() {
        let chunk = "l1 # expected-error {{same}}\n# expected-error @+2 {{plus}}\n# expected-error @below {{below}}\nl4\nl5\n# expected-error @-5 {{minus}}\n";
        let e = expected_errors(chunk).unwrap();
        let got: Vec<(u32, &str)> = e.iter().map(|x| (x.line, x.message.as_str())).collect();
        assert_eq!(
            got,
            vec![(1, "same"), (4, "plus"), (4, "below"), (1, "minus")]
        );
        assert!(expected_errors("# expected-error @+x {{m}}").is_err());
        assert!(expected_errors("# expected-error nothing").is_err());
        assert!(expected_errors("# expected-error @-3 {{m}}").is_err());
    }
}
