"""Client side of the Hadamard (Fourier) input perturbation for k-way marginals.

Cormode, Kulkarni and Srivastava, *Marginal release under local
differential privacy*, SIGMOD 2018 (the "InpHT" method). A distribution on
``{0, 1}^p`` has Walsh-Hadamard (Fourier) coefficients

    theta_S = E[chi_S(x)],      chi_S(x) = (-1)^(sum_{j in S} x_j),

and the marginal of a feature subset ``U`` depends only on the ``2^|U|``
coefficients with ``S`` inside ``U``:
``P(x_U = b) = 2^-|U| sum_{S subset U} (-1)^(sum_{j in S} b_j) theta_S``
(``theta_{} = 1``). So every marginal of at most ``k`` features follows from
the ``G = sum_{m=1..k} C(p, m)`` coefficients with ``1 <= |S| <= k``. Each
user takes one of them, ``S``, from the public stream of its randomness
(a uniformly random balanced assignment, as in LDP-AVG), computes the
parity ``chi_S(x) in {-1, +1}`` and releases it by randomized response: the
true sign with probability ``e^eps / (1 + e^eps)``. The server's side
(debiasing, the coefficient means and the marginal tables) is in
:mod:`sklearn_ldp.aggregation`.
"""

from numbers import Integral

import numpy as np

from ._ldp_avg import VectorAverageRandomizer, random_groups
from ._marginals import (
    BinaryRecordsMixin,
    SubsetIndex,
    binarize_records,
    mechanism_epsilon,
)

#: Parity of the number of set bits of every byte.
_BYTE_PARITY = np.array([bin(b).count("1") % 2 for b in range(256)], dtype=bool)


