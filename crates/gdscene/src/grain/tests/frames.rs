//! SpriteFrames: merged animation by animation in both dialects.

use super::*;

#[test]
fn spriteframes_merge_per_animation_in_both_dialects() {
    let c3 = ctx("SpriteFrames", "animations", 2);
    let arr3 = |items: &[String]| format!("[ {} ]", items.join(", "));
    let base = arr3(&[anim3("idle", "ExtResource( 1 )", "5.0")]);
    let ours = arr3(&[
        anim3("idle", "ExtResource( 1 )", "8.0"),
        anim3("run", "ExtResource( 2 )", "5.0"),
    ]);
    let theirs = arr3(&[
        anim3("idle", "ExtResource( 1 ), ExtResource( 3 )", "5.0"),
        anim3("jump", "ExtResource( 4 )", "5.0"),
    ]);
    let out = merged(merge_property(&c3, Some(&base), &ours, &theirs));
    assert_eq!(
        out,
        arr3(&[
            anim3("idle", "ExtResource( 1 ), ExtResource( 3 )", "8.0"),
            anim3("run", "ExtResource( 2 )", "5.0"),
            anim3("jump", "ExtResource( 4 )", "5.0")
        ])
    );
    let swapped = merged(merge_property(&c3, Some(&base), &theirs, &ours));
    assert_eq!(
        swapped,
        arr3(&[
            anim3("idle", "ExtResource( 1 ), ExtResource( 3 )", "8.0"),
            anim3("jump", "ExtResource( 4 )", "5.0"),
            anim3("run", "ExtResource( 2 )", "5.0")
        ])
    );

    let c4 = ctx("SpriteFrames", "animations", 3);
    let f = |id: &str| format!("{{\n\"duration\": 1.0,\n\"texture\": ExtResource(\"{id}\")\n}}");
    let arr4 = |items: &[String]| format!("[{}]", items.join(", "));
    let base = arr4(&[anim4("default", &f("1"), "5.0")]);
    let a = arr4(&[anim4("default", &format!("{}, {}", f("1"), f("2")), "5.0")]);
    let b = arr4(&[anim4("default", &format!("{}, {}", f("1"), f("3")), "5.0")]);
    // Both appended a frame (issue 30.10): ours' then theirs', as a sequence.
    let both = format!("{}, {}, {}", f("1"), f("2"), f("3"));
    let want = arr4(&[anim4("default", &both, "5.0")]);
    assert_eq!(merged(merge_property(&c4, Some(&base), &a, &b)), want);
    // One side's appended frames starting the other's are not written twice.
    assert_eq!(merged(merge_property(&c4, Some(&base), &a, &want)), want);
    // The same frame changed differently on both sides conflicts.
    let two = arr4(&[anim4("default", &format!("{}, {}", f("1"), f("2")), "5.0")]);
    let a5 = arr4(&[anim4("default", &format!("{}, {}", f("1"), f("5")), "5.0")]);
    let b6 = arr4(&[anim4("default", &format!("{}, {}", f("1"), f("6")), "5.0")]);
    let cs = conflicts(merge_property(&c4, Some(&two), &a5, &b6));
    assert_eq!(
        cs[0].at,
        ConflictAt::Entry("animation \"default\" frame 1".to_string())
    );
    // Frames added at different places merge as a sequence; a removal meets an addition.
    let three = |x: &str, y: &str, z: &str| format!("{}, {}, {}", f(x), f(y), f(z));
    let base = arr4(&[anim4("default", &three("1", "2", "3"), "5.0")]);
    let a = arr4(&[anim4("default", &format!("{}, {}", f("1"), f("3")), "5.0")]);
    let b = arr4(&[anim4(
        "default",
        &format!("{}, {}", f("4"), three("1", "2", "3")),
        "5.0",
    )]);
    let want = arr4(&[anim4("default", &three("4", "1", "3"), "5.0")]);
    assert_eq!(merged(merge_property(&c4, Some(&base), &a, &b)), want);
    assert_eq!(merged(merge_property(&c4, Some(&base), &b, &a)), want);
    let cs = conflicts(merge_property(&c4, Some(&base), &a, "[]"));
    assert_eq!(cs[0].at, ConflictAt::Animation("default".to_string()));
    assert_eq!(merged(merge_property(&c4, Some(&base), &base, "[]")), "[]");
}
