//! Where a big merge's memory goes: a counting global allocator, read at the steps a
//! caller can see (inputs read, each side's syntax tree, each side's model) and sampled
//! every few milliseconds through the whole merge, whose peak it prints.
//!
//!     cargo run --release --example mem_probe -- BASE OURS THEIRS
//!
//! Figures are live heap bytes (what the program asked for and has not freed), not RSS:
//! `/usr/bin/time -v` gives the process's peak RSS, which also counts freed pages the
//! allocator kept.

use gdscene::merge::{merge_sources, MergeOptions};
use gdscene::model::Scene;
use gdscene::syntax::{Document, Source};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// The system allocator, counting live bytes and their high-water mark.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            grow(new_size);
        }
        p
    }
}

fn grow(n: usize) {
    ALLOCS.fetch_add(1, Relaxed);
    let now = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

#[global_allocator]
static A: Counting = Counting;

fn mb(n: usize) -> String {
    format!("{:.1} MB", n as f64 / 1e6)
}

fn step(what: &str, since: usize) -> usize {
    let now = LIVE.load(Relaxed);
    println!(
        "{what:<28} live {:>9}  (+{:>9})  allocations so far {}",
        mb(now),
        mb(now.saturating_sub(since)),
        ALLOCS.load(Relaxed)
    );
    now
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [b, o, t] = args.as_slice() else {
        eprintln!("usage: mem_probe BASE OURS THEIRS");
        std::process::exit(2);
    };
    let read = |p: &String| Source::new(std::fs::read(p).unwrap_or_default());
    let (b, o, t) = (read(b), read(o), read(t));
    let mut at = step("inputs read", 0);
    let doc = Document::parse_source(&o).ok();
    at = step("ours' syntax tree", at);
    let scene = doc.map(Scene::from_document);
    at = step("ours' model (tree kept)", at);
    drop(scene);
    let _ = step("ours' scene dropped", at);
    println!(
        "sizes: Section {} Tag {} Field {} Prop {} Node {}",
        std::mem::size_of::<gdscene::syntax::Section>(),
        std::mem::size_of::<gdscene::syntax::Tag>(),
        std::mem::size_of::<gdscene::syntax::Field>(),
        std::mem::size_of::<gdscene::syntax::Prop>(),
        std::mem::size_of::<gdscene::model::Node>(),
    );
    let done = AtomicBool::new(false);
    let start = Instant::now();
    let base_live = LIVE.load(Relaxed);
    PEAK.store(base_live, Relaxed);
    let outcome = std::thread::scope(|s| {
        s.spawn(|| {
            let mut last = 0usize;
            while !done.load(Relaxed) {
                let now = LIVE.load(Relaxed);
                if now.abs_diff(last) > 5_000_000 {
                    let ms = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map(|d| d.as_millis())
                        .unwrap_or(0);
                    eprintln!("SAMPLE {ms} live {:>9}", mb(now));
                    last = now;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        let opts = MergeOptions {
            exit_after: std::env::var_os("EXIT_AFTER").is_some(),
            ..MergeOptions::default()
        };
        let out = merge_sources(&b, &o, &t, &opts);
        done.store(true, Relaxed);
        out
    });
    println!(
        "merge: {} ms, {:?}, {} conflicts, peak live {} (inputs {}), result {}",
        start.elapsed().as_millis(),
        outcome.method,
        outcome.conflict_count,
        mb(PEAK.load(Relaxed)),
        mb(base_live),
        mb(outcome.text.len())
    );
}
