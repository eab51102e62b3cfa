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

/// A file's bytes: mapped when the file is big, read into memory otherwise.
pub enum Bytes {
    /// A read-only mapping of the whole file.
    Mapped(memmap2::Mmap),
    /// The bytes read.
    Read(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Read(v) => v,
        }
    }
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

/// Files at least this big are mapped by [`read_big`]: below it, reading is as fast.
const MAP_MIN: u64 = 1 << 20;

/// Read a whole file that may be big: a regular file of 1 MiB or more is mapped rather
/// than copied into memory. Reading a 20 MB scene costs a fresh page for every 4 KiB
/// of it (a tenth of a big merge's time); a mapping shares the pages the kernel
/// already holds. Falls back to reading when the file cannot be mapped.
pub fn read_big(path: &Path) -> Result<Bytes> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let big = file
        .metadata()
        .map(|m| m.is_file() && m.len() >= MAP_MIN)
        .unwrap_or(false);
    if big {
        // SAFETY: the mapping is only ever read. What `Mmap::map` cannot rule out is
        // another process truncating the file while it is mapped; the inputs of a merge
        // are git's own temporary files (or files the user named), which nothing else
        // writes meanwhile. Results are written to a new file that is renamed into
        // place, so writing over an input (`--git`) never touches the mapped pages.
        if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
            return Ok(Bytes::Mapped(map));
        }
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut &file, &mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(Bytes::Read(bytes))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_files_are_mapped_small_ones_read_both_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let big: Vec<u8> = (0..(MAP_MIN as usize + 4097))
            .map(|i| (i % 251) as u8)
            .collect();
        let small = b"[gd_scene format=3]\n".to_vec();
        let (pb, ps) = (dir.path().join("big"), dir.path().join("small"));
        std::fs::write(&pb, &big).expect("write");
        std::fs::write(&ps, &small).expect("write");
        let b = read_big(&pb).expect("read big");
        assert!(matches!(b, Bytes::Mapped(_)));
        assert!(*b == big[..]);
        let s = read_big(&ps).expect("read small");
        assert!(matches!(s, Bytes::Read(_)));
        assert_eq!(&*s, &small[..]);
        // Replacing a mapped file (as `--git` does) leaves the mapped bytes as they were.
        write_atomic(&pb, b"new").expect("write over");
        assert!(*b == big[..]);
        assert_eq!(std::fs::read(&pb).expect("read"), b"new");
        let err = read_big(&dir.path().join("missing"))
            .err()
            .expect("an error");
        assert!(format!("{err:#}").contains("missing"), "{err:#}");
    }
}
