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
at the cap ``2 ln(2 - 2^-31)``, a smaller, still valid, epsilon).

On the lattice. The value ``v`` (clipped, in ``[0, 1]``) is put on the
lattice ``g Z`` (``g`` a power of two, about ``1 / (1024 eps0)``) by
unbiased randomized rounding, and the base mechanism is the discrete
Laplace ``A(v) = v + g J``, ``P(J = j) ∝ exp(-eps0 g |j|)``, clamped to the
public window ``bot +- m g`` (``m g = 1/2 + 30 / eps0``, or ``1 + 30 / eps0``
for the paper's ``bot = 0``). For ``v`` and ``y`` on the lattice inside the
window, ``P_v(y) / P_bot(y) = exp(eps0 (|y - bot| - |y - v|))`` exactly (the
clamped end masses included), so everything above holds with sums in place
of integrals: ``E_bot[p(y)] = 1/2``, the mixture, the estimate, and both
guarantees (which need only ``q'_j / q_j <= e^(eps0 |v - v'|)`` and
``q_j in [L, U]``, true for every ``v, v'`` of the lattice in ``[0, 1]``;
the rounding is a mixture over such values, so it costs nothing). The
public strings are drawn from the public stream, the bits with
:meth:`~sklearn_ldp.randomizers.NoiseSource.bernoulli` and the index with
:meth:`~sklearn_ldp.randomizers.NoiseSource.integers`; a report is the
index and the public value ``y_g`` of the lattice. What is sampled (float
``p_t``, 64-bit coins) is within a relative ``1e-13`` of the ideal law
(:func:`~sklearn_ldp.accounting.genprot_sampling_error`), and the provided
epsilon includes it (:func:`~sklearn_ldp.accounting.genprot_provided_epsilon`).

Both calibrations are budget rules of :mod:`sklearn_ldp.accounting`
(:func:`~sklearn_ldp.accounting.genprot_base_epsilon`,
:func:`~sklearn_ldp.accounting.genprot_epsilon`); ``genprot_epsilon`` is
also importable from :mod:`sklearn_ldp.randomizers`.
"""

from functools import lru_cache
from math import ceil, log2
from numbers import Integral

import numpy as np

from ..accounting import (
    GENPROT_CALIBRATIONS,
    genprot_base_epsilon,
    genprot_epsilon,
    genprot_provided_epsilon,
)
from ..utils import check_finite_array
from ._base import FieldSupport, chunk_rows
from ._sampling import (
    check_client_random_state,
    discrete_laplace,
    lattice_granularity,
    on_lattice,
)
from ._scalar import _IntervalMechanism

#: Lattice points per Laplace scale ``1 / eps0`` (at least; fewer than twice).
LATTICE_CELLS = 1024
#: Public strings reach ``tail / eps0`` beyond the unit interval: the law
#: clamped there moves ``E[z]`` by about ``e^-tail``.
STRING_TAIL = 30.0
#: Largest table of the public strings' sampler (entries); smaller epsilons
#: are refused (:meth:`GenProtMechanism.smallest_epsilon`).
MAX_STRING_ENTRIES = 2**21


@lru_cache(maxsize=16)
def _string_sampler(decay, half_width):
    """The public strings' law: discrete Laplace in lattice steps, clamped to the window."""
    return discrete_laplace(decay, half_width)


