//! File I/O for the binary: reading inputs with their names in errors, and atomic writes
//! (a temporary file in the same folder, then a rename), so a crash never leaves a
//! half-written scene.

use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;

/// Read a whole file, naming it in the error.
pub fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Replace `path` with `bytes` atomically, keeping the file's permissions.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".tscn-merge-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .with_context(|| format!("cannot write a temporary file in {}", dir.display()))?;
    tmp.as_file().sync_all().ok();
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}
