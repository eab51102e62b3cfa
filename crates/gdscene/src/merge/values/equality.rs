//! Engine equality: whether two values are the same as Godot reads them (float
//! respellings, whitespace, and resource ids that name the same identity on both sides),
//! and the three-way pick built on it. What to do with the pick is left to the phases.

use crate::merge::shared::context::{pick3, Ctx, Pick};
use crate::merge::shared::sections::Src;
use crate::value::{parse, rewrite_refs_in_text, scan_refs_in_text, sem_eq_top, RefKind};

/// A value's text with whitespace between tokens collapsed to one space (and none at
/// the ends), as the engine reads it; whitespace inside a string is part of the value
/// and kept (a removed blank line in a multi-line string is a change).
fn squash(t: &str) -> String {
    if !t.contains('"') {
        return t.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    let mut out = String::with_capacity(t.len());
    let (mut in_str, mut escaped, mut gap) = (false, false, false);
    for c in t.chars() {
        if in_str {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
        } else if c.is_whitespace() {
            gap = true;
        } else {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
            in_str = c == '"';
            out.push(c);
        }
    }
    out
}

/// A value text longer than this is scanned for references once rather than searched
/// for each of several words (the answer is the same).
pub(in crate::merge) const LONG_TEXT: usize = 4096;

/// References [`Ctx::same_content`] reads before it gives up.
const CONTENT_BUDGET: usize = 4096;

impl<'a> Ctx<'a> {
    /// Normalized text (ids replaced by identities) for comparisons.
    pub(in crate::merge) fn norm(&self, s: &Src) -> String {
        let t = self.text(s);
        if !t.contains("Resource") {
            return squash(t);
        }
        let side = s.0;
        let r = rewrite_refs_in_text(t, &mut |kind, id| {
            Some(match kind {
                RefKind::Ext => match self.idx[side].ext.get(id) {
                    Some(&i) => format!("@E{}", self.id.ext.of[side][i]),
                    None => format!("?E{id}"),
                },
                RefKind::Sub => match self.idx[side].sub.get(id) {
                    Some(&i) => format!("@S{}", self.id.sub.of[side][i]),
                    None => format!("?S{id}"),
                },
            })
        });
        squash(&r)
    }

    pub(in crate::merge) fn norm_cached(&self, s: &Src) -> std::rc::Rc<str> {
        let key = (s.0, s.1.start);
        if let Some(v) = self.norm_cache.borrow().get(&key) {
            return v.clone();
        }
        let v: std::rc::Rc<str> = self.norm(s).into();
        self.norm_cache.borrow_mut().insert(key, v.clone());
        v
    }

    /// Whether two values are the same, as the engine sees them.
    pub(in crate::merge) fn same(&self, a: &Option<Src>, b: &Option<Src>) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(x), Some(y)) => {
                let (tx, ty) = (self.text(x), self.text(y));
                // Equal texts hold the same words: one text is looked at, and only then.
                if tx == ty
                    && (!(tx.contains("Resource(") || tx.contains("Resource "))
                        || self.same_refs(x.0, y.0, tx))
                {
                    return true;
                }
                let (nx, ny) = (self.norm_cached(x), self.norm_cached(y));
                if nx == ny {
                    return true;
                }
                match (parse(&nx), parse(&ny)) {
                    (Ok(vx), Ok(vy)) => sem_eq_top(&vx, &vy),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// Whether every reference in `text` names the same identity (or the same unknown
    /// id) on side `a` and side `b`: then the text normalizes the same on both.
    pub(in crate::merge) fn same_refs(&self, a: usize, b: usize, text: &str) -> bool {
        // Without escapes a reference's id is written as it is: when no id that names
        // different things on the two sides occurs in the text, every reference agrees.
        // A long text (a mesh's surfaces) is scanned once rather than searched once per
        // disputed id.
        let d = self.disagree[a][b].get_or_init(|| self.disagreeing_ids(a, b));
        let search = d.is_empty() || text.len() <= LONG_TEXT;
        if search && !text.contains('\\') && d.iter().all(|id| !id.is_empty() && !text.contains(id))
        {
            return true;
        }
        let mut same = true;
        scan_refs_in_text(text, &mut |kind, id| {
            let ident = |s: usize| match kind {
                RefKind::Ext => self.idx[s].ext.get(id).map(|&i| self.id.ext.of[s][i]),
                RefKind::Sub => self.idx[s].sub.get(id).map(|&i| self.id.sub.of[s][i]),
            };
            same &= ident(a) == ident(b);
        });
        same
    }

    /// Ids (ext and sub) that name different identities on sides `a` and `b`, or are
    /// known on one of them only.
    pub(in crate::merge) fn disagreeing_ids(&self, a: usize, b: usize) -> Vec<&'a str> {
        let mut v = Vec::new();
        for (x, y) in [(a, b), (b, a)] {
            for (&id, &i) in &self.idx[x].ext {
                let iy = self.idx[y].ext.get(id).map(|&j| self.id.ext.of[y][j]);
                if iy != Some(self.id.ext.of[x][i]) {
                    v.push(id);
                }
            }
            for (&id, &i) in &self.idx[x].sub {
                let iy = self.idx[y].sub.get(id).map(|&j| self.id.sub.of[y][j]);
                if iy != Some(self.id.sub.of[x][i]) {
                    v.push(id);
                }
            }
        }
        v
    }

    /// Whether two values are the same when each `SubResource` is read as its content:
    /// a re-save may point a node at another of several identical sub_resources. Only
    /// for deciding whether a change is one (never for picking a value).
    pub(in crate::merge) fn same_content(&self, a: &Option<Src>, b: &Option<Src>) -> bool {
        let (Some(x), Some(y)) = (a, b) else {
            return a.is_none() && b.is_none();
        };
        let mut budget = CONTENT_BUDGET;
        let nx = self.content_norm(x.0, self.text(x), &mut budget);
        let ny = self.content_norm(y.0, self.text(y), &mut budget);
        matches!((nx, ny), (Some(nx), Some(ny)) if nx == ny)
    }

    /// `text` of side `side` with every ExtResource read as its identity and every
    /// SubResource as its content, whitespace collapsed; `None` past the budget (a
    /// reference cycle, or a value too big to compare this way).
    fn content_norm(&self, side: usize, text: &str, budget: &mut usize) -> Option<String> {
        let mut over = false;
        let r = rewrite_refs_in_text(text, &mut |kind, id| {
            if *budget == 0 {
                over = true;
                return None;
            }
            *budget -= 1;
            Some(match (kind, self.ref_index(side, kind, id)) {
                (RefKind::Ext, Some(i)) => format!("@E{}", self.id.ext.of[side][i]),
                (RefKind::Sub, Some(i)) => {
                    let sc = self.sc[side];
                    let sec = &sc.doc.sections[sc.sub_resources[i].section];
                    let body = sc.doc.slice(&(sec.tag.span.end()..sec.body_end));
                    let inner = self.content_norm(side, body, budget);
                    format!(
                        "{}{{{}}}",
                        sc.sub_resources[i].type_name,
                        inner.unwrap_or_default()
                    )
                }
                (_, None) => format!("?{id}"),
            })
        });
        (!over && *budget > 0).then(|| squash(&r))
    }

    fn ref_index(&self, side: usize, kind: RefKind, id: &str) -> Option<usize> {
        match kind {
            RefKind::Ext => self.idx[side].ext.get(id).copied(),
            RefKind::Sub => self.idx[side].sub.get(id).copied(),
        }
    }

    /// The same as `same`, answered only when the bytes are equal (no normalization).
    pub(in crate::merge) fn same_bytes(&self, a: &Option<Src>, b: &Option<Src>) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(x), Some(y)) => {
                let (tx, ty) = (self.text(x), self.text(y));
                tx == ty && (!tx.contains("Resource") || self.same_refs(x.0, y.0, tx))
            }
            _ => false,
        }
    }

    /// `pick3` with `same`, answering from equal bytes first when it can (the answer
    /// is the same: equal bytes are the same value).
    pub(in crate::merge) fn pick_same(
        &self,
        b: &Option<Src>,
        o: &Option<Src>,
        t: &Option<Src>,
    ) -> Pick {
        if self.same_bytes(o, t) || self.same_bytes(b, t) {
            return Pick::Ours;
        }
        if self.same_bytes(b, o) {
            // Base and ours normalize the same: ours' answers are base's.
            return if self.same(b, t) {
                Pick::Ours
            } else {
                Pick::Theirs
            };
        }
        pick3(b, o, t, |x, y| self.same(x, y))
    }
}

