//! Nodes drawn from a texture: `Sprite2D` (Godot 3 `Sprite`) with `centered`, `offset`,
//! `flip_h`/`flip_v`, `region_enabled`/`region_rect` and `hframes` x `vframes` at
//! `frame` (or `frame_coords`); `AnimatedSprite2D` (`AnimatedSprite`) showing frame
//! `frame` of animation `animation` of its `SpriteFrames`; `TextureRect`,
//! `NinePatchRect` and `TextureButton` over their control's rectangle as their stretch
//! mode says; and the plain controls a layout is read by (`ColorRect`, `Panel`, `Label`,
//! `Button`). A texture the repository does not have becomes a box with the node's name.

use super::canvas::{Ctx, Shape, Style};
use super::geometry::{color, number, paint, rect2, Rect, Xf};
use super::texture::{resolve, Tex};
use super::tree::Target;
use crate::value::Value;

/// Side of the box drawn for a sprite whose texture is not known.
const UNKNOWN: f64 = 64.0;

/// Draw node `i` if it is one of this file's kinds; whether it was.
pub fn draw(c: &mut Ctx, i: usize) -> bool {
    match c.nodes[i].type_name.as_str() {
        "Sprite2D" | "Sprite" => sprite(c, i),
        "AnimatedSprite2D" | "AnimatedSprite" => animated(c, i),
        "TextureRect" | "NinePatchRect" | "TextureButton" => texture_rect(c, i),
        "ColorRect" => {
            let col = c
                .get(i, "color")
                .and_then(|v| color(&v.1))
                .unwrap_or([1.0; 4]);
            let (fill, o) = paint(col);
            let size = c.places[i].size;
            c.add(
                i,
                Xf::IDENTITY,
                Shape::Rect(Rect::new(0.0, 0.0, size.0, size.1), Style::fill(&fill, o)),
            );
        }
        "Panel" | "PanelContainer" | "Button" | "Label" | "LineEdit" | "RichTextLabel" => {
            control(c, i)
        }
        _ => return false,
    }
    true
}

/// The texture node `i`'s property `key` shows: `Ok(None)` when it has none, `Err`
/// when it has one this picture cannot show.
fn texture_of(c: &mut Ctx, i: usize, key: &str) -> Result<Option<Tex>, ()> {
    let Some((f, v)) = c.get(i, key) else {
        return Ok(None);
    };
    if v == Value::Null {
        return Ok(None);
    }
    resolve(c.files, c.book, c.limits, (f, &v))
        .map(Some)
        .ok_or(())
}

/// A texture's area cut to frame `frame` of a `hframes` x `vframes` sheet.
fn frame_of(area: Rect, (h, v): (f64, f64), frame: f64) -> Rect {
    let (h, v) = (h.max(1.0).floor(), v.max(1.0).floor());
    let (fw, fh) = (area.w / h, area.h / v);
    let f = frame.max(0.0).floor();
    let (fx, fy) = (f % h, (f / h).floor().min(v - 1.0));
    Rect::new(area.x + fx * fw, area.y + fy * fh, fw, fh)
}

/// Draw region `src` of `tex` centred or not at `offset`, flipped as asked; a box
/// with the node's name when there is no texture to show.
fn place(c: &mut Ctx, i: usize, tex: Option<(usize, Rect)>, offset: (f64, f64)) {
    let centered = c.flag(i, "centered").unwrap_or(true);
    let flip = (
        c.flag(i, "flip_h").unwrap_or(false),
        c.flag(i, "flip_v").unwrap_or(false),
    );
    let region = tex.and_then(|(image, src)| c.book.region(image, Some(src)));
    let (w, h) = region.as_ref().map_or((UNKNOWN, UNKNOWN), |r| (r.w, r.h));
    let origin = if centered {
        (-w / 2.0, -h / 2.0)
    } else {
        (0.0, 0.0)
    };
    let dest = Rect::new(origin.0 + offset.0, origin.1 + offset.1, w, h);
    let shape = match region {
        Some(r) => Shape::Texture {
            symbol: r.symbol,
            dest,
            flip,
        },
        None => Shape::Placeholder {
            rect: dest,
            label: c.name(i),
        },
    };
    c.add(i, Xf::IDENTITY, shape);
}

