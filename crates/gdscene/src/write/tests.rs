//! Tests of the canonical writer: float digits per editor version, layouts per dialect,
//! escaping, and round trips through the value parser.

use super::*;
use crate::value::{parse, Packed, PackedBody, ResId, TypeRef, Value};
use proptest::prelude::*;

const G3: Style = Style {
    dialect: Dialect::Godot3,
    float: FloatStyle::G6,
};
const G44: Style = Style {
    dialect: Dialect::Godot4 { format: 3 },
    float: FloatStyle::G6,
};
const G45: Style = Style {
    dialect: Dialect::Godot4 { format: 3 },
    float: FloatStyle::Shortest,
};
const G45F4: Style = Style {
    dialect: Dialect::Godot4 { format: 4 },
    float: FloatStyle::Shortest,
};

fn w(s: &str, style: &Style) -> String {
    value(&parse(s).unwrap_or_else(|e| panic!("{s}: {e}")), style)
}

#[test]
fn g6_examples_of_spec_4_9() {
    let c = |x: f64| float_component(x, &G44);
    assert_eq!(c(0.1), "0.1");
    assert_eq!(c(std::f32::consts::FRAC_1_SQRT_2 as f64), "0.707107");
    assert_eq!(c(1.0 / 3.0), "0.333333");
    assert_eq!(c(100000.0), "100000");
    assert_eq!(c(1e6), "1e+06");
    assert_eq!(c(1234567.0), "1.23457e+06");
    assert_eq!(c(0.0001), "0.0001");
    assert_eq!(c(1e-5), "1e-05");
    assert_eq!(c(2.5e-5), "2.5e-05");
    assert_eq!(c(-1.5), "-1.5");
    assert_eq!(c(1e100), "1e+100");
    assert_eq!(c(123456.0), "123456");
    assert_eq!(c(999999.5), "1e+06");
}

#[test]
fn shortest_examples_of_spec_4_9() {
    let c = |x: f64| float_component(x, &G45);
    assert_eq!(c(0.1f32 as f64), "0.1");
    assert_eq!(c((1.0f32 / 3.0) as f64), "0.33333334");
    assert_eq!(c(std::f32::consts::FRAC_1_SQRT_2 as f64), "0.70710677");
    assert_eq!(c(1.0 / 3.0), "0.3333333333333333");
    assert_eq!(c(100.0), "100");
    assert_eq!(c(1e6), "1000000");
    assert_eq!(c(123.456), "123.456");
    assert_eq!(c(0.0001), "0.0001");
    assert_eq!(c(0.00012345), "0.00012345");
    assert_eq!(c(1e-5), "1e-05");
    assert_eq!(c(1e14), "100000000000000");
    assert_eq!(c(1e15), "1e+15");
    assert_eq!(c(1e16), "1e+16");
    assert_eq!(c(1.5e20), "1.5e+20");
    assert_eq!(c(1.25e-7), "1.25e-07");
}

#[test]
fn special_floats_and_plain_rule() {
    assert_eq!(float_plain(1.0, &G45), "1.0");
    assert_eq!(float_plain(1e6, &G44), "1e+06");
    assert_eq!(float_plain(1e6, &G45), "1000000.0");
    assert_eq!(float_plain(0.0, &G45), "0.0");
    assert_eq!(float_plain(-0.0, &G45), "0.0");
    assert_eq!(float_component(-0.0, &G45), "0");
    assert_eq!(float_plain(f64::NAN, &G45), "nan");
    assert_eq!(float_plain(f64::INFINITY, &G45), "inf");
    assert_eq!(float_plain(f64::NEG_INFINITY, &G3), "-inf");
    assert_eq!(float_plain(f64::NEG_INFINITY, &G44), "inf_neg");
    assert_eq!(float_plain(f64::NEG_INFINITY, &G45), "inf_neg");
    assert_eq!(float_plain(f64::NEG_INFINITY, &G45F4), "-inf");
    assert_eq!(float_plain(-2.5, &G45), "-2.5");
    // 4.5: plain doubles use the float32 form when exactly float32
    assert_eq!(float_plain(0.1f32 as f64, &G45), "0.1");
    assert_eq!(float_plain(0.1, &G45), "0.1");
}

