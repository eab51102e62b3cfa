//! Step 1b of the line diff: the divide-and-conquer Myers search of xdiff's `xdl_recs_cmp`
//! and `xdl_split`, on the lines [`super::prepare`] kept.
//!
//! Decides which of those lines are changed, with xdiff's tie-breaking (forward and
//! backward passes in its order) and its cost cut-offs (a long enough snake after
//! `HEUR_MIN_COST` edits, or the furthest-reaching point after `mxcost` edits), so that
//! ambiguous diffs come out as git prints them. Leaves the lines set aside before the
//! search, the sliding of change groups and the merge to the other steps.

const SNAKE_CNT: isize = 20;
const HEUR_MIN_COST: isize = 256;
const MAX_COST_MIN: isize = 256;
const K_HEUR: isize = 4;
const LINE_MAX: isize = isize::MAX / 4;

/// xdiff's cheap integer square root (a power of two near `sqrt(n)`), used for cut-offs.
pub(super) fn bogosqrt(mut n: usize) -> usize {
    let mut i = 1usize;
    while n > 0 {
        i = i.saturating_mul(2);
        n >>= 2;
    }
    i
}

/// Where a box is cut in two, and whether each half must be diffed minimally.
struct Split {
    i1: isize,
    i2: isize,
    min_lo: bool,
    min_hi: bool,
}

/// Changed flags for both sequences, xdiff's `xdl_recs_cmp`.
pub(super) fn myers_reduced(h1: &[u32], h2: &[u32]) -> (Vec<bool>, Vec<bool>) {
    let (n1, n2) = (h1.len() as isize, h2.len() as isize);
    let mut c1 = vec![false; h1.len()];
    let mut c2 = vec![false; h2.len()];
    let ndiags = (n1 + n2 + 3) as usize;
    let mut s = Search {
        h1,
        h2,
        kvdf: vec![0isize; ndiags + 2],
        kvdb: vec![0isize; ndiags + 2],
        koff: n2 + 1,
        mxcost: (bogosqrt(ndiags) as isize).max(MAX_COST_MIN),
    };
    let mut stack = vec![(0isize, n1, 0isize, n2, false)];
    while let Some((mut off1, mut lim1, mut off2, mut lim2, need_min)) = stack.pop() {
        while off1 < lim1 && off2 < lim2 && h1[off1 as usize] == h2[off2 as usize] {
            off1 += 1;
            off2 += 1;
        }
        while off1 < lim1 && off2 < lim2 && h1[lim1 as usize - 1] == h2[lim2 as usize - 1] {
            lim1 -= 1;
            lim2 -= 1;
        }
        if off1 == lim1 {
            c2[off2 as usize..lim2 as usize].fill(true);
        } else if off2 == lim2 {
            c1[off1 as usize..lim1 as usize].fill(true);
        } else {
            let b = Box4 {
                off1,
                lim1,
                off2,
                lim2,
            };
            let spl = s.split(&b, need_min);
            stack.push((spl.i1, lim1, spl.i2, lim2, spl.min_hi));
            stack.push((off1, spl.i1, off2, spl.i2, spl.min_lo));
        }
    }
    (c1, c2)
}

/// The part of both sequences being compared: `off1..lim1` against `off2..lim2`.
struct Box4 {
    off1: isize,
    lim1: isize,
    off2: isize,
    lim2: isize,
}

/// The two sequences and the furthest-reaching paths on each diagonal, forward (`kvdf`)
/// and backward (`kvdb`), indexed by diagonal `d + koff`.
struct Search<'a> {
    h1: &'a [u32],
    h2: &'a [u32],
    kvdf: Vec<isize>,
    kvdb: Vec<isize>,
    koff: isize,
    mxcost: isize,
}

/// The range of diagonals each pass has reached, and the current edit cost.
struct Front {
    fmin: isize,
    fmax: isize,
    bmin: isize,
    bmax: isize,
    fmid: isize,
    bmid: isize,
    dmin: isize,
    dmax: isize,
    ec: isize,
}

