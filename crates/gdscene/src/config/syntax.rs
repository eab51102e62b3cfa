//! Lossless syntax tree of a ConfigFile-format file (`grammar/config.pest`).
//!
//! Decides how a file splits into a head (lines before the first `[section]`) and
//! sections, each a list of items (blank line, comment, `key=value` entry, `.uid` line)
//! with the byte span of each; the spans tile the text, so [`Document::print`] gives the
//! bytes back exactly. What a value means is left to `crate::value` (parsed on demand from
//! an entry's value span); what the sections mean is [`super::model`]'s.

use pest::Parser;
use std::ops::Range;

/// The pest parser and its generated `Rule`s, kept private: the grammar is how this
/// module reads, not part of what it offers.
mod grammar {
    #![allow(missing_docs)]
    /// The pest parser: the scene grammar (for `value`) plus the ConfigFile line grammar.
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/tscn.pest"]
    #[grammar = "../grammar/config.pest"]
    pub(crate) struct ConfigParser;
}
pub(crate) use grammar::{ConfigParser, Rule};

/// Deepest `[ { (` nesting accepted before pest (which recurses) runs.
const MAX_DEPTH: usize = crate::value::MAX_DEPTH;

/// A parse error: where (1-based line and column) and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// What the parser expected, in words.
    pub expected: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: expected {}",
            self.line, self.column, self.expected
        )
    }
}

impl std::error::Error for ConfigError {}

/// What one item of a section (or of the head) is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemKind {
    /// An empty line (spaces allowed).
    Blank,
    /// A whole-line `;` or `#` comment.
    Comment,
    /// A `key=value` entry (its lines, the value may span several).
    Entry(Entry),
    /// The `uid://...` line of a `.uid` sidecar.
    Uid(String),
}

/// One item with the bytes it covers, its line ending included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Byte span in the document text.
    pub span: Range<usize>,
    /// What it is.
    pub kind: ItemKind,
}

/// A `key=value` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The key as Godot reads it (quotes decoded, chars <= 0x20 of a bare key dropped).
    pub key: String,
    /// The value's text span.
    pub value: Range<usize>,
    /// 1-based line of the key.
    pub line: usize,
}

/// A `[section]` with the items up to the next one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The name between the brackets, as written.
    pub name: String,
    /// Span of the header line.
    pub header: Range<usize>,
    /// 1-based line of the header.
    pub line: usize,
    /// The items after the header.
    pub items: Vec<Item>,
    /// Each key's last entry, as an index into `items`: the engine keeps the last of a
    /// repeated key, and a lookup must not scan (a hostile file may hold many keys).
    pub keys: KeyIndex,
}

/// A key's last entry as an index into its section's items.
pub type KeyIndex = std::collections::BTreeMap<String, usize>;

/// The index of `items`' keys (the last of a repeated key wins).
fn key_index(items: &[Item]) -> KeyIndex {
    let mut keys = KeyIndex::new();
    for (i, item) in items.iter().enumerate() {
        if let ItemKind::Entry(e) = &item.kind {
            keys.insert(e.key.clone(), i);
        }
    }
    keys
}

/// A parsed file: its text, the head and the sections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// The whole text.
    pub text: String,
    /// Items before the first section (`config_version=5`, the editor's comment block).
    pub head: Vec<Item>,
    /// Sections in file order.
    pub sections: Vec<Section>,
    /// The head's keys, as [`Section::keys`].
    pub head_keys: KeyIndex,
    /// Each section name's last section, as an index into `sections`.
    pub section_index: KeyIndex,
}

