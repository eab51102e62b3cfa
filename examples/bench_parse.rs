//! Parse throughput, printed beside `wc -l` on the same bytes.
//!
//!     cargo run --release --example bench_parse -- [--quick] [--corpus DIR] FILE...
//!
//! For each input set (every file of `--corpus`, taken together, and each FILE alone) it
//! times: `split` (`syntax::Document::parse`), `split+model` (`model::Scene::parse`, which
//! includes the split), `model+check` (`Scene::parse` then `check::check`, what the merge
//! driver does to validate a result; files with errors count as failed), `pest outline`
//! (`value::outline`, the full-file pest parse) and `values` (`value::parse` of every header
//! field and property value, plus decoding every packed array). Each figure is the best
//! of several runs, in MB/s (10^6 bytes per second). `wc -l` is run as a process on the
//! same files (warm cache), best of three. `--quick` skips the slow `pest outline`, `all
//! values` and `wc -l` rows (for profiling and quick comparisons).

use gdscene::check;
use gdscene::model::Scene;
use gdscene::syntax::Document;
use gdscene::value::{self, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Best wall time of `f` over repeated runs: at least 2 runs, at most 7, stopping once
/// 1.5 s have been spent (or after the first run if it alone took 20 s).
fn best<F: FnMut() -> usize>(mut f: F) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut spent = Duration::ZERO;
    let mut errs = 0;
    for i in 0..7 {
        let t = Instant::now();
        errs = std::hint::black_box(f());
        let d = t.elapsed();
        best = best.min(d);
        spent += d;
        if (i >= 1 && spent > Duration::from_millis(1500)) || spent > Duration::from_secs(20) {
            break;
        }
    }
    (best, errs)
}

fn touch_packed(v: &Value) -> usize {
    match v {
        Value::Packed(p) => usize::from(p.elements().is_err()),
        Value::Array(items) | Value::TypedArray { items, .. } | Value::Ctor { args: items, .. } => {
            items.iter().map(touch_packed).sum()
        }
        Value::Dict(e) | Value::TypedDict { entries: e, .. } => e
            .iter()
            .map(|(k, v)| touch_packed(k) + touch_packed(v))
            .sum(),
        Value::Object { props, .. } => props.iter().map(|(_, v)| touch_packed(v)).sum(),
        _ => 0,
    }
}

/// Parse every field and property value of `doc`; returns the number of failures.
fn all_values(doc: &Document) -> usize {
    let mut errs = 0;
    for s in &doc.sections {
        let ranges = s
            .tag
            .fields
            .iter()
            .map(|f| &f.value)
            .chain(s.props.iter().map(|p| &p.value));
        for r in ranges {
            match value::parse(doc.slice(r)) {
                Ok(v) => errs += touch_packed(&v),
                Err(_) => errs += 1,
            }
        }
    }
    errs
}

fn wc_l(files: &[PathBuf]) -> Option<Duration> {
    let mut best = Duration::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let mut total = Duration::ZERO;
        for chunk in files.chunks(2000) {
            let out = std::process::Command::new("wc")
                .arg("-l")
                .args(chunk)
                .output()
                .ok()?;
            if !out.status.success() {
                return None;
            }
        }
        total += t.elapsed();
        best = best.min(total);
    }
    Some(best)
}

fn mbps(bytes: usize, d: Duration) -> String {
    format!("{:>9.1}", bytes as f64 / 1e6 / d.as_secs_f64().max(1e-9))
}

fn bench(label: &str, files: &[PathBuf], quick: bool) {
    let data: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(f).expect("read input"))
        .collect();
    let bytes: usize = data.iter().map(Vec::len).sum();
    let texts: Vec<&str> = data
        .iter()
        .filter_map(|d| std::str::from_utf8(d).ok())
        .collect();
    let docs: Vec<Document> = data
        .iter()
        .filter_map(|d| Document::parse(d).ok())
        .collect();

    let (split, e_split) = best(|| data.iter().filter(|d| Document::parse(d).is_err()).count());
    let (model, e_model) = best(|| data.iter().filter(|d| Scene::parse(d).is_err()).count());
    let (checked, e_checked) = best(|| {
        data.iter()
            .map(|d| {
                Scene::parse(d).map_or(1, |s| usize::from(check::is_broken(&check::check(&s))))
            })
            .sum()
    });
    let slow = (!quick).then(|| {
        (
            best(|| texts.iter().filter(|t| value::outline(t).is_err()).count()),
            best(|| docs.iter().map(all_values).sum()),
            wc_l(files),
        )
    });

    println!(
        "{label}: {} file(s), {:.1} MB",
        files.len(),
        bytes as f64 / 1e6
    );
    let row = |name: &str, d: Duration, errs: usize| {
        let note = if errs > 0 {
            format!("  ({errs} failed)")
        } else {
            String::new()
        };
        println!(
            "  {name:<14} {} MB/s  {:>9.1} ms{note}",
            mbps(bytes, d),
            d.as_secs_f64() * 1e3
        );
    };
    row("split", split, e_split);
    row("split+model", model, e_model);
    row("model+check", checked, e_checked);
    if let Some(((outline, e_outline), (values, e_values), wc)) = slow {
        row("pest outline", outline, e_outline);
        row("all values", values, e_values);
        match wc {
            Some(d) => row("wc -l", d, 0),
            None => println!("  wc -l          (not available)"),
        }
    }
}

fn corpus_files(root: &Path) -> Vec<PathBuf> {
    let index = std::fs::read_to_string(root.join("INDEX.tsv")).expect("corpus INDEX.tsv");
    let mut lines = index.lines();
    let head: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = head
        .iter()
        .position(|h| *h == "stored_as")
        .expect("stored_as column");
    lines
        .filter(|l| !l.is_empty())
        .filter_map(|l| l.split('\t').nth(col).map(|p| root.join(p)))
        .collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut files = Vec::new();
    let mut corpus = None;
    let mut quick = false;
    while let Some(a) = args.next() {
        if a == "--quick" {
            quick = true;
        } else if a == "--corpus" {
            corpus = Some(PathBuf::from(args.next().expect("--corpus DIR")));
        } else {
            files.push(PathBuf::from(a));
        }
    }
    if let Some(root) = corpus {
        bench("corpus", &corpus_files(&root), quick);
    }
    for f in files {
        bench(&f.display().to_string(), std::slice::from_ref(&f), quick);
    }
}
