"""The printed multi-copy reports: several independently noised copies of ``(x, y)``."""

import numpy as np

from ..accounting import gaussian_sigma, power_copies_budgets, product_copies_budgets
from ..utils import check_bound, check_delta, check_epsilon
from ._base import LocalRandomizer, chunk_rows
from ._clip import clip_l2
from ._gaussian import encode_labels

#: The budget rule of each protocol.
PROTOCOLS = {
    "power_copies": power_copies_budgets,
    "product_copies": product_copies_budgets,
}


class GaussianCopiesRandomizer(LocalRandomizer):
    """Several independently noised copies of one user's ``(x, y)``.

    Each user clips ``x`` to the l2 ball of radius ``data_norm``, encodes
    its label publicly (+-1 for two classes, one-hot for more) and sends
    ``x + N(0, sigma_{x,j}^2 I)`` for each feature copy and ``y + N(0,
    sigma_{y,j}^2 I)`` for each label copy, all independent. The server
    evaluates each factor of a polynomial of ``<w, x>`` on its own copy, so
    every product is of independent unbiased factors:

    - ``protocol='power_copies'``: for a polynomial ``sum_k c_k a^k`` of
      degree ``p``, one group of ``k`` feature copies per power ``k <= p``
      (``p (p+1) / 2`` copies) plus the direction copy, and ``p + 1`` label
      copies (budgets of
      :func:`~sklearn_ldp.accounting.power_copies_budgets`);
    - ``protocol='product_copies'``: ``d (d+1) + 1`` copies of ``(x, y)``,
      one per factor of the product estimator of a Bernstein polynomial of
      degree ``d`` plus the direction copy (budgets of
      :func:`~sklearn_ldp.accounting.product_copies_budgets`).

    Privacy. Each release is a Gaussian mechanism of l2-sensitivity
    ``2 data_norm`` (features), 2 (+-1 label) or ``sqrt(2)`` (one-hot label;
    two one-hot vectors differ in two entries), calibrated with the classic
    formula (raised to the analytic value where the formula would
    under-noise) at its budget; by basic composition each user's record is
    (epsilon, delta)-LDP.

    Report size per user: ``n_feature_copies * n_features + n_label_copies *
    label_width`` numbers, against ``n_features + label_width`` for the
    jointly calibrated
    :class:`~sklearn_ldp.randomizers.GaussianRecordRandomizer`.

    Parameters
    ----------
    n_features : int
    epsilon, delta : float
    degree : int
        ``p`` (``'power_copies'``) or ``d`` (``'product_copies'``), ``>= 1``.
    protocol : {'power_copies', 'product_copies'}
    data_norm : float, default=1.0
    classes : array-like or None, default=None
        Public label set; ``None`` means the labels are -1 and +1.

    Attributes
    ----------
    sigma_x : ndarray of shape (n_feature_copies,)
        Noise std of each feature copy (copy 0 is the direction).
    sigma_y : ndarray of shape (n_label_copies,)
        Noise std of each label copy.

    Notes
    -----
    ``'power_copies'`` is the report of Zheng, Mou and Wang, ICML 2017 (seed
    003), Algorithm 5; ``'product_copies'`` that of Wang, Gaboardi, Smith and
    Xu, JMLR 21 (2020) (seed 001), Algorithms 4-5. Seed 003's basic private
    vector prints ``sigma = sqrt(2 ln(1.25/delta)) / eps``, sensitivity 1 for
    the unit ball; replacing a record moves it by up to 2, which is used
    here. Seed 001's printed variances spend ``3 eps``; see
    :func:`~sklearn_ldp.accounting.product_copies_budgets`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers import GaussianCopiesRandomizer
    >>> rand = GaussianCopiesRandomizer(2, epsilon=1.0, delta=1e-5, degree=2,
    ...                                 protocol="power_copies")
    >>> reports = rand.randomize(np.ones((4, 2)), np.array([-1, 1, 1, -1]), 0)
    >>> reports["x"].shape, reports["y"].shape
    ((4, 4, 2), (4, 3))
    >>> rand = GaussianCopiesRandomizer(2, epsilon=1.0, delta=1e-5, degree=2,
    ...                                 protocol="product_copies")
    >>> reports = rand.randomize(np.ones((4, 2)), np.array([-1, 1, 1, -1]), 0)
    >>> reports["x"].shape, reports.as_matrix().shape
    ((4, 7, 2), (4, 21))
    """

    def __init__(
        self,
        n_features,
        *,
        epsilon,
        delta,
        degree,
        protocol,
        data_norm=1.0,
        classes=None,
    ):
        self.n_features = int(n_features)
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta, allow_zero=False)
        if isinstance(degree, bool) or int(degree) != degree or degree < 1:
            raise ValueError(f"degree must be an integer >= 1, got {degree!r}.")
        self.degree = int(degree)
        if protocol not in PROTOCOLS:
            raise ValueError(
                f"protocol must be one of {sorted(PROTOCOLS)}, got {protocol!r}."
            )
        self.protocol = protocol
        self.data_norm = check_bound(data_norm, name="data_norm")
        self.classes = (
            np.array([-1, 1]) if classes is None else np.sort(np.asarray(classes))
        )
        if (
            self.classes.ndim != 1
            or len(np.unique(self.classes)) != len(self.classes)
            or len(self.classes) < 2
        ):
            raise ValueError("classes must be at least two distinct labels.")
        x_budgets, y_budgets = PROTOCOLS[protocol](
            self.epsilon, self.delta, self.degree
        )
        sens_x = 2.0 * self.data_norm
        sens_y = 2.0 if len(self.classes) == 2 else float(np.sqrt(2.0))
        self.sigma_x = np.array(
            [gaussian_sigma(e, d, sens_x, "classic") for e, d in x_budgets]
        )
        self.sigma_y = np.array(
            [gaussian_sigma(e, d, sens_y, "classic") for e, d in y_budgets]
        )
        label_width = 1 if len(self.classes) == 2 else len(self.classes)
        self.chunk_size = chunk_rows(
            len(x_budgets) * self.n_features + len(y_budgets) * label_width
        )

    @property
    def n_feature_copies(self):
        return len(self.sigma_x)

    @property
    def n_label_copies(self):
        return len(self.sigma_y)

    def _config(self):
        return {
            "calibration": "paper",
            "classes": self.classes.tolist(),
            "data_norm": self.data_norm,
            "degree": self.degree,
            "protocol": self.protocol,
            "sigma_x": self.sigma_x.tolist(),
            "sigma_y": self.sigma_y.tolist(),
        }

    def _randomize_chunk(self, X, y, rng):
        clipped = clip_l2(X, self.data_norm)
        labels = encode_labels(y, self.classes)
        n = X.shape[0]
        noise_x = rng.standard_normal((n, len(self.sigma_x), self.n_features))
        sigma_y = self.sigma_y if labels.ndim == 1 else self.sigma_y[:, None]
        noise_y = rng.standard_normal((n, len(self.sigma_y)) + labels.shape[1:])
        return {
            "x": clipped[:, None, :] + noise_x * self.sigma_x[:, None],
            "y": labels[:, None] + noise_y * sigma_y,
        }
