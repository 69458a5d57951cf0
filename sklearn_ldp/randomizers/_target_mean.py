"""Target-only reports: each user sends ``y`` alone, through a pure-epsilon scalar mechanism.

When the public population is too small for any model of the features to
beat a constant (:func:`min_users_for_a_model`),
all a server can use is the mean of ``y``, and the best collection spends
the whole budget on it with the scalar mechanism of least variance. For a
bounded scalar, the Gaussian mechanism is far from that: at ``delta =
1e-7``, with the budget of a joint ``(x, y)`` release tilted to ``y``
(``y_noise_ratio = 0.1``), its standard deviation is about ``18 y_bound``
at epsilon 0.5 and ``3.7 y_bound`` at epsilon 4, where Duchi et al.'s
one-bit mechanism has at most ``4.1 y_bound`` at epsilon 0.5 and the
piecewise mechanism (Wang et al., ICDE 2019) at most ``0.49 y_bound`` at
epsilon 4: a variance 20 and 56 times smaller, and a pure guarantee.

Privacy. The report is ``M(y)`` for a scalar mechanism ``M`` that is
epsilon-LDP on the public interval ``[-y_bound, y_bound]`` (the value is
clipped to it on the device); ``x`` is not read. For any two records
``(x, y)`` and ``(x', y')`` and any output set ``S``, ``P[M(y) in S] <= e^eps
P[M(y') in S]``: each record is epsilon-LDP, ``delta = 0``. The guarantee
and lattice are the mechanism's (:class:`DuchiMechanism`,
:class:`PiecewiseMechanism`).
"""

import numpy as np

from ..utils import check_bound, check_epsilon
from ._base import LocalRandomizer, chunk_rows
from ._frequency import FrequencyRandomizer, best_frequency_mechanism
from ._gaussian import checked_classes, label_index
from ._scalar import DuchiMechanism, PiecewiseMechanism

#: Scalar mechanisms a target-only report may use (``mechanism='auto'``:
#: the one of least worst-case variance at the requested epsilon).
TARGET_MECHANISMS = {"duchi": DuchiMechanism, "piecewise": PiecewiseMechanism}


def _check_n_features(n_features):
    """``n_features`` as an int >= 1 (the records' width, checked, not released)."""
    if isinstance(n_features, bool) or int(n_features) != n_features:
        raise TypeError(f"n_features must be an integer, got {n_features!r}.")
    if n_features < 1:
        raise ValueError(f"n_features must be >= 1, got {n_features!r}.")
    return int(n_features)


def worst_case_variance(mechanism):
    """Largest variance of the mechanism's unbiased estimate over its interval.

    Both mechanisms' variances are even, convex functions of the value
    mapped to ``[-1, 1]`` (Duchi: ``B^2 - t^2``, largest at ``t = 0``;
    piecewise: growing with ``t^2``, largest at ``|t| = 1``), so the
    largest is at the centre or at an end.
    """
    values = np.array([mechanism.lower, 0.5 * (mechanism.lower + mechanism.upper)])
    return float(np.max(mechanism.variance(values)))


def min_users_for_a_model(sigma_x, sigma_y, feature_norm, y_bound, n_directions=1):
    """Reports below which no model of the features is predicted to beat a constant.

    The most favourable model for the reports is one coefficient on a
    single feature direction that carries the whole public norm bound
    ``B = feature_norm`` and explains all of ``y``. Its debiased least-squares
    estimate from ``n`` reports with feature noise ``sigma_x`` and target
    noise ``sigma_y`` has variance about ``sigma_x^2 sigma_y^2 / (n B^4)``
    (the noise terms dominate the reports), hence excess squared risk
    ``sigma_x^2 sigma_y^2 / (n B^2)``. The trivial predictor's risk is
    ``Var(y) <= y_bound^2``. With ``n <= (sigma_x sigma_y / (B y_bound))^2``
    even that model's predicted error exceeds the trivial predictor's, so
    the server uses the intercept-only model (issue 16: never a model whose
    predicted error exceeds the trivial predictor's). Every quantity is
    public; for the Gaussian record mechanism ``sigma_x / B = sigma_y /
    y_bound``, so the bound is the fourth power of the noise per unit of
    bound.

    ``n_directions = k``: the signal spread evenly over ``k`` orthogonal
    feature directions, each with second moment ``B^2 / k`` (the public
    reference law of records filling the ball in every direction, ``x ~
    N(0, B^2 / k I)`` for ``k`` features). Each coefficient's error then
    has variance ``sigma_x^2 sigma_y^2 / (n (B^2 / k)^2)``, hence excess
    risk ``k sigma_x^2 sigma_y^2 / (n B^2)`` per direction and ``k^2``
    times the single direction's in all: the bound is ``k^2 (sigma_x
    sigma_y / (B y_bound))^2``, for a realistic rather than the most
    favourable signal.

    Examples
    --------
    >>> from sklearn_ldp.randomizers._target_mean import min_users_for_a_model
    >>> min_users_for_a_model(10.0, 10.0, 1.0, 1.0)
    10000.0
    >>> min_users_for_a_model(10.0, 10.0, 1.0, 1.0, n_directions=5)
    250000.0
    """
    spread = float(n_directions) ** 2
    return spread * float((sigma_x * sigma_y / (feature_norm * y_bound)) ** 2)


