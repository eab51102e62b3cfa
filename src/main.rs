// Temporary entry point of the `gitedge` branch: only `install`/`uninstall`
// are dispatched here; the real CLI replaces this file on merge.
#[allow(dead_code)]
mod cli;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let global = args.iter().skip(1).any(|a| a == "--global");
    let result = match args.first().map(String::as_str) {
        Some("install") => cli::install::run_install(global),
        Some("uninstall") => cli::install::run_uninstall(global),
        _ => {
            eprintln!("usage: tscn-merge install|uninstall [--global]");
            std::process::exit(2);
        }
    };
    match result {
        Ok(lines) => lines.iter().for_each(|l| println!("{l}")),
        Err(e) => {
            eprintln!("tscn-merge: {e:#}");
            std::process::exit(2);
        }
    }
}