#[test]
fn escapes_and_keys() {
    assert_eq!(
        c_escape("a\\b\u{7}\u{8}\u{c}\n\r\t\u{b}'?\"é"),
        "a\\\\b\\a\\b\\f\\n\\r\\t\\v\\'\\?\\\"é"
    );
    assert_eq!(multiline_escape("a\n\"\\\t"), "a\n\\\"\\\\\t");
    assert_eq!(encode_key("position"), "position");
    assert_eq!(
        encode_key("0:0/0/physics_layer_0/polygon_0/points"),
        "0:0/0/physics_layer_0/polygon_0/points"
    );
    assert_eq!(encode_key("metadata/@x.y"), "metadata/@x.y");
    assert_eq!(encode_key("my prop"), "\"my prop\"");
    assert_eq!(encode_key("a=b"), "\"a=b\"");
    assert_eq!(encode_key("é"), "\"é\"");
    assert_eq!(encode_key("q\"\\;[]"), "\"q\\\"\\\\;[]\"");
}

#[test]
fn godot3_layout() {
    assert_eq!(w("Vector2(1, 2)", &G3), "Vector2( 1, 2 )");
    assert_eq!(w("[1, 2]", &G3), "[ 1, 2 ]");
    assert_eq!(w("[]", &G3), "[  ]");
    assert_eq!(w("PackedInt32Array()", &G3), "PoolIntArray(  )");
    assert_eq!(
        w("PackedVector2Array(0, 0, 1, 1)", &G3),
        "PoolVector2Array( 0, 0, 1, 1 )"
    );
    assert_eq!(
        w("PackedStringArray(\"a\")", &G3),
        "PoolStringArray( \"a\" )"
    );
    assert_eq!(w("{\"b\": 2, \"a\": 1}", &G3), "{\n\"a\": 1,\n\"b\": 2\n}");
    assert_eq!(w("{}", &G3), "{\n\n}");
    assert_eq!(w("ExtResource(\"1\")", &G3), "ExtResource( 1 )");
    assert_eq!(w("SubResource(2)", &G3), "SubResource( 2 )");
    assert_eq!(w("-inf", &G3), "-inf");
    assert_eq!(
        w("Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0)", &G3),
        "Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0 )"
    );
    assert_eq!(w("Quaternion(0, 0, 0, 1)", &G3), "Quat( 0, 0, 0, 1 )");
    assert_eq!(w("Color(1, 1, 1, 1)", &G3), "Color( 1, 1, 1, 1 )");
    assert_eq!(w("Resource(\"res://x\")", &G3), "Resource( \"res://x\")");
    assert_eq!(w("1", &G3), "1");
    assert_eq!(w("1.0", &G3), "1.0");
}

