//! Tests of value parsing, engine equality and reference handling; writing values back
//! is tested in `crate::write`.

use super::*;

fn p(s: &str) -> Value {
    match parse(s) {
        Ok(v) => v,
        Err(e) => panic!("parse {s:?}: {e}"),
    }
}
fn bad(s: &str) -> ValueError {
    match parse(s) {
        Ok(v) => panic!("expected error for {s:?}, got {v:?}"),
        Err(e) => e,
    }
}
fn eq(a: &str, b: &str) -> bool {
    p(a).sem_eq(&p(b))
}

#[test]
fn scalars_and_keywords() {
    assert_eq!(p("true"), Value::Bool(true));
    assert_eq!(p("false"), Value::Bool(false));
    assert_eq!(p("null"), Value::Null);
    assert_eq!(p("nil"), Value::Null);
    assert_eq!(p("42"), Value::Int(42));
    assert_eq!(p("-7"), Value::Int(-7));
    assert_eq!(p("1.5"), Value::Float(1.5));
    assert_eq!(p("1."), Value::Float(1.0));
    assert_eq!(p("1e5"), Value::Float(1e5));
    assert_eq!(p("1E+05"), Value::Float(1e5));
    assert_eq!(p("1e"), Value::Float(1.0));
    assert_eq!(p("inf"), Value::Float(f64::INFINITY));
    assert_eq!(p("-inf"), Value::Float(f64::NEG_INFINITY));
    assert_eq!(p("inf_neg"), Value::Float(f64::NEG_INFINITY));
    assert!(matches!(p("nan"), Value::Float(x) if x.is_nan()));
    for s in [
        "True",
        "NULL",
        "-nan",
        ".5",
        "+1",
        "0x1F",
        "1.5.3",
        "- 1",
        "'a'",
        "^\"a\"",
        "9999999999999999999",
    ] {
        bad(s);
    }
}

