//! File I/O for the binary: reading inputs with their names in errors, atomic writes
//! (a temporary file in the same folder, then a rename), so a crash never leaves a
//! half-written scene, the clean-up of that temporary file when the process is ended
//! (SIGINT, SIGTERM or SIGHUP on Unix; Ctrl-C, Ctrl-Break or a closed console on
//! Windows), and standard output where a closed pipe ends the output quietly while a
//! full disk is an error. What is written is decided elsewhere.
//!
//! The operating system's side lives in [`os`]: Unix (signals, `unlink`, file modes) and
//! Windows (a console control handler, `DeleteFileW`, a rename retried while another
//! program briefly holds the target, as editors and virus scanners do).

pub mod color;
pub mod deadline;

use anyhow::{Context, Result};
use std::io::{ErrorKind, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

pub mod eol;
pub mod mapped;
#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as os;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as os;

/// Read a whole file, naming it in the error. The merge takes these bytes over into a
/// [`gdscene::syntax::Source`], which the parsed document then shares without a copy.
pub fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// A whole input as the commands work on it, with every line ending LF, and the
/// ending its lines had ([`read_lf`]), mapped when big ([`mapped::source`]); the error
/// names the file.
pub fn source(path: &Path) -> Result<(gdscene::syntax::Source, eol::Ending)> {
    mapped::source(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Read a whole text file as the commands work on it, with every line ending LF
/// ([`eol::to_lf`]), and the ending its lines had, for writing a result derived from
/// it back in that ending ([`eol::Ending::apply`]).
pub fn read_lf(path: &Path) -> Result<(Vec<u8>, eol::Ending)> {
    Ok(eol::read_as_lf(read(path)?))
}

/// A file's bytes, read whole into memory, for a reader that only borrows them
/// (`textconv`, which shows them as they are when they do not parse).
///
/// Nothing is mapped: a mapped file that shrinks while it is read (another process
/// truncating or rewriting it in place) kills the process with SIGBUS, no message, and
/// with `--git` ours unmerged; a read is never a signal death. (`diff` and `merge` map
/// their big inputs, and catch that SIGBUS as an error: [`mapped`].)
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
/// On Windows the rename replaces the target as `MoveFileExW` with
/// `MOVEFILE_REPLACE_EXISTING` does, retried for about a second while another program
/// holds the target open (a sharing violation or access denied).
///
/// A target that exists but is no regular file (`-o /dev/null`, a FIFO, Windows' `NUL`
/// or `CON`) is written into: renaming over it would replace `/dev/null` itself with a
/// file, and Windows refuses to rename onto a device.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    if os::is_device(path) || std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
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
    let (tmp, _cleanup) = write_temp(dir, &format!(".{name}.tscn-merge-"), bytes, Some(path))?;
    persist(tmp, path).with_context(|| format!("cannot replace {}", path.display()))
}

/// A temporary file in `dir` holding `bytes`, synced, with `like`'s permissions when
/// `like` exists: what [`write_atomic`] and [`write_new`] rename into place. The cleanup
/// guard removes it if a signal ends the process first; keep it until the rename.
fn write_temp(
    dir: &Path,
    prefix: &str,
    bytes: &[u8],
    like: Option<&Path>,
) -> Result<(tempfile::NamedTempFile, Option<os::TempCleanup>)> {
    // Registered before it exists: a signal between creating and registering would
    // leave it behind.
    let mut cleanup = None;
    let mut tmp = tempfile::Builder::new()
        .prefix(prefix)
        .suffix(".tmp")
        .make_in(dir, |p| {
            // A retried name: the earlier guard goes first, or its drop would
            // unregister this one.
            drop(cleanup.take());
            cleanup = Some(os::TempCleanup::register(p));
            os::create_new(p)
        })
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .and_then(|()| synced(tmp.as_file()))
        .with_context(|| format!("cannot write a temporary file in {}", dir.display()))?;
    if let Some(meta) = like.and_then(|p| std::fs::metadata(p).ok()) {
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    Ok((tmp, cleanup))
}

/// Flush `file` to the disk: a failure (a full disk found late, an I/O error) is an error,
/// except on file systems that cannot sync at all, where the write stands as written.
fn synced(file: &std::fs::File) -> std::io::Result<()> {
    match file.sync_all() {
        Err(e) if matches!(e.kind(), ErrorKind::Unsupported | ErrorKind::InvalidInput) => Ok(()),
        r => r,
    }
}

/// Rename `tmp` over `path`. A failure the operating system calls passing (another
/// program holding the file, on Windows) is retried with a growing pause, about a
/// second in all; any other failure, or the last one, is the error.
fn persist(mut tmp: tempfile::NamedTempFile, path: &Path) -> std::io::Result<()> {
    let mut pause = std::time::Duration::from_millis(10);
    for _ in 0..7 {
        match tmp.persist(path) {
            Ok(_) => return Ok(()),
            Err(e) if os::is_passing(&e.error) => {
                tmp = e.file;
                std::thread::sleep(pause);
                pause *= 2;
            }
            Err(e) => return Err(e.error),
        }
    }
    tmp.persist(path).map(|_| ()).map_err(|e| e.error)
}

/// Write `bytes` to the first of `names` (all in `dir`) that does not exist yet, never
/// replacing a file: a temporary file in `dir` is written whole first, then given the
/// name without clobbering (a hard link on Unix), so a full disk leaves no truncated file
/// behind under a name a later call would skip. The new file gets `like`'s permissions
/// when given. `None` when every name is taken.
pub fn write_new(
    dir: &Path,
    names: impl IntoIterator<Item = std::path::PathBuf>,
    bytes: &[u8],
    like: Option<&Path>,
) -> Result<Option<std::path::PathBuf>> {
    let (mut tmp, _cleanup) = write_temp(dir, ".tscn-merge-", bytes, like)?;
    for name in names {
        match tmp.persist_noclobber(&name) {
            Ok(_) => return Ok(Some(name)),
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => tmp = e.file,
            Err(e) => {
                return Err(e.error).with_context(|| format!("cannot write {}", name.display()))
            }
        }
    }
    Ok(None)
}

/// Install the handlers that remove a half-written temporary file when the process
/// is ended from outside: SIGINT, SIGTERM or SIGHUP on Unix (a signal the parent
/// ignores stays ignored), Ctrl-C, Ctrl-Break, a closed console, log-off or shut-down
/// on Windows.
pub fn clean_up_on_signals() {
    os::install_handlers();
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
        $crate::io::write_stderr(&format!("{}\n", format_args!($($arg)*)))
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

    #[cfg(unix)]
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

    /// Holds `path` open as an editor or a virus scanner may: no sharing at all.
    #[cfg(windows)]
    fn hold(path: &Path) -> std::fs::File {
        use std::os::windows::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .share_mode(0)
            .open(path)
            .expect("hold")
    }

    #[cfg(windows)]
    #[test]
    fn a_file_another_program_holds_briefly_is_replaced_once_it_lets_go() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("held.tscn");
        std::fs::write(&p, b"old").expect("write");
        let held = hold(&p);
        let start = std::time::Instant::now();
        let holder = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            drop(held);
        });
        write_atomic(&p, b"new").expect("replaced once the holder let go");
        // It waited for the holder: the first renames failed and were retried.
        assert!(start.elapsed() >= std::time::Duration::from_millis(150));
        holder.join().expect("holder");
        assert_eq!(std::fs::read(&p).expect("read"), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).expect("ls").count(), 1);
    }

    #[cfg(windows)]
    #[test]
    fn a_file_held_for_good_is_an_error_and_stays_as_it_was() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("held.tscn");
        std::fs::write(&p, b"old").expect("write");
        let held = hold(&p);
        let err = write_atomic(&p, b"new").err().expect("an error");
        assert!(format!("{err:#}").contains("cannot replace"), "{err:#}");
        drop(held);
        assert_eq!(std::fs::read(&p).expect("read"), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).expect("ls").count(), 1);
    }

    #[cfg(windows)]
    #[test]
    fn windows_devices_are_written_into_not_renamed_over() {
        for device in [
            "NUL",
            "nul",
            "NUL.tscn",
            r"C:\x\con",
            "COM1",
            "lpt9.txt",
            "AUX ",
        ] {
            assert!(os::is_device(Path::new(device)), "{device}");
        }
        assert!(os::is_device(Path::new(r"\\.\pipe\x")));
        for file in [
            "NULL",
            "COM0",
            "COM10",
            "console.tscn",
            "Game.tscn",
            r"nul\Game.tscn",
        ] {
            assert!(!os::is_device(Path::new(file)), "{file}");
        }
        write_atomic(Path::new("NUL"), b"anything").expect("NUL takes anything");
    }
}
