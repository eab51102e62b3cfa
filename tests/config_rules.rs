//! ConfigFile merge rules found wrong by a hostile review (issue 36, items 7 and 8): a key
//! removed and another added with an equal value is no rename unless the value could not
//! be equal by chance, the rename rule is the same whichever side renamed, and a byte order
//! mark follows ours (never lands mid-file); `check` flags one that did.

mod common;

use gdscene::config::check::check_config;
use gdscene::config::merge::{merge_config, ConfigMerge};
use gdscene::config::ConfigKind;
use gdscene::linemerge::MarkerOptions;

fn merge(b: &str, o: &str, t: &str) -> ConfigMerge {
    merge_config(
        Some(ConfigKind::Project),
        b.as_bytes(),
        o.as_bytes(),
        t.as_bytes(),
        &MarkerOptions::default(),
    )
}

fn text(m: &ConfigMerge) -> String {
    String::from_utf8(m.text.clone()).unwrap()
}

/// The text with every conflict resolved to one side (the ours or the theirs part).
fn resolve(text: &str, ours: bool) -> String {
    let (mut out, mut state) = (String::new(), 0);
    for line in text.split_inclusive('\n') {
        match (state, line.get(..7).unwrap_or("")) {
            (0, "<<<<<<<") => state = 1,
            (1 | 2, "|||||||") => state = 2,
            (1 | 2, "=======") => state = 3,
            (3, ">>>>>>>") => state = 0,
            (0, _) => out.push_str(line),
            (1, _) if ours => out.push_str(line),
            (3, _) if !ours => out.push_str(line),
            _ => {}
        }
    }
    out
}

const MSAA_BASE: &str = "[rendering]\n\nanti_aliasing/quality/msaa_2d=1\n";
const MSAA_MOVED: &str = "[rendering]\n\nanti_aliasing/quality/msaa_3d=1\n";
const MSAA_SET: &str = "[rendering]\n\nanti_aliasing/quality/msaa_2d=3\n";

#[test]
fn a_setting_removed_and_another_added_with_an_equal_number_is_no_rename() {
    for (o, t) in [(MSAA_MOVED, MSAA_SET), (MSAA_SET, MSAA_MOVED)] {
        let m = merge(MSAA_BASE, o, t);
        let out = text(&m);
        assert!(!out.contains("msaa_3d=3"), "a value nobody set:\n{out}");
        assert_eq!(m.conflict_count, 1, "{out}");
        let c = &m.conflicts[0];
        assert_eq!(
            c.key.as_deref(),
            Some("anti_aliasing/quality/msaa_2d"),
            "{c:?}"
        );
        // Either resolution keeps the new setting as its side wrote it.
        for side in [true, false] {
            let r = resolve(&out, side);
            assert!(r.contains("msaa_3d=1\n"), "{r}");
        }
    }
}

fn action(name: &str, events: &[&str]) -> String {
    let evs: Vec<String> = events
        .iter()
        .map(|k| format!("Object(InputEventKey,\"resource_local_to_scene\":false,\"resource_name\":\"\",\"device\":-1,\"window_id\":0,\"alt_pressed\":false,\"shift_pressed\":false,\"ctrl_pressed\":false,\"meta_pressed\":false,\"pressed\":false,\"keycode\":0,\"physical_keycode\":{k},\"key_label\":0,\"unicode\":0,\"location\":0,\"echo\":false,\"script\":null)"))
        .collect();
    format!(
        "{name}={{\n\"deadzone\": 0.5,\n\"events\": [{}\n]\n}}\n",
        evs.join("\n, ")
    )
}

#[test]
fn an_input_action_renamed_on_either_side_takes_the_other_sides_change() {
    let file = |a: &str| format!("[input]\n\n{a}\n[rendering]\n\nx=1\n");
    let base = file(&action("jump", &["32"]));
    let renamed = file(&action("leap", &["32"]));
    let changed = file(&action("jump", &["32", "87"]));
    let want = file(&action("leap", &["32", "87"]));
    for (o, t) in [(&renamed, &changed), (&changed, &renamed)] {
        let m = merge(&base, o, t);
        assert_eq!(m.conflict_count, 0, "{}", text(&m));
        assert_eq!(text(&m), want);
        assert!(
            m.decisions.iter().any(|d| d.kind == "key_rename_followed"),
            "{:?}",
            m.decisions
        );
    }
}

#[test]
fn an_autoload_renamed_on_either_side_takes_the_other_sides_new_path() {
    let base = "[autoload]\n\nGame=\"*res://game.gd\"\nHud=\"*res://hud.gd\"\n";
    let renamed = "[autoload]\n\nGameState=\"*res://game.gd\"\nHud=\"*res://hud.gd\"\n";
    let changed = "[autoload]\n\nGame=\"*res://core/game.gd\"\nHud=\"*res://hud.gd\"\n";
    let want = "[autoload]\n\nGameState=\"*res://core/game.gd\"\nHud=\"*res://hud.gd\"\n";
    for (o, t) in [(renamed, changed), (changed, renamed)] {
        let m = merge(base, o, t);
        assert_eq!((m.conflict_count, text(&m).as_str()), (0, want));
    }
}

const BOM: &str = "\u{feff}";
const G4: &str = "config_version=5\n\n[application]\n\nconfig/name=\"Game\"\n";

#[test]
fn a_byte_order_mark_follows_ours_and_never_lands_mid_file() {
    let ours = G4.replace("\"Game\"", "\"Game 2\"");
    let theirs = format!("{BOM}{G4}[display]\n\nwindow/size/width=640\n");
    let m = merge(G4, &ours, &theirs);
    let out = text(&m);
    assert_eq!(m.conflict_count, 0, "{out}");
    assert!(!out.contains(BOM), "theirs' BOM in the result:\n{out:?}");
    assert!(out.starts_with("config_version=5\n"), "{out:?}");
    assert!(out.contains("config/name=\"Game 2\"") && out.contains("width=640"));
    // Ours' BOM stays, once, at the start, whatever theirs has.
    for t in [theirs.clone(), theirs.replacen(BOM, "", 1)] {
        let m = merge(G4, &format!("{BOM}{ours}"), &t);
        let out = text(&m);
        assert!(
            out.starts_with(&format!("{BOM}config_version=5\n")),
            "{out:?}"
        );
        assert_eq!(out.matches(BOM).count(), 1, "{out:?}");
        assert!(check_config(&out).unwrap().is_empty(), "{out:?}");
    }
}

#[test]
fn check_flags_a_byte_order_mark_in_the_middle_of_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("project.godot");
    std::fs::write(
        &bad,
        format!("[application]\n\nx=1\n{BOM}config_version=5\n"),
    )
    .unwrap();
    let good = dir.path().join("override.cfg");
    std::fs::write(&good, format!("{BOM}; Engine configuration file.\n{G4}")).unwrap();
    let run = |f: &std::path::Path| {
        std::process::Command::new(common::bin())
            .arg("check")
            .arg(f)
            .output()
            .unwrap()
    };
    let out = run(&bad);
    let err = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("byte order mark"), "{err}");
    assert!(!err.contains(BOM), "printed raw: {err:?}");
    let out = run(&good);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}