#[test]
fn godot4_layout() {
    let s = &G45;
    assert_eq!(w("Vector2( 1, 0.5 )", s), "Vector2(1, 0.5)");
    assert_eq!(
        w("Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0 )", s),
        "Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0)"
    );
    assert_eq!(w("Quat(0, 0, 0, 1)", s), "Quaternion(0, 0, 0, 1)");
    assert_eq!(
        w("Matrix32(1, 0, 0, 1, 0, 0)", s),
        "Transform2D(1, 0, 0, 1, 0, 0)"
    );
    assert_eq!(w("Vector2i(1.7, 2)", s), "Vector2i(1, 2)");
    assert_eq!(w("Vector2(0.707107, 1)", &G44), "Vector2(0.707107, 1)");
    assert_eq!(w("Vector2(0.70710677, 1)", &G44), "Vector2(0.707107, 1)");
    assert_eq!(w("Vector2(0.707107, 1)", s), "Vector2(0.707107, 1)");
    assert_eq!(w("Vector2(0.70710677, 1)", s), "Vector2(0.70710677, 1)");
    assert_eq!(w("[ 1, 2, ]", s), "[1, 2]");
    assert_eq!(w("[  ]", s), "[]");
    assert_eq!(w("{\n}", s), "{}");
    assert_eq!(
        w("{\"b\": 1, \"a\": {\"nested\": true}, &\"c\": [1, 2]}", s),
        "{\n\"a\": {\n\"nested\": true\n},\n\"b\": 1,\n&\"c\": [1, 2]\n}"
    );
    // String and StringName keys sorted together by code point; other types by type rank
    assert_eq!(
        w("{&\"B\": 1, \"a\": 2, 3: 4, null: 5}", s),
        "{\nnull: 5,\n3: 4,\n&\"B\": 1,\n\"a\": 2\n}"
    );
    assert_eq!(w("Array[int]([1, 2])", s), "Array[int]([1, 2])");
    assert_eq!(
        w("Array[StringName]([&\"a\"])", s),
        "Array[StringName]([&\"a\"])"
    );
    assert_eq!(w("Array[Node]([])", s), "Array[Node]([])");
    assert_eq!(
        w(
            "Array[ExtResource(\"2_abcde\")]([SubResource( \"Resource_x1y2z\" )])",
            s
        ),
        "Array[ExtResource(\"2_abcde\")]([SubResource(\"Resource_x1y2z\")])"
    );
    assert_eq!(
        w("Dictionary[String, int]({\"a\": 1})", s),
        "Dictionary[String, int]({\n\"a\": 1\n})"
    );
    assert_eq!(
        w("Object(RefCounted, \"script\": null)", s),
        "Object(RefCounted,\"script\":null)\n"
    );
    assert_eq!(
        w("PackedFloat32Array(0.5, 1.0)", s),
        "PackedFloat32Array(0.5, 1)"
    );
    assert_eq!(
        w("PackedStringArray(\"a\", \"b\n\")", s),
        "PackedStringArray(\"a\", \"b\\n\")"
    );
    assert_eq!(w("PoolVector2Array()", s), "PackedVector2Array()");
    assert_eq!(w("PackedByteArray(0, 255)", s), "PackedByteArray(0, 255)");
    assert_eq!(
        w("PackedByteArray(0, 1, 2, 255)", &G45F4),
        "PackedByteArray(\"AAEC/w==\")"
    );
    assert_eq!(w("PackedByteArray()", &G45F4), "PackedByteArray()");
    assert_eq!(
        w("PackedByteArray(\"AAEC/w==\")", s),
        "PackedByteArray(0, 1, 2, 255)"
    );
    assert_eq!(w("ExtResource( 1 )", s), "ExtResource(\"1\")");
    assert_eq!(w("\"a\nb\\\"\"", s), "\"a\nb\\\"\"");
    assert_eq!(w("&\"a\nb\"", s), "&\"a\\nb\"");
    assert_eq!(w("NodePath(\"a\tb\")", s), "NodePath(\"a\\tb\")");
    assert_eq!(w("#ff0000", s), "Color(1, 0, 0, 1)");
    assert_eq!(w("RID()", s), "RID()");
    assert_eq!(w("Signal()", s), "Signal()");
    assert_eq!(w("inf_neg", &G45F4), "-inf");
    assert_eq!(w("2", s), "2");
    assert_eq!(w("2.0", s), "2.0");
    assert_eq!(w("Color(1, 1, 1, 0.5)", s), "Color(1, 1, 1, 0.5)");
    // Undecodable packed bodies are kept as written.
    assert_eq!(w("PackedInt32Array(1, x)", s), "PackedInt32Array(1, x)");
}

// ------------------------------------------------------------------ round-trip property

fn float_strategy() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(-0.0),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::NAN),
        any::<f32>().prop_map(|x| x as f64),
        -1e6f64..1e6,
        any::<f64>(),
    ]
}

fn text_strategy() -> impl Strategy<Value = String> {
    // No BEL / VT: the engine itself cannot round-trip `\a` and `\v` (§6.10).
    proptest::collection::vec(
        prop_oneof![
            proptest::char::range(' ', '~'),
            Just('\n'),
            Just('\r'),
            Just('\t'),
            Just('é'),
            Just('😀'),
            Just('"'),
            Just('\\'),
        ],
        0..8,
    )
    .prop_map(|v| v.into_iter().collect())
}