impl Search<'_> {
    fn k(&self, d: isize) -> usize {
        (d + self.koff) as usize
    }

    /// xdiff's `xdl_split`: one forward and one backward step per edit cost until the
    /// paths meet, a heuristic snake is good enough, or the cost cut-off is reached.
    fn split(&mut self, b: &Box4, need_min: bool) -> Split {
        let (fmid, bmid) = (b.off1 - b.off2, b.lim1 - b.lim2);
        let odd = (fmid - bmid) & 1 != 0;
        let mut fr = Front {
            fmin: fmid,
            fmax: fmid,
            bmin: bmid,
            bmax: bmid,
            fmid,
            bmid,
            dmin: b.off1 - b.lim2,
            dmax: b.lim1 - b.off2,
            ec: 1,
        };
        let (kf, kb) = (self.k(fmid), self.k(bmid));
        self.kvdf[kf] = b.off1;
        self.kvdb[kb] = b.lim1;
        loop {
            let (meet, snake_f) = self.forward(b, &mut fr, odd);
            if let Some(s) = meet {
                return s;
            }
            let (meet, snake_b) = self.backward(b, &mut fr, odd);
            if let Some(s) = meet {
                return s;
            }
            if !need_min {
                if (snake_f || snake_b) && fr.ec > HEUR_MIN_COST {
                    if let Some(s) = self.heuristic(b, &fr) {
                        return s;
                    }
                }
                if fr.ec >= self.mxcost {
                    return self.cut_off(b, &fr);
                }
            }
            fr.ec += 1;
        }
    }

    /// One forward step: extend every forward diagonal by one edit and its snake.
    /// Returns the meeting point if an odd-delta box's paths overlap, and whether a long
    /// snake was seen.
    fn forward(&mut self, b: &Box4, fr: &mut Front, odd: bool) -> (Option<Split>, bool) {
        if fr.fmin > fr.dmin {
            fr.fmin -= 1;
            let k = self.k(fr.fmin - 1);
            self.kvdf[k] = -1;
        } else {
            fr.fmin += 1;
        }
        if fr.fmax < fr.dmax {
            fr.fmax += 1;
            let k = self.k(fr.fmax + 1);
            self.kvdf[k] = -1;
        } else {
            fr.fmax -= 1;
        }
        let (h1, h2, koff) = (self.h1, self.h2, self.koff);
        let (kvdf, kvdb) = (&mut self.kvdf[..], &self.kvdb[..]);
        let (lim1, lim2) = (b.lim1, b.lim2);
        let mut got_snake = false;
        let mut d = fr.fmax;
        while d >= fr.fmin {
            let k = (d + koff) as usize;
            let (lo, hi) = (kvdf[k - 1], kvdf[k + 1]);
            let mut i1 = if lo >= hi { lo + 1 } else { hi };
            let prev1 = i1;
            let mut i2 = i1 - d;
            while i1 < lim1 && i2 < lim2 && h1[i1 as usize] == h2[i2 as usize] {
                i1 += 1;
                i2 += 1;
            }
            got_snake |= i1 - prev1 > SNAKE_CNT;
            kvdf[k] = i1;
            if odd && fr.bmin <= d && d <= fr.bmax && kvdb[k] <= i1 {
                return (Some(meet(i1, i2)), got_snake);
            }
            d -= 2;
        }
        (None, got_snake)
    }

    /// One backward step, the mirror of [`Search::forward`] from the box's end.
    fn backward(&mut self, b: &Box4, fr: &mut Front, odd: bool) -> (Option<Split>, bool) {
        if fr.bmin > fr.dmin {
            fr.bmin -= 1;
            let k = self.k(fr.bmin - 1);
            self.kvdb[k] = LINE_MAX;
        } else {
            fr.bmin += 1;
        }
        if fr.bmax < fr.dmax {
            fr.bmax += 1;
            let k = self.k(fr.bmax + 1);
            self.kvdb[k] = LINE_MAX;
        } else {
            fr.bmax -= 1;
        }
        let (h1, h2, koff) = (self.h1, self.h2, self.koff);
        let (kvdf, kvdb) = (&self.kvdf[..], &mut self.kvdb[..]);
        let (off1, off2) = (b.off1, b.off2);
        let mut got_snake = false;
        let mut d = fr.bmax;
        while d >= fr.bmin {
            let k = (d + koff) as usize;
            let (lo, hi) = (kvdb[k - 1], kvdb[k + 1]);
            let mut i1 = if lo < hi { lo } else { hi - 1 };
            let prev1 = i1;
            let mut i2 = i1 - d;
            while i1 > off1 && i2 > off2 && h1[i1 as usize - 1] == h2[i2 as usize - 1] {
                i1 -= 1;
                i2 -= 1;
            }
            got_snake |= prev1 - i1 > SNAKE_CNT;
            kvdb[k] = i1;
            if !odd && fr.fmin <= d && d <= fr.fmax && i1 <= kvdf[k] {
                return (Some(meet(i1, i2)), got_snake);
            }
            d -= 2;
        }
        (None, got_snake)
    }

    /// After `HEUR_MIN_COST` edits: cut at the best diagonal ending in a snake of
    /// `SNAKE_CNT` lines, forward first, then backward.
    fn heuristic(&self, b: &Box4, fr: &Front) -> Option<Split> {
        let eq = |i1: isize, i2: isize| self.h1[i1 as usize] == self.h2[i2 as usize];
        let (mut best, mut found) = (0, None);
        let mut d = fr.fmax;
        while d >= fr.fmin {
            let i1 = self.kvdf[self.k(d)];
            let i2 = i1 - d;
            let v = (i1 - b.off1) + (i2 - b.off2) - (d - fr.fmid).abs();
            if v > K_HEUR * fr.ec
                && v > best
                && b.off1 + SNAKE_CNT <= i1
                && i1 < b.lim1
                && b.off2 + SNAKE_CNT <= i2
                && i2 < b.lim2
                && (1..=SNAKE_CNT).all(|q| eq(i1 - q, i2 - q))
            {
                best = v;
                found = Some((i1, i2));
            }
            d -= 2;
        }
        if let Some((i1, i2)) = found {
            return Some(Split {
                i1,
                i2,
                min_lo: true,
                min_hi: false,
            });
        }
        self.heuristic_backward(b, fr)
    }

    fn heuristic_backward(&self, b: &Box4, fr: &Front) -> Option<Split> {
        let eq = |i1: isize, i2: isize| self.h1[i1 as usize] == self.h2[i2 as usize];
        let (mut best, mut found) = (0, None);
        let mut d = fr.bmax;
        while d >= fr.bmin {
            let i1 = self.kvdb[self.k(d)];
            let i2 = i1 - d;
            let v = (b.lim1 - i1) + (b.lim2 - i2) - (d - fr.bmid).abs();
            if v > K_HEUR * fr.ec
                && v > best
                && b.off1 < i1
                && i1 <= b.lim1 - SNAKE_CNT
                && b.off2 < i2
                && i2 <= b.lim2 - SNAKE_CNT
                && (0..SNAKE_CNT).all(|q| eq(i1 + q, i2 + q))
            {
                best = v;
                found = Some((i1, i2));
            }
            d -= 2;
        }
        found.map(|(i1, i2)| Split {
            i1,
            i2,
            min_lo: false,
            min_hi: true,
        })
    }

    /// After `mxcost` edits: cut at the furthest-reaching point of either pass.
    fn cut_off(&self, b: &Box4, fr: &Front) -> Split {
        let (mut fbest, mut fbest1) = (-1isize, -1isize);
        let mut d = fr.fmax;
        while d >= fr.fmin {
            let mut i1 = self.kvdf[self.k(d)].min(b.lim1);
            let mut i2 = i1 - d;
            if b.lim2 < i2 {
                i1 = b.lim2 + d;
                i2 = b.lim2;
            }
            if fbest < i1 + i2 {
                fbest = i1 + i2;
                fbest1 = i1;
            }
            d -= 2;
        }
        let (mut bbest, mut bbest1) = (LINE_MAX, LINE_MAX);
        let mut d = fr.bmax;
        while d >= fr.bmin {
            let mut i1 = self.kvdb[self.k(d)].max(b.off1);
            let mut i2 = i1 - d;
            if i2 < b.off2 {
                i1 = b.off2 + d;
                i2 = b.off2;
            }
            if i1 + i2 < bbest {
                bbest = i1 + i2;
                bbest1 = i1;
            }
            d -= 2;
        }
        if (b.lim1 + b.lim2) - bbest < fbest - (b.off1 + b.off2) {
            Split {
                i1: fbest1,
                i2: fbest - fbest1,
                min_lo: true,
                min_hi: false,
            }
        } else {
            Split {
                i1: bbest1,
                i2: bbest - bbest1,
                min_lo: false,
                min_hi: true,
            }
        }
    }
}

/// The paths met: both halves must be diffed minimally.
fn meet(i1: isize, i2: isize) -> Split {
    Split {
        i1,
        i2,
        min_lo: true,
        min_hi: true,
    }
}
