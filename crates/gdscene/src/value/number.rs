//! Number text shared by the value model and the writer: C's `%g` with 6 significant
//! digits (how 3.x and 4.0–4.4 print floats, also the precision float equality compares
//! at) and Godot 4.5's shortest round-trip digits laid out as its Grisu2 patch does (§4.9).
//!
//! Decides digits, decimal point and exponent of a positive value (plus the sign for
//! [`g6_signed`]); signs, `inf`/`nan` spellings and the `.0` suffix are the writer's.

/// Layout a decimal digit string `d` with decimal point position `n` (value = 0.d × 10^n),
/// following Godot's Grisu2 patch (§4.9).
pub(crate) fn layout(d: &str, n: i32) -> String {
    let k = d.len() as i32;
    if k <= n && n <= 15 {
        let mut s = d.to_string();
        s.extend(std::iter::repeat_n('0', (n - k) as usize));
        s
    } else if 0 < n && n <= 15 {
        format!("{}.{}", &d[..n as usize], &d[n as usize..])
    } else if -4 < n && n <= 0 {
        format!("0.{}{}", "0".repeat((-n) as usize), d)
    } else {
        let e = n - 1;
        let mant = if k > 1 {
            format!("{}.{}", &d[..1], &d[1..])
        } else {
            d.to_string()
        };
        format!("{}e{}{:02}", mant, if e < 0 { '-' } else { '+' }, e.abs())
    }
}

/// Split Rust's `{:e}` output (`d.ddde-X`) into digits without the point and exponent.
pub(crate) fn sci_parts(s: &str) -> (String, i32) {
    let (m, e) = s.split_once('e').unwrap_or((s, "0"));
    let digits: String = m.chars().filter(|c| c.is_ascii_digit()).collect();
    (digits, e.parse().unwrap_or(0))
}

/// Shortest round-trip digits for a positive finite non-zero value.
pub(crate) fn shortest(x: f64, as_f32: bool) -> String {
    let s = if as_f32 {
        format!("{:e}", x as f32)
    } else {
        format!("{:e}", x)
    };
    let (d, e) = sci_parts(&s);
    let d = d.trim_end_matches('0');
    let d = if d.is_empty() { "0" } else { d };
    layout(d, e + 1)
}

/// C `%g` with 6 significant digits for a positive finite non-zero value.
pub(crate) fn g6(x: f64) -> String {
    let s = format!("{:.5e}", x);
    let (_, e) = sci_parts(&s);
    if !(-4..6).contains(&e) {
        let (m, _) = s.split_once('e').unwrap_or((&s, ""));
        let m = if m.contains('.') {
            m.trim_end_matches('0').trim_end_matches('.')
        } else {
            m
        };
        format!("{}e{}{:02}", m, if e < 0 { '-' } else { '+' }, e.abs())
    } else {
        let prec = (5 - e).max(0) as usize;
        let f = format!("{:.*}", prec, x);
        if f.contains('.') {
            f.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            f
        }
    }
}

/// `%g` (6 significant digits) of any finite value, sign included; used for equality.
pub(crate) fn g6_signed(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let a = g6(x.abs());
    if x < 0.0 {
        format!("-{a}")
    } else {
        a
    }
}