impl Document {
    /// Parse a ConfigFile-format text (or a `.uid` sidecar).
    pub fn parse(text: &str) -> Result<Document, ConfigError> {
        check_depth(text).map_err(|at| error_at(text, at, "nesting no deeper than 128 levels"))?;
        let file = ConfigParser::parse(Rule::cfg_file, text)
            .map_err(|e| from_pest(text, e))?
            .next()
            .ok_or_else(|| error_at(text, 0, "a file"))?;
        let mut doc = Document {
            text: text.to_string(),
            head: Vec::new(),
            sections: Vec::new(),
            head_keys: KeyIndex::new(),
            section_index: KeyIndex::new(),
        };
        let mut line = 1usize;
        let mut last = 0usize;
        for p in file.into_inner().flat_map(flatten_uid_file) {
            let span = p.as_span().start()..p.as_span().end();
            if span.start != last {
                return Err(error_at(text, last, "a whole line"));
            }
            let this_line = line;
            line += text[span.clone()].matches('\n').count();
            last = span.end;
            let kind = match p.as_rule() {
                Rule::cfg_blank => ItemKind::Blank,
                Rule::cfg_comment => ItemKind::Comment,
                Rule::cfg_uid => ItemKind::Uid(first_inner(p).unwrap_or_default()),
                Rule::cfg_entry => ItemKind::Entry(entry(p, text, this_line)?),
                Rule::cfg_section => {
                    doc.sections.push(Section {
                        name: first_inner(p).unwrap_or_default(),
                        header: span,
                        line: this_line,
                        items: Vec::new(),
                        keys: KeyIndex::new(),
                    });
                    continue;
                }
                _ => continue,
            };
            let item = Item { span, kind };
            match doc.sections.last_mut() {
                Some(s) => s.items.push(item),
                None => doc.head.push(item),
            }
        }
        if last != text.len() {
            return Err(error_at(text, last, "a whole line"));
        }
        doc.head_keys = key_index(&doc.head);
        for (i, sec) in doc.sections.iter_mut().enumerate() {
            sec.keys = key_index(&sec.items);
            doc.section_index.insert(sec.name.clone(), i);
        }
        Ok(doc)
    }

    /// The text, rebuilt from the spans (equal to the parsed text: a round-trip check).
    pub fn print(&self) -> String {
        let mut out = String::with_capacity(self.text.len());
        for i in &self.head {
            out.push_str(&self.text[i.span.clone()]);
        }
        for s in &self.sections {
            out.push_str(&self.text[s.header.clone()]);
            for i in &s.items {
                out.push_str(&self.text[i.span.clone()]);
            }
        }
        out
    }

    /// The text of a span.
    pub fn slice(&self, r: &Range<usize>) -> &str {
        &self.text[r.clone()]
    }

    /// Whether lines end in CRLF (judged from the first line ending).
    pub fn crlf(&self) -> bool {
        self.text
            .find('\n')
            .is_some_and(|p| p > 0 && self.text.as_bytes()[p - 1] == b'\r')
    }
}

