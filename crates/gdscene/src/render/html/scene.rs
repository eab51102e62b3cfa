//! The pictures of a scene on the HTML pages: before and after side by side (one side
//! for an added or deleted file), the legend of the outline colours, and what a limit
//! left out. The drawing is [`crate::render::picture`]'s; this file only lays it out.

use super::escape;
use crate::render::picture::{Mark, Pictures, View};

/// The block of a file's pictures; empty when neither side has one.
pub fn block(p: &Pictures) -> String {
    if p.sides.iter().all(Option::is_none) {
        if p.notes.is_empty() {
            return String::new();
        }
        let notes: Vec<String> = p.notes.iter().map(|n| escape(n)).collect();
        return format!("<p class=\"picture-notes\">{}</p>\n", notes.join(" "));
    }
    let mut out = String::from("<div class=\"scene-pictures\">\n");
    out.push_str(&p.defs);
    let titles = ["Before", "After"];
    let mut notes: Vec<&str> = p.notes.iter().map(String::as_str).collect();
    let mut top_down = false;
    for (k, side) in p.sides.iter().enumerate() {
        let title = titles.get(k).copied().unwrap_or("Scene");
        match side {
            Some(pic) => {
                top_down |= pic.view == View::TopDown;
                out.push_str(&format!(
                    "<figure class=\"scene-picture {}\"><figcaption>{title}</figcaption>{}</figure>\n",
                    title.to_ascii_lowercase(),
                    pic.svg
                ));
                notes.extend(pic.notes.iter().map(String::as_str));
            }
            None if p.sides.len() > 1 => out.push_str(&format!(
                "<figure class=\"scene-picture {} none\"><figcaption>{title}</figcaption><p>{}</p></figure>\n",
                title.to_ascii_lowercase(),
                if k == 0 { "No file before." } else { "No file after." }
            )),
            None => {}
        }
    }
    out.push_str("<p class=\"legend\">");
    for m in Mark::ALL {
        out.push_str(&format!(
            "<span class=\"key\" style=\"border:2px solid {}\"></span>{} ",
            m.colour(),
            m.name()
        ));
    }
    if top_down {
        out.push_str("<span class=\"muted\">3D: nodes seen from above, 1 m = 32 units</span>");
    }
    out.push_str("</p>\n");
    notes.sort_unstable();
    notes.dedup();
    if !notes.is_empty() {
        out.push_str("<ul class=\"picture-notes\">");
        for n in notes.iter().take(20) {
            out.push_str(&format!("<li>{}</li>", escape(n)));
        }
        if notes.len() > 20 {
            out.push_str(&format!("<li>… {} more</li>", notes.len() - 20));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</div>\n");
    out
}
