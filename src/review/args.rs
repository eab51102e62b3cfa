//! `review` arguments.

use crate::diff::args::DiffFormat;
use crate::io::color::ColorChoice;
use clap::Args;
use std::path::PathBuf;

/// `review` arguments.
#[derive(Args, Debug)]
pub struct ReviewArgs {
    /// `A..B`, `A...B` (from the merge base), or a single commit.
    pub range: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Markdown)]
    pub format: DiffFormat,
    /// When to use colour (text format).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Repository to read (default: the current directory).
    #[arg(long, default_value = ".")]
    pub repo: PathBuf,
    /// Also list resave noise.
    #[arg(long)]
    pub show_noise: bool,
    /// List every bone pose of a Skeleton3D saved in another pose (else one line per
    /// skeleton).
    #[arg(long)]
    pub show_state: bool,
    /// Most bytes of Markdown output (GitHub refuses comments over 65,536 characters):
    /// the most changed files in full, the rest summarised. 0: no limit.
    #[arg(long, value_name = "N", default_value_t = gdscene::render::markdown::DEFAULT_MAX_BYTES)]
    pub max_bytes: usize,
    /// No progress on stderr (it is shown only on a terminal anyway).
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Seconds each file's semantic diff may take before the file is listed as not
    /// diffed (0: none is diffed; default `TSCN_MERGE_TIMEOUT`, else 60).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
}