/// A `.uid` file's pair holds its lines: hand them out one by one like the others.
fn flatten_uid_file(p: pest::iterators::Pair<'_, Rule>) -> Vec<pest::iterators::Pair<'_, Rule>> {
    match p.as_rule() {
        Rule::cfg_uid_file => p.into_inner().collect(),
        _ => vec![p],
    }
}

fn first_inner(p: pest::iterators::Pair<'_, Rule>) -> Option<String> {
    p.into_inner().next().map(|x| x.as_str().to_string())
}

fn entry(
    p: pest::iterators::Pair<'_, Rule>,
    text: &str,
    line: usize,
) -> Result<Entry, ConfigError> {
    let mut key = String::new();
    let mut value = 0..0;
    for part in p.into_inner() {
        match part.as_rule() {
            Rule::cfg_key => {
                let k = part.into_inner().next();
                key = match k {
                    Some(k) if k.as_rule() == Rule::string => match crate::value::parse(k.as_str())
                    {
                        Ok(crate::value::Value::String(s)) => s,
                        _ => return Err(error_at(text, k.as_span().start(), "a valid quoted key")),
                    },
                    Some(k) => k.as_str().chars().filter(|&c| c > ' ').collect(),
                    None => String::new(),
                };
            }
            Rule::cfg_value => value = part.as_span().start()..part.as_span().end(),
            _ => {}
        }
    }
    Ok(Entry { key, value, line })
}

/// Line and column (1-based, in characters) of a byte offset.
pub fn line_col(text: &str, at: usize) -> (usize, usize) {
    let at = at.min(text.len());
    let at = (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before[before.rfind('\n').map_or(0, |p| p + 1)..]
        .chars()
        .count()
        + 1;
    (line, col)
}

fn error_at(text: &str, at: usize, expected: &str) -> ConfigError {
    let (line, column) = line_col(text, at);
    ConfigError {
        line,
        column,
        expected: expected.to_string(),
    }
}

fn rule_name(r: &Rule) -> &'static str {
    match r {
        Rule::EOI => "end of file",
        Rule::cfg_section | Rule::cfg_section_name => "`[section]`",
        Rule::cfg_entry | Rule::cfg_key | Rule::cfg_bare_key => "`key=value`",
        Rule::cfg_blank | Rule::cfg_comment => "a line",
        Rule::cfg_value | Rule::value => "a value",
        Rule::string => "a string",
        Rule::number => "a number",
        Rule::array => "an array",
        Rule::dict => "a dictionary",
        Rule::pair => "`key: value`",
        Rule::object => "Object(...)",
        Rule::ctor => "a constructor",
        Rule::packed => "a packed array",
        Rule::ident => "an identifier",
        _ => "valid syntax",
    }
}

fn from_pest(text: &str, e: pest::error::Error<Rule>) -> ConfigError {
    let at = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let expected = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } if !positives.is_empty() => {
            let mut names: Vec<&str> = positives.iter().map(rule_name).collect();
            names.sort_unstable();
            names.dedup();
            names.join(" or ")
        }
        pest::error::ErrorVariant::CustomError { message } => message.clone(),
        _ => "valid syntax".to_string(),
    };
    error_at(text, at, &expected)
}

/// Reject nesting deeper than [`MAX_DEPTH`] (string- and comment-aware); the offset of the
/// first bracket too deep. A copy of `value::parse::check_depth`, which is private there.
pub(crate) fn check_depth(text: &str) -> Result<(), usize> {
    let b = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += usize::from(b[i] == b'\\') + 1;
                }
            }
            b';' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'[' | b'{' | b'(' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(i);
                }
            }
            b']' | b'}' | b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_file_splits_into_head_and_sections_and_prints_back() {
        let t = "; Engine configuration file.\r\n\r\nconfig_version=5\r\n\r\n[application]\r\n\r\nconfig/name=\"X\"\r\nrun/main_scene=\"res://a.tscn\"  ; here\r\n\r\n[input]\r\n\r\njump={\r\n\"deadzone\": 0.5,\r\n\"events\": []\r\n}\r\n";
        let d = Document::parse(t).unwrap();
        assert_eq!(d.print(), t);
        assert_eq!(d.sections.len(), 2);
        assert_eq!(d.sections[0].name, "application");
        assert_eq!(d.sections[1].line, 10);
        let ItemKind::Entry(e) = &d.sections[1].items[1].kind else {
            panic!("entry expected")
        };
        assert_eq!(e.key, "jump");
        assert!(d.slice(&e.value).starts_with('{') && d.slice(&e.value).ends_with('}'));
        assert!(d.crlf());
    }

    #[test]
    fn quoted_keys_bare_keys_with_spaces_and_uid_files() {
        let d = Document::parse("[a]\n\"x y\"=1\nk k = 2").unwrap();
        let keys: Vec<_> = d.sections[0]
            .items
            .iter()
            .filter_map(|i| match &i.kind {
                ItemKind::Entry(e) => Some(e.key.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(keys, ["x y", "kk"]);
        let u = Document::parse("uid://abc123\n").unwrap();
        assert_eq!(u.head[0].kind, ItemKind::Uid("uid://abc123".into()));
    }

    #[test]
    fn errors_say_where_and_what() {
        let e = Document::parse("[a]\nkey=\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 5), "{e}");
        assert!(e.expected.contains("value"), "{e}");
        let e = Document::parse("[a]\nno equals here\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let deep = format!("k={}{}", "[".repeat(200), "]".repeat(200));
        assert!(Document::parse(&deep)
            .unwrap_err()
            .expected
            .contains("nesting"));
    }
}