#[test]
fn strings_and_escapes() {
    assert_eq!(p(r#""a\"b\\c""#), Value::String("a\"b\\c".into()));
    assert_eq!(
        p(r#""\b\t\n\f\r""#),
        Value::String("\u{8}\t\n\u{c}\r".into())
    );
    // any other escaped char stands for itself: \a -> a, \v -> v, \0 -> 0 (§1.7)
    assert_eq!(p(r#""\a\v\0\'\?""#), Value::String("av0'?".into()));
    assert_eq!(p(r#""\u00e9\U01F600""#), Value::String("é😀".into()));
    assert_eq!(p(r#""\ud83d\ude00""#), Value::String("😀".into()));
    bad(r#""\ud83d""#);
    bad(r#""\uZZZZ""#);
    bad(r#""abc"#);
    // raw newlines, CRs, unicode kept (§6.38)
    assert_eq!(p("\"a\r\nb\""), Value::String("a\r\nb".into()));
    assert_eq!(p("&\"name\""), Value::StringName("name".into()));
    assert_eq!(p("@\"name\""), Value::StringName("name".into()));
    assert_eq!(p("NodePath(\"a/b:c\")"), Value::NodePath("a/b:c".into()));
    bad("NodePath(&\"a\")");
    // case 11: String with a real newline equals the escaped form in a packed string array
    let s = p("\"a\nb\"");
    let Value::Packed(pk) = p(r#"PackedStringArray("a\nb")"#) else {
        panic!()
    };
    let Ok(PackedElems::Strings(v)) = pk.elements() else {
        panic!()
    };
    assert_eq!(Value::String(v[0].clone()), s);
}

#[test]
fn colors_and_ctors() {
    assert_eq!(p("#ff0000"), Value::Color("ff0000".into()));
    bad("#ff00f");
    assert!(eq("#ff0000", "Color(1, 0, 0, 1)"));
    assert!(eq("#f00", "Color(1, 0, 0, 1)"));
    assert!(!eq("#ff0000", "Color(1, 0, 0, 0.5)"));
    bad("Color(1, 0, 0)");
    bad("Vector2(1, 2,)"); // case 9
    bad("Vector2(1)");
    bad("Image(1, 2)");
    bad("Vector2(\"a\", 1)");
    assert_eq!(
        p("Vector2( 1, 2.5 )"),
        Value::Ctor {
            name: "Vector2".into(),
            args: vec![Value::Int(1), Value::Float(2.5)]
        }
    );
    p("Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0)");
    p("Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0 )");
    p("Matrix32(1, 0, 0, 1, 0, 0)");
    p("Matrix3(1, 0, 0, 0, 1, 0, 0, 0, 1)");
    p("Rect3(0, 0, 0, 1, 1, 1)");
    p("Quat(0, 0, 0, 1)");
    p("Projection(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)");
    p("Plane(0, 1, 0, 5)");
    p("Vector4i(1, 2, 3, 4)");
    p("Rect2i(1, 2, 3, 4)");
    p("RID()");
    p("RID(5)");
    p("Signal()");
    p("Callable()");
    p("Vector2(inf, nan)");
    p("Vector2(-inf, inf_neg)");
    assert_eq!(
        p(r#"Resource("uid://abc", "res://x.tres")"#),
        Value::Ctor {
            name: "Resource".into(),
            args: vec![
                Value::String("uid://abc".into()),
                Value::String("res://x.tres".into())
            ]
        }
    );
    p("Resource( \"res://x\")");
    // legacy names equal modern ones
    assert!(eq("Quat(0, 0, 0, 1)", "Quaternion(0, 0, 0, 1)"));
    assert!(eq(
        "Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 )",
        "Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)"
    ));
    assert!(eq(
        "Matrix32(1, 0, 0, 1, 0, 0)",
        "Transform2D(1, 0, 0, 1, 0, 0)"
    ));
    assert!(eq("Rect3(0, 0, 0, 1, 1, 1)", "AABB(0, 0, 0, 1, 1, 1)"));
    assert!(eq(
        "Matrix3(1, 0, 0, 0, 1, 0, 0, 0, 1)",
        "Basis(1, 0, 0, 0, 1, 0, 0, 0, 1)"
    ));
    assert!(!eq("Vector2(1, 2)", "Vector3(1, 2, 0)"));
}

#[test]
fn float_equality_cases() {
    // case 5: ≤4.4 and 4.5+ spellings of float32 sin(45°)
    assert!(eq("0.707107", "0.70710677"));
    assert!(eq("Vector2(0.707107, 1)", "Vector2(0.70710677, 1.0)"));
    // case 6: negative zero
    assert!(eq("-0.0", "0.0"));
    assert!(eq("Vector2(-0, 0)", "Vector2(0, 0)"));
    // case 37
    assert!(eq("inf_neg", "-inf"));
    assert!(eq("nan", "nan"));
    assert!(!eq("0.1", "0.2"));
    assert!(!eq("0.707107", "0.707108"));
    assert!(!eq("1e-07", "0"));
    assert!(eq("1e+06", "1000000.0"));
    assert!(eq("0.333333", "0.3333333333333333"));
    // case 7: int vs float
    assert!(!eq("1", "1.0"));
    assert!(sem_eq_top(&p("1"), &p("1.0")));
    assert!(!sem_eq_top(&p("1"), &p("1.5")));
    assert!(!eq("[1]", "[1.0]"));
    assert!(!eq("{\"a\": 1}", "{\"a\": 1.0}"));
    // case 36: float in an int constructor truncates
    assert!(eq("Vector2i(1.7, 2)", "Vector2i(1, 2)"));
    assert!(!eq("Vector2i(2, 2)", "Vector2i(1, 2)"));
}

#[test]
fn arrays_and_dicts() {
    assert_eq!(
        p("[1, 2,]"),
        Value::Array(vec![Value::Int(1), Value::Int(2)])
    ); // case 9
    assert_eq!(p("[  ]"), Value::Array(vec![]));
    assert_eq!(
        p("[ 1, 2 ]"),
        Value::Array(vec![Value::Int(1), Value::Int(2)])
    );
    bad("[,]");
    bad("[1,,2]");
    assert_eq!(
        p("{\"a\": 1,}"),
        Value::Dict(vec![(Value::String("a".into()), Value::Int(1))])
    );
    assert_eq!(p("{\n}"), Value::Dict(vec![]));
    assert_eq!(p("{\n\n}"), Value::Dict(vec![]));
    // case 2: nested multi-line dicts without indentation
    let v = p("{\n\"k\": {\n\"x\": 1\n}\n}");
    assert_eq!(
        v,
        Value::Dict(vec![(
            Value::String("k".into()),
            Value::Dict(vec![(Value::String("x".into()), Value::Int(1))])
        )])
    );
    // case 24: key order irrelevant; duplicates: last wins
    assert!(eq("{\"b\": 1, \"a\": 2}", "{\"a\": 2, \"b\": 1}"));
    assert!(!eq("{\"b\": 1, \"a\": 2}", "{\"a\": 1, \"b\": 2}"));
    assert!(eq("{\"a\": 1, \"a\": 2}", "{\"a\": 2}"));
    // any keys
    p("{1: 2, Vector2(1, 2): [3], &\"n\": null}");
    // case 14: comments inside values; # is not a comment
    assert_eq!(
        p("[1, ; first\n2]"),
        Value::Array(vec![Value::Int(1), Value::Int(2)])
    );
    assert_eq!(p("; lead\n 5 ; trail"), Value::Int(5));
    bad("[1, # hi\n2]");
    // case 38: CRLF is whitespace outside strings
    assert_eq!(
        p("[\r\n1,\r\n2\r\n]"),
        Value::Array(vec![Value::Int(1), Value::Int(2)])
    );
}

#[test]
fn typed_containers_and_object() {
    assert_eq!(
        p("Array[int]([1, 2])"),
        Value::TypedArray {
            elem: TypeRef::Name("int".into()),
            items: vec![Value::Int(1), Value::Int(2)]
        }
    );
    assert_eq!(
        p("Array[ExtResource(\"2_abcde\")]([SubResource(\"Resource_x1y2z\")])"),
        Value::TypedArray {
            elem: TypeRef::Ext(ResId::Str("2_abcde".into())),
            items: vec![Value::SubResource(ResId::Str("Resource_x1y2z".into()))]
        }
    );
    // case 30: Resource as a class name
    assert_eq!(
        p("Array[Resource]([])"),
        Value::TypedArray {
            elem: TypeRef::Name("Resource".into()),
            items: vec![]
        }
    );
    assert!(
        matches!(p("Array[Resource(\"res://s.gd\")]([])"), Value::TypedArray { elem: TypeRef::Resource(ref v), .. } if v == &["res://s.gd".to_string()])
    );
    assert!(matches!(
        p("Array[SubResource(\"x\")]([])"),
        Value::TypedArray {
            elem: TypeRef::Sub(_),
            ..
        }
    ));
    // case 29: unknown class kept as written
    assert_eq!(
        p("Array[MyMissingClass]([])"),
        Value::TypedArray {
            elem: TypeRef::Name("MyMissingClass".into()),
            items: vec![]
        }
    );
    assert_eq!(
        p("Dictionary[Resource, int]({\n})"),
        Value::TypedDict {
            key: TypeRef::Name("Resource".into()),
            value: TypeRef::Name("int".into()),
            entries: vec![]
        }
    );
    p("Dictionary[String, Variant]({\n\"a\": 1\n})");
    p("Dictionary[int, Resource]({})");
    assert!(!eq("Array[int]([1])", "Array[float]([1])"));
    assert!(!eq("Array[int]([1])", "[1]"));
    // case 3: Object with the newline quirk
    let v = p("Object(RefCounted,\"script\":null,\"a\":1)\n");
    assert_eq!(
        v,
        Value::Object {
            class: "RefCounted".into(),
            props: vec![("script".into(), Value::Null), ("a".into(), Value::Int(1))]
        }
    );
    p("Object(Node)");
}

#[test]
fn resource_refs() {
    // case 16
    assert_eq!(p("ExtResource( 1 )"), Value::ExtResource(ResId::Int(1)));
    assert!(eq("ExtResource( 1 )", "ExtResource(\"1\")"));
    assert!(eq("SubResource(2)", "SubResource( \"2\" )"));
    assert!(!eq("SubResource(2)", "ExtResource(2)"));
    bad("ExtResource()");
    bad("ExtResource(1, 2)");
    bad("ExtResource(Vector2(1, 2))");
    assert_eq!(ResId::Int(1).key(), ResId::Str("1".into()).key());

    let mut v = p("[ExtResource(\"1_a\"), {SubResource(\"s\"): Array[ExtResource(\"2_b\")]([])}, Object(Node,\"x\":SubResource(\"t\"))]");
    let mut seen = Vec::new();
    v.for_each_ref(&mut |k, id| seen.push((k, id.key().into_owned())));
    assert_eq!(
        seen,
        vec![
            (RefKind::Ext, "1_a".into()),
            (RefKind::Sub, "s".into()),
            (RefKind::Ext, "2_b".into()),
            (RefKind::Sub, "t".into())
        ]
    );
    v.map_refs(&mut |k, id| {
        (k == RefKind::Ext && id.key() == "2_b").then(|| ResId::Str("9_z".into()))
    });
    let mut seen2 = Vec::new();
    v.for_each_ref(&mut |_, id| seen2.push(id.key().into_owned()));
    assert_eq!(seen2, vec!["1_a", "s", "9_z", "t"]);
}

#[test]
fn text_ref_rewrite() {
    let src = "[ExtResource( 1 ), \"ExtResource(1)\", SubResource(\"a\") ; ExtResource(1)\n, MyExtResource(1), ExtResource(\"1\")]";
    let mut found = Vec::new();
    scan_refs_in_text(src, &mut |k, id| found.push((k, id.to_string())));
    assert_eq!(
        found,
        vec![
            (RefKind::Ext, "1".into()),
            (RefKind::Sub, "a".into()),
            (RefKind::Ext, "1".into())
        ]
    );
    let out = rewrite_refs_in_text(src, &mut |k, id| match (k, id) {
        (RefKind::Ext, "1") => Some("7".into()),
        (RefKind::Sub, "a") => Some("b_\"q".into()),
        _ => None,
    });
    assert_eq!(
        out,
        "[ExtResource( 7 ), \"ExtResource(1)\", SubResource(\"b_\\\"q\") ; ExtResource(1)\n, MyExtResource(1), ExtResource(\"7\")]"
    );
    // int form becomes quoted when the new id is not an integer
    let out = rewrite_refs_in_text("instance=ExtResource( 2 )]", &mut |_, _| {
        Some("2_abc".into())
    });
    assert_eq!(out, "instance=ExtResource( \"2_abc\" )]");
    let out = rewrite_refs_in_text("ExtResource( 2 )", &mut |_, _| Some("007".into()));
    assert_eq!(out, "ExtResource( \"007\" )");
    // untouched when nothing changes
    let s = "Vector2( 1.50, 2 ) ; ExtResource(3)";
    assert_eq!(rewrite_refs_in_text(s, &mut |_, _| None), s);
}

#[test]
fn packed_arrays() {
    let Value::Packed(pk) = p("PoolVector2Array( 0, 0, 1, 1 )") else {
        panic!()
    };
    assert_eq!(pk.kind(), Some(PackedKind::Vector2));
    assert_eq!(pk.kind().map(|k| k.name()), Some("PackedVector2Array"));
    assert_eq!(pk.canonical_name(), "PackedVector2Array");
    assert_eq!(pk.kind().map(|k| k.godot3_name()), Some("PoolVector2Array"));
    assert_eq!(pk.len(), Ok(2));
    assert!(eq(
        "PoolVector2Array( 0, 0, 1, 1 )",
        "PackedVector2Array(0, 0, 1, 1.0)"
    ));
    assert!(eq(
        "PackedFloat32Array(0.707107)",
        "PackedFloat32Array(0.70710677)"
    ));
    assert!(!eq("PackedFloat32Array(1)", "PackedInt32Array(1)"));
    assert!(!eq("PackedFloat32Array(1, 2)", "PackedFloat32Array(1)"));
    // case 8: leftovers dropped
    let Value::Packed(pk) = p("PackedVector2Array(1, 2, 3)") else {
        panic!()
    };
    assert_eq!(pk.len(), Ok(1));
    assert_eq!(pk.dropped_components(), Ok(1));
    assert!(eq(
        "PackedVector2Array(1, 2, 3)",
        "PackedVector2Array(1, 2)"
    ));
    // case 9: trailing comma rejected (lazily)
    let Value::Packed(pk) = p("PackedInt32Array(1,)") else {
        panic!()
    };
    assert!(pk.elements().is_err());
    // empty forms
    for s in [
        "PoolIntArray(  )",
        "PackedVector2Array()",
        "IntArray()",
        "PackedStringArray( )",
    ] {
        let Value::Packed(pk) = p(s) else { panic!() };
        assert_eq!(pk.len(), Ok(0), "{s}");
    }
    // strings with `)`, `"` and `;` inside
    let Value::Packed(pk) = p(r#"PackedStringArray("a)", "b\";c", ; comment )
"d")"#)
    else {
        panic!()
    };
    assert_eq!(
        pk.elements(),
        Ok(PackedElems::Strings(vec![
            "a)".into(),
            "b\";c".into(),
            "d".into()
        ]))
    );
    // base64 bytes (format 4) equal the list form
    let Value::Packed(pk) = p("PackedByteArray(\"AAEC/w==\")") else {
        panic!()
    };
    assert_eq!(pk.body, PackedBody::Base64("AAEC/w==".into()));
    assert_eq!(pk.byte_len(), Some(Ok(4)));
    assert!(eq(
        "PackedByteArray(\"AAEC/w==\")",
        "PoolByteArray( 0, 1, 2, 255 )"
    ));
    assert!(eq(
        "PackedInt64Array(9007199254740993)",
        "PackedInt64Array( 9007199254740993 )"
    ));
    assert!(!eq(
        "PackedInt64Array(9007199254740993)",
        "PackedInt64Array(9007199254740992)"
    ));
    let Value::Packed(pk) = p("PackedColorArray(1, 0, 0, 1, inf, nan, -inf, inf_neg)") else {
        panic!()
    };
    assert_eq!(pk.len(), Ok(2));
    let Value::Packed(pk) = p("PackedInt32Array(1, x)") else {
        panic!()
    };
    assert_eq!(pk.elements().map_err(|e| e.offset), Err(3));
}

/// Every element compared, as `Packed::sem_eq` did before its quick refusal
/// (`surely_differs`): the reference the quick answer is held to.
fn packed_eq_every_element(a: &Packed, b: &Packed) -> bool {
    if a.kind() != b.kind() || a.kind().is_none() {
        return a.kind().is_none() && b.kind().is_none() && a == b;
    }
    if a.body == b.body {
        return true;
    }
    match (a.elements(), b.elements()) {
        (Ok(PackedElems::Floats(x)), Ok(PackedElems::Floats(y))) => {
            x.len() == y.len() && x.iter().zip(&y).all(|(&p, &q)| float_eq(p, q))
        }
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

#[test]
fn packed_equality_refuses_quickly_only_where_every_element_says_so() {
    let kinds = [
        "PackedFloat32Array",
        "PackedVector2Array",
        "PackedVector3Array",
        "PackedColorArray",
        "PackedInt32Array",
        "PackedInt64Array",
        "PackedByteArray",
        "PackedStringArray",
    ];
    let atoms = [
        "0",
        "1",
        "1.0",
        "1.00000001",
        "-0",
        "256",
        "257",
        "1e3",
        "1000",
        "0.1",
        "0.100000001",
        "nan",
        "inf",
        "2.5",
        "4294967297",
        "1",
        "\"x\"",
    ];
    let mut next = crate::test_support::rng(0x9E37_79B9_7F4A_7C15);
    let (mut compared, mut unequal) = (0, 0);
    for _ in 0..6000 {
        let kind = kinds[next(kinds.len())];
        let mut a: Vec<&str> = (0..next(8)).map(|_| atoms[next(atoms.len())]).collect();
        let mut b = a.clone();
        for _ in 0..next(3) {
            match next(3) {
                0 if !b.is_empty() => {
                    let i = next(b.len());
                    b[i] = atoms[next(atoms.len())];
                }
                1 => b.push(atoms[next(atoms.len())]),
                _ => {
                    b.pop();
                }
            }
        }
        if next(2) == 0 {
            std::mem::swap(&mut a, &mut b);
        }
        let text = |v: &[&str]| format!("{kind}({})", v.join(", "));
        let (Ok(Value::Packed(x)), Ok(Value::Packed(y))) = (parse(&text(&a)), parse(&text(&b)))
        else {
            continue;
        };
        let want = packed_eq_every_element(&x, &y);
        assert_eq!(x.sem_eq(&y), want, "{} against {}", text(&a), text(&b));
        compared += 1;
        unequal += usize::from(!want);
    }
    // Both answers were met often enough for the comparison to mean something.
    assert!(
        compared > 3000 && unequal > 500,
        "{compared} compared, {unequal} unequal"
    );
}

#[test]
fn depth_bound() {
    let deep = "[".repeat(100_000);
    let e = bad(&deep);
    assert_eq!(e.offset, MAX_DEPTH);
    let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    p(&ok);
    let deep_dict = "{\"a\": ".repeat(100_000);
    assert!(parse(&deep_dict).is_err());
    // brackets inside strings and comments do not count
    let s = format!("[\"{}\" ; {}\n]", "[".repeat(1000), "(".repeat(1000));
    p(&s);
    assert!(outline(&format!("[gd_scene]\na = {}", "(".repeat(100_000))).is_err());
}

#[test]
fn error_offsets() {
    // pest reports the start of the last rule it tried: here the value `2` before the junk.
    let e = bad("[1, 2 3]");
    assert_eq!(e.offset, 4);
    assert!(!e.expected.is_empty());
    assert!(e.to_string().contains("byte 4"));
    assert_eq!(bad("Vector2(1, \"x\")").offset, 11);
    assert_eq!(bad("Foo(1)").offset, 0);
}

const SCENE: &str = "[gd_scene load_steps=3 format=2]\r
\r
[ext_resource path=\"res://a.png\" type=\"Texture\" id=1]\r
\r
[node name=\"E\" type=\"Area2D\" parent=\".\" groups=[\r
\"enemy\",\r
]]\r
text = \"Intro\r
[node name=\\\"fake\\\"]\"\r
a b = 1 c = Vector2( 1, 2 )\r
\"my prop\" = { ; comment ]\r
\"k\": [ ExtResource( 1 ) ]\r
}\r
value = Object(RefCounted,\"script\":null)\r
\r
tail = 3 ; done\r
[connection signal=\"a\" from=\".\" to=\".\" method=\"b\" binds= [ 1 ]]\r
";

#[test]
fn outline_tricky_file() {
    let o = outline(SCENE).expect("outline");
    let names: Vec<&str> = o.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["gd_scene", "ext_resource", "node", "connection"]); // case 1: no fake node
    assert_eq!(
        o[0].fields.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
        ["load_steps", "format"]
    );
    let node = &o[2];
    let groups = &node
        .fields
        .iter()
        .find(|f| f.0 == "groups")
        .expect("groups")
        .1;
    assert_eq!(
        p(&SCENE[groups.clone()]),
        Value::Array(vec![Value::String("enemy".into())])
    ); // case 4
    let keys: Vec<&str> = node.props.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(keys, ["text", "ab", "c", "my prop", "value", "tail"]); // cases 12, 13
    for (_, span) in &node.props {
        p(&SCENE[span.clone()]);
    }
    assert_eq!(&SCENE[node.props[2].1.clone()], "Vector2( 1, 2 )");
    assert_eq!(
        p(&SCENE[node.props[0].1.clone()]),
        Value::String("Intro\r\n[node name=\"fake\"]".into())
    );
    let binds = &o[3]
        .fields
        .iter()
        .find(|f| f.0 == "binds")
        .expect("binds")
        .1;
    assert_eq!(&SCENE[binds.clone()], "[ 1 ]"); // case 22
    assert_eq!(o[3].start, SCENE.find("[connection").unwrap_or(0));
    // case 21: quoted vs bare kept as written
    let o2 = outline("[node name=\"A\" index=\"3\" unique_id=123]\n").expect("outline");
    assert_eq!(o2[0].fields[1], ("index".to_string(), 21..24));
    assert_eq!(p("\"3\""), Value::String("3".into()));
    // a key at EOF with no `=` is dropped
    assert_eq!(
        outline("[resource]\na = 1\njunk").expect("outline")[0]
            .props
            .len(),
        1
    );
    assert!(outline("[resource]\na = \n").is_err());
    assert!(outline("a = 1\n").is_err());
}

/// Decode every packed array inside `v` (lazy validation must succeed on real files).
fn check_packed(v: &Value, n: &mut usize, fail: &mut dyn FnMut(ValueError)) {
    match v {
        Value::Packed(p) => {
            *n += 1;
            if let Err(e) = p.elements() {
                fail(e);
            }
        }
        Value::Array(a) | Value::Ctor { args: a, .. } | Value::TypedArray { items: a, .. } => {
            a.iter().for_each(|x| check_packed(x, n, fail))
        }
        Value::Dict(e) | Value::TypedDict { entries: e, .. } => e.iter().for_each(|(k, x)| {
            check_packed(k, n, fail);
            check_packed(x, n, fail);
        }),
        Value::Object { props, .. } => props.iter().for_each(|(_, x)| check_packed(x, n, fail)),
        _ => {}
    }
}

use crate::test_support::shared_dir;

#[test]
fn corpus_outline_and_values() {
    let Some(shared) = shared_dir() else {
        eprintln!("corpus not found; skipping");
        return;
    };
    let corpus = shared.join("corpus");
    let index = std::fs::read_to_string(corpus.join("INDEX.tsv")).expect("index");
    let mut lines = index.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
    let col = header
        .iter()
        .position(|h| *h == "stored_as")
        .expect("stored_as column");
    let (mut files, mut bytes, mut sections, mut fields, mut props) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    let mut packed = 0usize;
    let t0 = std::time::Instant::now();
    let mut outline_time = std::time::Duration::ZERO;
    for line in lines {
        let Some(rel) = line.split('\t').nth(col) else {
            continue;
        };
        let raw = std::fs::read(corpus.join(rel)).expect("read corpus file");
        let raw = raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&raw);
        let text = String::from_utf8_lossy(raw);
        files += 1;
        bytes += text.len();
        let t = std::time::Instant::now();
        let o = match outline(&text) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{rel}: outline: {e}"));
                continue;
            }
        };
        outline_time += t.elapsed();
        sections += o.len();
        for s in &o {
            for (k, span) in s.fields.iter().chain(&s.props) {
                match parse(&text[span.clone()]) {
                    Err(e) => failures.push(format!("{rel}: [{}] {k}: {e}", s.name)),
                    Ok(v) => check_packed(&v, &mut packed, &mut |e| {
                        failures.push(format!("{rel}: [{}] {k}: packed: {e}", s.name))
                    }),
                }
            }
            fields += s.fields.len();
            props += s.props.len();
        }
    }
    eprintln!(
        "corpus: {files} files, {bytes} bytes, {sections} sections, {fields} fields, {props} props, {packed} packed arrays decoded; outline {:.1} MB/s; total {:?}",
        bytes as f64 / 1e6 / outline_time.as_secs_f64().max(1e-9),
        t0.elapsed()
    );
    for f in failures.iter().take(30) {
        eprintln!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
    assert!(files > 9000);
}
