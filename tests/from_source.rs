//! README's and docs/install.md's "From source" line: the Rust version they name is
//! `rust-version` in Cargo.toml, and no package in Cargo.lock asks for a newer one (with
//! an older compiler `cargo install --locked` stops at that package). Reads cargo's own
//! metadata, offline; SKIP when cargo cannot give it.

use std::path::Path;
use std::process::Command;

/// `1.88` or `1.88.0` as numbers, for comparing.
fn version(v: &str) -> Vec<u32> {
    let mut parts: Vec<u32> = v.split('.').map(|p| p.parse().unwrap_or(0)).collect();
    parts.resize(3, 0);
    parts
}

#[test]
fn the_rust_version_named_is_the_one_every_locked_package_accepts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(cargo) = std::env::var_os("CARGO") else {
        eprintln!("SKIP the_rust_version_named_is_the_one_every_locked_package_accepts: CARGO is not set (not run by cargo)");
        return;
    };
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .output()
        .expect("running cargo metadata");
    if !out.status.success() {
        eprintln!(
            "SKIP the_rust_version_named_is_the_one_every_locked_package_accepts: cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cargo's JSON");
    let packages = meta["packages"].as_array().expect("packages");
    let ours = packages
        .iter()
        .find(|p| p["name"] == "tscn-merge")
        .and_then(|p| p["rust_version"].as_str())
        .expect("tscn-merge has a rust-version")
        .to_string();
    let resolved: Vec<&str> = meta["resolve"]["nodes"]
        .as_array()
        .expect("resolve")
        .iter()
        .filter_map(|n| n["id"].as_str())
        .collect();
    let newest = packages
        .iter()
        .filter(|p| p["id"].as_str().is_some_and(|id| resolved.contains(&id)))
        .filter_map(|p| Some((p["rust_version"].as_str()?, p["name"].as_str()?)))
        .max_by_key(|(v, _)| version(v))
        .expect("some package names a rust-version");
    assert!(
        version(newest.0) <= version(&ours),
        "Cargo.toml says rust-version {ours}, but {} in Cargo.lock needs Rust {}",
        newest.1,
        newest.0
    );
    let said = format!("Rust {ours} or");
    for doc in ["README.md", "docs/install.md"] {
        let text = std::fs::read_to_string(root.join(doc)).expect(doc);
        assert!(
            text.contains(&said),
            "{doc} does not say \"{said} ...\" (Cargo.toml's rust-version)"
        );
    }
}
