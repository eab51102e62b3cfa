//! Escaping of text that comes from a repository (file paths, node names, values,
//! resource paths) for the places it is shown: a terminal, Markdown (a pull-request
//! comment), Mermaid labels, and HTML or SVG markup. Repositories are untrusted: a file named
//! ``a`|[x](y).tscn`` or a node named `\x1b[2J` must be shown, never obeyed.
//!
//! Decides only how a string is spelled; which strings are repository data is the
//! renderers' business (`text.rs`, `markdown.rs`).

use std::borrow::Cow;
use std::fmt::Write as _;

/// Characters a terminal or a browser would act on rather than show: C0/C1 controls,
/// DEL, and the invisible format characters that reorder or hide text (bidi overrides and
/// isolates, zero-width characters, the BOM).
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

/// `s` with every hidden character spelled out (`\n`, `\t`, `\x1b`, `\u{202e}`), so that
/// terminal output is exactly one line per line we print and no escape sequence runs.
pub fn visible(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_hidden) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x100 && is_hidden(c) => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if is_hidden(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// [`visible`] line by line: the line breaks of a message we compose (a parse error
/// followed by its source line and caret) stay, anything else hidden in each line is
/// spelled out. For stderr messages that quote repository text.
pub fn visible_lines(s: &str) -> String {
    s.split('\n').map(visible).collect::<Vec<_>>().join("\n")
}

/// An inline Markdown code span showing `s` literally: the fence is one backtick longer
/// than the longest run of backticks inside, hidden characters are spelled out (a line
/// break would end the span), and the content is padded when it starts or ends with a
/// backtick or a space. Inside a code span no link, emphasis or HTML is interpreted.
pub fn code(s: &str) -> String {
    let s = visible(s);
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    if s.is_empty() {
        return "` `".to_string();
    }
    let all_spaces = s.chars().all(|c| c == ' ');
    let pad = s.starts_with('`')
        || s.ends_with('`')
        || (s.starts_with(' ') && s.ends_with(' ') && !all_spaces);
    let sp = if pad { " " } else { "" };
    format!("{fence}{sp}{s}{sp}{fence}")
}

/// A code span for a GitHub table cell: as [`code`], with `|` written `\|` (the table
/// splits cells before it reads code spans, and puts `\|` back as `|`).
pub fn cell(s: &str) -> String {
    code(s).replace('|', "\\|")
}

/// Text for a quoted Mermaid label (`n1["..."]`): hidden characters spelled out first,
/// then every character that could end the label, start an entity, HTML or a Markdown
/// string, or end the statement (`"`, `#`, `&`, `<`, `>`, backtick, `\\`, `;`) written as
/// a `#NNN;` entity. Brackets and `|` are plain text inside the quotes.
pub fn mermaid(s: &str) -> String {
    let s = visible(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '"' | '#' | '&' | '<' | '>' | '`' | '\\' | ';') {
            let _ = write!(out, "#{};", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

/// `s` safe in HTML or SVG text and in quoted attribute values: the one spelling the
/// review page, the diff page and the scene pictures share.
pub fn markup(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_spells_out_controls_and_bidi() {
        assert_eq!(visible("plain é"), "plain é");
        assert!(matches!(visible("plain"), Cow::Borrowed(_)));
        assert_eq!(visible("a\x1b[31mb\n\u{7f}"), "a\\x1b[31mb\\n\\x7f");
        assert_eq!(visible("x\u{202e}y\u{9b}"), "x\\u{202e}y\\x9b");
    }

    #[test]
    fn code_spans_outlast_backticks() {
        assert_eq!(code("a.tscn"), "`a.tscn`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("``x"), "``` ``x ```");
        assert_eq!(code("x`"), "`` x` ``");
        assert_eq!(code(""), "` `");
        assert_eq!(code(" "), "` `");
        assert_eq!(code(" a "), "`  a  `");
        assert_eq!(code("a\nb"), "`a\\nb`");
    }

    #[test]
    fn cells_escape_pipes() {
        assert_eq!(cell("a|b`c"), "``a\\|b`c``");
    }

    #[test]
    fn mermaid_labels_are_entities() {
        assert_eq!(mermaid("Player (1) [x]|"), "Player (1) [x]|");
        assert_eq!(mermaid("a\"]b;"), "a#34;]b#59;");
        assert_eq!(mermaid("<b>#"), "#60;b#62;#35;");
        assert_eq!(mermaid("é\x1b"), "é#92;x1b");
    }
}