fn id_strategy() -> impl Strategy<Value = ResId> {
    prop_oneof![
        (0i64..100).prop_map(ResId::Int),
        "[a-z0-9_]{1,8}".prop_map(ResId::Str)
    ]
}

fn typeref_strategy() -> impl Strategy<Value = TypeRef> {
    prop_oneof![
        "[A-Z][a-zA-Z0-9]{0,6}".prop_map(TypeRef::Name),
        id_strategy().prop_map(TypeRef::Ext),
        id_strategy().prop_map(TypeRef::Sub),
        proptest::collection::vec("res://[a-z]{1,5}", 1..3).prop_map(TypeRef::Resource),
    ]
}

fn packed_strategy() -> impl Strategy<Value = Value> {
    let names = [
        "PackedFloat32Array",
        "PoolRealArray",
        "PackedFloat64Array",
        "PackedVector2Array",
        "PoolVector3Array",
        "PackedColorArray",
        "PackedVector4Array",
    ];
    prop_oneof![
        (
            proptest::sample::select(names.to_vec()),
            proptest::collection::vec(-1e5f64..1e5, 0..9)
        )
            .prop_map(|(n, v)| {
                let body: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                Value::Packed(Packed {
                    name: n.to_string(),
                    body: PackedBody::List(body.join(", ")),
                })
            }),
        (
            proptest::sample::select(vec!["PackedInt32Array", "PoolIntArray"]),
            proptest::collection::vec(any::<i32>(), 0..6)
        )
            .prop_map(|(n, v)| {
                let body: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                Value::Packed(Packed {
                    name: n.to_string(),
                    body: PackedBody::List(body.join(", ")),
                })
            }),
        proptest::collection::vec(any::<i64>(), 0..6).prop_map(|v| {
            let body: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            Value::Packed(Packed {
                name: "PackedInt64Array".into(),
                body: PackedBody::List(body.join(",")),
            })
        }),
        proptest::collection::vec(any::<u8>(), 0..80).prop_map(|v| {
            let body: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            Value::Packed(Packed {
                name: "PackedByteArray".into(),
                body: PackedBody::List(body.join(", ")),
            })
        }),
        proptest::collection::vec(text_strategy(), 0..4).prop_map(|v| {
            let body: Vec<String> = v.iter().map(|x| format!("\"{}\"", c_escape(x))).collect();
            Value::Packed(Packed {
                name: "PackedStringArray".into(),
                body: PackedBody::List(body.join(", ")),
            })
        }),
    ]
}

fn ctor_strategy() -> impl Strategy<Value = Value> {
    let float_ctors = vec![
        ("Vector2", 2usize),
        ("Vector3", 3),
        ("Vector4", 4),
        ("Rect2", 4),
        ("Transform2D", 6),
        ("Matrix32", 6),
        ("Plane", 4),
        ("Quaternion", 4),
        ("Quat", 4),
        ("AABB", 6),
        ("Basis", 9),
        ("Transform3D", 12),
        ("Transform", 12),
        ("Projection", 16),
        ("Color", 4),
    ];
    let int_ctors = vec![
        ("Vector2i", 2usize),
        ("Vector3i", 3),
        ("Vector4i", 4),
        ("Rect2i", 4),
    ];
    prop_oneof![
        (
            proptest::sample::select(float_ctors),
            proptest::collection::vec(float_strategy(), 16)
        )
            .prop_map(|((n, k), v)| {
                Value::Ctor {
                    name: n.to_string(),
                    args: v.into_iter().take(k).map(Value::Float).collect(),
                }
            }),
        (
            proptest::sample::select(int_ctors),
            proptest::collection::vec(any::<i32>(), 4)
        )
            .prop_map(|((n, k), v)| {
                Value::Ctor {
                    name: n.to_string(),
                    args: v
                        .into_iter()
                        .take(k)
                        .map(|i| Value::Int(i as i64))
                        .collect(),
                }
            }),
        Just(Value::Ctor {
            name: "RID".into(),
            args: vec![]
        }),
        Just(Value::Ctor {
            name: "Callable".into(),
            args: vec![]
        }),
        "res://[a-z]{1,6}".prop_map(|s| Value::Ctor {
            name: "Resource".into(),
            args: vec![Value::String(s)]
        }),
    ]
}

