"""DP-SVRG, DP-SVRG++ and DP-GD (Wang, Ye and Xu, NeurIPS 2017, Alg. 1, 2, 4).

Plain-array numerics: the caller passes rows already clipped to the public
bound, encoded targets, a loss from :mod:`sklearn_ldp.losses` and the noise scales
(calibrated by :mod:`sklearn_ldp.accounting._dp_svrg`). Every quantity that
depends on the data passes through one of two Gaussian releases:

- the full-gradient snapshot ``mu = 1/n sum_i grad f_i(w~) + N(0, s_mu^2 I)``
  (once per epoch of SVRG, once per step of GD);
- the inner step of SVRG: over a Poisson-sampled batch ``B`` (each row joins
  independently with probability ``q``),
  ``sum_{i in B} (grad f_i(w) - grad f_i(w~)) + N(0, s_in^2 I)``, divided by
  the *expected* batch size ``q n`` (public), so the release is a sampled
  Gaussian sum whose sensitivity does not depend on the realised batch.

Everything else (proximal steps, averaging, the iterates) is post-processing.
The regulariser ``r(w) = alpha ((1 - l1_ratio)/2 ||w||^2 + l1_ratio ||w||_1)``
acts on the rows flagged in ``penalized`` (the intercept row is not
penalized, as in scikit-learn), through its exact proximal map; an optional
l2 ball of radius ``radius`` (the constraint set C of the paper) is folded
into the same map.
"""

import numpy as np
from scipy.optimize import brentq


def poisson_batch(n_samples, sampling_rate, rng):
    """Indices of a Poisson sample: each of ``n_samples`` rows joins w.p. ``q``.

    Drawn in ``O(q n)`` time from geometric gaps between selected indices
    (exact: the gaps of independent Bernoulli(q) trials are iid Geometric(q)).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import poisson_batch
    >>> batch = poisson_batch(1000, 0.1, np.random.RandomState(0))
    >>> bool(np.all(np.diff(batch) > 0)), 60 < batch.size < 140
    (True, True)
    """
    q = float(sampling_rate)
    if q >= 1.0:
        return np.arange(n_samples)
    expected = q * n_samples
    size = int(expected + 6.0 * np.sqrt(expected) + 10)
    positions = np.cumsum(rng.geometric(q, size=size)) - 1
    while positions[-1] < n_samples - 1:
        more = np.cumsum(rng.geometric(q, size=size)) + positions[-1]
        positions = np.concatenate([positions, more])
    return positions[positions < n_samples]


