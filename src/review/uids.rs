//! The stale uid references a review names (issue 30.1): files of the tree the range ends
//! at that refer to a file by a uid no file carries while the path names a file with
//! another uid, limited to those the range touched (the referring file, the target or
//! its `.uid`/`.import` file changed). Finding them is `uid_refs::stale`'s; this module
//! reads the tree and puts the lines into each format's page.

use crate::uid_refs::stale::{self, StaleRef, LIMITS, MAX_LISTED};
use anyhow::Result;
use gdscene::render::FileDiff;
use std::collections::BTreeSet;

/// What the review says about stale uid references.
pub struct Found {
    /// The references, sorted.
    pub refs: Vec<StaleRef>,
    /// Whether the search stopped at a bound.
    pub cut_short: bool,
}

/// The stale references over `range` whose files `files` (the review's) touch.
pub fn find(repo: &gix::Repository, range: &str, files: &[FileDiff]) -> Result<Found> {
    let touched: BTreeSet<String> = files
        .iter()
        .flat_map(|f| {
            std::iter::once(f.path.clone()).chain(f.renamed_from.iter().map(|r| r.0.clone()))
        })
        .collect();
    if !touched.iter().any(|p| stale::is_read(p)) {
        // Nothing the range changed can make or name a stale reference: no tree to read.
        return Ok(Found {
            refs: Vec::new(),
            cut_short: false,
        });
    }
    let limits = (LIMITS.files, LIMITS.bytes, LIMITS.time);
    let (tree, cut_short) = crate::git::files_at_range_end(repo, range, stale::is_read, limits)?;
    Ok(Found {
        refs: stale::find(&tree, Some(&touched)),
        cut_short,
    })
}

impl Found {
    fn more(&self) -> Option<String> {
        (self.refs.len() > MAX_LISTED).then(|| {
            format!(
                "and {} more stale uid reference(s)",
                self.refs.len() - MAX_LISTED
            )
        })
    }

    fn cut_note(&self) -> Option<&'static str> {
        self.cut_short.then_some(
            "the uid search stopped at its bound (files, bytes or time); there may be more",
        )
    }

    /// Text: `note:` lines, put after the heading line.
    pub fn put_in_text(&self, page: String) -> String {
        if self.refs.is_empty() && !self.cut_short {
            return page;
        }
        let mut block = String::new();
        let listed = self.refs.iter().take(MAX_LISTED).map(StaleRef::sentence);
        for l in listed
            .chain(self.more())
            .chain(self.cut_note().map(String::from))
        {
            block.push_str(&format!("note: {l}\n"));
        }
        after(page, "\n", &block)
    }

    /// Markdown: the list to put after the title (empty when there is nothing to say);
    /// its length comes off `--max-bytes`.
    pub fn markdown(&self) -> String {
        if self.refs.is_empty() && !self.cut_short {
            return String::new();
        }
        let mut block = String::from(
            "**Stale uid references** (a file refers to another by a uid it no longer has):\n\n",
        );
        let listed = self.refs.iter().take(MAX_LISTED).map(StaleRef::markdown);
        for l in listed
            .chain(self.more())
            .chain(self.cut_note().map(String::from))
        {
            block.push_str(&format!("- {l}\n"));
        }
        block.push('\n');
        block
    }

    /// Markdown: `block` (from [`Found::markdown`]) after the title.
    pub fn put_in_markdown(block: &str, page: String) -> String {
        if block.is_empty() {
            return page;
        }
        after(page, "\n\n", block)
    }

    /// JSON: `stale_uid_refs` (each with its sentence) and, when cut, `stale_uid_search_cut`.
    pub fn put_in_json(&self, mut doc: serde_json::Value) -> serde_json::Value {
        if let Some(m) = doc.as_object_mut() {
            let refs = self.refs.iter().map(|r| {
                serde_json::json!({"file": r.file, "target": r.target, "uid": r.uid, "now": r.now, "text": r.sentence()})
            });
            m.insert("stale_uid_refs".into(), refs.collect());
            if self.cut_short {
                m.insert("stale_uid_search_cut".into(), true.into());
            }
        }
        doc
    }

    /// HTML: a list after the title.
    pub fn put_in_html(&self, page: String) -> String {
        if self.refs.is_empty() && !self.cut_short {
            return page;
        }
        use gdscene::render::html::escape;
        let mut block = String::from("<p><strong>Stale uid references</strong> (a file refers to another by a uid it no longer has):</p>\n<ul class=\"stale-uids\">\n");
        let listed = self.refs.iter().take(MAX_LISTED).map(StaleRef::sentence);
        for l in listed
            .chain(self.more())
            .chain(self.cut_note().map(String::from))
        {
            block.push_str(&format!("<li>{}</li>\n", escape(&l)));
        }
        block.push_str("</ul>\n");
        after(page, "</h1>\n", &block)
    }
}

/// `page` with `block` put after the first `mark` (at the end when there is none).
fn after(mut page: String, mark: &str, block: &str) -> String {
    let at = page.find(mark).map_or(page.len(), |i| i + mark.len());
    page.insert_str(at, block);
    page
}
