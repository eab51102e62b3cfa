//! Line by line, as the engine's reader sees a line: whether a `"` string runs on past
//! it (strings may span lines) and where a `;` comment starts. The splitter reads
//! whole files; this is for those who look at one line at a time without a tree
//! (conflict markers in `solve` and `check`, the ConfigFile check).

/// Whether a `"` string is still open at the end of `line`, given whether one was open at
/// its start (`\"` escapes; a `;` outside a string starts a comment, as the parser reads
/// it). A marker is a marker only where a section or property could start: at the start
/// of a line outside any string.
pub fn string_open_after(line: &[u8], mut open: bool) -> bool {
    let mut i = 0;
    while i < line.len() {
        match line[i] {
            b'\\' if open => i += 1,
            b'"' => open = !open,
            b';' if !open => return false,
            _ => {}
        }
        i += 1;
    }
    open
}
