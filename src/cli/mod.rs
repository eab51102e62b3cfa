pub mod git;
pub mod install;
