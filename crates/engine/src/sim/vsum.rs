//! Virtual time is a sum of `f64` costs in program order, so a run's numbers are bit-exact
//! everywhere. A loop segment adds the same cost for every steady site; [`add_repeated`] gives
//! the bits of adding it `k` times one by one without doing `k` additions.

/// `acc` after `k` sequential `acc += x` (round to nearest, ties to even), for finite `acc`
/// and `x` with `0 <= x`, `0 <= acc`. Costs O(binades crossed), not O(k).
pub(crate) fn add_repeated(mut acc: f64, x: f64, mut k: u64) -> f64 {
    if x == 0.0 {
        return acc;
    }
    while k > 0 {
        // Within one binade [2^e, 2^(e+1)) of normal numbers every step adds the same amount
        // once the parity of the ties has settled; take single steps until then.
        if acc < x * 4.0 || !acc.is_normal() {
            acc += x;
            k -= 1;
            continue;
        }
        let ulp = ulp_of(acc);
        let step = (acc + x) - acc;
        let next = acc + step;
        let step2 = (next + x) - next;
        if step != step2 {
            acc += x;
            k -= 1;
            continue;
        }
        // Steps of `step` stay exact while the unrounded sum stays below the binade's top minus
        // one ulp (so rounding never happens at the next binade's coarser spacing).
        let top = binade_top(acc);
        let room = ((top - ulp - x - acc) / step).floor();
        // One step of slack for the rounding of `room` itself.
        if room < 3.0 {
            acc += x;
            k -= 1;
            continue;
        }
        let n = ((room - 1.0) as u64).min(k);
        acc += n as f64 * step;
        k -= n;
    }
    acc
}

fn ulp_of(v: f64) -> f64 {
    f64::from_bits(v.to_bits() + 1) - v
}

/// The smallest power of two above `v` (the start of the next binade).
fn binade_top(v: f64) -> f64 {
    f64::from_bits((v.to_bits() & 0xFFF0_0000_0000_0000) + (1u64 << 52))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(mut acc: f64, x: f64, k: u64) -> f64 {
        for _ in 0..k {
            acc += x;
        }
        acc
    }

    #[test]
    fn repeated_addition_matches_one_by_one_to_the_bit() {
        // A fixed pseudo-random walk over start values, addends and counts (no clock, no rng).
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let addends = [0.43, 0.1, 610.0, 2200.0, 1e-3, 0.5, 3.0, 1.0 / 3.0, 2.5e-7, 123_456.789];
        for _ in 0..3000 {
            let x = addends[(next() % addends.len() as u64) as usize] * (1 + next() % 1000) as f64;
            let acc = match next() % 3 {
                0 => 0.0,
                1 => (next() % 1_000_000) as f64 * 0.43,
                _ => f64::from_bits(next() % 0x4330_0000_0000_0000),
            };
            let k = next() % 20_000;
            assert_eq!(add_repeated(acc, x, k).to_bits(), naive(acc, x, k).to_bits(), "acc={acc:?} x={x:?} k={k}");
        }
    }

    #[test]
    fn many_additions_cost_few_steps() {
        // 10^12 additions of a tiny cost finish (the loop jumps through each binade).
        let v = add_repeated(1.0, 0.43, 1_000_000_000_000);
        assert!(v > 4.0e11 && v < 4.4e11, "{v}");
    }
}
