//! Stage 5, output: the text. Hunks whose parts depend on the side a person picks
//! (`parent=` spelled per side, subtrees and sub_resources carried inside a hunk), the
//! header, and the printer that writes every section with the result's ids, the text
//! with markers and the text with every conflict resolved to ours. Decides no merge
//! question; it writes what the earlier stages decided.

pub(super) mod carried;
pub(super) mod header;
pub(super) mod hunk_parts;
pub(super) mod print;
pub(super) mod spelling;