fn sprite(c: &mut Ctx, i: usize) {
    let tex = match texture_of(c, i, "texture") {
        Ok(None) => return c.add(i, Xf::IDENTITY, Shape::Origin),
        Ok(Some(t)) => Some(t),
        Err(()) => None,
    };
    let offset = c.vec2(i, "offset").unwrap_or((0.0, 0.0));
    let src = tex.map(|t| {
        let mut area = t.area;
        if c.flag(i, "region_enabled").unwrap_or(false) {
            if let Some(r) = c.get(i, "region_rect").and_then(|v| rect2(&v.1)) {
                area = Rect::new(t.area.x + r.x, t.area.y + r.y, r.w, r.h);
            }
        }
        let frames = (
            c.num(i, "hframes").unwrap_or(1.0),
            c.num(i, "vframes").unwrap_or(1.0),
        );
        let frame = c.num(i, "frame").or_else(|| {
            let (x, y) = c.vec2(i, "frame_coords")?;
            Some(y * frames.0.max(1.0) + x)
        });
        (t.image, frame_of(area, frames, frame.unwrap_or(0.0)))
    });
    place(c, i, src, offset);
}

/// The texture of frame `frame` of animation `anim` in a `SpriteFrames` resource's
/// `animations` (Godot 4 frames are `{"duration", "texture"}`, Godot 3's textures).
fn frame_texture(anims: &Value, anim: &str, frame: usize) -> Option<Value> {
    let Value::Array(list) = anims else {
        return None;
    };
    let field = |d: &Value, k: &str| match d {
        Value::Dict(e) => e
            .iter()
            .find(|(key, _)| matches!(key, Value::String(s) if s == k))
            .map(|(_, v)| v.clone()),
        _ => None,
    };
    let name_is = |d: &Value| match field(d, "name") {
        Some(Value::String(s) | Value::StringName(s)) => s == anim,
        _ => false,
    };
    let chosen = list.iter().find(|d| name_is(d)).or_else(|| list.first())?;
    let Some(Value::Array(frames)) = field(chosen, "frames") else {
        return None;
    };
    let f = frames.get(frame).or_else(|| frames.first())?;
    match f {
        Value::Dict(_) => field(f, "texture"),
        other => Some(other.clone()),
    }
}

fn animated(c: &mut Ctx, i: usize) {
    let frames = c.get(i, "sprite_frames").or_else(|| c.get(i, "frames"));
    let Some((f, v)) = frames else {
        return c.add(i, Xf::IDENTITY, Shape::Origin);
    };
    let anim = match c.get(i, "animation").map(|x| x.1) {
        Some(Value::String(s) | Value::StringName(s)) => s,
        _ => "default".to_string(),
    };
    let frame = c.num(i, "frame").unwrap_or(0.0).max(0.0) as usize;
    let tex = match c.files.target(f, &v, c.limits) {
        Some(Target::Res(r)) => c
            .files
            .value(r.file, r.section, "animations")
            .and_then(|a| frame_texture(&a, &anim, frame))
            .and_then(|t| resolve(c.files, c.book, c.limits, (r.file, &t))),
        _ => None,
    };
    let offset = c.vec2(i, "offset").unwrap_or((0.0, 0.0));
    place(c, i, tex.map(|t| (t.image, t.area)), offset);
}

/// Where a texture of `tex` size lands in a rectangle of `size` under stretch mode
/// `mode` (Godot 4 numbering: scale, tile, keep, keep centred, keep aspect, keep aspect
/// centred, keep aspect covered).
fn stretch(mode: i64, size: (f64, f64), tex: (f64, f64)) -> Rect {
    let (w, h) = size;
    let fit = |k: f64, center: bool| {
        let (tw, th) = (tex.0 * k, tex.1 * k);
        let (x, y) = if center {
            ((w - tw) / 2.0, (h - th) / 2.0)
        } else {
            (0.0, 0.0)
        };
        Rect::new(x, y, tw, th)
    };
    let (kw, kh) = (w / tex.0.max(1e-9), h / tex.1.max(1e-9));
    match mode {
        2 => Rect::new(0.0, 0.0, tex.0, tex.1),
        3 => fit(1.0, true),
        4 => fit(kw.min(kh), false),
        5 => fit(kw.min(kh), true),
        6 => fit(kw.max(kh), true),
        _ => Rect::new(0.0, 0.0, w, h),
    }
}

