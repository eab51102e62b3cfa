//! The Unix side of [`super`]: new files created with mode 0666 (less the umask), and
//! the removal of the registered temporary file when SIGINT, SIGTERM or SIGHUP ends
//! the process, from an async-signal-safe handler that then dies of the same signal.
//! What is written, and where, is decided by the caller.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Create `path`, which must not exist, for writing, with mode 0666 less the umask as
/// other tools' files get.
pub fn create_new(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o666)
        .open(path)
}

/// Whether a failed rename is worth trying again: never on Unix, where a rename does
/// not fail because another program has the file open.
pub fn is_passing(_: &std::io::Error) -> bool {
    false
}

/// Whether `path` names a device by its name alone: never on Unix, where devices are
/// files (`/dev/null`) that `metadata` tells apart.
pub fn is_device(_: &Path) -> bool {
    false
}

/// The temporary file a signal handler removes: a C string leaked while registered.
static TEMP_PATH: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

/// Registers a temporary file for removal on SIGINT, SIGTERM or SIGHUP while alive.
pub struct TempCleanup;

impl TempCleanup {
    /// Register `path` (replacing any earlier one) until the value is dropped.
    pub fn register(path: &Path) -> TempCleanup {
        if let Ok(c) = CString::new(path.as_os_str().as_bytes()) {
            free_temp_path(TEMP_PATH.swap(c.into_raw(), Ordering::SeqCst));
        }
        TempCleanup
    }
}

impl Drop for TempCleanup {
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
    remove_temp();
    // SAFETY: signal and raise are async-signal-safe.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// Async-signal-safe: unlink the registered temporary file, if any, for a handler that
/// ends the process ([`on_signal`], and `mapped`'s for a file that shrank while read).
pub fn remove_temp() {
    let p = TEMP_PATH.swap(std::ptr::null_mut(), Ordering::SeqCst);
    if !p.is_null() {
        // SAFETY: unlink is async-signal-safe; `p` is a valid C string that no one
        // frees any more (the swap took it).
        unsafe { libc::unlink(p) };
    }
}

/// Install [`on_signal`] for SIGINT, SIGTERM and SIGHUP. A signal the parent ignores
/// stays ignored.
pub fn install_handlers() {
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
