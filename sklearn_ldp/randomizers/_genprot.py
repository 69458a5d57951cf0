"""GenProt: an O(log log n)-bit version of the Laplace mechanism (seed 001, Algorithm 8).

Bun, Nelson and Stemmer (*Heavy hitters and the structure of local
privacy*, PODS 2018) turn any LDP randomizer ``A`` into one whose message is
an index into public random strings; seed 001 (Appendix B, Algorithm 8)
applies it to the scalar Laplace release of the local Bernstein mechanism.
For one user with value ``v`` (mapped to ``[0, 1]``) and base budget
``eps0``:

1. public strings ``y_1..y_T`` drawn iid from ``A(bot) = bot + Lap(1/eps0)``
   (independent of every user's data);
2. ``p_t = 1/2 * dens_{A(v)}(y_t) / dens_{A(bot)}(y_t)
   = exp(eps0 (|y_t - bot| - |y_t - v|)) / 2``; if ``p_t`` falls outside
   ``[e^(-2 eps0) / 2, e^(2 eps0) / 2]`` it is set to 1/2 (never happens
   here: ``|v - bot| <= 1`` keeps ``p_t`` within ``e^(+-eps0) / 2``);
3. bits ``b_t ~ Bernoulli(p_t)``, ``H = {t : b_t = 1}`` (``[T]`` if empty);
4. the user sends ``g``, uniform in ``H``: ``ceil(log2 T)`` bits.

The server uses the public value ``z = y_g``. **Typo**: line 17 of the
printed Algorithm 8 averages the indices, ``n / |I_l| sum g_i``; the index
carries no value by itself, the estimate is built from ``y_{i, g_i}``.
Distribution of ``z`` (derived here, used for the unbiased estimate): since
``b_t`` depends on ``y_t`` only and ``P[b_t = 1] = E_bot[p(y)] = 1/2``,

    P[z in E] = (1 - w) P[A(v) in E] + w P[A(bot) in E],   w = 2^(1 - T),

so ``E[z] = (1 - w) v + w bot`` and ``(z - w bot) / (1 - w)`` is unbiased
for ``v`` (the printed protocol ignores the ``w`` term).

Guarantee. *Paper* (``calibration='paper'``): Theorem 46 (from Bun et
al.): for ``eps0 <= 1/4`` the transformed protocol is ``10 eps0``-LDP, so
``eps0 = epsilon / 10`` and ``epsilon <= 2.5`` (larger values are refused).
*Tight* (default), derived here for a pure base mechanism: let ``q_j`` and
``q'_j`` be the bit probabilities of two values ``v, v'`` on the same
strings, so ``q'_j / q_j in [e^-a, e^a]`` (``a = eps0``, the base
mechanism's own guarantee) and ``q_j in [L, U] = [e^-c / 2, e^c / 2]``
(``c = eps0 |v - bot| <= eps0 / 2`` with ``bot = 1/2``). Then
``P[g = t] = q_t E[1 / (1 + S_t)] + prod_j (1 - q_j) / T`` with
``S_t = sum_{j != t} b_j``. Thinning each success of ``S`` at rate
``>= e^-a`` multiplies ``E[1 / (1 + S)]`` by at most ``e^a``
(``E[1 / (1 + Bin(m, r))] <= 1 / ((m + 1) r)``), so the first term changes
by at most ``e^(2a)``; the second is at most ``(1 - L)^T / T`` while
``P[g = t] >= L / (1 + (T - 1) U)`` (Jensen). Hence, for every event and
every realization of the public strings,

    P[g in E | v'] <= (e^(2a) + (1 - L)^T (1 + (T - 1) U) / (T L)) P[g in E | v],

i.e. ``eps = ln(e^(2 eps0) + tail(T))``, about ``2 eps0`` instead of
``10 eps0``: five times less noise at the same epsilon. ``eps0`` is
calibrated by bisection; ``p_t <= 1`` needs ``c <= ln 2``, i.e.
``eps0 <= 2 ln 2`` (epsilon up to about 2.77; a larger request is served
at that cap, a smaller, still valid, epsilon).

Both calibrations are budget rules of :mod:`sklearn_ldp.accounting`
(:func:`~sklearn_ldp.accounting.genprot_base_epsilon`,
:func:`~sklearn_ldp.accounting.genprot_epsilon`); ``genprot_epsilon`` is
also importable from :mod:`sklearn_ldp.randomizers`.
"""

