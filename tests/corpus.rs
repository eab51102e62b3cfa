//! Every real file of `../shared/corpus` must parse and print back byte for byte.

mod common;

use gdscene::syntax::Document;
use std::path::PathBuf;

/// The shared folder, when it holds what these tests read.
fn shared() -> Option<PathBuf> {
    common::shared_dir().filter(|p| p.join("corpus/INDEX.tsv").exists())
}

/// Stored paths of the corpus files, from `INDEX.tsv` (column `stored_as`).
fn corpus_files(root: &std::path::Path) -> Vec<PathBuf> {
    let index = std::fs::read_to_string(root.join("corpus/INDEX.tsv")).expect("INDEX.tsv");
    let mut lines = index.lines();
    let head: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = head
        .iter()
        .position(|h| *h == "stored_as")
        .expect("stored_as column");
    lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            root.join("corpus")
                .join(l.split('\t').nth(col).expect("column"))
        })
        .collect()
}

#[test]
fn corpus_round_trips_byte_for_byte() {
    let Some(root) = shared() else {
        eprintln!("skipped: ../shared not found");
        return;
    };
    let files = corpus_files(&root);
    assert!(files.len() > 9000, "only {} files listed", files.len());
    let mut failures = Vec::new();
    let mut bytes = 0usize;
    for f in &files {
        let data = std::fs::read(f).expect("read corpus file");
        bytes += data.len();
        match Document::parse(&data) {
            Ok(doc) => {
                if doc.print().as_bytes() != data.as_slice() {
                    failures.push(format!("{}: printed text differs", f.display()));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", f.display())),
        }
    }
    eprintln!(
        "corpus: {} files, {} bytes, {} failures",
        files.len(),
        bytes,
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `check` flags exactly the four files that ../shared/README.md names as broken.
#[test]
fn check_flags_exactly_the_four_broken_corpus_files() {
    use gdscene::check::{check, check_markers, is_broken};
    use gdscene::model::Scene;
    let Some(root) = shared() else {
        eprintln!("skipped: ../shared not found");
        return;
    };
    let mut broken = Vec::new();
    let mut warnings = 0;
    for f in corpus_files(&root) {
        let data = std::fs::read(&f).expect("read");
        let mut problems = check_markers(&data);
        let scene = Scene::parse(&data).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        problems.extend(check(&scene));
        warnings += problems
            .iter()
            .filter(|p| !is_broken(std::slice::from_ref(p)))
            .count();
        if is_broken(&problems) {
            let rel = f
                .strip_prefix(root.join("corpus"))
                .expect("under corpus")
                .display()
                .to_string();
            broken.push((rel, problems));
        }
    }
    let names: Vec<&str> = broken.iter().map(|(n, _)| n.as_str()).collect();
    eprintln!(
        "check: {} broken, {} warnings; {:#?}",
        broken.len(),
        warnings,
        broken
    );
    let mut expected = vec![
        "godotengine__godot-demo-projects/hist-7e43dbf64b__2d__physics_tests__tests__functional__test_character_pixels.tscn",
        "sfu-gdc__gmtk-2021-game/src__area1.tscn",
        "sfu-gdc__gmtk-2021-game/hist-58a730599b__WindArea.tscn",
        "dialogic-godot__dialogic/hist-fa10ca02a4__addons__dialogic__Editor__SettingsEditor__SettingsEditor.tscn",
    ];
    expected.sort();
    let mut got = names.clone();
    got.sort();
    assert_eq!(got, expected);
}
