"""The exact guarantees of 64-bit and 53-bit coins (``coin_epsilon``)."""

import math

import pytest

from sklearn_ldp.accounting import coin_epsilon


def _exact_coin_epsilon(low, high, bits):
    """``ln max(B / A, (2^bits - A) / (2^bits - B))`` with exact integer thresholds."""
    full = 2**bits
    a = math.ceil(math.ldexp(low, bits))
    b = math.ceil(math.ldexp(high, bits))
    return max(math.log(b / a), math.log((full - a) / (full - b)))


@pytest.mark.parametrize("bits", [53, 64])
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 8.0, 20.0])
def test_coin_epsilon_is_the_ratio_of_the_integer_thresholds(bits, epsilon):
    low, high = 1.0 / (1.0 + math.exp(epsilon)), 1.0 / (1.0 + math.exp(-epsilon))
    stated = coin_epsilon(low, high, bits=bits)
    exact = _exact_coin_epsilon(low, high, bits)
    # Rounded up: by 2^-52 and an ulp or two of the logarithm.
    assert exact <= stated <= exact + 4e-16 + 4 * math.ulp(exact)


def test_a_53_bit_coin_is_coarser_where_the_probability_is_small():
    # P[1] = 1e-12: 2^53 p = 9007.2 is rounded up by 9e-5 relative, 2^64 p
    # by 5e-8; the largest ratio is high / low, lowered as much.
    low, high = 1e-12, 0.5
    log_ratio = math.log(high / low)
    assert 8e-5 < log_ratio - coin_epsilon(low, high, bits=53) < 1e-4
    assert abs(log_ratio - coin_epsilon(low, high, bits=64)) < 1e-7
    with pytest.raises(ValueError, match="53 or 64"):
        coin_epsilon(low, high, bits=32)