fn leaf(godot4: bool) -> BoxedStrategy<Value> {
    let common = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        float_strategy().prop_map(Value::Float),
        text_strategy().prop_map(Value::String),
        text_strategy().prop_map(Value::NodePath),
        "[0-9a-f]{6}|[0-9a-f]{8}".prop_map(Value::Color),
        id_strategy().prop_map(Value::ExtResource),
        id_strategy().prop_map(Value::SubResource),
        ctor_strategy(),
        packed_strategy(),
    ];
    if godot4 {
        prop_oneof![common, text_strategy().prop_map(Value::StringName)].boxed()
    } else {
        common.boxed()
    }
}

fn value_strategy(godot4: bool) -> BoxedStrategy<Value> {
    leaf(godot4)
        .prop_recursive(3, 24, 5, move |inner| {
            let base = prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec((inner.clone(), inner.clone()), 0..4)
                    .prop_map(Value::Dict),
                (
                    "[A-Z][a-zA-Z]{0,5}",
                    proptest::collection::vec(("[a-z_]{1,5}", inner.clone()), 0..3)
                )
                    .prop_map(|(class, props)| Value::Object { class, props }),
            ];
            if godot4 {
                prop_oneof![
                    base,
                    (
                        typeref_strategy(),
                        proptest::collection::vec(inner.clone(), 0..4)
                    )
                        .prop_map(|(elem, items)| Value::TypedArray { elem, items }),
                    (
                        typeref_strategy(),
                        typeref_strategy(),
                        proptest::collection::vec((inner.clone(), inner), 0..3)
                    )
                        .prop_map(|(key, value, entries)| Value::TypedDict {
                            key,
                            value,
                            entries
                        }),
                ]
                .boxed()
            } else {
                base.boxed()
            }
        })
        .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn roundtrip_godot4(v in value_strategy(true), shortest in any::<bool>(), fmt4 in any::<bool>()) {
        let style = Style {
            dialect: Dialect::Godot4 { format: if fmt4 { 4 } else { 3 } },
            float: if shortest { FloatStyle::Shortest } else { FloatStyle::G6 },
        };
        let text = value(&v, &style);
        let back = parse(&text).map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
        prop_assert!(v.sem_eq(&back), "{:?}\n-> {}\n-> {:?}", v, text, back);
        // Writing is idempotent.
        prop_assert_eq!(value(&back, &style), text);
    }

    #[test]
    fn roundtrip_godot3(v in value_strategy(false)) {
        let text = value(&v, &G3);
        let back = parse(&text).map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
        prop_assert!(v.sem_eq(&back), "{:?}\n-> {}\n-> {:?}", v, text, back);
        prop_assert_eq!(value(&back, &G3), text);
    }

    #[test]
    fn floats_roundtrip(x in float_strategy()) {
        for style in [G3, G44, G45, G45F4] {
            for t in [float_plain(x, &style), float_component(x, &style)] {
                let back = parse(&t).map_err(|e| TestCaseError::fail(format!("{t}: {e}")))?;
                let y = match back { Value::Float(y) => y, Value::Int(i) => i as f64, other => return Err(TestCaseError::fail(format!("{other:?}"))) };
                prop_assert!(crate::value::float_eq(x, y), "{} -> {} -> {}", x, t, y);
                if style.float == FloatStyle::Shortest {
                    // Shortest is exact (as float32 when the value is exactly float32).
                    let exact = if (x as f32) as f64 == x { (x as f32) == (y as f32) } else { x == y };
                    prop_assert!(x.is_nan() && y.is_nan() || exact, "{} -> {} -> {}", x, t, y);
                }
            }
        }
    }
}
