//! Pseudo-random numbers for tests that try many generated cases: the same every run, so a
//! failure comes back when run again.

/// A generator from `seed`: each call gives a number below its argument.
pub fn numbers(mut seed: u64) -> impl FnMut(usize) -> usize {
    move |below: usize| {
        // Knuth's MMIX linear congruential generator; its high bits are the random ones.
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % below
    }
}
