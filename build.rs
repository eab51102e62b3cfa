//! Build script: links the `tscn-merge` binary statically (glibc, not position
//! independent) on Linux where the C toolchain has the static libraries.
//!
//! Why: git starts a textconv process per blob (`git log -p`, `git log -S`), so the
//! binary's start-up is most of each call. Dynamic loading and relocation of a 6 MB
//! position-independent binary cost more than the work itself (about 1.5 ms a call
//! against 0.86 ms static, `cat` 1.0 ms; `scripts/bench-history.sh`). `crt-static`
//! cannot be asked for the binary alone (the flag reaches proc-macro crates, which
//! refuse it), so the binary's link gets `-static -no-pie` and a folder of one-line
//! linker scripts that turn the `-lgcc_s -lc ...` rustc names into their static
//! archives. Decided here: only the `[[bin]]` link (the library, tests and examples
//! are linked as usual). Left as is: any other OS or C library, a toolchain without
//! `libc.a` (nothing changes, the binary is dynamic), and `TSCN_MERGE_DYNAMIC=1`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The libraries rustc asks for when linking against glibc dynamically, and the static
/// archives each stands for (`libgcc_s` is the unwinder: `libgcc_eh.a`).
const SHIMS: [(&str, &str); 7] = [
    ("gcc_s", "INPUT(libgcc_eh.a libgcc.a)"),
    ("c", "GROUP(libc.a libgcc.a libgcc_eh.a)"),
    ("m", "INPUT(libm.a)"),
    ("dl", "INPUT(libdl.a)"),
    ("pthread", "INPUT(libpthread.a)"),
    ("rt", "INPUT(librt.a)"),
    ("util", "INPUT(libutil.a)"),
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=TSCN_MERGE_DYNAMIC");
    let env = |k: &str| std::env::var(k).unwrap_or_default();
    let glibc = env("CARGO_CFG_TARGET_OS") == "linux" && env("CARGO_CFG_TARGET_ENV") == "gnu";
    if !glibc || std::env::var_os("TSCN_MERGE_DYNAMIC").is_some_and(|v| v != "0") {
        return;
    }
    let linker = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".into());
    if !["libc.a", "libgcc_eh.a"]
        .iter()
        .all(|a| has_archive(&linker, a))
    {
        return;
    }
    let Some(dir) = std::env::var_os("OUT_DIR").map(|d| PathBuf::from(d).join("static-libs"))
    else {
        return;
    };
    if write_shims(&dir).is_err() {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-L{}", dir.display());
    println!("cargo:rustc-link-arg-bins=-static");
    println!("cargo:rustc-link-arg-bins=-no-pie");
}

/// Whether the C compiler driver finds the static archive `name` (it prints the bare
/// name back when it does not).
fn has_archive(linker: &str, name: &str) -> bool {
    Command::new(linker)
        .arg(format!("-print-file-name={name}"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .is_some_and(|p| p.is_absolute() && p.exists())
}

/// One linker script `libNAME.so` per library rustc names, found before the system's
/// shared objects because the folder is searched first.
fn write_shims(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, script) in SHIMS {
        std::fs::write(dir.join(format!("lib{name}.so")), format!("{script}\n"))?;
    }
    Ok(())
}
