//! A canvas written as SVG text: a dark ground like the editor's viewport with its two
//! axes, the items in draw order (Godot's `z_index`, then tree order), then the marks on
//! top: each changed, added or removed node outlined in the page's colours and named,
//! changed tile cells outlined cell by cell. Every piece of repository text (node
//! names, paths) is escaped. Sizes that should read the same at any zoom (labels,
//! outlines) are given in screen pixels through the frame's `unit`.

use super::canvas::{Canvas, Item, Shape, Style};
use super::geometry::{num, Rect};
use super::Mark;

/// `s` safe in SVG text and quoted attribute values.
pub fn escape(s: &str) -> String {
    crate::render::escape::markup(s)
}

/// Where the picture looks and how big it is on the page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// The part of the scene shown.
    pub view: Rect,
    /// Width and height on the page, in pixels.
    pub px: (f64, f64),
}

impl Frame {
    /// A frame showing `view` at most `max` pixels wide and tall.
    pub fn new(view: Rect, max: (f64, f64)) -> Frame {
        let k = (max.0 / view.w.max(1e-9)).min(max.1 / view.h.max(1e-9));
        Frame {
            view,
            px: ((view.w * k).round().max(1.0), (view.h * k).round().max(1.0)),
        }
    }

    /// Scene units per screen pixel.
    pub fn unit(&self) -> f64 {
        self.view.w / self.px.0
    }
}

/// A node outlined: the box around it (and its children), its mark, its name and path.
#[derive(Debug, Clone, PartialEq)]
pub struct Outline {
    /// The box, in picture space.
    pub rect: Rect,
    /// How it changed.
    pub mark: Mark,
    /// Its name, written beside the box.
    pub name: String,
    /// Its path, for the page's scripts and tests.
    pub path: String,
}

/// Background of the picture, as the editor's viewport.
const GROUND: &str = "#3b3e44";

fn style_attrs(s: &Style) -> String {
    let mut out = String::new();
    match &s.fill {
        Some((c, o)) => out.push_str(&format!(" fill=\"{c}\" fill-opacity=\"{}\"", num(*o))),
        None => out.push_str(" fill=\"none\""),
    }
    if let Some((c, o, w)) = &s.stroke {
        out.push_str(&format!(
            " stroke=\"{c}\" stroke-opacity=\"{}\" stroke-width=\"{}\"",
            num(*o),
            num(*w)
        ));
        if s.thin {
            out.push_str(" vector-effect=\"non-scaling-stroke\"");
        }
    }
    out
}

fn points(p: &[(f64, f64)]) -> String {
    let v: Vec<String> = p
        .iter()
        .map(|(x, y)| format!("{},{}", num(*x), num(*y)))
        .collect();
    v.join(" ")
}

/// A texture region drawn over `dest`, mirrored by `flip` (bit 0 horizontal, 1 vertical).
fn texture(symbol: &str, dest: &Rect, flip: u8) -> String {
    let sx = if flip & 1 != 0 { -1.0 } else { 1.0 };
    let sy = if flip & 2 != 0 { -1.0 } else { 1.0 };
    let mirror = if flip & 3 == 0 {
        String::new()
    } else {
        let e = if sx < 0.0 { 2.0 * dest.x + dest.w } else { 0.0 };
        let f = if sy < 0.0 { 2.0 * dest.y + dest.h } else { 0.0 };
        format!(
            " transform=\"matrix({} 0 0 {} {} {})\"",
            num(sx),
            num(sy),
            num(e),
            num(f)
        )
    };
    format!(
        "<use href=\"#{symbol}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{mirror}/>",
        num(dest.x),
        num(dest.y),
        num(dest.w),
        num(dest.h)
    )
}

/// Rectangles as one path.
fn rect_path(rs: &mut dyn Iterator<Item = &Rect>) -> String {
    let mut d = String::new();
    for r in rs {
        d.push_str(&format!(
            "M{} {}h{}v{}h{}z",
            num(r.x),
            num(r.y),
            num(r.w),
            num(r.h),
            num(-r.w)
        ));
    }
    d
}

