//! Animation tracks as a set: matched by path and type, added ones renumbered,
//! conflicts naming the track and key.

use super::*;

fn track(n: usize, ty: &str, path: &str, keys: &str) -> Vec<(String, String)> {
    vec![
        (format!("tracks/{n}/type"), format!("\"{ty}\"")),
        (format!("tracks/{n}/imported"), "false".to_string()),
        (format!("tracks/{n}/enabled"), "true".to_string()),
        (format!("tracks/{n}/path"), format!("NodePath(\"{path}\")")),
        (format!("tracks/{n}/interp"), "1".to_string()),
        (format!("tracks/{n}/keys"), keys.to_string()),
    ]
}

fn tracks_merged(out: Grain<Vec<(String, String)>>) -> Vec<(String, String)> {
    match out {
        Grain::Merged(v) => v,
        other => panic!("expected merged tracks, got {other:?}"),
    }
}

#[test]
fn tracks_match_by_path_and_type_and_renumber_added_ones() {
    let c = ctx("Animation", "tracks", 3);
    let k1 = keys4("0", "1", "1");
    let k2 = keys4("0, 1", "1, 1", "1, 2");
    let base = [track(0, "value", "Sprite:frame", &k1)].concat();
    // Ours adds keys to the frame track; theirs adds a position track in front of it.
    let ours = [track(0, "value", "Sprite:frame", &k2)].concat();
    let theirs = [
        track(0, "value", "Sprite:position", &k1),
        track(1, "value", "Sprite:frame", &k1),
    ]
    .concat();
    let out = tracks_merged(merge_tracks(&c, &base, &ours, &theirs));
    let want = [
        track(0, "value", "Sprite:frame", &k2),
        track(1, "value", "Sprite:position", &k1),
    ]
    .concat();
    assert_eq!(out, want);
    let swapped = tracks_merged(merge_tracks(&c, &base, &theirs, &ours));
    let want = [
        track(0, "value", "Sprite:position", &k1),
        track(1, "value", "Sprite:frame", &k2),
    ]
    .concat();
    assert_eq!(swapped, want);
    // Both sides add a track: both kept, ours first.
    let a = [
        track(0, "value", "Sprite:frame", &k1),
        track(1, "value", "A:x", &k1),
    ]
    .concat();
    let b = [
        track(0, "value", "Sprite:frame", &k1),
        track(1, "method", ".", &k1),
    ]
    .concat();
    let out = tracks_merged(merge_tracks(&c, &base, &a, &b));
    assert_eq!(out.len(), 18);
    assert_eq!(
        out[6],
        ("tracks/1/type".to_string(), "\"value\"".to_string())
    );
    assert_eq!(
        out[12],
        ("tracks/2/type".to_string(), "\"method\"".to_string())
    );
}

#[test]
fn tracks_conflicts_name_the_track_and_key() {
    let c = ctx("Animation", "tracks", 3);
    let base = track(0, "value", "Sprite:frame", &keys4("0", "1", "1"));
    let ours = track(0, "value", "Sprite:frame", &keys4("0", "1", "2"));
    let theirs = track(0, "value", "Sprite:frame", &keys4("0", "1", "3"));
    match merge_tracks(&c, &base, &ours, &theirs) {
        Grain::Conflict(cs) => assert_eq!(
            cs[0].at,
            ConflictAt::Key {
                track: Some("\"value\" Sprite:frame".to_string()),
                time: "0".to_string()
            }
        ),
        other => panic!("{other:?}"),
    }
    // Deleted on one side, changed on the other.
    match merge_tracks(&c, &base, &ours, &[]) {
        Grain::Conflict(cs) => assert_eq!(
            cs[0].at,
            ConflictAt::Track("\"value\" Sprite:frame".to_string())
        ),
        other => panic!("{other:?}"),
    }
    // Deleted on one side, untouched on the other: gone.
    assert_eq!(
        tracks_merged(merge_tracks(&c, &base, &base, &[])),
        Vec::new()
    );
    // Other properties are not ours.
    let stray = vec![("length".to_string(), "1.0".to_string())];
    assert_eq!(merge_tracks(&c, &base, &stray, &theirs), Grain::NotMine);
}