class TargetMeanRandomizer(LocalRandomizer):
    """Each user releases only its target ``y``, epsilon-LDP, for the mean of ``y``.

    Parameters
    ----------
    n_features : int
        Number of features of the records (not released; checked).
    epsilon : float
        Per-user privacy budget (pure: ``delta = 0``).
    y_bound : float
        Public bound on ``|y|``; ``y`` is clipped to ``[-y_bound, y_bound]``
        on the device.
    mechanism : {'auto', 'duchi', 'piecewise'}, default='auto'
        The scalar mechanism; ``'auto'`` takes the one of least
        :func:`worst_case_variance` at this epsilon (a public choice):
        Duchi et al.'s up to epsilon of about 1.25, the piecewise mechanism
        above.
    n_users : int or None, default=None
        The planned population, announced in the configuration (the
        estimator chose this collection from it), or None.

    Attributes
    ----------
    scalar_mechanism : DuchiMechanism or PiecewiseMechanism
    mechanism_ : str
        The mechanism used.
    noise_std : float
        Square root of :func:`worst_case_variance`: the largest standard
        deviation of one user's estimate of ``y``.
    epsilon, delta, granularity : float
        The implemented guarantee (at most the requested epsilon) and the
        lattice step of the reports.

    Notes
    -----
    The report field is ``'y'``: the mechanism's report (a sign for
    Duchi's, a lattice value for the piecewise mechanism); the server maps
    it to an unbiased estimate of ``y`` with :meth:`estimate`. The module
    docstring derives the guarantee.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import TargetMeanRandomizer
    >>> rand = TargetMeanRandomizer(3, epsilon=4.0, y_bound=1.0)
    >>> rand.mechanism_, rand.delta
    ('piecewise', 0.0)
    >>> X, y = np.zeros((20_000, 3)), np.full(20_000, 0.25)
    >>> reports = rand.randomize(X, y, random_state=0)
    >>> sorted(reports.fields)
    ['y']
    >>> bool(abs(rand.estimate(reports["y"]).mean() - 0.25) < 4 * rand.noise_std / 141)
    True
    """

    requires_y = True

    def __init__(self, n_features, *, epsilon, y_bound, mechanism="auto", n_users=None):
        self.n_features = _check_n_features(n_features)
        self.requested_epsilon = check_epsilon(epsilon)
        self.y_bound = check_bound(y_bound, name="y_bound")
        if mechanism != "auto" and mechanism not in TARGET_MECHANISMS:
            raise ValueError(
                "mechanism must be 'auto' or one of "
                f"{sorted(TARGET_MECHANISMS)}, got {mechanism!r}."
            )
        self.mechanism = mechanism
        candidates = {
            name: cls(self.requested_epsilon, -self.y_bound, self.y_bound)
            for name, cls in TARGET_MECHANISMS.items()
            if mechanism in ("auto", name)
        }
        variances = {name: worst_case_variance(m) for name, m in candidates.items()}
        self.mechanism_ = min(variances, key=variances.get)
        self.scalar_mechanism = candidates[self.mechanism_]
        self.noise_std = float(np.sqrt(variances[self.mechanism_]))
        self.epsilon = float(self.scalar_mechanism.epsilon)
        self.delta = 0.0
        self.granularity = float(self.scalar_mechanism.granularity)
        self.n_users = None if n_users is None else int(n_users)
        self.chunk_size = chunk_rows(self.n_features + 1)

    def _config(self):
        config = {"y_bound": self.y_bound, "mechanism": self.mechanism_}
        if self.n_users is not None:
            config["n_users"] = self.n_users
        return config

    def report_support(self):
        return {"y": self.scalar_mechanism.report_support(())}

    def estimate(self, values):
        """Unbiased estimates of each user's clipped ``y`` from its reports."""
        return self.scalar_mechanism.estimate(values)

    def _randomize_chunk(self, X, y, source, public):
        del X, public  # only y is released; nothing public per user
        return {"y": self.scalar_mechanism.randomize(y, random_state=source)}


