"""The Mersenne Twister state-recovery attack, and why the users' noise is immune.

MT19937 (numpy's ``RandomState``) is a linear generator over GF(2): its
output is an invertible "tempering" of its 624-word state, so 624
consecutive 32-bit outputs give the state and every later output. A
server that sees enough of a client's raw draws (or, with a GF(2) solve,
enough noisy reports) could replay its noise. The users' noise comes from
:class:`~sklearn_ldp.randomizers.NoiseSource` instead (the OS CSPRNG, or
PCG64 in simulations): the same attack predicts nothing there.
"""

import numpy as np
import pytest

from sklearn_ldp.randomizers import NoiseSource, check_client_random_state

N = 624
M = 397
MATRIX_A = np.uint32(0x9908B0DF)
UPPER, LOWER = np.uint32(0x80000000), np.uint32(0x7FFFFFFF)


def _undo_right(y, shift):
    """Invert ``y ^= y >> shift`` on uint32."""
    result = y.copy()
    for _ in range(32 // shift + 1):
        result = y ^ (result >> np.uint32(shift))
    return result


def _undo_left(y, shift, mask):
    """Invert ``y ^= (y << shift) & mask`` on uint32."""
    result = y.copy()
    for _ in range(32 // shift + 1):
        result = y ^ ((result << np.uint32(shift)) & np.uint32(mask))
    return result


def untemper(outputs):
    y = np.asarray(outputs, dtype=np.uint32)
    y = _undo_right(y, 18)
    y = _undo_left(y, 15, 0xEFC60000)
    y = _undo_left(y, 7, 0x9D2C5680)
    return _undo_right(y, 11)


def temper(y):
    y = y ^ (y >> np.uint32(11))
    y = y ^ ((y << np.uint32(7)) & np.uint32(0x9D2C5680))
    y = y ^ ((y << np.uint32(15)) & np.uint32(0xEFC60000))
    return y ^ (y >> np.uint32(18))


def twist(state):
    """The next 624 state words of MT19937 from the current 624."""
    mt = list(state.astype(np.uint32))
    for i in range(N):
        y = (mt[i] & UPPER) | (mt[(i + 1) % N] & LOWER)
        value = mt[(i + M) % N] ^ (y >> np.uint32(1))
        if y & np.uint32(1):
            value ^= MATRIX_A
        mt[i] = np.uint32(value)
    return np.array(mt, dtype=np.uint32)


def predict_next(outputs):
    """The 624 outputs after 624 observed consecutive 32-bit outputs of MT19937."""
    return temper(twist(untemper(outputs)))


def attack(stream):
    """Observe 624 words, predict the next 624: exact matches and bit agreement."""
    observed, actual = stream[:N], stream[N : 2 * N]
    predicted = predict_next(observed)
    exact = float(np.mean(predicted == actual))
    bits = np.unpackbits((predicted ^ ~actual).view(np.uint8))
    return exact, float(bits.mean())


def _halves(words):
    """64-bit words as the 32-bit outputs a 32-bit generator would have given."""
    return np.asarray(words, dtype=np.uint64).view(np.uint32)


def test_the_attack_breaks_numpy_random_state():
    rng = np.random.RandomState(12345)
    rng.random_sample(1001)  # any position in the stream
    stream = rng.randint(0, 2**32, size=2 * N, dtype=np.uint64).astype(np.uint32)
    exact, bit_agreement = attack(stream)
    assert exact == 1.0 and bit_agreement == 1.0
    # And it replays Gaussian noise: from the recovered state, the server
    # draws exactly the client's next noise.
    key = ("MT19937", untemper(stream[N:]), N, 0, 0.0)
    replay = np.random.RandomState()
    replay.set_state(key)
    np.testing.assert_array_equal(replay.standard_normal(5), rng.standard_normal(5))


# Binomial standard deviation of the bit agreement over 624 * 32 bits: 0.0035.
BIT_TOLERANCE = 6 * 0.5 / np.sqrt(N * 32)


@pytest.mark.parametrize(
    "source",
    [
        NoiseSource(),
        check_client_random_state(None),
        check_client_random_state(0),
        check_client_random_state(np.random.RandomState(0)),
        NoiseSource(np.random.SeedSequence(0)).public(),
    ],
    ids=["os", "none", "int", "random_state", "public"],
)
def test_the_attack_predicts_nothing_on_the_noise_source(source):
    stream = _halves(source.words(N))  # 2 * 624 32-bit outputs
    exact, bit_agreement = attack(stream)
    # A 32-bit output matches by chance with probability 2**-32.
    assert exact == 0.0
    assert abs(bit_agreement - 0.5) < BIT_TOLERANCE
    # Nor with the halves taken in the other order.
    swapped = stream.reshape(-1, 2)[:, ::-1].ravel()
    exact, bit_agreement = attack(swapped)
    assert exact == 0.0
    assert abs(bit_agreement - 0.5) < BIT_TOLERANCE


def test_numpy_global_seed_does_not_fix_the_noise():
    np.random.seed(0)  # noqa: NPY002 - the global state under test
    first = check_client_random_state(None).words(N)
    np.random.seed(0)  # noqa: NPY002 - the global state under test
    second = check_client_random_state(None).words(N)
    assert not np.any(first == second)
