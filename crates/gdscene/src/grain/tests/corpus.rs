//! Round trips over the corpus (every grain value merged with itself comes back) and
//! grain values of the real merges merged or conflicting without a panic.

use super::*;

fn decoded(text: &str) -> Option<String> {
    match parse(text).ok()? {
        Value::String(s) | Value::StringName(s) => Some(s),
        Value::Int(i) => Some(i.to_string()),
        _ => None,
    }
}

/// Every grain value of every sampled corpus file merged with itself (and itself as base)
/// comes back byte for byte; every Animation's `tracks/*` set likewise.
#[test]
fn corpus_values_merged_with_themselves_are_unchanged() {
    let mut seen = std::collections::BTreeMap::<String, (usize, usize)>::new();
    let mut failures = Vec::new();
    for (name, text) in corpus_texts(2) {
        let Ok(sections) = outline(&text) else {
            continue;
        };
        let field = |s: &crate::value::OutlineSection, k: &str| {
            s.fields
                .iter()
                .find(|(n, _)| n == k)
                .and_then(|(_, r)| decoded(&text[r.clone()]))
        };
        let Some(head) = sections.first() else {
            continue;
        };
        let format: u8 = field(head, "format")
            .and_then(|f| f.parse().ok())
            .unwrap_or(3);
        let file_type = field(head, "type").unwrap_or_default();
        for s in &sections {
            let owner = match s.name.as_str() {
                "resource" => file_type.clone(),
                _ => field(s, "type").unwrap_or_default(),
            };
            let prop = |k: &str| {
                s.props
                    .iter()
                    .find(|(n, _)| n == k)
                    .map(|(_, r)| &text[r.clone()])
            };
            let mut tracks = Vec::new();
            for (key, range) in &s.props {
                let v = &text[range.clone()];
                if key.starts_with("tracks/") {
                    tracks.push((key.clone(), v.to_string()));
                }
                let type_key = key.strip_suffix("/keys").map(|t| format!("{t}/type"));
                let track_type = type_key.as_deref().and_then(prop).and_then(decoded);
                let c = PropertyContext {
                    owner_type: &owner,
                    key,
                    file_format: format,
                    tile_format: prop("format").and_then(|f| f.trim().parse().ok()),
                    track_type: track_type.as_deref(),
                };
                let Some(kind) = kind_of(&c) else { continue };
                if kind == Kind::Dict && !v.trim_start().starts_with('{') {
                    continue;
                }
                let slot = seen.entry(format!("{kind:?}")).or_default();
                slot.0 += 1;
                match merge_property(&c, Some(v), v, v) {
                    Grain::Merged(m) if m == v => {}
                    Grain::NotMine => slot.1 += 1,
                    other => failures.push(format!("{name} {key}: {v:?} => {other:?}")),
                }
            }
            if owner == "Animation" && !tracks.is_empty() {
                let c = ctx("Animation", "tracks", format);
                match merge_tracks(&c, &tracks, &tracks, &tracks) {
                    Grain::Merged(m) if m == tracks => {}
                    other => failures.push(
                        format!("{name} tracks: {other:?}")
                            .chars()
                            .take(300)
                            .collect(),
                    ),
                }
            }
        }
    }
    eprintln!("grain corpus round trip (kind: values, not mine): {seen:?}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    for (kind, (n, not_mine)) in &seen {
        if kind != "Dict" {
            assert_eq!(
                *not_mine, 0,
                "{kind}: {not_mine} of {n} values not recognised"
            );
        }
    }
}

/// A section's identity, its type and its properties (key, value text).
type SectionProps = (String, String, Vec<(String, String)>);