/// One item's SVG, `unit` scene units per pixel at the item's scale.
fn shape(s: &Shape, unit: f64) -> String {
    match s {
        Shape::Texture { symbol, dest, flip } => {
            texture(symbol, dest, u8::from(flip.0) | (u8::from(flip.1) << 1))
        }
        Shape::Placeholder { rect, label } => {
            let chars = label.chars().count().max(1) as f64;
            let size = (rect.h.abs() * 0.3).min(rect.w.abs() / (chars * 0.62)).max(unit * 6.0);
            format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#8c959f\" fill-opacity=\"0.35\" stroke=\"#d0d7de\" stroke-dasharray=\"4 3\" vector-effect=\"non-scaling-stroke\"/>\
                 <text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"middle\" dominant-baseline=\"central\" fill=\"#ffffff\" font-family=\"sans-serif\">{}</text>",
                num(rect.x),
                num(rect.y),
                num(rect.w),
                num(rect.h),
                num(rect.x + rect.w / 2.0),
                num(rect.y + rect.h / 2.0),
                num(size),
                escape(label)
            )
        }
        Shape::Rect(r, st) => format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{}/>",
            num(r.x),
            num(r.y),
            num(r.w),
            num(r.h),
            style_attrs(st)
        ),
        Shape::Poly(p, closed, st) => format!(
            "<{} points=\"{}\"{}/>",
            if *closed { "polygon" } else { "polyline" },
            points(p),
            style_attrs(st)
        ),
        Shape::Circle((x, y), r, st) => format!(
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\"{}/>",
            num(*x),
            num(*y),
            num(*r),
            style_attrs(st)
        ),
        Shape::Tiles(t) => t.iter().map(|(s, d, f)| texture(s, d, *f)).collect(),
        Shape::Squares(rs, st) => {
            format!("<path d=\"{}\"{}/>", rect_path(&mut rs.iter()), style_attrs(st))
        }
        Shape::Origin => {
            let s = unit * 6.0;
            format!(
                "<path d=\"M{} 0H{}M0 {}V{}\" stroke=\"#f0f3f6\" stroke-width=\"1.5\" vector-effect=\"non-scaling-stroke\"/>",
                num(-s),
                num(s),
                num(-s),
                num(s)
            )
        }
        Shape::CellMarks(m) => [Mark::Removed, Mark::Changed, Mark::Added]
            .into_iter()
            .filter_map(|k| {
                let d = rect_path(&mut m.iter().filter(|x| x.1 == k).map(|x| &x.0));
                (!d.is_empty()).then(|| format!(
                    "<path class=\"cells-{}\" d=\"{d}\" fill=\"{c}\" fill-opacity=\"0.15\" stroke=\"{c}\" stroke-width=\"1.5\" vector-effect=\"non-scaling-stroke\"/>",
                    k.name(),
                    c = k.colour()
                ))
            })
            .collect(),
    }
}

fn item(it: &Item, paths: &[String], unit: f64) -> String {
    let local = unit / it.xf.stretch().max(1e-9);
    format!(
        "<g data-node=\"{}\" transform=\"{}\"{}>{}</g>",
        escape(paths.get(it.node).map_or("", String::as_str)),
        it.xf.svg(),
        if it.faint { " opacity=\"0.3\"" } else { "" },
        shape(&it.shape, local)
    )
}