class HadamardMarginalRandomizer(BinaryRecordsMixin, VectorAverageRandomizer):
    """Client side of the Hadamard input perturbation (Cormode et al., SIGMOD 2018).

    Each user binarizes its record with the public threshold, is assigned
    one feature subset ``S`` with ``1 <= |S| <= k`` from the public stream
    (uniform over the ``G = sum_{m <= k} C(p, m)`` subsets), and sends
    ``S`` (its index, :class:`SubsetIndex` order) with the parity
    ``chi_S(x) = (-1)^(sum_{j in S} x_j)`` after randomized response.

    Guarantee: each user's record is epsilon-LDP (pure). Derivation: the
    index ``S`` comes from public randomness independent of the record, so
    it contributes nothing; given ``S`` the released sign is randomized
    response on a value in ``{-1, +1}``: the
    :class:`~sklearn_ldp.randomizers.DuchiMechanism` on ``[-1, 1]`` sends
    ``+1`` with probability ``1/2 + t tanh(eps/2) / 2``, which for
    ``t = +-1`` is exactly ``e^eps / (1 + e^eps)`` or ``1 / (1 + e^eps)``.
    For two records and any output ``(S, r)`` the ratio of probabilities is
    at most ``e^eps`` (the coin is a 53-bit uniform compared with the probability; the Duchi
    mechanism's exact coin accounting keeps the implemented guarantee at
    most the requested epsilon and is what ``epsilon`` reports). An epsilon
    above 100 is run at 100 (then at the coin's own cap, about 36.0):
    ``epsilon`` is the guarantee actually provided.

    Variance: with ``B = (e^eps + 1) / (e^eps - 1)`` the server's estimate
    ``B r`` of ``chi_S(x)`` is unbiased with variance ``B^2 - 1``; the mean
    over the ``n / G`` users of ``S`` has variance about
    ``G (B^2 - theta_S^2) / n`` (noise plus the sampling of the users),
    at most ``G B^2 / n`` (:func:`~sklearn_ldp.aggregation.predicted_table_error`).

    Reports: ``coordinate`` (the public index of ``S``, integers ``0..G-1``)
    and ``value`` (``+-1``, granularity 1).

    Parameters
    ----------
    n_features : int
    epsilon : float
    k : int
        Largest number of features in a marginal (capped at ``n_features``).
    binarize : float or None, default=0.0
        Public threshold: the user's bit ``j`` is ``x_j > binarize``; None
        requires 0/1 records.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import HadamardMarginalRandomizer
    >>> rand = HadamardMarginalRandomizer(4, epsilon=1.0, k=2)
    >>> rand.n_coordinates
    10
    >>> reports = rand.randomize(np.eye(4), random_state=0)
    >>> sorted(set(reports["value"].tolist())) <= [-1.0, 1.0]
    True
    """

    def __init__(self, n_features, *, epsilon, k, binarize=0.0):
        self.n_features = int(n_features)
        if self.n_features < 1:
            raise ValueError(f"n_features must be >= 1, got {n_features}.")
        if isinstance(k, bool) or not isinstance(k, Integral) or k < 1:
            raise ValueError(f"k must be an integer >= 1, got {k!r}.")
        self.k = int(k)
        self.k_effective = min(self.k, self.n_features)
        self.order = self.k_effective
        self.binarize = None if binarize is None else float(binarize)
        # Randomized response on a sign is the Duchi coin on [-1, 1].
        self._init_mechanism(mechanism_epsilon(epsilon, "duchi"), "duchi")
        self.unit_interval = (-1.0, 1.0)
        self.n_coordinates = SubsetIndex.count(self.n_features, self.order)
        self._check_size()
        self.support = SubsetIndex(self.n_features, self.order).table()
        # Each subset S as a bit mask over the packed record (the table's
        # padding index n_features is dropped: it adds nothing to a parity).
        members = np.zeros((self.n_coordinates, self.n_features + 1), dtype=bool)
        members[np.arange(self.n_coordinates)[:, None], self.support] = True
        self._masks = np.packbits(members[:, :-1], axis=1, bitorder="little")
        self.coordinate_scale = np.ones(self.n_coordinates)
        self._build_mechanism()

    def _size_advice(self):
        return (
            f"sum_(m <= {self.order}) C({self.n_features}, m) subsets. Lower k or use "
            "fewer features."
        )

    def _config(self):
        return {
            "k": self.k,
            "binarize": self.binarize,
            "response": "randomized_response",
        }

    def _prepare(self, X):
        # The record's bits packed 8 to a byte: chi_S(x) is the parity of
        # the bits of (packed record AND mask of S).
        bits = binarize_records(X, self.binarize)
        n, n_bytes = bits.shape[0], self._masks.shape[1]
        if self.n_features % 8:  # whole bytes per row: one flat packbits
            padded = np.zeros((n, 8 * n_bytes), dtype=bool)
            padded[:, : self.n_features] = bits
            bits = padded
        flat = np.ascontiguousarray(bits).reshape(-1)
        return np.packbits(flat, bitorder="little").reshape(n, n_bytes)

    def _odd_parities(self, packed, coordinates):
        """Whether ``chi_S(x) = -1``: each user's own subset ``S`` (its coordinate)."""
        odd = np.zeros(coordinates.shape[0], dtype=bool)
        for byte in range(self._masks.shape[1]):  # bytes of a record (p / 8)
            masks = self._masks[:, byte].take(coordinates)
            masks &= packed[:, byte]
            odd ^= _BYTE_PARITY.take(masks)
        return odd

    def _unit_values(self, packed, coordinates):
        return np.where(self._odd_parities(packed, coordinates), -1.0, 1.0)

    def _randomize_chunk(self, X, y, source, public):
        # Randomized response on the parity: the Duchi coin of a value at an
        # end of [-1, 1] (the same coins and reports as the generic path).
        packed = self._prepare(X)
        coordinates = random_groups(public, X.shape[0], self.n_coordinates)
        even = ~self._odd_parities(packed, coordinates)
        return {
            "coordinate": coordinates,
            "value": self.scalar_mechanism.randomize_ends(even, random_state=source),
        }

    def _unit_vector(self, packed):
        # Every parity of every user (tests and noise-free checks): (n, G).
        odd = np.logical_xor.reduce(
            _BYTE_PARITY[packed[:, None, :] & self._masks[None]], axis=2
        )
        return np.where(odd, -1.0, 1.0)


__all__ = ["HadamardMarginalRandomizer"]