/// Section identity across the three sides of a real merge: tag plus name/parent/id/type.
fn section_props(text: &str) -> Vec<SectionProps> {
    let Ok(sections) = outline(text) else {
        return Vec::new();
    };
    let file_type = sections
        .first()
        .and_then(|h| h.fields.iter().find(|(n, _)| n == "type"))
        .and_then(|(_, r)| decoded(&text[r.clone()]))
        .unwrap_or_default();
    sections
        .iter()
        .map(|s| {
            let f = |k: &str| {
                s.fields
                    .iter()
                    .find(|(n, _)| n == k)
                    .map_or("", |(_, r)| &text[r.clone()])
            };
            let id = format!("{} {} {} {}", s.name, f("name"), f("parent"), f("id"));
            let ty = if s.name == "resource" {
                file_type.clone()
            } else {
                decoded(f("type")).unwrap_or_default()
            };
            let props = s
                .props
                .iter()
                .map(|(k, r)| (k.clone(), text[r.clone()].to_string()))
                .collect();
            (id, ty, props)
        })
        .collect()
}

/// Every grain value both sides of a real merge changed merges or conflicts without
/// panicking, and a merged value that the human result also holds is compared with it.
#[test]
fn real_merges_grain_values_merge_or_conflict() {
    let Some(root) = shared_dir() else { return };
    let Ok(dirs) = std::fs::read_dir(root.join("merges")) else {
        return;
    };
    let (mut tried, mut merged_n, mut same_as_result, mut conflicted) = (0, 0, 0, 0);
    for dir in dirs.flatten() {
        let find = |stem: &str| {
            std::fs::read_dir(dir.path())
                .ok()?
                .flatten()
                .find(|e| e.file_name().to_string_lossy().starts_with(stem))
                .and_then(|e| std::fs::read_to_string(e.path()).ok())
        };
        let (Some(b), Some(o), Some(t), Some(r)) =
            (find("base"), find("ours"), find("theirs"), find("result"))
        else {
            continue;
        };
        let format = if o.lines().next().is_some_and(|l| l.contains("format=2")) {
            2
        } else {
            3
        };
        let [bs, os, ts, rs] = [&b, &o, &t, &r].map(|x| section_props(x));
        for (id, ty, oprops) in &os {
            let side = |s: &Vec<SectionProps>| s.iter().find(|x| &x.0 == id).map(|x| x.2.clone());
            let (Some(bp), Some(tp)) = (side(&bs), side(&ts)) else {
                continue;
            };
            let rp = side(&rs).unwrap_or_default();
            for (key, ov) in oprops {
                let get = |p: &[(String, String)], k: &str| {
                    p.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
                };
                let (Some(bv), Some(tv)) = (get(&bp, key), get(&tp, key)) else {
                    continue;
                };
                if *ov == tv || *ov == bv || tv == bv {
                    continue;
                }
                let type_key = key.strip_suffix("/keys").map(|t| format!("{t}/type"));
                let track_type = type_key
                    .and_then(|k| get(oprops, &k))
                    .and_then(|v| decoded(&v));
                let c = PropertyContext {
                    owner_type: ty,
                    key,
                    file_format: format,
                    tile_format: get(oprops, "format").and_then(|f| f.trim().parse().ok()),
                    track_type: track_type.as_deref(),
                };
                tried += 1;
                match merge_property(&c, Some(&bv), ov, &tv) {
                    Grain::Merged(m) => {
                        merged_n += 1;
                        assert!(parse(&m).is_ok());
                        if get(&rp, key).is_some_and(|rv| rv == m) {
                            same_as_result += 1;
                        }
                    }
                    Grain::Conflict(cs) => {
                        conflicted += 1;
                        assert!(!cs.is_empty() && cs.iter().all(|c| !c.to_string().is_empty()));
                    }
                    Grain::NotMine => {}
                }
            }
        }
    }
    eprintln!("real merges: {tried} values changed on both sides, {merged_n} merged ({same_as_result} equal to the human result), {conflicted} conflicts");
    assert!(
        merged_n >= 1 && same_as_result >= 1,
        "the Level1 TileMap at least merges to the result"
    );
}
