//! Values drawn as the Godot editor shows them, for the HTML pages: a colour as a swatch
//! beside its text, a vector as labelled numbers, a reference as the path or type it
//! names; a tile map's changed cells as a small SVG grid, animation keys on an SVG time
//! line. Everything returned is HTML with the repository's text escaped; what to draw
//! (which value, which parts) is the page's choice.

use super::escape;
use crate::grain::ValueChange;

/// What an `ExtResource`/`SubResource` id names, for [`show_with`]: `(kind, id)` to a
/// readable name (`kind` is `"ExtResource"` or `"SubResource"`), `None` when unknown.
pub type Resolve<'a> = &'a dyn Fn(&str, &str) -> Option<String>;

/// A value's text as HTML: colours with a swatch, vectors with labelled components.
pub fn show(text: &str) -> String {
    show_with(text, &|_, _| None)
}

/// [`show`], with references named by `resolve` (the mergetool knows the raw ids).
pub fn show_with(text: &str, resolve: Resolve<'_>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some((i, ctor)) = next_ctor(rest) {
        out.push_str(&escape(&rest[..i]));
        let after = &rest[i + ctor.len()..];
        let Some(close) = after.find(')') else {
            out.push_str(&escape(ctor));
            rest = after;
            continue;
        };
        let args = &after[..close];
        let whole = &rest[i..i + ctor.len() + close + 1];
        out.push_str(&rich(ctor, args, resolve).unwrap_or_else(|| escape(whole)));
        rest = &after[close + 1..];
    }
    out.push_str(&escape(rest));
    out
}

/// Constructors drawn specially, with their opening parenthesis.
const CTORS: &[&str] = &[
    "Color(",
    "Vector2(",
    "Vector2i(",
    "Vector3(",
    "Vector3i(",
    "Vector4(",
    "ExtResource(",
    "SubResource(",
];

/// The first special constructor in `s` (not inside a longer name): position and name.
fn next_ctor(s: &str) -> Option<(usize, &'static str)> {
    CTORS
        .iter()
        .filter_map(|c| {
            let mut from = 0;
            while let Some(j) = s[from..].find(c) {
                let at = from + j;
                let prev = s[..at].chars().next_back();
                if !prev.is_some_and(|p| p.is_alphanumeric() || p == '_') {
                    return Some((at, *c));
                }
                from = at + c.len();
            }
            None
        })
        .min_by_key(|(at, _)| *at)
}

/// The drawing of `ctor(args)`, `None` when the arguments are not what it needs.
fn rich(ctor: &str, args: &str, resolve: Resolve<'_>) -> Option<String> {
    let name = &ctor[..ctor.len() - 1];
    if matches!(name, "ExtResource" | "SubResource") {
        let id = args.trim().trim_matches('"');
        let shown = resolve(name, id)?;
        return Some(format!(
            "<span class=\"ref\" title=\"{}\">{}</span>",
            escape(&format!("{name}(\"{id}\")")),
            escape(&shown)
        ));
    }
    let nums: Vec<f64> = args
        .split(',')
        .map(|a| a.trim().parse::<f64>().ok())
        .collect::<Option<_>>()?;
    let whole = format!("{name}({args})");
    if name == "Color" {
        let (r, g, b, a) = match nums[..] {
            [r, g, b] => (r, g, b, 1.0),
            [r, g, b, a] => (r, g, b, a),
            _ => return None,
        };
        let byte = |x: f64| (x.clamp(0.0, 1.0) * 255.0).round() as u8;
        return Some(format!(
            "<span class=\"swatch\" style=\"background:rgba({},{},{},{:.3})\" title=\"{}\"></span><code>{}</code>",
            byte(r),
            byte(g),
            byte(b),
            a.clamp(0.0, 1.0),
            escape(&whole),
            escape(&whole)
        ));
    }
    let labels = ["x", "y", "z", "w"];
    if nums.len() > labels.len() {
        return None;
    }
    let parts: Vec<String> = args
        .split(',')
        .zip(labels)
        .map(|(v, l)| format!("<span class=\"axis\">{l}</span> {}", escape(v.trim())))
        .collect();
    Some(format!(
        "<span class=\"vec\" title=\"{}\">{}</span>",
        escape(&whole),
        parts.join(" ")
    ))
}

/// Side of one picture cell, in pixels.
const CELL: usize = 14;

/// The picture of a tile map's changed area (rows of `+` painted, `-` erased, `~`
/// changed, `#` unchanged, `.` empty) as an SVG grid with a key; empty for no rows.
pub fn picture(rows: &[String]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let width = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    let mut svg = format!(
        "<svg class=\"cells\" role=\"img\" aria-label=\"changed tile cells\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {0} {1}\">",
        width * CELL,
        rows.len() * CELL
    );
    for (y, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            let (class, what) = match c {
                '+' => ("painted", "painted"),
                '-' => ("erased", "erased"),
                '~' => ("changed", "changed"),
                '#' => ("kept", "unchanged"),
                _ => ("empty", "empty"),
            };
            svg.push_str(&format!(
                "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{what}</title></rect>",
                x * CELL,
                y * CELL,
                CELL - 1,
                CELL - 1
            ));
        }
    }
    svg.push_str("</svg>");
    format!(
        "<figure class=\"picture\">{svg}<figcaption><span class=\"key painted\"></span>painted \
         <span class=\"key erased\"></span>erased <span class=\"key changed\"></span>changed \
         <span class=\"key kept\"></span>unchanged</figcaption></figure>"
    )
}