fn outline(o: &Outline, unit: f64) -> String {
    let pad = unit * 3.0;
    let r = Rect::new(
        o.rect.x - pad,
        o.rect.y - pad,
        o.rect.w + 2.0 * pad,
        o.rect.h + 2.0 * pad,
    );
    format!(
        "<g class=\"mark {m}\" data-mark=\"{m}\" data-node=\"{}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{c}\" stroke-width=\"2\" vector-effect=\"non-scaling-stroke\"/>\
         <text x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"{c}\" stroke=\"{GROUND}\" stroke-width=\"{}\" paint-order=\"stroke\" font-family=\"sans-serif\">{}</text></g>",
        escape(&o.path),
        num(r.x),
        num(r.y),
        num(r.w),
        num(r.h),
        num(r.x),
        num(r.y - unit * 3.0),
        num(unit * 11.0),
        num(unit * 3.0),
        escape(&o.name),
        m = o.mark.name(),
        c = o.mark.colour()
    )
}

/// The SVG of one side: `canvas`'s items (node `i` has path `paths[i]`), the marks,
/// inside `frame`; `label` is its accessible name ("before", "after").
pub fn emit(
    canvas: &Canvas,
    paths: &[String],
    outlines: &[Outline],
    frame: &Frame,
    label: &str,
) -> String {
    let (v, unit) = (frame.view, frame.unit());
    let mut out = format!(
        "<svg class=\"scene\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"{}\" width=\"{}\" height=\"{}\" viewBox=\"{} {} {} {}\">",
        escape(label),
        num(frame.px.0),
        num(frame.px.1),
        num(v.x),
        num(v.y),
        num(v.w),
        num(v.h)
    );
    out.push_str(&format!(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{GROUND}\"/>",
        num(v.x),
        num(v.y),
        num(v.w),
        num(v.h)
    ));
    out.push_str(&format!(
        "<path d=\"M{} 0H{}\" stroke=\"#e5534b\" stroke-opacity=\"0.45\" vector-effect=\"non-scaling-stroke\"/><path d=\"M0 {}V{}\" stroke=\"#2da44e\" stroke-opacity=\"0.45\" vector-effect=\"non-scaling-stroke\"/>",
        num(v.x),
        num(v.x + v.w),
        num(v.y),
        num(v.y + v.h)
    ));
    let mut order: Vec<&Item> = canvas
        .items
        .iter()
        .filter(|i| !matches!(i.shape, Shape::CellMarks(_)))
        .collect();
    order.sort_by_key(|i| i.z);
    for it in order {
        out.push_str(&item(it, paths, unit));
    }
    for it in canvas
        .items
        .iter()
        .filter(|i| matches!(i.shape, Shape::CellMarks(_)))
    {
        out.push_str(&item(it, paths, unit));
    }
    for o in outlines {
        out.push_str(&outline(o, unit));
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::picture::geometry::Xf;

    #[test]
    fn items_are_written_in_z_order_with_names_escaped() {
        let mut c = Canvas::new(2);
        let rect = Rect::new(0.0, 0.0, 10.0, 10.0);
        c.push(Item {
            node: 0,
            xf: Xf::translate(5.0, 0.0),
            z: 1,
            shape: Shape::Placeholder {
                rect,
                label: "<A>".into(),
            },
            faint: false,
        });
        c.push(Item {
            node: 1,
            xf: Xf::IDENTITY,
            z: 0,
            shape: Shape::Rect(rect, Style::fill("#ff0000", 1.0)),
            faint: false,
        });
        let frame = Frame::new(Rect::new(0.0, 0.0, 20.0, 10.0), (400.0, 400.0));
        assert_eq!(frame.px, (400.0, 200.0));
        let paths = ["<A>".to_string(), "B".to_string()];
        let o = Outline {
            rect,
            mark: Mark::Added,
            name: "<A>".into(),
            path: "<A>".into(),
        };
        let svg = emit(&c, &paths, &[o], &frame, "after");
        assert!(
            svg.find("data-node=\"B\"") < svg.find("data-node=\"&lt;A&gt;\""),
            "{svg}"
        );
        assert!(!svg.contains("<A>"), "{svg}");
        assert!(svg.contains("class=\"mark added\""), "{svg}");
        assert!(svg.contains("matrix(1 0 0 1 5 0)"), "{svg}");
    }
}