class LabelRandomizer(LocalRandomizer):
    """Each user releases only its class label, epsilon-LDP, for the class frequencies.

    The classifiers' counterpart of :class:`TargetMeanRandomizer`: below
    :func:`min_users_for_a_model` all a server can use is the class
    balance, and the best collection spends the whole budget on the label
    through the frequency oracle of least variance for ``K`` classes
    (:func:`~sklearn_ldp.randomizers._frequency.best_frequency_mechanism`:
    randomized response for two classes at every epsilon).

    Privacy. The report is that of a
    :class:`~sklearn_ldp.randomizers.FrequencyRandomizer` on the label's
    index among the public ``classes``, which is epsilon-LDP for every pair
    of labels (its docstring derives each mechanism's ratio); ``x`` is not
    read. For any two records ``(x, y)`` and ``(x', y')`` and any output
    set ``S``, ``P[M(y) in S] <= e^eps P[M(y') in S]``: each record is
    epsilon-LDP, ``delta = 0``.

    Parameters
    ----------
    n_features : int
        Number of features of the records (not released; checked).
    epsilon : float
        Per-user privacy budget (pure: ``delta = 0``).
    classes : array-like of shape (n_classes,)
        The public label set (at least two distinct labels, sorted here).
    mechanism : str, default='auto'
        A frequency mechanism (``'randomized_response'``, ...) or ``'auto'``:
        the one of least predicted variance for ``len(classes)`` cells.
    n_users : int or None, default=None
        The planned population, announced in the configuration (the
        estimator chose this collection from it), or None.

    Attributes
    ----------
    frequency : FrequencyRandomizer
        The frequency oracle on the label's index (one attribute).
    classes : ndarray of shape (n_classes,)
    mechanism_ : str
    epsilon, delta, granularity : float
        The implemented guarantee (at most the requested epsilon) and the
        lattice step of the reports (1: integers).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import LabelRandomizer
    >>> rand = LabelRandomizer(3, epsilon=1.0, classes=["a", "b"])
    >>> rand.mechanism_, rand.delta
    ('randomized_response', 0.0)
    >>> X, y = np.zeros((20_000, 3)), np.where(np.arange(20_000) < 15_000, "a", "b")
    >>> reports = rand.randomize(X, y, random_state=0)
    >>> sorted(reports.fields)  # the index of the label, randomized
    ['value']
    >>> # P[report "a"] = 0.75 p + 0.25 (1 - p), p = e / (e + 1): 0.615
    >>> round(float(np.mean(reports["value"] == 0)), 2)
    0.61
    """

    requires_y = True
    granularity = 1.0

    def __init__(self, n_features, *, epsilon, classes, mechanism="auto", n_users=None):
        self.n_features = _check_n_features(n_features)
        self.requested_epsilon = check_epsilon(epsilon)
        self.classes = checked_classes(classes)
        self.mechanism = mechanism
        self.mechanism_ = (
            best_frequency_mechanism(len(self.classes), self.requested_epsilon)
            if mechanism == "auto"
            else mechanism
        )
        self.frequency = FrequencyRandomizer(
            1,
            epsilon=self.requested_epsilon,
            categories=len(self.classes),
            mechanism=self.mechanism_,
        )
        self.epsilon = float(self.frequency.epsilon)
        self.delta = 0.0
        self.n_users = None if n_users is None else int(n_users)
        self.chunk_size = self.frequency.chunk_size

    def _config(self):
        config = {"classes": self.classes.tolist(), "mechanism": self.mechanism_}
        if self.n_users is not None:
            config["n_users"] = self.n_users
        return config

    def report_support(self):
        return self.frequency.report_support()

    def validate_reports(self, reports):
        return self.frequency.validate_reports(reports)

    def _randomize_chunk(self, X, y, source, public):
        del X  # only the label is released
        index = label_index(y, self.classes)
        return self.frequency._randomize_chunk(index[:, None], None, source, public)
