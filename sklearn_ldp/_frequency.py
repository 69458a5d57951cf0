"""FrequencyLDP: frequencies of a categorical attribute under local DP.

Each user sends one frequency-oracle report of its value
(:class:`~sklearn_ldp.randomizers.FrequencyRandomizer`: randomized response,
Hadamard response, local hashing, subset selection or unary encoding,
``'auto'`` picking the lowest predicted variance for the public domain size
and epsilon); the server counts the supports, debiases them and
post-processes the estimate (:mod:`sklearn_ldp.aggregation`).
"""

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import LDPUnsupervisedMixin
from .aggregation import (
    FrequencySupportCounts,
    debias_frequencies,
    frequency_variance,
    iterative_bayesian_update,
    project_simplex,
)
from .randomizers import FrequencyRandomizer
from .randomizers._frequency import (
    FREQUENCY_MECHANISMS,
    UNKNOWN_OPTIONS,
    best_frequency_mechanism,
    check_categories,
    encode_categories,
)
from .utils import warn_few_users

POSTPROCESS = ("none", "simplex", "ibu")


class FrequencyLDP(LDPUnsupervisedMixin, BaseEstimator):
    """Frequencies of categorical attributes over a public domain, under local DP.

    Each user holds one value per attribute (a column of ``X``; every
    attribute has the same public domain) and sends one frequency-oracle
    report; the server estimates the share of users holding each category.

    Privacy: each sample ``x_i`` (all its attributes) is epsilon-LDP (pure,
    ``delta = 0``). With several attributes each user reports one,
    drawn uniformly from public randomness, with the full epsilon.

    Streaming: the server is one pass over the reports (sums of each
    report's support indicators per attribute and cell, for every mechanism
    and post-processing: the iterative Bayesian update also reads only the
    support counts); ``fit_reports`` accepts a report stream
    (:func:`sklearn_ldp.read_reports`) with memory bounded by the chunk
    size, and ``partial_fit`` adds batches.

    Parameters
    ----------
    epsilon : float, default=1.0
        Per-user privacy budget.
    categories : int or array-like, default=2
        The public domain: ``k`` (values ``0..k-1``) or the ``k`` distinct
        values (numbers). Fixed before anyone reports; never read from the
        data.
    mechanism : {'auto', 'randomized_response', 'hadamard_response', \
'local_hashing', 'subset_selection', 'unary_encoding'}, default='auto'
        The frequency oracle. ``'auto'`` picks the one with the smallest
        predicted variance averaged over the cells for the public domain
        size ``K`` and epsilon (:func:`~sklearn_ldp.randomizers.frequency_mechanism_variances`):
        randomized response for small ``K e^-epsilon``, subset selection,
        unary encoding or local hashing (nearly equal) otherwise.
    unknown : {'other', 'error'}, default='other'
        A record outside ``categories``: ``'other'`` reports it as one extra
        public cell (its frequency is ``other_frequency_``), ``'error'``
        raises a ValueError at fit (and spares the extra cell's noise).
    postprocess : {'simplex', 'none', 'ibu'}, default='simplex'
        ``'none'``: the unbiased estimate (may be negative, sums to 1 up to
        noise); ``'simplex'``: its Euclidean projection onto the probability
        simplex (never further from the truth in l2); ``'ibu'``: the
        iterative Bayesian update (EM; the maximum-likelihood frequencies for
        randomized response, a composite likelihood for the others).
    random_state : int, RandomState instance or None, default=None
        Randomness of the simulated users (noise, and from a separate stream
        the public attribute draws and hash seeds).

    Attributes
    ----------
    frequencies_ : ndarray of shape (n_categories,) or (`n_features_in_`, n_categories)
        Estimated share of users holding each category of ``categories_``
        (one row per attribute when there are several).
    other_frequency_ : float or ndarray of shape (`n_features_in_`,)
        Estimated share outside the domain (``unknown='other'``; 0 with
        ``'error'``).
    frequency_variance_ : ndarray, shape of ``frequencies_``
        Predicted variance of the unbiased estimate of each category,
        ``(f p (1 - p) + (1 - f) q (1 - q)) / (n (p - q)^2)`` at the
        estimated ``f`` (clipped to [0, 1]) and the ``n`` users who reported
        the attribute (an upper bound on the projected estimate's).
    categories_ : ndarray of shape (n_categories,)
        The public domain, sorted.
    mechanism_ : str
        The mechanism the users ran (``'auto'`` resolved).
    support_probability_, other_probability_ : float
        The implemented ``p`` and ``q``.
    n_users_ : ndarray of shape (`n_features_in_`,)
        Users who reported each attribute.
    n_samples_seen_ : int
        Reports the server aggregated (all attributes; the valid ones of
        ``fit_reports``, every batch so far with ``partial_fit``).
    privacy_epsilon_, privacy_delta_ : float
    n_reports_rejected_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)

    See Also
    --------
    sklearn_ldp.randomizers.FrequencyRandomizer : the users' side.
    KWayMarginalsLDP : marginals of binary attributes.

    Notes
    -----
    Wang, Blocki, Li and Jha, *Locally Differentially Private Protocols for
    Frequency Estimation*, USENIX Security 2017 (randomized response, unary
    encoding, local hashing and their variances); Wang et al., *Mutual
    information optimally local private discrete distribution estimation*,
    2016, and Ye and Barg, IEEE Trans. Inf. Theory 2018 (subset selection);
    Acharya, Sun and Zhang, *Hadamard response: estimating distributions
    privately, efficiently, and with little communication*, AISTATS 2019;
    Agrawal and Aggarwal, PODS 2001 (iterative Bayesian update). The
    unbiased frequency of a cell has variance of order ``Var / n`` with
    ``Var ~ 4 e^epsilon / (e^epsilon - 1)^2`` for large domains, and ``K``
    times that summed over the cells: ``n`` well above ``K`` at small
    epsilon.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp import FrequencyLDP
    >>> rng = np.random.RandomState(0)
    >>> X = rng.choice(4, size=(100_000, 1), p=[0.5, 0.3, 0.15, 0.05])
    >>> est = FrequencyLDP(epsilon=1.0, categories=4, random_state=0).fit(X)
    >>> est.mechanism_
    'randomized_response'
    >>> est.frequencies_.round(2)
    array([0.5 , 0.3 , 0.15, 0.05])
    """

    _parameter_constraints = {
        **LDPUnsupervisedMixin._ldp_parameter_constraints,
        "categories": [Interval(Integral, 1, None, closed="left"), "array-like"],
        "mechanism": [StrOptions({"auto", *FREQUENCY_MECHANISMS})],
        "unknown": [StrOptions(set(UNKNOWN_OPTIONS))],
        "postprocess": [StrOptions(set(POSTPROCESS))],
    }

    # Category codes may stay integers (encoded without a float copy).
    _records_dtype = "numeric"
    _server_draws = False  # the server is deterministic given the reports

    def __init__(
        self,
        *,
        epsilon=1.0,
        categories=2,
        mechanism="auto",
        unknown="other",
        postprocess="simplex",
        random_state=None,
    ):
        self.epsilon = epsilon
        self.categories = categories
        self.mechanism = mechanism
        self.unknown = unknown
        self.postprocess = postprocess
        self.random_state = random_state

    def _resolved_mechanism(self, n_cells, n_features):
        if self.mechanism != "auto":
            return self.mechanism
        # Sampling one of d attributes multiplies every variance by d: the
        # ranking depends on (K, epsilon) alone.
        return best_frequency_mechanism(n_cells, self.epsilon)

    def _make_randomizer(self, n_features, n_users, classes):
        self._validate_params()  # make_randomizer is public: maybe outside fit
        return self._build_randomizer(n_features)

    def _build_randomizer(self, n_features):
        """The randomizer of the (validated) parameters."""
        categories = check_categories(self.categories)
        n_cells = categories.size + (self.unknown == "other")
        if n_cells < 2:
            raise ValueError(
                "The domain needs at least two cells: two categories, or one with "
                f"unknown='other'; got categories={self.categories!r}."
            )
        return FrequencyRandomizer(
            n_features,
            epsilon=self.epsilon,
            categories=categories,
            mechanism=self._resolved_mechanism(n_cells, n_features),
            unknown=self.unknown,
        )

    def _expected_randomizer(self, reports):
        return self._build_randomizer(reports.config.get("n_features"))

    def _check_records(self, X):
        # With unknown='other' every value has a cell: nothing to refuse
        # (the randomizer encodes the values, once).
        if self.unknown == "error":
            encode_categories(X.ravel(), check_categories(self.categories), "error")

    def _server_aggregate(self, config):
        """The support counts per attribute: every post-processing reads only them."""
        return FrequencySupportCounts(self._build_randomizer(config.get("n_features")))

    def _fit_server_aggregate(self, aggregate, config, rng):
        randomizer = aggregate.randomizer
        design = randomizer.design
        counts, n_users = aggregate.counts, aggregate.n_users.copy()
        warn_few_users(
            int(n_users.sum()),
            randomizer.n_features * randomizer.n_cells,
            cells="cells (categories times attributes)",
            advice="Their frequencies are mostly noise: raise epsilon or collect more users.",
        )
        p, q = design.support_prob, design.other_prob
        unbiased = debias_frequencies(counts, n_users, p, q)
        if self.postprocess == "simplex":
            estimate = project_simplex(unbiased)
        elif self.postprocess == "ibu":
            estimate = iterative_bayesian_update(counts, n_users, p, q)
        else:
            estimate = unbiased
        variance = frequency_variance(unbiased, n_users, p, q)
        k = randomizer.categories.size
        single = randomizer.n_features == 1
        self.frequencies_ = estimate[0, :k] if single else estimate[:, :k]
        self.frequency_variance_ = variance[0, :k] if single else variance[:, :k]
        other = estimate[:, k] if randomizer.unknown == "other" else np.zeros(len(n_users))
        self.other_frequency_ = float(other[0]) if single else other
        self.categories_ = randomizer.categories
        self.mechanism_ = randomizer.mechanism
        self.support_probability_, self.other_probability_ = p, q
        self.n_users_ = n_users
        self.n_samples_seen_ = int(n_users.sum())
        return self

    def score(self, X, y=None):
        """Negative squared error of the frequencies against those of held-out records.

        ``-sum_x (f_hat_x - f_X(x))^2`` over the cells (the ``'other'``
        cell included), averaged over the attributes, where ``f_X`` are the
        empirical frequencies of ``X``. Higher is better. Its expectation is
        the estimate's mean squared error (summed over the cells) plus a
        term that does not depend on the model (the held-out sampling
        noise), so it ranks models as their squared error does; unlike a
        log-likelihood it needs no floor for zero or negative estimates.
        Like scikit-learn's ``score``, it reads the raw held-out records (a
        validation set the analyst holds), not reports.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        score : float
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        cells = encode_categories(X.ravel(), self.categories_, self.unknown)
        n_cells = self.categories_.size + (self.unknown == "other")
        cells = cells.reshape(X.shape)
        fitted = np.atleast_2d(self.frequencies_)
        if self.unknown == "other":
            fitted = np.column_stack([fitted, np.atleast_1d(self.other_frequency_)])
        errors = []
        for j in range(X.shape[1]):
            empirical = np.bincount(cells[:, j], minlength=n_cells) / X.shape[0]
            errors.append(np.sum((fitted[j] - empirical) ** 2))
        return -float(np.mean(errors))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags


__all__ = ["FrequencyLDP"]
