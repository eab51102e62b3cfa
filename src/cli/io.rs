//! File I/O for the binary: reading inputs with their names in errors, atomic writes
//! (a temporary file in the same folder, then a rename), so a crash never leaves a
//! half-written scene, the clean-up of that temporary file when SIGINT, SIGTERM or
//! SIGHUP ends the process, and standard output where a closed pipe ends the output
//! quietly while a full disk is an error. What is written is decided elsewhere.

use anyhow::{Context, Result};
use std::ffi::CString;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// Read a whole file, naming it in the error. The merge takes these bytes over into a
/// [`tscn_merge::syntax::Source`], which the parsed document then shares without a copy.
pub fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// A file's bytes, read whole into memory, for a reader that only borrows them
/// (`textconv`, which shows them as they are when they do not parse).
///
/// Nothing is mapped: a mapped file that shrinks while it is read (another process
/// truncating or rewriting it in place) kills the process with SIGBUS, no message, and
/// with `--git` ours unmerged; a read is never a signal death.
pub struct Bytes(Vec<u8>);

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

/// Read a whole file that may be big (a 20 MB scene), naming it in the error, into a
/// buffer sized from the file's length up front so that it is filled without regrowing.
/// Inputs that are parsed and kept (the merge's) go through [`read`] into a `Source`.
pub fn read_big(path: &Path) -> Result<Bytes> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0).saturating_add(1));
    std::io::Read::read_to_end(&mut &file, &mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(Bytes(bytes))
}

/// Replace `path` with `bytes` atomically. An existing file keeps its permissions; a
/// new one gets 0666 less the umask, as other tools' files do. The temporary file,
/// `.NAME.tscn-merge-XXXXXX.tmp` beside `path`, is removed if a signal ends the process.
///
/// A target that exists but is no regular file (`-o /dev/null`, a FIFO) is written
/// into: renaming over it would replace `/dev/null` itself with a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|mut f| f.write_all(bytes))
            .with_context(|| format!("cannot write {}", path.display()));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().chars().take(64).collect::<String>())
        .unwrap_or_default();
    // Registered before it exists: a signal between creating and registering would
    // leave it behind.
    let mut _cleanup = None;
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}.tscn-merge-"))
        .suffix(".tmp")
        .make_in(dir, |p| {
            _cleanup = Some(SignalCleanup::register(p));
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o666)
                .open(p)
        })
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

/// [`write_atomic`], or when that fails (no room for a second copy, a folder that
/// refuses new files), writing `path` in place: for git's `%A`, whose content git
/// takes as the result whatever happens, a written result beats an untouched one.
pub fn write_over(path: &Path, bytes: &[u8]) -> Result<()> {
    let atomic = match write_atomic(path, bytes) {
        Ok(()) => return Ok(()),
        Err(e) => e,
    };
    std::fs::write(path, bytes).with_context(|| format!("{atomic:#}; writing in place failed too"))
}

/// The temporary file a signal handler removes: a C string leaked while registered.
static TEMP_PATH: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

/// Registers a temporary file for removal on SIGINT, SIGTERM or SIGHUP while alive.
struct SignalCleanup;

impl SignalCleanup {
    fn register(path: &Path) -> SignalCleanup {
        use std::os::unix::ffi::OsStrExt;
        if let Ok(c) = CString::new(path.as_os_str().as_bytes()) {
            free_temp_path(TEMP_PATH.swap(c.into_raw(), Ordering::SeqCst));
        }
        SignalCleanup
    }
}

impl Drop for SignalCleanup {
    fn drop(&mut self) {
        free_temp_path(TEMP_PATH.swap(std::ptr::null_mut(), Ordering::SeqCst));
    }
}

fn free_temp_path(p: *mut libc::c_char) {
    if !p.is_null() {
        // SAFETY: every non-null pointer stored in TEMP_PATH came from
        // `CString::into_raw`, and the swap hands it to exactly one owner.
        drop(unsafe { CString::from_raw(p) });
    }
}

/// Async-signal-safe: takes the registered path, unlinks it, and dies of the signal
/// as if unhandled (so the parent sees the same status).
extern "C" fn on_signal(sig: libc::c_int) {
    let p = TEMP_PATH.swap(std::ptr::null_mut(), Ordering::SeqCst);
    // SAFETY: unlink, signal and raise are async-signal-safe; `p` is a valid C string
    // that no one frees any more (the swap took it).
    unsafe {
        if !p.is_null() {
            libc::unlink(p);
        }
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// Install the handlers that remove a half-written temporary file when SIGINT,
/// SIGTERM or SIGHUP ends the process. A signal the parent ignores stays ignored.
pub fn clean_up_on_signals() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: `on_signal` only calls async-signal-safe functions.
        unsafe {
            if libc::signal(sig, handler) == libc::SIG_IGN {
                libc::signal(sig, libc::SIG_IGN);
            }
        }
    }
}

/// Set once a write to standard output found the reader gone.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Write all of `bytes` to standard output and flush. A closed pipe (`| head`) is
/// not an error: this and later output is dropped and the command ends as if done.
/// Any other failure (a full disk) is.
pub fn write_stdout(bytes: &[u8]) -> Result<()> {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(e).context("cannot write to standard output"),
        Ok(()) => Ok(()),
    }
}

/// [`write_stdout`] of one line.
pub fn print_line(line: &str) -> Result<()> {
    write_stdout(format!("{line}\n").as_bytes())
}

/// Write `text` to standard error, ignoring any failure: a closed stderr (`2>&-`, a
/// reader gone) must neither panic, as `eprintln!` does, nor stop the command's work.
pub fn write_stderr(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// `eprintln!` through [`write_stderr`]: one line on standard error, never a panic.
macro_rules! stderr_line {
    ($($arg:tt)*) => {
        $crate::cli::io::write_stderr(&format!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use stderr_line;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_files_are_read_whole_and_outlive_a_rewrite() {
        let dir = tempfile::tempdir().expect("tempdir");
        let big: Vec<u8> = (0..(3 << 20) + 4097).map(|i| (i % 251) as u8).collect();
        let pb = dir.path().join("big");
        std::fs::write(&pb, &big).expect("write");
        let b = read_big(&pb).expect("read big");
        assert!(*b == big[..]);
        // Shrinking or replacing the file afterwards leaves the bytes read as they were.
        std::fs::write(&pb, b"x").expect("shrink");
        assert!(*b == big[..]);
        write_atomic(&pb, b"new").expect("write over");
        assert_eq!(std::fs::read(&pb).expect("read"), b"new");
        let err = read_big(&dir.path().join("missing"))
            .err()
            .expect("an error");
        assert!(format!("{err:#}").contains("missing"), "{err:#}");
    }

    #[test]
    fn new_files_follow_the_umask_and_old_ones_keep_their_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o7777;
        // SAFETY: umask only sets this process's mask; read it by setting and restoring.
        let umask = unsafe {
            let m = libc::umask(0o022);
            libc::umask(m);
            m
        } as u32;
        let new = dir.path().join("new.tscn");
        write_atomic(&new, b"a").expect("write new");
        assert_eq!(mode(&new), 0o666 & !umask);
        let exe = dir.path().join("exe.tscn");
        std::fs::write(&exe, b"old").expect("write");
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        write_atomic(&exe, b"b").expect("write over");
        assert_eq!(mode(&exe), 0o755);
    }
}