from math import ceil, log2
from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

from ..accounting import (
    GENPROT_CALIBRATIONS,
    genprot_base_epsilon,
    genprot_epsilon,
)
from ..utils import check_finite_array, check_noise_random_state
from ._base import chunk_rows
from ._scalar import _IntervalMechanism


class GenProtMechanism(_IntervalMechanism):
    """GenProt over the Laplace mechanism: an epsilon-LDP scalar release in log2(T) bits.

    Seed 001, Appendix B, Algorithm 8 (the transformation of Bun, Nelson
    and Stemmer, 2018); see :mod:`sklearn_ldp.randomizers._genprot` for the
    protocol, the two guarantees and their derivation.

    Guarantee: each released value is epsilon-LDP (pure), given the public
    strings (which are independent of the data).

    Parameters
    ----------
    epsilon : float
        The guarantee asked for.
    lower, upper : float, default=0.0, 1.0
        Public interval of the value (clipped).
    n_candidates : int, default=32
        ``T``: public strings per user; the message is ``ceil(log2 T)`` bits
        (5 bits for 32). Seed 001 takes ``T = O(log(n / beta))``, hence the
        ``O(log log n)`` bits; ``T >= 8`` is needed for the tight
        calibration to be close to ``2 eps0``.
    calibration : {'tight', 'paper'}, default='tight'
        ``'paper'``: ``eps0 = epsilon / 10`` (Theorem 46, needs
        ``epsilon <= 2.5``), public strings ``Lap(1 / eps0)`` around 0.
        ``'tight'``: the derived bound, strings around the middle of the
        interval.

    Attributes
    ----------
    epsilon : float
        The guarantee provided (at most the one asked).
    base_epsilon : float
        ``eps0`` of the base Laplace mechanism.
    bot : float
        The reference input, in ``[0, 1]`` units.
    communication_bits : int

    Examples
    --------
    >>> from sklearn_ldp.randomizers import GenProtMechanism
    >>> mech = GenProtMechanism(1.0)
    >>> round(float(mech.base_epsilon), 3), mech.communication_bits
    (0.5, 5)
    >>> round(float(GenProtMechanism(1.0, calibration="paper").base_epsilon), 3)
    0.1
    >>> mech.randomize([0.2, 0.9], random_state=0).shape  # (public value, index)
    (2, 2)
    """

    def __init__(
        self, epsilon, lower=0.0, upper=1.0, *, n_candidates=32, calibration="tight"
    ):
        super().__init__(epsilon, lower, upper)
        if (
            isinstance(n_candidates, bool)
            or not isinstance(n_candidates, Integral)
            or n_candidates < 2
        ):
            raise ValueError(
                f"n_candidates must be an integer >= 2, got {n_candidates!r}."
            )
        self.n_candidates = int(n_candidates)
        if calibration not in GENPROT_CALIBRATIONS:
            raise ValueError(
                f"calibration must be one of {GENPROT_CALIBRATIONS}, got {calibration!r}."
            )
        self.calibration = calibration
        self.requested_epsilon = self.epsilon
        self.base_epsilon = genprot_base_epsilon(
            self.epsilon, self.n_candidates, calibration
        )
        if calibration == "paper":
            self.bot = 0.0
        else:
            self.bot = 0.5
            self.epsilon = min(
                self.epsilon, genprot_epsilon(self.base_epsilon, self.n_candidates)
            )
        self.empty_weight = 2.0 ** (1 - self.n_candidates)

    @property
    def communication_bits(self):
        """Bits of one message, ``ceil(log2 T)``."""
        return int(ceil(log2(self.n_candidates)))

    def public_strings(self, n_users, random_state=None):
        """Draw ``(n_users, T)`` public strings from ``A(bot) = bot + Lap(1/eps0)`` (unit scale)."""
        rng = check_random_state(random_state)
        return self.bot + rng.laplace(
            0.0, 1.0 / self.base_epsilon, size=(n_users, self.n_candidates)
        )

    def _select(self, v, strings, rng):
        eps0 = self.base_epsilon
        prob = 0.5 * np.exp(
            eps0 * (np.abs(strings - self.bot) - np.abs(strings - v[:, None]))
        )
        inside = (prob >= 0.5 * np.exp(-2.0 * eps0)) & (
            prob <= 0.5 * np.exp(2.0 * eps0)
        )
        prob = np.where(inside, prob, 0.5)
        bits = rng.random_sample(strings.shape) < prob
        # Uniform over the set bits (or over all T if none is set): the
        # largest of independent uniform keys, shifted up by 1 where b_t = 1.
        keys = rng.random_sample(strings.shape) + bits
        return np.argmax(keys, axis=1)

    def randomize(self, values, random_state=None, *, public_strings=None):
        """Reports of shape ``values.shape + (2,)``: the public value ``y_g`` and ``g``.

        Parameters
        ----------
        values : array-like
        random_state : int, RandomState instance or None, default=None
            The users' private randomness, and the public strings' when
            ``public_strings`` is None.
        public_strings : ndarray of shape (n_values, T) or None, default=None
            Public strings in unit (``[0, 1]``-interval) scale, e.g. from
            :meth:`public_strings`; drawn here when None.

        Returns
        -------
        reports : ndarray
            ``[..., 0]`` is ``y_g`` (unit scale; the server derives it from
            the public strings and the index), ``[..., 1]`` is ``g``, the
            only data-dependent message.
        """
        rng = check_noise_random_state(random_state)
        values = check_finite_array(values, name="values")
        v = 0.5 * (self._to_unit(values).reshape(-1) + 1.0)
        n = v.size
        if public_strings is not None:
            public_strings = check_finite_array(public_strings, name="public_strings")
            if public_strings.shape != (n, self.n_candidates):
                raise ValueError(
                    f"public_strings must have shape ({n}, {self.n_candidates}), got "
                    f"{public_strings.shape}."
                )
        out = np.empty((n, 2))
        # Each user's T public strings are held at once.
        step = chunk_rows(self.n_candidates)
        for start in range(0, n, step):
            rows = slice(start, min(start + step, n))
            strings = (
                self.public_strings(rows.stop - rows.start, rng)
                if public_strings is None
                else public_strings[rows]
            )
            index = self._select(v[rows], strings, rng)
            out[rows, 0] = strings[np.arange(index.size), index]
            out[rows, 1] = index
        return out.reshape(values.shape + (2,))

    def estimate(self, reports):
        """Unbiased estimates ``(y_g - w bot) / (1 - w)``, mapped back to the interval."""
        reports = np.asarray(reports, dtype=float)
        w = self.empty_weight
        unit = (reports[..., 0] - w * self.bot) / (1.0 - w)
        return self.lower + (self.upper - self.lower) * unit

    def variance(self, values=None):
        """Variance of :meth:`estimate` for true values ``values``."""
        values = np.zeros(()) if values is None else np.asarray(values, dtype=float)
        v = 0.5 * (self._to_unit(values) + 1.0)
        w, bot = self.empty_weight, self.bot
        laplace = 2.0 / self.base_epsilon**2
        mean = (1.0 - w) * v + w * bot
        second = (1.0 - w) * (laplace + v**2) + w * (laplace + bot**2)
        unit = (second - mean**2) / (1.0 - w) ** 2
        return (self.upper - self.lower) ** 2 * unit