/// A key of an animation track: its track label, time and how it changed.
struct Key<'a> {
    track: &'a str,
    time: f64,
    change: &'static str,
    text: String,
}

/// `track "value" Sprite:position time 0.2` as the track label and the time.
fn key_at(at: &str) -> Option<(&str, f64)> {
    let (track, time) = at.rsplit_once("time ")?;
    Some((track.trim(), time.trim().parse().ok()?))
}

/// Animation keys that changed, on one SVG time line per track; empty when `parts`
/// holds no key.
pub fn timeline(parts: &[ValueChange]) -> String {
    let keys: Vec<Key> = parts
        .iter()
        .filter(|p| p.part == "key")
        .filter_map(|p| {
            let (track, time) = key_at(&p.at)?;
            Some(Key {
                track,
                time,
                change: p.change,
                text: p.to_string(),
            })
        })
        .collect();
    if keys.is_empty() {
        return String::new();
    }
    let mut tracks: Vec<&str> = keys.iter().map(|k| k.track).collect();
    tracks.dedup();
    let end = keys.iter().map(|k| k.time).fold(1.0f64, f64::max);
    let (left, span, row) = (10.0, 380.0, 40.0);
    let height = tracks.len() as f64 * row + 10.0;
    let mut svg = format!(
        "<svg class=\"timeline\" role=\"img\" aria-label=\"animation keys on a time line\" width=\"400\" height=\"{height}\" viewBox=\"0 0 400 {height}\">"
    );
    for (i, t) in tracks.iter().enumerate() {
        let y = i as f64 * row + 24.0;
        svg.push_str(&format!(
            "<text x=\"{left}\" y=\"{}\" class=\"track\">{}</text><line x1=\"{left}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\"/>",
            y - 10.0,
            escape(t),
            left + span
        ));
        svg.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" class=\"end\">{end}s</text><text x=\"{left}\" y=\"{}\" class=\"end\">0s</text>",
            left + span - 20.0,
            y + 16.0,
            y + 16.0
        ));
        for k in keys.iter().filter(|k| k.track == *t) {
            let x = left + span * (k.time / end);
            svg.push_str(&format!(
                "<circle class=\"{}\" cx=\"{x:.1}\" cy=\"{y}\" r=\"5\"><title>{}</title></circle>",
                k.change,
                escape(&k.text)
            ));
        }
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_get_a_swatch_and_vectors_labels() {
        let c = show("Color(1, 0, 0, 1)");
        assert!(c.contains("background:rgba(255,0,0,1.000)"), "{c}");
        let v = show("Vector2(3, -4)");
        assert!(v.contains("<span class=\"axis\">x</span> 3"), "{v}");
        assert!(v.contains("<span class=\"axis\">y</span> -4"), "{v}");
        assert_eq!(show("MyColor(1, 2, 3)"), "MyColor(1, 2, 3)");
        assert_eq!(show("Color(a, b, c)"), "Color(a, b, c)");
    }

    #[test]
    fn text_is_escaped_and_references_named() {
        assert_eq!(show("\"<b>&\""), "&quot;&lt;b&gt;&amp;&quot;");
        let r = show_with("ExtResource(\"1_a\")", &|k, id| {
            (k == "ExtResource" && id == "1_a").then(|| "res://<x>.png".to_string())
        });
        assert!(r.contains(">res://&lt;x&gt;.png</span>"), "{r}");
        assert_eq!(show("ExtResource(\"2\")"), "ExtResource(&quot;2&quot;)");
    }

    #[test]
    fn picture_draws_one_rect_per_cell() {
        let svg = picture(&["#~-".to_string(), "+++".to_string()]);
        assert_eq!(svg.matches("<rect").count(), 6);
        assert_eq!(svg.matches("class=\"painted\"").count(), 3);
        assert!(picture(&[]).is_empty());
    }

    #[test]
    fn keys_go_on_a_time_line_per_track() {
        let k = |at: &str, change| ValueChange {
            part: "key",
            at: at.to_string(),
            change,
            count: 1,
            old: None,
            new: Some("1".into()),
        };
        let svg = timeline(&[
            k("track \"value\" A:x time 0.5", "added"),
            k("track \"value\" A:x time 2", "changed"),
        ]);
        assert_eq!(svg.matches("<circle").count(), 2);
        assert!(
            svg.contains("cx=\"105.0\"") && svg.contains("cx=\"390.0\""),
            "{svg}"
        );
        assert!(svg.contains("&quot;value&quot; A:x"), "{svg}");
        assert!(timeline(&[]).is_empty());
    }
}
