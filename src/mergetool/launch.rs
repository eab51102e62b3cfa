//! Opening the browser without showing the page's token to anyone else: a command
//! line is readable by every local user (`ps`, `/proc/PID/cmdline`), so the browser is
//! given the path of a small page that only the user can read (mode 0600, in a folder
//! of mode 0700, removed when the mergetool ends), and that page sends the browser on to
//! the address with the token. As Jupyter opens its notebooks. Which command opens the
//! browser (`$BROWSER`, `xdg-open`, `open`, `start`) is decided here too.

use anyhow::{Context, Result};
use std::io::Write;
use std::path::PathBuf;

/// The launch page, kept until dropped (then removed with its folder).
pub struct Launch {
    _dir: tempfile::TempDir,
    /// The page's path.
    pub file: PathBuf,
}

impl Launch {
    /// The page's `file://` address (what the browser is given).
    pub fn address(&self) -> String {
        let path = self.file.to_string_lossy().replace('\\', "/");
        let path = if path.starts_with('/') {
            path
        } else {
            format!("/{path}")
        };
        let escaped: String = path
            .chars()
            .map(|c| match c {
                ' ' => "%20".to_string(),
                '#' => "%23".to_string(),
                '?' => "%3F".to_string(),
                '%' => "%25".to_string(),
                c => c.to_string(),
            })
            .collect();
        format!("file://{escaped}")
    }
}

/// Write the launch page for `url` (which holds the token) where only this user can
/// read it.
pub fn launch_page(url: &str) -> Result<Launch> {
    // A folder of mode 0700 on Unix; on Windows the temporary folder is in the user's
    // own profile.
    let mut builder = tempfile::Builder::new();
    builder.prefix("tscn-merge-mergetool-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o700));
    }
    let dir = builder
        .tempdir()
        .context("cannot create a private folder for the launch page")?;
    let file = dir.path().join("open.html");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <meta http-equiv=\"refresh\" content=\"0;url={url}\">\
         <title>tscn-merge mergetool</title></head>\
         <body><p><a href=\"{url}\">Open the mergetool</a></p></body></html>\n"
    );
    options
        .open(&file)
        .and_then(|mut f| f.write_all(page.as_bytes()))
        .with_context(|| format!("cannot write {}", file.display()))?;
    Ok(Launch { _dir: dir, file })
}

/// Open `address` with `$BROWSER` (a `:`-separated list of commands, `%s` for the
/// address), else the platform's opener.
pub fn open_browser(address: &str) -> Result<()> {
    let browser = std::env::var("BROWSER").unwrap_or_default();
    let commands: Vec<Vec<String>> = if !browser.trim().is_empty() {
        browser
            .split(':')
            .filter(|c| !c.trim().is_empty())
            .map(|c| {
                let mut words: Vec<String> = c.split_whitespace().map(str::to_string).collect();
                if c.contains("%s") {
                    words.iter_mut().for_each(|w| *w = w.replace("%s", address));
                } else {
                    words.push(address.to_string());
                }
                words
            })
            .collect()
    } else if cfg!(target_os = "macos") {
        vec![vec!["open".into(), address.into()]]
    } else if cfg!(windows) {
        let start = ["cmd", "/c", "start", "", address];
        vec![start.iter().map(|s| s.to_string()).collect()]
    } else {
        vec![vec!["xdg-open".into(), address.into()]]
    };
    let mut last = anyhow::anyhow!("no browser command");
    for words in commands {
        let spawned = std::process::Command::new(&words[0])
            .args(&words[1..])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        match spawned {
            Ok(mut child) => {
                std::thread::spawn(move || child.wait());
                return Ok(());
            }
            Err(e) => last = anyhow::anyhow!("{}: {e}", words[0]),
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_launch_page_is_the_users_alone_and_leads_to_the_address() {
        let l = launch_page("http://127.0.0.1:1/f00dfeedf00dfeed/").expect("written");
        let page = std::fs::read_to_string(&l.file).expect("read");
        assert!(
            page.contains("url=http://127.0.0.1:1/f00dfeedf00dfeed/"),
            "{page}"
        );
        assert!(l.address().starts_with("file:///") && !l.address().contains("f00dfeed"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &std::path::Path| {
                std::fs::metadata(p).expect("stat").permissions().mode() & 0o777
            };
            assert_eq!(mode(&l.file), 0o600);
            assert_eq!(mode(l.file.parent().expect("folder")), 0o700);
        }
        let file = l.file.clone();
        drop(l);
        assert!(!file.exists());
    }
}
