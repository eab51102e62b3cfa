//! Step 1a of the line diff: xdiff's preprocessing before the Myers search
//! (`xdl_trim_ends`, `xdl_cleanup_records`).
//!
//! Decides which lines never enter the search: the common start and end of both files
//! (unchanged), and the lines with no match in the other file or with many matches amid
//! unmatched ones (changed). The remaining lines go to [`super::myers`] (through
//! [`super::memo`]), whose result is
//! mapped back onto the whole files here.

use super::changed::Rchg;
use super::memo::myers_remembered;
use super::myers::bogosqrt;

const KPDIS_RUN: usize = 4;
const SIMSCAN_WINDOW: usize = 100;
const MAX_EQLIMIT: usize = 1024;

/// How a line's id occurs in the other file (xdiff's `dis` values).
const NO_MATCH: u8 = 0;
const KEEP: u8 = 1;
const MANY_MATCHES: u8 = 2;

/// Diff `a` against `b` as git does, marking changed lines in `ra` and `rb`.
pub(super) fn git_myers(a: &[u32], b: &[u32], ra: &mut Rchg, rb: &mut Rchg, texts: &[&[u8]]) {
    let (n1, n2) = (a.len(), b.len());
    let lim = n1.min(n2);
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take(lim - pre)
        .take_while(|(x, y)| x == y)
        .count();
    let (end1, end2) = (n1 - suf, n2 - suf);
    let nid = a
        .iter()
        .chain(b)
        .map(|&x| x as usize + 1)
        .max()
        .unwrap_or(0);
    let (cnt1, cnt2) = (count_ids(a, nid), count_ids(b, nid));
    let idx1 = kept_lines(a, pre, end1, &cnt2, ra);
    let idx2 = kept_lines(b, pre, end2, &cnt1, rb);
    let ha1: Vec<u32> = idx1.iter().map(|&i| a[i]).collect();
    let ha2: Vec<u32> = idx2.iter().map(|&i| b[i]).collect();
    let (c1, c2) = myers_remembered(&ha1, &ha2, texts);
    mark_changed(&idx1, &c1, ra);
    mark_changed(&idx2, &c2, rb);
}

fn count_ids(v: &[u32], nid: usize) -> Vec<usize> {
    let mut cnt = vec![0usize; nid];
    for &x in v {
        cnt[x as usize] += 1;
    }
    cnt
}

fn mark_changed(idx: &[usize], changed: &[bool], r: &mut Rchg) {
    for (&i, &ch) in idx.iter().zip(changed) {
        if ch {
            r.set(i, true);
        }
    }
}

/// Lines `pre..end` of `v` that go to the search; the others are marked changed in `r`.
/// `other`: how often each id occurs in the other file.
fn kept_lines(v: &[u32], pre: usize, end: usize, other: &[usize], r: &mut Rchg) -> Vec<usize> {
    let mlim = bogosqrt(v.len()).min(MAX_EQLIMIT);
    let mut dis = vec![NO_MATCH; end];
    for i in pre..end {
        let nm = other[v[i] as usize];
        dis[i] = if nm == 0 {
            NO_MATCH
        } else if nm >= mlim {
            MANY_MATCHES
        } else {
            KEEP
        };
    }
    let mut idx = Vec::new();
    for i in pre..end {
        if dis[i] == KEEP || (dis[i] == MANY_MATCHES && !clean_mmatch(&dis, i, pre, end - 1)) {
            idx.push(i);
        } else {
            r.set(i, true);
        }
    }
    idx
}

/// Is multi-match line `i` inside a run of mostly unmatched lines (then it
/// is set aside from the diff)?
fn clean_mmatch(dis: &[u8], i: usize, s: usize, e: usize) -> bool {
    let s = if i - s > SIMSCAN_WINDOW {
        i - SIMSCAN_WINDOW
    } else {
        s
    };
    let e = if e - i > SIMSCAN_WINDOW {
        i + SIMSCAN_WINDOW
    } else {
        e
    };
    let (rdis0, rpdis0) = run_before(dis, i, s);
    if rdis0 == 0 {
        return false;
    }
    let (rdis1, rpdis1) = run_after(dis, i, e);
    if rdis1 == 0 {
        return false;
    }
    let rdis = rdis1 + rdis0;
    let rpdis = rpdis1 + rpdis0;
    rpdis * KPDIS_RUN < rpdis + rdis
}

/// (unmatched, 1 + many-matched) lines in the run just before `i`, down to `s`.
fn run_before(dis: &[u8], i: usize, s: usize) -> (usize, usize) {
    let (mut rdis, mut rpdis) = (0usize, 1usize);
    let mut r = 1;
    while i >= s + r {
        match dis[i - r] {
            NO_MATCH => rdis += 1,
            MANY_MATCHES => rpdis += 1,
            _ => break,
        }
        r += 1;
    }
    (rdis, rpdis)
}

/// (unmatched, 1 + many-matched) lines in the run just after `i`, up to `e`.
fn run_after(dis: &[u8], i: usize, e: usize) -> (usize, usize) {
    let (mut rdis, mut rpdis) = (0usize, 1usize);
    let mut r = 1;
    while i + r <= e {
        match dis[i + r] {
            NO_MATCH => rdis += 1,
            MANY_MATCHES => rpdis += 1,
            _ => break,
        }
        r += 1;
    }
    (rdis, rpdis)
}