#[cfg(test)]
mod tests {
    use super::squash;
    use crate::merge::{merge, MergeOptions};

    #[test]
    fn whitespace_is_collapsed_between_tokens_and_kept_in_strings() {
        assert_eq!(squash("  Vector2( 1,\n 2 ) "), "Vector2( 1, 2 )");
        assert_eq!(
            squash("[ \"a  b\",\n\t\"c\\\" \n d\" ]"),
            "[ \"a  b\", \"c\\\" \n d\" ]"
        );
        assert_ne!(squash("\"A\n\nB\""), squash("\"A\nB\""));
    }

    /// Theirs removed a blank line from a multi-line string while ours changed another
    /// property: theirs' string is taken (it used to read as unchanged and was lost).
    #[test]
    fn a_blank_line_removed_inside_a_string_is_a_change() {
        let base = "[gd_resource type=\"Resource\" format=3]\n\n[resource]\ndepth = 175\nbody = \"THE END.\n\nKEEP DIGGING.\"\n";
        let ours = base.replace("175", "176");
        let theirs = base.replace("THE END.\n\nKEEP", "THE END.\nKEEP");
        let r = merge(
            base.as_bytes(),
            ours.as_bytes(),
            theirs.as_bytes(),
            &MergeOptions::default(),
        );
        let text = String::from_utf8_lossy(&r.text);
        assert!(r.is_clean(), "{text}");
        assert!(
            text.contains("depth = 176\nbody = \"THE END.\nKEEP DIGGING.\"\n"),
            "{text}"
        );
    }
}
