"""Task utilisations that add up to a total: UUniFast, UUniFast-Discard and
ConvolutionalFixedSum (which samples what RandFixedSum and Dirichlet-Rescale
sample). Sources in docs/references.md; docs/campaigns.md compares them.

Each function returns n floats whose sum is the total to within float
rounding (1e-9) and each within its bounds, or raises GenerateError.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from priora.errors import PrioraError

# UUniFast-Discard gives up after this many vectors with a value out of
# bounds: near n * max almost every vector is discarded [Davis-Burns 2009].
DISCARD_TRIES = 10_000


class GenerateError(PrioraError):
    """A set the generator could not draw within its bounds (one line)."""


def uunifast(rng: random.Random, n: int, total: float) -> list[float]:
    """[Bini-Buttazzo 2005]: uniform over the simplex {u_i >= 0, sum u_i =
    total}. The last share is what is left, so the sum is exact but for the
    rounding of the subtractions."""
    shares = []
    rest = total
    for i in range(1, n):
        following = rest * rng.random() ** (1.0 / (n - i))
        shares.append(rest - following)
        rest = following
    shares.append(rest)
    return shares


def uunifast_discard(
    rng: random.Random, n: int, total: float, lower: Sequence[float], upper: Sequence[float]
) -> list[float]:
    """[Davis-Burns 2009]: UUniFast, drawing again while some u_i is outside
    [lower_i, upper_i]; uniform over what is left of the simplex."""
    for _ in range(DISCARD_TRIES):
        shares = uunifast(rng, n, total)
        if all(lo <= u <= hi for u, lo, hi in zip(shares, lower, upper, strict=True)):
            return shares
    raise GenerateError(
        f"UUniFast-Discard drew {DISCARD_TRIES} vectors of {n} utilisations summing to {total:g} and "
        f'discarded every one (a value out of its bounds): use utilisation_method = "dirichlet-rescale"'
    )


def fixed_sum(
    rng: random.Random, n: int, total: float, lower: Sequence[float], upper: Sequence[float]
) -> list[float]:
    """Uniform over {lower_i <= u_i <= upper_i, sum u_i = total}: the region
    RandFixedSum [Stafford 2006, Emberson-Stafford-Davis 2010] samples with
    common bounds and Dirichlet-Rescale [Griffin-Bate-Davis 2020] with a
    bound per task, sampled by ConvolutionalFixedSum [Griffin-Davis 2025]
    (the `convolutionalfixedsum` package, which replaces `drs`). Its own
    generator is seeded from `rng`, never 0 (which it takes as unseeded)."""
    from convolutionalfixedsum import CFSAConfig, cfsa

    seed = rng.getrandbits(62) + 1
    values = cfsa(n, total, list(lower), list(upper), CFSAConfig(seed=seed))
    # The sampler's root finding leaves the bounds by a few ulps at worst.
    return [min(max(float(u), lo), hi) for u, lo, hi in zip(values, lower, upper, strict=True)]