def svrg_epoch_lengths(n_samples, batch_size, n_epochs, inner_steps=None, *, doubling):
    """Inner steps of each epoch: ``m`` each (DP-SVRG) or ``m0 2^s`` (DP-SVRG++).

    ``inner_steps=None`` gives one expected pass, ``ceil(n / batch_size)``,
    per DP-SVRG epoch (Alg. 1), and a first DP-SVRG++ epoch of a quarter
    pass, ``ceil(n / (4 batch_size))``, doubling after each epoch (Alg. 2).

    Examples
    --------
    >>> from sklearn_ldp.optim import svrg_epoch_lengths
    >>> svrg_epoch_lengths(1000, 100, 3, doubling=False).tolist()
    [10, 10, 10]
    >>> svrg_epoch_lengths(1000, 100, 3, doubling=True).tolist()
    [3, 6, 12]
    """
    per_pass = -(-n_samples // batch_size)
    if not doubling:
        return np.full(n_epochs, inner_steps or per_pass, dtype=np.int64)
    first = inner_steps or max(1, -(-per_pass // 4))
    return first * 2 ** np.arange(n_epochs, dtype=np.int64)


def prox_elastic_net(W, step, alpha, l1_ratio, penalized, radius=None):
    """Proximal map of ``step * r`` plus the indicator of the l2 ball ``radius``.

    ``r(W) = alpha ((1 - l1_ratio)/2 ||W_P||^2 + l1_ratio ||W_P||_1)`` over the
    penalized rows ``P`` (the other rows, the intercept, are free). Without
    the ball the map is ``soft(z, a) / (1 + b)`` on ``P`` (``a = step alpha
    l1_ratio``, ``b = step alpha (1 - l1_ratio)``) and the identity
    elsewhere. With the ball, a Lagrange multiplier ``lam >= 0`` turns the
    constraint into an extra ``lam/2 ||W||^2``: the solution is
    ``soft(z_P, a) / (1 + b + lam)`` and ``z_U / (1 + lam)``, with ``lam`` the
    root of ``||W(lam)|| = radius`` when the unconstrained map leaves the
    ball (found by bisection; ``||W(lam)||`` decreases in ``lam``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ldp.optim import prox_elastic_net
    >>> W = np.array([[3.0], [-1.5], [2.0]])
    >>> prox_elastic_net(W, 1.0, 1.0, 0.5, np.array([True, True, False])).ravel()
    array([ 1.66666667, -0.66666667,  2.        ])
    """
    l1 = step * alpha * l1_ratio
    l2 = step * alpha * (1.0 - l1_ratio)
    shrunk = W.copy()
    if l1 > 0:
        rows = shrunk[penalized]
        shrunk[penalized] = np.sign(rows) * np.maximum(np.abs(rows) - l1, 0.0)
    scale = np.where(penalized, 1.0 + l2, 1.0)[:, None]
    out = shrunk / scale
    if radius is None:
        return out
    norm = np.linalg.norm(out)
    if norm <= radius:
        return out
    if l2 == 0 or np.all(penalized):
        # one common scale: the constrained solution is the projection
        return out * (radius / norm)

    def excess(lam):
        return np.linalg.norm(shrunk / (scale + lam)) - radius

    lam = brentq(excess, 0.0, np.linalg.norm(shrunk) / radius, xtol=1e-14)
    out = shrunk / (scale + lam)
    return out * min(1.0, radius / np.linalg.norm(out))


def _noisy_mean_gradient(loss, X, targets, W, noise_std, rng):
    """``1/n sum_i grad f_i(W) + N(0, noise_std^2 I)``; also returns ``dloss/ds``."""
    derivative = loss.derivative(X @ W, targets)
    gradient = X.T @ derivative / X.shape[0]
    gradient += noise_std * rng.standard_normal(W.shape)
    return gradient, derivative


def dp_svrg(
    X,
    targets,
    loss,
    *,
    W0,
    step,
    alpha,
    l1_ratio,
    penalized,
    epoch_lengths,
    sampling_rate,
    snapshot_noise_std,
    inner_noise_std,
    restart,
    rng,
    radius=None,
    callback=None,
):
    """DP-SVRG (Alg. 1, ``restart='snapshot'``) or DP-SVRG++ (Alg. 2, ``'last'``).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Rows clipped to the public bound (intercept column included).
    targets : ndarray of shape (n,)
        Encoded targets (see ``loss.encode``).
    loss : loss object
    W0 : ndarray of shape (d, k)
        Initial point (public).
    step : float
        Step size ``eta``.
    alpha, l1_ratio : float
        Regularisation (see :func:`prox_elastic_net`).
    penalized : ndarray of bool, shape (d,)
        Rows of ``W`` the regulariser acts on.
    epoch_lengths : sequence of int
        Inner steps ``m_s`` of each epoch.
    sampling_rate : float
        Poisson sampling rate ``q`` of the inner batches.
    snapshot_noise_std : sequence of float
        Std of the Gaussian noise on each epoch's mean full gradient.
    inner_noise_std : float
        Std of the Gaussian noise on each inner batch *sum*.
    restart : {'snapshot', 'last'}
        Epoch start: the new snapshot (Prox-SVRG, Alg. 1) or the last inner
        iterate (SVRG++, Alg. 2). The snapshot is always the average of the
        epoch's inner iterates.
    rng : numpy.random.RandomState
    radius : float or None
        Radius of the l2 ball constraint (None: unconstrained).
    callback : callable or None
        ``callback(W_snapshot, n_gradient_evaluations)`` after each epoch.

    Returns
    -------
    W : ndarray of shape (d, k)
        The last snapshot (the algorithms' output).
    """
    n = X.shape[0]
    expected_batch = sampling_rate * n
    snapshot = W0.copy()
    W = W0.copy()
    evaluations = 0
    for length, snapshot_std in zip(epoch_lengths, snapshot_noise_std, strict=True):
        mu, snapshot_derivative = _noisy_mean_gradient(
            loss, X, targets, snapshot, snapshot_std, rng
        )
        evaluations += n
        if restart == "snapshot":
            W = snapshot.copy()
        running_sum = np.zeros_like(W)
        for _ in range(length):
            batch = poisson_batch(n, sampling_rate, rng)
            X_batch = X[batch]
            difference = (
                loss.derivative(X_batch @ W, targets[batch])
                - snapshot_derivative[batch]
            )
            noisy_sum = X_batch.T @ difference
            noisy_sum += inner_noise_std * rng.standard_normal(W.shape)
            direction = noisy_sum / expected_batch + mu
            W = prox_elastic_net(
                W - step * direction, step, alpha, l1_ratio, penalized, radius
            )
            running_sum += W
            evaluations += 2 * batch.size
        snapshot = running_sum / length
        if callback is not None:
            callback(snapshot, evaluations)
    return snapshot


def dp_gd(
    X,
    targets,
    loss,
    *,
    W0,
    step,
    alpha,
    l1_ratio,
    penalized,
    n_steps,
    noise_std,
    output,
    rng,
    radius=None,
    callback=None,
    momentum=0.0,
):
    """DP-GD (seed 002 Alg. 4) / DP-PGD (seed 004 Alg. 1): noisy proximal GD.

    Each step releases the mean full gradient plus ``N(0, noise_std^2 I)``
    and takes a proximal step. ``output='last'`` returns ``w_T`` (convex /
    Polyak-Lojasiewicz case, seed 002 section 6.1); ``output='random'``
    returns ``w_R`` with ``R`` uniform on ``1..T`` (non-convex case, seed 004
    Alg. 1), drawn before the run so only that iterate is kept;
    ``output='tail'`` returns the average of the iterates of the second half,
    ``w_{floor(T/2)+1} .. w_T`` (convex case: it averages out the noise the
    last steps leave along the steep directions, which momentum amplifies).

    ``momentum`` (``beta``, default 0: the papers' algorithm) adds a heavy
    ball term, ``W_{t+1} = prox(W_t - step g_t + beta (W_t - W_{t-1}))``:
    post-processing of the same releases, so the privacy cost is unchanged.
    Along flat directions it multiplies the step by ``1 / (1 - beta)``
    while staying stable for ``step <= 2 (1 + beta) / L``.

    ``callback(W, n_gradient_evaluations)`` is called after every step with
    the current iterate.
    """
    n = X.shape[0]
    chosen = rng.randint(1, n_steps + 1) if output == "random" else n_steps
    first_averaged = n_steps // 2 + 1
    W = W0.copy()
    previous = W
    kept = W
    average = np.zeros_like(W)
    for t in range(1, n_steps + 1):
        gradient, _ = _noisy_mean_gradient(loss, X, targets, W, noise_std, rng)
        moved = W - step * gradient
        if momentum:
            moved += momentum * (W - previous)
        previous = W
        W = prox_elastic_net(moved, step, alpha, l1_ratio, penalized, radius)
        if t == chosen:
            kept = W
        if output == "tail" and t >= first_averaged:
            average += W
        if callback is not None:
            callback(W, t * n)
    if output == "tail":
        return average / (n_steps - first_averaged + 1)
    return kept
