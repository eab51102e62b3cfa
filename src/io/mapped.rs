//! A big input read in place: the sides of `diff` and the three inputs of `merge` are
//! mapped, not copied. Reading a 20 MB scene into memory costs a copy and a page fault
//! per 4 KB page of the copy, a tenth of a big diff's CPU and a third of a mesh-heavy
//! merge's; a mapping of the file shares the kernel's cached pages.
//!
//! A mapped file that another program truncates or rewrites in place while it is read
//! makes the next read of a vanished page a SIGBUS, which would kill the process with no
//! word. So each mapping is registered while it lives, and a SIGBUS handler that finds
//! the fault inside one removes the temporary file a write may have begun (the one
//! [`super`] registers for signals), names the input on standard error and exits with
//! status 2: no output is left half written, and the files written before are whole
//! (writes are atomic renames). A SIGBUS anywhere else is left to its default action.
//! Editors that save by renaming a new file over the old one (Godot does) and git's
//! own temporary files never trigger it: a mapping keeps the file it mapped. A file
//! rewritten in place at its size or more raises no signal; its bytes change under the
//! reading, as they would for any reader (git and ripgrep map files alike), and the
//! merge's validation of its result still stands between such a reading and OURS. Files
//! under [`MAP_FROM`] bytes, files with a CR (their line ends may be rewritten,
//! [`super::eol::read_as_lf`]), and every file on Windows (where a mapping would stop an
//! editor from saving over the file) are read into memory as before.

use super::eol::Ending;
use gdscene::syntax::Source;
use std::path::Path;

/// The size from which a file is mapped: below it, reading is as cheap as mapping.
pub const MAP_FROM: u64 = 1 << 20;

/// `path`'s bytes as a [`Source`] with LF line ends, and the ending its lines had
/// ([`super::eol::read_as_lf`]): mapped when the file is big and holds no CR (so its
/// ending is LF), else read.
pub fn source(path: &Path) -> std::io::Result<(Source, Ending)> {
    let file = std::fs::File::open(path)?;
    #[cfg(unix)]
    if file.metadata()?.len() >= MAP_FROM {
        if let Some(src) = unix::map(&file, path)? {
            return Ok((src, Ending::Lf));
        }
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut &file, &mut bytes)?;
    let (bytes, ending) = super::eol::read_as_lf(bytes);
    Ok((Source::new(bytes), ending))
}

#[cfg(unix)]
mod unix {
    //! The mapping, its registration, and the SIGBUS handler that reads the registry.

    use gdscene::syntax::Source;
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
    use std::sync::Once;

    /// One registered mapping: where it starts (0 when the slot is free), its length,
    /// and the file's name for the message (a leaked C string while registered).
    struct Watch {
        start: AtomicUsize,
        len: AtomicUsize,
        path: AtomicPtr<libc::c_char>,
    }

    #[allow(clippy::declare_interior_mutable_const)]
    const FREE: Watch = Watch {
        start: AtomicUsize::new(0),
        len: AtomicUsize::new(0),
        path: AtomicPtr::new(std::ptr::null_mut()),
    };

    /// The mappings alive: a diff holds two, a listing of the work tree two at a time
    /// (the one being shown and the one being dropped). A file finding no free slot
    /// is read instead.
    static WATCHED: [Watch; 8] = [FREE; 8];

    /// A mapped file, registered in [`WATCHED`] for as long as it lives.
    struct Mapped {
        map: memmap2::Mmap,
        slot: usize,
    }

    impl AsRef<[u8]> for Mapped {
        fn as_ref(&self) -> &[u8] {
            &self.map
        }
    }

    impl Drop for Mapped {
        fn drop(&mut self) {
            let w = &WATCHED[self.slot];
            let path = w.path.swap(std::ptr::null_mut(), Ordering::SeqCst);
            w.start.store(0, Ordering::SeqCst);
            if !path.is_null() {
                // SAFETY: a non-null path came from `CString::into_raw` in `register`,
                // and the swap gives it to this one owner.
                drop(unsafe { CString::from_raw(path) });
            }
        }
    }

    /// `file` mapped and registered, when it holds no CR and a slot is free; `None`
    /// sends the caller to an ordinary read.
    pub fn map(file: &std::fs::File, path: &Path) -> std::io::Result<Option<Source>> {
        static HANDLER: Once = Once::new();
        HANDLER.call_once(install);
        // SAFETY: the mapping is read-only and private to this process; a file that
        // shrinks under it is the SIGBUS this module handles (see the top doc).
        let map = unsafe { memmap2::MmapOptions::new().populate().map(file)? };
        if memchr::memchr(b'\r', &map).is_some() {
            return Ok(None);
        }
        let Some(slot) = register(&map, path) else {
            return Ok(None);
        };
        Ok(Some(Source::lent(Box::new(Mapped { map, slot }))))
    }

