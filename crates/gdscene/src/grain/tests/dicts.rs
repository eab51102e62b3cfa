//! Dictionaries: merged key by key, kept sorted.

use super::*;

#[test]
fn dictionaries_merge_key_by_key_and_stay_sorted() {
    let c3 = ctx("Node2D", "__meta__", 2);
    let base = "{\n\"_edit_lock_\": true\n}";
    let out = both_ways(
        &c3,
        base,
        "{\n\"_edit_group_\": true,\n\"_edit_lock_\": true\n}",
        "{\n\"_edit_lock_\": true,\n\"_edit_pinned_properties_\": [  ]\n}",
        |a, b| a == b,
    );
    assert_eq!(
        out,
        "{\n\"_edit_group_\": true,\n\"_edit_lock_\": true,\n\"_edit_pinned_properties_\": [  ]\n}"
    );
    assert_eq!(
        merged(merge_property(&c3, Some(base), "{\n\n}", base)),
        "{\n\n}"
    );
    let c4 = ctx("AnimationLibrary", "_data", 3);
    let base = "{\n&\"RESET\": SubResource(\"Animation_a\")\n}";
    let ours =
        "{\n&\"RESET\": SubResource(\"Animation_a\"),\n&\"walk\": SubResource(\"Animation_w\")\n}";
    let theirs =
        "{\n&\"RESET\": SubResource(\"Animation_a\"),\n&\"idle\": SubResource(\"Animation_i\")\n}";
    let out = both_ways(&c4, base, ours, theirs, |a, b| a == b);
    assert_eq!(out, "{\n&\"RESET\": SubResource(\"Animation_a\"),\n&\"idle\": SubResource(\"Animation_i\"),\n&\"walk\": SubResource(\"Animation_w\")\n}");
    let clash =
        "{\n&\"RESET\": SubResource(\"Animation_a\"),\n&\"walk\": SubResource(\"Animation_x\")\n}";
    let cs = conflicts(merge_property(&c4, Some(base), ours, clash));
    assert_eq!(cs[0].at, ConflictAt::Entry("&\"walk\"".to_string()));
    assert_eq!(cs[0].base, None);
    assert!(
        cs[0]
            .to_string()
            .contains("ours SubResource(\"Animation_w\")"),
        "{}",
        cs[0]
    );
    // Both sides added the property: an empty base.
    assert_eq!(merged(merge_property(&c4, None, ours, theirs)), out);
}
