//! `diff` and `textconv` arguments, and the output format `diff` and `review` share.

use crate::io::color::ColorChoice;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Output format of `diff` and `review`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffFormat {
    /// A tree of changes, coloured on a terminal.
    Text,
    /// A review-ready summary with a Mermaid diagram.
    Markdown,
    /// The versioned JSON schema.
    Json,
    /// One self-contained HTML page (inline CSS, no script).
    Html,
}

/// `diff` arguments.
#[derive(Args, Debug, Clone)]
pub struct DiffArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Also list resave noise (renamed ids, load_steps, float re-spellings, ...).
    #[arg(long)]
    pub show_noise: bool,
    /// List every bone pose of a Skeleton3D saved in another pose (else one line per
    /// skeleton).
    #[arg(long)]
    pub show_state: bool,
    /// Called as git's external diff: PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE.
    #[arg(long)]
    pub git_external: bool,
    /// Seconds the semantic diff may take before the line diff is shown instead (0: the
    /// line diff only; default `TSCN_MERGE_TIMEOUT`, else 60).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// The file's path to name in the header line (git difftool's `$MERGED`).
    #[arg(long, value_name = "PATH")]
    pub name: Option<String>,
    /// OLD NEW (files or git's REV:PATH), or one work-tree PATH to compare with HEAD,
    /// or nothing: every scene and config file of the work tree that differs from HEAD
    /// (or git's seven arguments with --git-external).
    pub files: Vec<PathBuf>,
    /// This file's place in a listing (`2/5` in its header line).
    #[arg(skip)]
    pub counter: Option<(usize, usize)>,
}

/// `textconv` arguments.
#[derive(Args, Debug)]
pub struct TextconvArgs {
    /// Seconds the projection may take before the file is printed as it is (0: always
    /// as it is; default `TSCN_MERGE_TIMEOUT`, else 60).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// The scene to project.
    pub file: PathBuf,
}
