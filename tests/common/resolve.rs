//! Resolving conflict markers the way a person does when picking a side per hunk
//! (`git checkout --ours/--theirs`, a GUI's "use mine/theirs"): every hunk replaced by
//! one side's part. Knows git's marker shapes only (any size, with or without a diff3
//! base part); what the merge puts inside a hunk is left to the merge.
#![allow(dead_code)]

/// Which part of every hunk to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Ours,
    Theirs,
}

/// Where a line is, while reading a text with markers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Outside,
    Ours,
    Base,
    Theirs,
}

/// A marker line of `size` characters `c`, alone or followed by a space and a label.
fn is_marker(line: &str, c: char, size: usize) -> bool {
    let body = line.trim_end_matches(['\n', '\r']);
    let run = body.chars().take_while(|&x| x == c).count();
    run == size && (body.len() == size || body[size..].starts_with(' '))
}

/// The size of an opening marker (`<<<<<<<` and longer), if `line` is one.
fn opening(line: &str) -> Option<usize> {
    let body = line.trim_end_matches(['\n', '\r']);
    let run = body.chars().take_while(|&x| x == '<').count();
    (run >= 7 && (body.len() == run || body[run..].starts_with(' '))).then_some(run)
}

/// `text` with every conflict hunk replaced by its `side` part.
pub fn resolve_all(text: &str, side: Side) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut part, mut size) = (Part::Outside, 0);
    for line in text.split_inclusive('\n') {
        part = match part {
            Part::Outside => match opening(line) {
                Some(n) => {
                    size = n;
                    Part::Ours
                }
                None => {
                    out.push_str(line);
                    Part::Outside
                }
            },
            _ if is_marker(line, '|', size) => Part::Base,
            _ if is_marker(line, '=', size) && part != Part::Theirs => Part::Theirs,
            Part::Theirs if is_marker(line, '>', size) => Part::Outside,
            p => {
                let keep = matches!(
                    (p, side),
                    (Part::Ours, Side::Ours) | (Part::Theirs, Side::Theirs)
                );
                if keep {
                    out.push_str(line);
                }
                p
            }
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_way_and_diff3_hunks_of_any_size() {
        let t = "a\n<<<<<<< ours\nO\n=======\nT\n>>>>>>> theirs\nb\n<<<<<<<<< x\nO2\n||||||||| base\nB\n=========\nT2\n>>>>>>>>> y\n";
        assert_eq!(resolve_all(t, Side::Ours), "a\nO\nb\nO2\n");
        assert_eq!(resolve_all(t, Side::Theirs), "a\nT\nb\nT2\n");
    }

    #[test]
    fn a_shorter_marker_inside_a_longer_hunk_is_content() {
        let t = "<<<<<<<<\n=======\n========\n>>>>>>>\n>>>>>>>>\n";
        assert_eq!(resolve_all(t, Side::Ours), "=======\n");
        assert_eq!(resolve_all(t, Side::Theirs), ">>>>>>>\n");
    }
}
