"""DPConstrainedClassifier: central-DP linear classification over an l1 or l2 ball.

Seed 004 (Wang and Xu, AAAI 2019) Alg. 2 (DP-FW-L2), Alg. 3 (DP-PMD) and
Alg. 4 (DP-FW-L1); seed 002 (Wang, Ye and Xu, NeurIPS 2017) Alg. 3
(DP-AccMD). Seed 004's Alg. 1 (DP-PGD) is ``DPSVRGClassifier(solver='gd')``
and, on a ball, ``method='pmd', constraint='l2'`` here (same solver).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._central import CentralDPClassifierMixin, _clipped_design, _pack_weights
from ._linear import LinearClassifierOutputMixin, MultinomialProbaMixin
from .accounting import calibrate_dp_gd, calibrate_exponential_selections
from .losses import gradient_bound, smoothness
from .optim import (
    dp_accmd,
    dp_frank_wolfe,
    dp_gd,
    dp_pmd_entropic,
    frank_wolfe_gap,
    gradient_mapping,
)
from .optim._frank_wolfe import paper_frank_wolfe_step

#: Default number of iterations ``T`` when ``n_iter=None``.
DEFAULT_ITERATIONS = 100


class DPConstrainedClassifier(
    CentralDPClassifierMixin,
    LinearClassifierOutputMixin,
    MultinomialProbaMixin,
    ClassifierMixin,
    BaseEstimator,
):
    """Linear classifier with central (epsilon, delta)-DP over an l1 or l2 ball.

    Minimizes ``1/n sum_i loss(y_i, x_i^T w + b) + alpha ||w||_1`` over the
    ball ``||(w, b)|| <= radius`` (l1 or l2 norm) by one of four private
    first-order methods suited to the geometry of the ball: Frank-Wolfe with
    a noisy gradient (DP-FW-L2) or with a vertex chosen by the exponential
    mechanism (DP-FW-L1), proximal mirror descent (DP-PMD), or accelerated
    mirror descent (DP-AccMD). **The released model is (epsilon, delta)-DP
    with respect to replacing any one training record** ``(x_i, y_i)``
    (central model: a trusted curator holds the data); ``n``, the number of
    features and the class labels are treated as public (pass them as
    ``classes``; otherwise they come from ``y`` with a
    :class:`~sklearn_ldp.PrivacyLeakWarning`). Pick it for
    high-dimensional data with a sparse or norm-bounded model: with the l1
    ball the error of DP-FW-L1 grows like ``log(n_features)`` instead of
    ``sqrt(n_features)``.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget of the whole training run.
    delta : float, default=1e-5
        Privacy parameter delta, in (0, 1); should be well below ``1/n``.
    loss : {'logistic', 'squared_hinge', 'sigmoid'}, default='logistic'
        ``'sigmoid'`` (``1 / (1 + exp(y s))``) is non-convex (seed 004).
        With more than two classes only ``'logistic'`` (multinomial, one
        accounted run; the ball constrains all coefficients together).
    method : {'fw_l1', 'fw_l2', 'pmd', 'accmd'}, default='fw_l1'
        ``'fw_l1'``: Frank-Wolfe whose vertex ``+-radius e_j`` is chosen by
        the exponential mechanism (seed 004 Alg. 4; l1 ball only).
        ``'fw_l2'``: Frank-Wolfe on the Gaussian-noised gradient (Alg. 2).
        ``'pmd'``: proximal mirror descent on the Gaussian-noised gradient
        (Alg. 3; Euclidean steps on the l2 ball, exponentiated-gradient steps
        on the l1 ball). ``'accmd'``: accelerated mirror descent (seed 002
        Alg. 3; convex losses only). The Frank-Wolfe methods take no
        regulariser (``alpha=0``), as in the paper.
    constraint : {'l1', 'l2'}, default='l1'
        Norm of the ball.
    radius : float, default=1.0
        Public radius of the ball; it bounds the coefficients and the
        intercept weight together.
    alpha : float, default=0.0
        Strength of the l1 regulariser ``alpha ||w||_1`` (the intercept is
        not penalized), through the exact proximal step (``'pmd'``,
        ``'accmd'``).
    n_iter : int, default=None
        Number of iterations ``T`` (each one privatized access to the data),
        fixed in advance. None: 100.
    learning_rate : 'auto' or float, default='auto'
        ``'auto'``: ``'pmd'`` uses ``1 / (2 L ||C||_2^2)`` (seed 004 Thm. 2,
        5); ``'accmd'`` the linear-coupling steps with ``M = L ||C||_2^2``;
        Frank-Wolfe uses ``2 / (t + 2)`` for convex losses and the constant
        ``min(1, 1 / sqrt(2 L radius^2 T))`` for ``'sigmoid'``; with
        ``calibration='paper'`` it uses the printed constant step instead
        (seed 004 Thm. 6 for ``'fw_l1'``: ``sqrt(2 / (T radius^2))``; Thm. 4
        for ``'fw_l2'``: ``((radius^2 + G_C^2) ln(1/delta))^(1/4) / (radius
        sqrt(n epsilon))``, ``G_C`` the ball's Gaussian width; both capped
        at 1). A float replaces the step (``'pmd'``, Frank-Wolfe) or
        ``1 / M`` (``'accmd'``).
    data_norm : float, default=1.0
        Public bound on the rows: ``||x||_2 <= data_norm`` or, with
        ``data_norm_type='linf'``, ``|x_j| <= data_norm``; rows are clipped.
    data_norm_type : {'l2', 'linf'}, default='l2'
        ``'linf'`` clips each feature; the l2 bound is then ``data_norm
        sqrt(n_features)`` while the exponential mechanism of ``'fw_l1'``
        only pays for ``data_norm``: the right choice in high dimension.
    fit_intercept : bool, default=True
        Add an intercept (a public constant column whose weight is inside
        the ball and not penalized).
    intercept_scaling : float, default=1.0
        Value of the constant column; it counts in the row bounds.
    calibration : {'rdp', 'paper'}, default='rdp'
        ``'rdp'``: tight RDP accountant, bisection to the target. ``'paper'``:
        the printed calibrations: zCDP ``sigma^2 = T Delta^2 / (2 rho)``
        (seed 004 Alg. 1 step 3, typo fixed) for the Gaussian methods,
        advanced composition ``epsilon / sqrt(8 T ln(1/delta))`` for the
        exponential mechanism; for Frank-Wolfe also the printed step (see
        ``learning_rate``) and output rule: ``x_R`` with ``R`` uniform on
        ``{1..T}`` (the starting point ``x_1`` included, the last iterate
        ``x_{T+1}`` left out; Alg. 2 and 4, last line), for every loss.
        The default returns the last iterate for convex losses and a
        uniformly random one of ``x_2..x_{T+1}`` for ``'sigmoid'``.
    classes : array-like of shape (n_classes,) or None, default=None
        The public label set (at least two labels). Labels of ``y`` outside
        it are refused with a ValueError; labels absent from ``y`` are fine
        (``classes_`` and the shape of ``coef_`` follow ``classes``, not the
        data). None takes the set from ``y`` and warns with
        :class:`~sklearn_ldp.PrivacyLeakWarning`: ``classes_`` and the shape
        of ``coef_`` then reveal which labels occur (a single record with a
        rare label shows).
    random_state : int, RandomState instance or None, default=None
        Source of the noise and of the random output iterate (the index
        ``R`` is drawn from the same generator, before the run).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Only when ``X`` has string feature names.
    privacy_epsilon_, privacy_delta_ : float
        The guarantee provided (replace-one): ``min(epsilon,
        epsilon_spent_)`` and ``delta``.
    epsilon_spent_ : float
        The epsilon the accountant certifies for the run (``<= epsilon``).
    gradient_bound_ : float
        ``G``: bound on each per-example gradient's l2 norm.
    sensitivity_ : float
        Replace-one sensitivity of each release: ``2 G / n`` (l2, mean
        gradient) or, for ``'fw_l1'``, ``2 radius G_inf / n`` (score of a
        vertex; ``G_inf`` bounds each gradient entry).
    noise_multiplier_ : float or None
        Gaussian methods: std of the gradient noise / ``sensitivity_``.
    step_epsilon_ : float or None
        ``'fw_l1'``: each vertex selection is ``step_epsilon_``-DP.
    n_iter_ : int
    smoothness_ : float
        ``L``: public smoothness bound of the loss part (l2 norm).
    learning_rate_ : float or None
        The constant step used (None for the ``2 / (t + 2)`` schedule).

    See Also
    --------
    DPSVRGClassifier : unconstrained DP-SVRG / DP-GD (seed 004's DP-PGD is
        its ``solver='gd'``).
    sklearn.linear_model.LogisticRegression : the non-private model.

    Notes
    -----
    Each Gaussian method releases ``T`` noisy mean gradients (RDP ``T a /
    (2 z^2)``); DP-FW-L1 releases ``T`` exponential-mechanism choices, each
    ``eps0``-DP and ``eps0``-bounded-range, hence ``eps0^2/8``-zCDP (Cesar
    and Rogers 2021). The output is one of the iterates (uniformly random
    for non-convex losses, as in the papers; the last one for convex losses),
    post-processing of these releases. Utility measures (norm of the
    generalized projected gradient, Frank-Wolfe gap) are computed on
    request by :meth:`optimality_measures`; they read the data and are
    *not* private, so they are not stored as fitted attributes.

    Wang and Xu, "Differentially Private Empirical Risk Minimization with
    Smooth Non-convex Loss Functions: A Non-stationary View", AAAI 2019.
    Wang, Ye and Xu, "Differentially Private Empirical Risk Minimization
    Revisited: Faster and More General", NeurIPS 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp import DPConstrainedClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = rng.choice([-1.0, 1.0], size=(2000, 200))
    >>> y = (X[:, 0] + X[:, 1] + X[:, 2] > 0).astype(int)
    >>> clf = DPConstrainedClassifier(
    ...     epsilon=1.0, radius=6.0, data_norm=1.0, data_norm_type="linf",
    ...     n_iter=30, classes=[0, 1], random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.8
    True
    >>> int(np.count_nonzero(clf.coef_)) <= 30
    True
    """

    _parameter_constraints = {
        **CentralDPClassifierMixin._central_parameter_constraints,
        "method": [StrOptions({"fw_l1", "fw_l2", "pmd", "accmd"})],
        "constraint": [StrOptions({"l1", "l2"})],
        "radius": [Interval(Real, 0, None, closed="neither")],
        "n_iter": [Interval(Integral, 1, None, closed="left"), None],
        "data_norm_type": [StrOptions({"l2", "linf"})],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-5,
        loss="logistic",
        method="fw_l1",
        constraint="l1",
        radius=1.0,
        alpha=0.0,
        n_iter=None,
        learning_rate="auto",
        data_norm=1.0,
        data_norm_type="l2",
        fit_intercept=True,
        intercept_scaling=1.0,
        calibration="rdp",
        classes=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.loss = loss
        self.method = method
        self.constraint = constraint
        self.radius = radius
        self.alpha = alpha
        self.n_iter = n_iter
        self.learning_rate = learning_rate
        self.data_norm = data_norm
        self.data_norm_type = data_norm_type
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.calibration = calibration
        self.classes = classes
        self.random_state = random_state

    def _check_configuration(self, n_classes):
        super()._check_configuration(n_classes)
        if self.method == "fw_l1" and self.constraint != "l1":
            raise ValueError(
                "method='fw_l1' selects a vertex of the l1 ball (seed 004 "
                "Alg. 4): use constraint='l1', or method='fw_l2' for the l2 ball."
            )
        if self.method in ("fw_l1", "fw_l2") and self.alpha > 0:
            raise ValueError(
                "The Frank-Wolfe methods take no regulariser (seed 004 Alg. 2 "
                "and 4); use method='pmd' or 'accmd' with alpha > 0."
            )
        if (
            self.method in ("fw_l1", "fw_l2")
            and self.learning_rate != "auto"
            and self.learning_rate > 1
        ):
            raise ValueError(
                "A Frank-Wolfe step is a convex combination: learning_rate "
                f"must be in (0, 1], got {self.learning_rate!r}."
            )
        if self.method == "accmd" and self.loss == "sigmoid":
            raise ValueError(
                "method='accmd' (seed 002 Alg. 3) is analysed for convex losses "
                "only; use method='pmd' or 'fw_*' with loss='sigmoid'."
            )

    def _design(self, X):
        """``X`` clipped to the public l2 or per-feature bound, intercept column."""
        return _clipped_design(
            X,
            self.data_norm,
            self.data_norm_type,
            self.fit_intercept,
            self.intercept_scaling,
        )

    def _solve(self, design, targets, loss, n_outputs, rng, callback):
        """Calibrate the ``T`` releases, then run the chosen method on the design."""
        rows, row_l2, row_inf, penalized = design
        n_samples = rows.shape[0]
        # ||W||_2 <= ||W||_1 <= radius on both balls bounds the margins.
        G = gradient_bound(loss, row_l2, self.radius)
        L = smoothness(loss, row_l2)
        T = self.n_iter or DEFAULT_ITERATIONS
        R = float(self.radius)
        convex = loss.convex
        output = "last" if convex else "random"
        if self.calibration == "paper" and self.method in ("fw_l1", "fw_l2"):
            # Alg. 2 and 4 return x_R, R uniform on {1..T} (x_1 the start).
            output = "random_with_start"
        run = {
            "gradient_bound_": G,
            "noise_multiplier_": None,
            "step_epsilon_": None,
            "n_iter_": T,
            "smoothness_": L,
        }
        if self.method == "fw_l1":
            G_inf = loss.derivative_bound(row_l2, R) * row_inf
            selection = calibrate_exponential_selections(
                self.epsilon, self.delta, T, self.calibration
            )
            sensitivity = 2.0 * R * G_inf / n_samples
            run["epsilon_spent_"] = float(selection.epsilon)
            run["step_epsilon_"] = selection.step_epsilon
        else:
            method = "zcdp" if self.calibration == "paper" else "rdp"
            noise = calibrate_dp_gd(self.epsilon, self.delta, T, method)
            sensitivity = 2.0 * G / n_samples
            run["epsilon_spent_"] = float(noise.epsilon)
            run["noise_multiplier_"] = noise.noise_multiplier
            noise_std = noise.noise_multiplier * sensitivity
        run["sensitivity_"] = sensitivity
        problem = (rows, targets, loss)
        common = dict(rng=rng, callback=callback)
        if self.method in ("fw_l1", "fw_l2"):
            oracle = "exponential" if self.method == "fw_l1" else "gaussian"
            if self.learning_rate != "auto":
                step = float(self.learning_rate)
            elif self.calibration == "paper":
                step = paper_frank_wolfe_step(
                    oracle,
                    radius=R,
                    n_steps=T,
                    constraint=self.constraint,
                    dimension=rows.shape[1] * n_outputs,
                    n_samples=n_samples,
                    epsilon=self.epsilon,
                    delta=self.delta,
                )
            elif convex:
                step = "harmonic"
            else:
                step = min(1.0, 1.0 / np.sqrt(2.0 * L * R**2 * T))
            run["learning_rate_"] = None if step == "harmonic" else step
            W = dp_frank_wolfe(
                *problem,
                W0=np.zeros((rows.shape[1], n_outputs)),
                constraint=self.constraint,
                radius=R,
                n_steps=T,
                step=step,
                oracle=oracle,
                output=output,
                noise_std=None if self.method == "fw_l1" else noise_std,
                step_epsilon=run["step_epsilon_"],
                score_sensitivity=sensitivity,
                **common,
            )
        elif self.method == "pmd":
            auto = 1.0 / (2.0 * L * R**2) if self.constraint == "l1" else 0.5 / L
            step = auto if self.learning_rate == "auto" else float(self.learning_rate)
            run["learning_rate_"] = step
            if self.constraint == "l2":
                W = dp_gd(
                    *problem,
                    W0=np.zeros((rows.shape[1], n_outputs)),
                    step=step,
                    alpha=self.alpha,
                    l1_ratio=1.0,
                    penalized=penalized,
                    n_steps=T,
                    noise_std=noise_std,
                    output=output,
                    radius=R,
                    **common,
                )
            else:
                W = dp_pmd_entropic(
                    *problem,
                    n_outputs=n_outputs,
                    radius=R,
                    l1_penalty=self.alpha,
                    penalized=penalized,
                    n_steps=T,
                    step=step,
                    noise_std=noise_std,
                    output=output,
                    **common,
                )
        else:
            geometry_scale = R**2 if self.constraint == "l1" else 1.0
            M = (
                L * geometry_scale
                if self.learning_rate == "auto"
                else 1.0 / float(self.learning_rate)
            )
            run["learning_rate_"] = 1.0 / M
            W = dp_accmd(
                *problem,
                n_outputs=n_outputs,
                constraint=self.constraint,
                radius=R,
                l1_penalty=self.alpha,
                penalized=penalized,
                n_steps=T,
                smoothness=M,
                noise_std=noise_std,
                **common,
            )
        return W, run

    def optimality_measures(self, X, y):
        """Stationarity of the fitted model on ``(X, y)`` (**not private**).

        Reads the data: use it to evaluate, never publish it with the model
        (the numbers are not covered by the DP guarantee).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        measures : dict
            ``'gradient_mapping_norm'``: l2 norm of the generalized projected
            gradient (seed 004, eq. (2)) with step ``1 / smoothness_``, of the
            clipped, regularized, constrained problem; ``'frank_wolfe_gap'``:
            ``max_{v in C} <-grad F(w), v - w>`` of the loss part.
        """
        check_is_fitted(self)
        X, y = validate_data(self, X, y, reset=False, dtype=np.float64)
        unknown = np.setdiff1d(np.unique(y), self.classes_)
        if unknown.size:
            raise ValueError(f"y has labels unseen in fit: {unknown.tolist()}.")
        class_indices = np.searchsorted(self.classes_, y)
        n_classes = self.classes_.shape[0]
        loss = self._loss(n_classes)
        rows, _, _, penalized = self._design(X)
        W = _pack_weights(
            self.coef_, self.intercept_, self.fit_intercept, self.intercept_scaling
        )
        targets = loss.encode(class_indices, n_classes)
        gradient = rows.T @ loss.derivative(rows @ W, targets) / rows.shape[0]
        mapping = gradient_mapping(
            W,
            gradient,
            1.0 / self.smoothness_,
            self.alpha,
            penalized,
            self.constraint,
            self.radius,
        )
        return {
            "gradient_mapping_norm": float(np.linalg.norm(mapping)),
            "frank_wolfe_gap": frank_wolfe_gap(
                W, gradient, self.constraint, self.radius
            ),
        }
