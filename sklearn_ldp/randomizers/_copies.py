"""The printed multi-copy reports: several independently noised copies of ``(x, y)``."""

import numpy as np

from ..accounting import lattice_copies, power_copies_budgets, product_copies_budgets
from ..utils import check_bound, check_delta, check_epsilon
from ._base import FieldSupport, LocalRandomizer, chunk_rows
from ._gaussian import (
    checked_classes,
    clip_to_ball,
    encode_labels,
    lattice_noise_sampler,
    lattice_release,
    lattice_support,
    provided_delta,
)

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
    sigma_{y,j}^2 I)`` for each label copy, all independent, on public
    lattices: copy ``j`` puts ``x`` on its own lattice ``g_{x,j} Z`` by its
    own unbiased randomized rounding (so that products of copies stay
    unbiased) and adds rounded Gaussian noise of standard deviation
    ``sigma_{x,j}`` (rounding included; the labels already lie on their
    lattices). Every reported number is a multiple of ``granularity``, the
    finest of the copies' steps. The server
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
    two one-hot vectors differ in two entries), widened by ``2 g_{x,j}
    sqrt(d)`` for the rounding of the features, calibrated with the classic
    formula (raised to the analytic value where the formula would
    under-noise) at its budget minus the slack of the 64-bit sampler
    (:func:`~sklearn_ldp.accounting.lattice_copies`); by basic composition
    each user's record is (epsilon, delta)-LDP for the noise actually
    sampled.

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
    granularity_x, granularity_y : ndarray
        Lattice step of each feature copy and of each label copy.
    granularity : float
        The finest step: every reported number is a multiple of it.
    delta_slack : float
        Part of ``delta`` spent on the sampler's distance to the ideal law.

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
    >>> bool(np.all(reports.as_matrix() % rand.granularity == 0))
    True
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
        self.classes = checked_classes([-1, 1] if classes is None else classes)
        x_budgets, y_budgets = PROTOCOLS[protocol](
            self.epsilon, self.delta, self.degree
        )
        sens_x = 2.0 * self.data_norm
        sens_y = 2.0 if len(self.classes) == 2 else float(np.sqrt(2.0))
        label_width = 1 if len(self.classes) == 2 else len(self.classes)
        x_copies = lattice_copies(x_budgets, sens_x, self.n_features)
        y_copies = lattice_copies(y_budgets, sens_y, label_width, input_step=1.0)
        self.sigma_x = np.array([copy.sigma[0] for copy in x_copies])
        self.sigma_y = np.array([copy.sigma[0] for copy in y_copies])
        self.granularity_x = np.array([copy.granularity[0] for copy in x_copies])
        self.granularity_y = np.array([copy.granularity[0] for copy in y_copies])
        self.granularity = float(
            min(self.granularity_x.min(), self.granularity_y.min())
        )
        self.delta_slack = float(sum(copy.slack for copy in x_copies + y_copies))
        self.delta = provided_delta(self.delta, x_copies + y_copies)
        for copy in x_copies + y_copies:  # build and check each sampler once
            lattice_noise_sampler(copy.sigma[0], copy.granularity[0], copy.tv_bound[0])
        self.chunk_size = chunk_rows(
            len(x_budgets) * self.n_features + len(y_budgets) * label_width
        )

    @property
    def n_feature_copies(self):
        return len(self.sigma_x)

    @property
    def n_label_copies(self):
        return len(self.sigma_y)

    @property
    def _label_shape(self):
        return () if len(self.classes) == 2 else (len(self.classes),)

    def _config(self):
        return {
            "calibration": "paper",
            "classes": self.classes.tolist(),
            "data_norm": self.data_norm,
            "degree": self.degree,
            "protocol": self.protocol,
            "sigma_x": self.sigma_x.tolist(),
            "sigma_y": self.sigma_y.tolist(),
            "granularity_x": self.granularity_x.tolist(),
            "granularity_y": self.granularity_y.tolist(),
        }

    def report_support(self):
        """Every copy on its own lattice, within its noise's reach of the clipped value."""
        binary = len(self.classes) == 2
        return {
            "x": _copies_support(
                (self.n_features,),
                -self.data_norm,
                self.data_norm,
                self.sigma_x,
                self.granularity_x,
            ),
            "y": _copies_support(
                self._label_shape,
                -1.0 if binary else 0.0,
                1.0,
                self.sigma_y,
                self.granularity_y,
            ),
        }

    def _randomize_chunk(self, X, y, source, public):
        clipped = clip_to_ball(X, self.data_norm)
        labels = encode_labels(y, self.classes)
        x = np.stack(
            [
                lattice_release(clipped, sigma, step, source, bound=self.data_norm)
                for sigma, step in zip(self.sigma_x, self.granularity_x, strict=True)
            ],
            axis=1,
        )
        y = np.stack(
            [
                lattice_release(labels, sigma, step, source, bound=1.0)
                for sigma, step in zip(self.sigma_y, self.granularity_y, strict=True)
            ],
            axis=1,
        )
        return {"x": x, "y": y}


class CopiesSupport(FieldSupport):
    """A :class:`FieldSupport` whose copies (first axis) have their own lattice steps.

    ``step`` is the finest step (every value is a multiple of it);
    :meth:`check` holds each copy to its own ``steps[j]``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.randomizers._copies import CopiesSupport
    >>> support = CopiesSupport((2,), -4.0, 4.0, [0.5, 0.25])
    >>> support.check(np.array([[0.5, 0.25], [0.25, 0.25], [9.0, 0.0]])).tolist()
    [0, 2, 3]
    """

    def __init__(self, shape, low, high, steps):
        steps = np.asarray(steps, dtype=np.float64)
        super().__init__(shape, low, high, steps.min())
        extra = (1,) * (len(self.shape) - 1)
        self.steps = np.broadcast_to(steps.reshape((-1,) + extra), self.shape)

    def _element_steps(self):
        return self.steps


def _copies_support(shape, low, high, sigmas, steps):
    supports = [
        lattice_support(shape, low, high, step, lattice_noise_sampler(sigma, step))
        for sigma, step in zip(sigmas, steps, strict=True)
    ]
    return CopiesSupport(
        (len(supports),) + shape,
        np.stack([np.broadcast_to(s.low, shape) for s in supports]),
        np.stack([np.broadcast_to(s.high, shape) for s in supports]),
        steps,
    )