class GenProtMechanism(_IntervalMechanism):
    """GenProt over the Laplace mechanism: an epsilon-LDP scalar release in log2(T) bits.

    Seed 001, Appendix B, Algorithm 8 (the transformation of Bun, Nelson
    and Stemmer, 2018), on a public lattice; see
    :mod:`sklearn_ldp.randomizers._genprot` for the protocol, the two
    guarantees and their derivation.

    Guarantee: each released value is epsilon-LDP (pure), given the public
    strings (which are independent of the data), for what is actually
    sampled.

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
        ``epsilon <= 2.5``), public strings around 0. ``'tight'``: the
        derived bound, strings around the middle of the interval.

    Attributes
    ----------
    epsilon : float
        The guarantee provided (at most the one asked).
    base_epsilon : float
        ``eps0`` of the base Laplace mechanism.
    bot : float
        The reference input, in ``[0, 1]`` units.
    granularity : float
        The lattice step of the public values (unit scale; indices are
        integers).
    window : tuple of float
        ``(low, high)``: every public string lies in it (unit scale).
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
        self.bot = 0.0 if calibration == "paper" else 0.5
        self.epsilon = min(
            self.epsilon,
            genprot_provided_epsilon(self.base_epsilon, self.n_candidates, calibration),
        )
        self.empty_weight = 2.0 ** (1 - self.n_candidates)
        # The lattice must hold bot and the ends of [0, 1].
        self.granularity = min(
            lattice_granularity(1.0 / self.base_epsilon, cells=LATTICE_CELLS), 0.5
        )
        reach = max(self.bot, 1.0 - self.bot) + STRING_TAIL / self.base_epsilon
        self._half_width = int(np.ceil(reach / self.granularity))
        if 2 * self._half_width + 1 > MAX_STRING_ENTRIES:
            raise ValueError(
                f"GenProtMechanism: epsilon = {self.requested_epsilon!r} (base budget "
                f"eps0 = {self.base_epsilon:.3g}) needs a public-string table of "
                f"{2 * self._half_width + 1:.3g} entries (at most "
                f"{MAX_STRING_ENTRIES:.3g}); with calibration={calibration!r} and "
                f"n_candidates={self.n_candidates} it supports epsilon >= "
                f"{self.smallest_epsilon(self.n_candidates, calibration):.2g}."
            )
        half = self._half_width * self.granularity
        self.window = (self.bot - half, self.bot + half)

    @staticmethod
    def smallest_epsilon(n_candidates=32, calibration="tight"):
        """The smallest epsilon whose public-string table fits ``MAX_STRING_ENTRIES``.

        Below ``eps0 = 1/2048`` the lattice step is capped at 1/2, so the
        window ``bot +- (1 + STRING_TAIL / eps0)`` holds about ``4 (1 + 30 /
        eps0)`` points; the table fits for ``eps0 >= 4 STRING_TAIL /
        (MAX_STRING_ENTRIES - 9)`` (about ``5.7e-5``), converted to epsilon
        by the calibration's guarantee.
        """
        eps0 = 4.0 * STRING_TAIL / (MAX_STRING_ENTRIES - 9)
        return float(genprot_provided_epsilon(eps0, int(n_candidates), calibration))

    @property
    def communication_bits(self):
        """Bits of one message, ``ceil(log2 T)``."""
        return int(ceil(log2(self.n_candidates)))

    @property
    def string_variance(self):
        """Variance of a public string, ``g^2 2 p / (1 - p)^2``, ``p = e^(-eps0 g)``.

        The two-sided geometric law's; the clamp to the window changes it by
        a relative ``e^-30``.
        """
        p = np.exp(-self.base_epsilon * self.granularity)
        return float(self.granularity**2 * 2.0 * p / (1.0 - p) ** 2)

    def _sampler(self):
        # Built on first use (the server never draws strings) and shared by
        # equal configurations: the table has ~2 m entries (m ~ 30 000).
        return _string_sampler(self.base_epsilon * self.granularity, self._half_width)

    def public_strings(self, n_users, random_state=None):
        """Draw ``(n_users, T)`` public strings from ``A(bot)`` (unit scale, on the lattice).

        Parameters
        ----------
        n_users : int
        random_state : None, int, RandomState, Generator or NoiseSource
            The public stream (:func:`~sklearn_ldp.randomizers.check_client_random_state`).
        """
        steps = self._string_steps(
            int(n_users), check_client_random_state(random_state)
        )
        return self.bot + self.granularity * steps

    def _string_steps(self, n_users, public):
        """Public strings as lattice steps from ``bot`` (int64, ``(n_users, T)``)."""
        return self._sampler().sample(public, (n_users, self.n_candidates))

    def _bit_probabilities(self):
        """``p(d) = exp(eps0 g d) / 2`` for ``d = -D..D`` lattice steps, and ``D``.

        ``d = |y - bot| / g - |y - v| / g`` is an integer with ``|d| <= |v -
        bot| / g <= D``, so the probabilities are a table (computed from the
        current ``base_epsilon``).
        """
        reach = int(np.ceil(max(self.bot, 1.0 - self.bot) / self.granularity))
        steps = np.arange(-reach, reach + 1, dtype=np.float64)
        return 0.5 * np.exp(self.base_epsilon * self.granularity * steps), reach

    def _select(self, v_steps, string_steps, source):
        """Each user's index ``g``: uniform among the set bits (all T if none).

        ``v_steps`` and ``string_steps`` are lattice steps from ``bot``.
        """
        table, reach = self._bit_probabilities()
        offset = np.abs(string_steps)
        offset -= np.abs(string_steps - v_steps[:, None])
        offset += reach
        bits = source.bernoulli(table[offset])
        count = bits.sum(axis=1)
        empty = count == 0
        choices = np.where(empty, self.n_candidates, count)
        rank = source.integers(choices, choices.shape)
        chosen = bits | empty[:, None]
        return np.argmax(np.cumsum(chosen, axis=1) > rank[:, None], axis=1)

    def randomize(self, values, random_state=None, *, public=None, public_strings=None):
        """Reports of shape ``values.shape + (2,)``: the public value ``y_g`` and ``g``.

        Parameters
        ----------
        values : array-like
        random_state : None, int, RandomState, Generator or NoiseSource, default=None
            The users' private randomness
            (:func:`~sklearn_ldp.randomizers.check_client_random_state`;
            None: the operating system's CSPRNG).
        public : None, int, RandomState, Generator or NoiseSource, default=None
            The public stream the strings are drawn from; None: the
            separate public stream of ``random_state``.
        public_strings : ndarray of shape (n_values, T) or None, default=None
            Public strings in unit (``[0, 1]``-interval) scale, on the
            lattice (e.g. from :meth:`public_strings`); drawn here when None.

        Returns
        -------
        reports : ndarray
            ``[..., 0]`` is ``y_g`` (unit scale; the server derives it from
            the public strings and the index), ``[..., 1]`` is ``g``, the
            only data-dependent message.
        """
        source = check_client_random_state(random_state)
        values = check_finite_array(values, name="values")
        v = 0.5 * (self._to_unit(values).reshape(-1) + 1.0)
        n = v.size
        g = self.granularity
        if public_strings is not None:
            public_strings = check_finite_array(public_strings, name="public_strings")
            if public_strings.shape != (n, self.n_candidates):
                raise ValueError(
                    f"public_strings must have shape ({n}, {self.n_candidates}), got "
                    f"{public_strings.shape}."
                )
            if not on_lattice(public_strings, g).all():
                raise ValueError(
                    f"public_strings must be multiples of the granularity {g!r}."
                )
            given_steps = np.rint((public_strings - self.bot) / g).astype(np.int64)
        else:
            public = source.public() if public is None else public
            public = check_client_random_state(public)
        out = np.empty((n, 2))
        # Each user's T public strings and a few temporaries are held at once.
        step = chunk_rows(4 * self.n_candidates)
        for start in range(0, n, step):
            rows = slice(start, min(start + step, n))
            strings = (
                self._string_steps(rows.stop - rows.start, public)
                if public_strings is None
                else given_steps[rows]
            )
            # Unbiased randomized rounding of v onto the lattice, in steps from bot.
            scaled = v[rows] / g
            floor = np.floor(scaled)
            v_steps = (floor + source.bernoulli(scaled - floor)).astype(np.int64)
            v_steps -= int(round(self.bot / g))
            index = self._select(v_steps, strings, source)
            out[rows, 0] = self.bot + g * strings[np.arange(index.size), index]
            out[rows, 1] = index
        return out.reshape(values.shape + (2,))

    def report_support(self, shape=()):
        """Support of the reports of values of ``shape``: ``shape + (2,)``.

        The public value lies in :attr:`window` on the lattice, the index in
        ``0..T-1`` (an integer, a multiple of the granularity).
        """
        return FieldSupport(
            tuple(shape) + (2,),
            [self.window[0], 0.0],
            [self.window[1], self.n_candidates - 1.0],
            self.granularity,
        )

    def estimate(self, reports):
        """Unbiased estimates ``(y_g - w bot) / (1 - w)``, mapped back to the interval."""
        reports = np.asarray(reports, dtype=float)
        w = self.empty_weight
        unit = (reports[..., 0] - w * self.bot) / (1.0 - w)
        return self.lower + (self.upper - self.lower) * unit

    def variance(self, values=None):
        """Variance of :meth:`estimate` for true values ``values``.

        The lattice rounding of ``v`` adds ``g^2 f (1 - f)`` (``f`` the
        fractional part of ``v / g``) to the second moment of ``A(v)``.
        """
        values = np.zeros(()) if values is None else np.asarray(values, dtype=float)
        v = 0.5 * (self._to_unit(values) + 1.0)
        w, bot = self.empty_weight, self.bot
        fraction = v / self.granularity - np.floor(v / self.granularity)
        rounding = self.granularity**2 * fraction * (1.0 - fraction)
        laplace = self.string_variance
        mean = (1.0 - w) * v + w * bot
        second = (1.0 - w) * (laplace + v**2 + rounding) + w * (laplace + bot**2)
        unit = (second - mean**2) / (1.0 - w) ** 2
        return (self.upper - self.lower) ** 2 * unit


__all__ = ["GenProtMechanism", "genprot_epsilon"]
