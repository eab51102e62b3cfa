//! The marks a two-way line diff leaves: which lines of one file are changed. Written by
//! [`super::prepare`] and [`super::myers`] (or `similar`), slid by [`super::compact`],
//! read into changes by [`super::diff`]; this file only holds the marks.

/// Changed-line flags with a `false` sentinel on each side: `r[i + 1]` is line `i`.
pub(super) struct Rchg(Vec<bool>);

impl Rchg {
    /// Number of lines (sentinels not counted).
    pub(super) fn lines(&self) -> usize {
        self.0.len().saturating_sub(2)
    }
    pub(super) fn new(n: usize) -> Self {
        Rchg(vec![false; n + 2])
    }
    /// Is line `i` changed (`i` may be -1 or n: sentinels).
    pub(super) fn get(&self, i: isize) -> bool {
        usize::try_from(i + 1)
            .ok()
            .and_then(|k| self.0.get(k))
            .copied()
            .unwrap_or(false)
    }
    pub(super) fn set(&mut self, i: usize, v: bool) {
        if let Some(x) = self.0.get_mut(i + 1) {
            *x = v;
        }
    }
}
