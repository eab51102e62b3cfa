//! The time bound of `diff`, `review` and `textconv`, as `merge --timeout` is merge's:
//! the semantic work runs on a thread of its own and the caller waits at most the limit,
//! then takes its plain fallback (a line diff, the raw file, a "gave up" entry). The
//! library stays free of clocks and threads; what to fall back to is each command's.
//!
//! The limit is `--timeout SECS` where the command has it, else `TSCN_MERGE_TIMEOUT`
//! (what git's own calls of the external diff and textconv can be given), else
//! [`DEFAULT_SECS`]. 0 means no semantic work at all: the fallback straight away.

use std::time::Duration;

/// Seconds a semantic diff or projection may take by default, as a merge may.
pub const DEFAULT_SECS: f64 = 60.0;

/// The environment variable that sets the limit for every command that has none given.
pub const ENV: &str = "TSCN_MERGE_TIMEOUT";

/// The limit in seconds: `given`, else `TSCN_MERGE_TIMEOUT` (when it is a number), else
/// [`DEFAULT_SECS`].
pub fn limit(given: Option<f64>) -> f64 {
    given
        .or_else(|| {
            std::env::var(ENV)
                .ok()
                .and_then(|v| v.trim().parse::<f64>().ok())
        })
        .filter(|s| !s.is_nan())
        .unwrap_or(DEFAULT_SECS)
}

/// `work`'s result if it finishes within `secs` seconds, else `None` (then the thread is
/// left to the process's exit). `secs <= 0`: `None` without starting it.
pub fn within<T: Send + 'static>(
    secs: f64,
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    within_leaving(secs, move || (work(), ()))
}

/// [`within`] for work that leaves big things behind (a diff's two 20 MB scenes): the
/// second part of what `work` gives is dropped on the work's thread after the answer is
/// sent, so the caller does not wait for memory to be given back block by block. A
/// command that ends with the answer exits meanwhile, and the exit gives the memory back
/// whole; a command with more to do goes on beside the dropping.
pub fn within_leaving<T: Send + 'static, L: Send + 'static>(
    secs: f64,
    work: impl FnOnce() -> (T, L) + Send + 'static,
) -> Option<T> {
    if secs <= 0.0 || secs.is_nan() {
        return None;
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (out, left) = work();
        let _ = tx.send(out);
        drop(left);
    });
    rx.recv_timeout(Duration::from_secs_f64(secs.min(86_400.0)))
        .ok()
}

/// How a fallback names the bound: "it took longer than 60 s (--timeout)".
pub fn reason(secs: f64) -> String {
    if secs <= 0.0 {
        "--timeout 0: no semantic work asked for".to_string()
    } else {
        format!("it took longer than {secs} s (--timeout)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quick_job_is_waited_for_a_slow_one_is_not_and_zero_starts_nothing() {
        assert_eq!(within(10.0, || 7), Some(7));
        let slow = within(0.05, || std::thread::sleep(Duration::from_secs(5)));
        assert_eq!(slow, None);
        assert_eq!(within(0.0, || panic!("started")), None::<()>);
        assert_eq!(limit(Some(2.5)), 2.5);
    }

    /// Something whose dropping takes long, and says when it is done.
    struct SlowToDrop(std::sync::mpsc::Sender<()>);

    impl Drop for SlowToDrop {
        fn drop(&mut self) {
            std::thread::sleep(Duration::from_millis(1500));
            let _ = self.0.send(());
        }
    }

    #[test]
    fn the_answer_comes_before_what_is_left_is_dropped() {
        let (tx, dropped) = std::sync::mpsc::channel();
        let start = std::time::Instant::now();
        assert_eq!(within_leaving(10.0, move || (7, SlowToDrop(tx))), Some(7));
        assert!(
            start.elapsed() < Duration::from_millis(1000),
            "waited for the drop"
        );
        // ... and it is dropped all the same, on the work's thread.
        assert_eq!(dropped.recv_timeout(Duration::from_secs(10)), Ok(()));
    }
}