    /// Claim a free slot for `map`'s bytes and `path`'s name.
    fn register(map: &[u8], path: &Path) -> Option<usize> {
        let start = map.as_ptr() as usize;
        let slot = WATCHED.iter().position(|w| {
            w.start
                .compare_exchange(0, start, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        })?;
        let w = &WATCHED[slot];
        w.len.store(map.len(), Ordering::SeqCst);
        let name = CString::new(path.as_os_str().as_bytes())
            .unwrap_or_else(|_| CString::from(c"an input file"));
        w.path.store(name.into_raw(), Ordering::SeqCst);
        Some(slot)
    }

    /// The registered mappings: start, length and file name.
    #[cfg(test)]
    pub fn slots() -> Vec<(usize, usize, String)> {
        let name = |p: *mut libc::c_char| {
            // SAFETY: a registered path is a valid C string (tests free none meanwhile).
            unsafe { std::ffi::CStr::from_ptr(p) }
                .to_string_lossy()
                .into_owned()
        };
        WATCHED
            .iter()
            .map(|w| {
                (
                    w.start.load(Ordering::SeqCst),
                    w.len.load(Ordering::SeqCst),
                    w.path.load(Ordering::SeqCst),
                )
            })
            .filter(|&(start, _, path)| start != 0 && !path.is_null())
            .map(|(start, len, path)| (start, len, name(path)))
            .collect()
    }

    /// Install [`on_bus_error`] for SIGBUS.
    fn install() {
        // SAFETY: a zeroed sigaction is a valid start; the handler only calls
        // async-signal-safe functions.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_bus_error as *const () as libc::sighandler_t;
            act.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(libc::SIGBUS, &act, std::ptr::null_mut());
        }
    }

    /// Async-signal-safe: a fault inside a registered mapping removes the temporary file,
    /// names the input and exits with status 2; any other SIGBUS gets its default action
    /// back and happens again when the handler returns to the faulting instruction.
    extern "C" fn on_bus_error(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO handler.
        let addr = unsafe { (*info).si_addr() } as usize;
        for w in &WATCHED {
            let start = w.start.load(Ordering::SeqCst);
            if start != 0 && addr >= start && addr - start < w.len.load(Ordering::SeqCst) {
                die_naming(w.path.load(Ordering::SeqCst));
            }
        }
        // SAFETY: signal is async-signal-safe.
        unsafe { libc::signal(libc::SIGBUS, libc::SIG_DFL) };
    }

    /// Remove a temporary file a write began, write the message for the file `path`
    /// (a C string, or null) and `_exit(2)`.
    fn die_naming(path: *const libc::c_char) -> ! {
        super::super::os::remove_temp();
        let put = |b: &[u8]| {
            // SAFETY: write is async-signal-safe; `b` is valid for its length.
            unsafe { libc::write(2, b.as_ptr().cast(), b.len()) };
        };
        put(b"tscn-merge: error: ");
        if path.is_null() {
            put(b"an input file");
        } else {
            // SAFETY: a registered path is a valid C string until its slot is freed,
            // and the file it names is being read, so its slot is not being freed.
            put(unsafe { std::ffi::CStr::from_ptr(path) }.to_bytes());
        }
        put(b": changed while it was read (another program truncated or rewrote it in place); run the command again\n");
        // SAFETY: _exit is async-signal-safe and ends the process at once.
        unsafe { libc::_exit(2) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene_of(bytes: usize, eol: &str) -> Vec<u8> {
        let mut s = format!("[gd_scene format=3]{eol}{eol}[node name=\"Root\" type=\"Node\"]{eol}");
        let mut i = 0;
        while s.len() < bytes {
            s.push_str(&format!(
                "{eol}[node name=\"N{i}\" type=\"Node\" parent=\".\"]{eol}"
            ));
            i += 1;
        }
        s.into_bytes()
    }

    #[test]
    fn a_big_file_reads_as_its_bytes_and_a_small_one_too() {
        let dir = tempfile::tempdir().expect("tempdir");
        for size in [10usize, (MAP_FROM as usize) + 10] {
            let p = dir.path().join(format!("s{size}.tscn"));
            let bytes = scene_of(size, "\n");
            std::fs::write(&p, &bytes).expect("write");
            let (src, ending) = source(&p).expect("source");
            assert_eq!(&*src, &bytes[..], "size {size}");
            assert_eq!(ending, Ending::Lf);
            assert!(src.text().is_some(), "UTF-8 is text");
        }
    }

    #[test]
    fn a_big_crlf_file_reads_with_lf_ends() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("crlf.tscn");
        std::fs::write(&p, scene_of(MAP_FROM as usize + 10, "\r\n")).expect("write");
        let (src, ending) = source(&p).expect("source");
        assert_eq!(ending, Ending::CrLf);
        assert!(memchr::memchr(b'\r', &src).is_none(), "CRLF made LF");
        assert_eq!(
            &*src,
            &super::super::eol::to_lf(std::fs::read(&p).expect("read"))[..]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_mapping_holds_a_slot_while_it_lives_and_frees_it_after() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("big.tscn");
        std::fs::write(&p, scene_of(MAP_FROM as usize + 10, "\n")).expect("write");
        let (src, _) = source(&p).expect("source");
        let name = p.to_string_lossy().into_owned();
        let mine = |(_, _, path): &(usize, usize, String)| *path == name;
        let held: Vec<_> = unix::slots().into_iter().filter(mine).collect();
        assert_eq!(held, [(src.as_ptr() as usize, src.len(), name.clone())]);
        drop(src);
        assert!(!unix::slots().iter().any(mine), "freed on drop");
    }
}