fn texture_rect(c: &mut Ctx, i: usize) {
    let key = if c.nodes[i].type_name == "TextureButton" {
        "texture_normal"
    } else {
        "texture"
    };
    let tex = match texture_of(c, i, key) {
        Ok(None) => return control(c, i),
        Ok(t) => t,
        Err(()) => None,
    };
    let godot3 = c.files.scene(c.get(i, key).map_or(0, |x| x.0)).is_godot3();
    let size = c.places[i].size;
    let region = tex.and_then(|t| c.book.region(t.image, Some(t.area)));
    let Some(r) = region else {
        let rect = Rect::new(0.0, 0.0, size.0.max(UNKNOWN), size.1.max(UNKNOWN));
        let label = c.name(i);
        return c.add(i, Xf::IDENTITY, Shape::Placeholder { rect, label });
    };
    let mut mode = c
        .get(i, "stretch_mode")
        .and_then(|v| number(&v.1))
        .unwrap_or(0.0) as i64;
    let grows =
        c.num(i, "expand_mode").unwrap_or(0.0) == 0.0 && !c.flag(i, "expand").unwrap_or(false);
    let size = if grows {
        (size.0.max(r.w), size.1.max(r.h))
    } else {
        size
    };
    if godot3 {
        // Godot 3 counts from "scale on expand" (0): without `expand` it keeps the size.
        mode = match mode {
            0 if grows => 2,
            0 => 0,
            m => m - 1,
        };
    }
    let dest = stretch(mode, size, (r.w, r.h));
    let flip = (
        c.flag(i, "flip_h").unwrap_or(false),
        c.flag(i, "flip_v").unwrap_or(false),
    );
    c.add(
        i,
        Xf::IDENTITY,
        Shape::Texture {
            symbol: r.symbol,
            dest,
            flip,
        },
    );
}

/// A plain control: its rectangle, and its `text` when it shows one.
fn control(c: &mut Ctx, i: usize) {
    let size = c.places[i].size;
    let rect = Rect::new(0.0, 0.0, size.0, size.1);
    let style = Style {
        fill: Some(("#8c959f".into(), 0.15)),
        stroke: Some(("#d0d7de".into(), 0.6, 1.0)),
        thin: true,
    };
    let text = match c.get(i, "text").map(|v| v.1) {
        Some(Value::String(s)) if !s.trim().is_empty() => s,
        _ => c.name(i),
    };
    let shape = if rect.has_area() {
        Shape::Placeholder { rect, label: text }
    } else {
        Shape::Rect(rect, style)
    };
    c.add(i, Xf::IDENTITY, shape);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_cut_the_sheet() {
        let area = Rect::new(0.0, 0.0, 64.0, 32.0);
        assert_eq!(
            frame_of(area, (4.0, 2.0), 5.0),
            Rect::new(16.0, 16.0, 16.0, 16.0)
        );
        assert_eq!(frame_of(area, (1.0, 1.0), 0.0), area);
    }

    #[test]
    fn stretch_modes_place_the_texture() {
        assert_eq!(
            stretch(0, (100.0, 50.0), (10.0, 10.0)),
            Rect::new(0.0, 0.0, 100.0, 50.0)
        );
        assert_eq!(
            stretch(3, (100.0, 50.0), (10.0, 10.0)),
            Rect::new(45.0, 20.0, 10.0, 10.0)
        );
        assert_eq!(
            stretch(5, (100.0, 50.0), (10.0, 10.0)),
            Rect::new(25.0, 0.0, 50.0, 50.0)
        );
    }

    #[test]
    fn animation_frames_are_found_by_name() {
        let v = crate::value::parse(
            "[{\"frames\": [{\"duration\": 1.0, \"texture\": ExtResource(\"1\")}, {\"duration\": 1.0, \"texture\": ExtResource(\"2\")}], \"name\": &\"run\"}]",
        )
        .expect("value");
        let t = frame_texture(&v, "run", 1).expect("frame");
        assert!(matches!(t, Value::ExtResource(_)), "{t:?}");
    }
}
