//! The short conflict report on stderr: [`ConflictReport`], one per conflict, and the
//! shortening of a value to one line of it. The stages fill reports; the command line
//! prints them.

/// One conflict, for the short report on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictReport {
    /// The node, resource or section the conflict is in (`node "Player/Sprite"`).
    pub location: String,
    /// The property or field, when the conflict is about one.
    pub property: Option<String>,
    /// Base value (shortened), if any.
    pub base: Option<String>,
    /// Our value (shortened), if any.
    pub ours: Option<String>,
    /// Their value (shortened), if any.
    pub theirs: Option<String>,
}

/// Shorten a value for a one-line report.
pub fn shorten(s: &str, max: usize) -> String {
    // Words are joined only until the text is surely too long (more than `max` chars):
    // a value can be a million-line string.
    let mut one = String::new();
    for word in s.split_whitespace() {
        if one.len() > 4 * (max + 1) {
            break;
        }
        if !one.is_empty() {
            one.push(' ');
        }
        one.push_str(word);
    }
    if one.chars().count() <= max {
        one
    } else {
        let cut: String = one.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}
