//! The Windows side of [`super`]: the removal of the registered temporary file when
//! Ctrl-C, Ctrl-Break, closing the console window, log-off or shut-down ends the
//! process (a console control handler, which Windows runs on a thread of its own, then
//! lets the default handler end the process as usual), and which failed renames are
//! worth retrying (another program holding the target: an editor, a virus scanner, an
//! indexer). The rename itself is std's and tempfile's `MoveFileExW` with
//! `MOVEFILE_REPLACE_EXISTING`; what is written is decided by the caller. The two
//! kernel32 calls and the error codes are Microsoft's own bindings (`windows-sys`).

use std::os::windows::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicPtr, Ordering};

use windows_sys::Win32::Foundation::{
    ERROR_ACCESS_DENIED, ERROR_LOCK_VIOLATION, ERROR_SHARING_VIOLATION,
};
use windows_sys::Win32::Storage::FileSystem::DeleteFileW;
use windows_sys::Win32::System::Console::SetConsoleCtrlHandler;

/// Create `path`, which must not exist, for writing. std opens files sharing read,
/// write and delete, so the control handler can remove it while it is still open.
pub fn create_new(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

/// Whether a failed rename is worth trying again: another program briefly holding the
/// target (or the temporary file, for a virus scanner) gives a sharing violation, a
/// lock violation or access denied.
pub fn is_passing(e: &std::io::Error) -> bool {
    let code = e.raw_os_error().and_then(|c| u32::try_from(c).ok());
    matches!(
        code,
        Some(ERROR_ACCESS_DENIED | ERROR_SHARING_VIOLATION | ERROR_LOCK_VIOLATION)
    )
}

/// Whether `path` names a device rather than a file: `\\.\...`, or a last component
/// whose name before any extension is one Windows reserves in every folder (`NUL`,
/// `CON`, `PRN`, `AUX`, `COM1`-`COM9`, `LPT1`-`LPT9`, `CONIN$`, `CONOUT$`, in any case,
/// trailing spaces ignored). `-o NUL` is the `-o /dev/null` of Windows.
pub fn is_device(path: &Path) -> bool {
    let text = path.as_os_str().to_string_lossy();
    if text.starts_with(r"\\.\") || text.starts_with("//./") {
        return true;
    }
    let Some(name) = path.file_name().map(|n| n.to_string_lossy()) else {
        return false;
    };
    let stem = name
        .split('.')
        .next()
        .unwrap_or("")
        .trim_end_matches([' ', ':']);
    let upper = stem.to_ascii_uppercase();
    let numbered = |prefix: &str| {
        upper
            .strip_prefix(prefix)
            .is_some_and(|d| d.len() == 1 && matches!(d.as_bytes()[0], b'1'..=b'9'))
    };
    matches!(
        upper.as_str(),
        "NUL" | "CON" | "PRN" | "AUX" | "CONIN$" | "CONOUT$"
    ) || numbered("COM")
        || numbered("LPT")
}

/// The temporary file the control handler removes: a NUL-terminated UTF-16 path
/// leaked while registered.
static TEMP_PATH: AtomicPtr<u16> = AtomicPtr::new(std::ptr::null_mut());

/// Registers a temporary file for removal on Ctrl-C or a closed console while alive.
pub struct TempCleanup;

impl TempCleanup {
    /// Register `path` (replacing any earlier one) until the value is dropped.
    pub fn register(path: &Path) -> TempCleanup {
        let wide: Vec<u16> = path.as_os_str().encode_wide().collect();
        if !wide.contains(&0) {
            let owned: Box<[u16]> = wide.into_iter().chain([0]).collect();
            let p = Box::into_raw(owned).cast::<u16>();
            free_temp_path(TEMP_PATH.swap(p, Ordering::SeqCst));
        }
        TempCleanup
    }
}

impl Drop for TempCleanup {
    fn drop(&mut self) {
        free_temp_path(TEMP_PATH.swap(std::ptr::null_mut(), Ordering::SeqCst));
    }
}

fn free_temp_path(p: *mut u16) {
    if p.is_null() {
        return;
    }
    // SAFETY: every non-null pointer stored in TEMP_PATH came from `Box::into_raw` of
    // a slice whose only 0 is its last element, and the swap hands it to one owner.
    unsafe {
        let mut len = 0;
        while *p.add(len) != 0 {
            len += 1;
        }
        drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
            p,
            len + 1,
        )));
    }
}

/// Takes the registered path and deletes the file (an open file is deleted when its
/// last handle closes, at the process's end), then answers FALSE so that the next
/// handler, Windows' default, ends the process as if this one were not there.
unsafe extern "system" fn on_control(_ctrl_type: u32) -> i32 {
    let p = TEMP_PATH.swap(std::ptr::null_mut(), Ordering::SeqCst);
    if !p.is_null() {
        // SAFETY: `p` is a valid NUL-terminated UTF-16 string no one frees any more.
        unsafe { DeleteFileW(p) };
    }
    0
}

/// Add [`on_control`] to the process's console control handlers. Ctrl-C that the
/// parent disabled stays disabled (Windows does not call handlers for it then).
pub fn install_handlers() {
    // SAFETY: `on_control` has the signature Windows calls, and touches only an atomic
    // and a path it owns.
    unsafe { SetConsoleCtrlHandler(Some(on_control), 1) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_held_by_another_program_is_worth_retrying_a_missing_one_is_not() {
        let code = |c: i32| is_passing(&std::io::Error::from_raw_os_error(c));
        // ERROR_ACCESS_DENIED, ERROR_SHARING_VIOLATION, ERROR_LOCK_VIOLATION.
        assert!(code(5) && code(32) && code(33));
        // ERROR_FILE_NOT_FOUND, ERROR_PATH_NOT_FOUND: retrying does not help.
        assert!(!code(2) && !code(3));
        assert!(!is_passing(&std::io::Error::other("not an OS error")));
    }

    #[test]
    fn the_control_handler_deletes_the_registered_file_and_lets_windows_end_the_process() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join(".scene.tscn.tscn-merge-x.tmp");
        let file = create_new(&p).expect("create");
        let cleanup = TempCleanup::register(&p);
        // Ctrl-C (CTRL_C_EVENT, 0) as Windows delivers it, on a thread of its own.
        // SAFETY: the handler only reads an atomic and deletes the path it owns.
        let handled = std::thread::spawn(|| unsafe { on_control(0) })
            .join()
            .expect("handler");
        assert_eq!(handled, 0, "FALSE: the default handler ends the process");
        // Still open here (as a write in progress would be): gone once closed.
        drop(file);
        assert!(!p.exists(), "the temporary file is deleted");
        drop(cleanup);
        // Nothing registered any more: a second event deletes nothing.
        std::fs::write(&p, b"x").expect("write");
        // SAFETY: as above.
        assert_eq!(unsafe { on_control(2) }, 0);
        assert!(p.exists(), "an unregistered file stays");
    }
}
