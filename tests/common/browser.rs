//! Headless Chromium for whole-program tests (tests/mergetool.rs, tests/pictures.rs):
//! where the Playwright scripts are, or why they cannot run here, and where a
//! screenshot goes. Driving a page is each test's own business.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the Playwright scripts are, or why the browser tests cannot run here.
pub fn browser() -> Result<PathBuf, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let chromium = std::env::var_os("CHROMIUM").map_or("/usr/bin/chromium".into(), PathBuf::from);
    if !chromium.is_file() {
        return Err(format!("no Chromium at {}", chromium.display()));
    }
    if !dir.join("node_modules/playwright-core").is_dir() {
        return Err("no tests/browser/node_modules (npm install in tests/browser)".into());
    }
    match Command::new("node").arg("--version").output() {
        Ok(o) if o.status.success() => Ok(dir),
        _ => Err("no node".into()),
    }
}

/// Where a screenshot goes: docs/img/ under TSCN_MERGE_SCREENSHOTS, else `scratch`.
pub fn shot(scratch: &Path, name: &str) -> PathBuf {
    if std::env::var_os("TSCN_MERGE_SCREENSHOTS").is_some() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/img");
        std::fs::create_dir_all(&dir).expect("docs/img");
        dir.join(name)
    } else {
        scratch.join(name)
    }
}
