"""
Sparse mean and sparse regression under local DP by random projection
======================================================================

Each user holds a vector ``x`` in the unit ball of a high-dimensional space.
With :class:`~sklearn_ldp.SparseLDPMeanEstimator` a user sends a public
random projection of ``x`` (``p << d`` numbers) plus Gaussian noise, and the
server recovers an l1-bounded mean. The naive alternative, adding the same
Gaussian noise to every one of the ``d`` coordinates and averaging, has an
error growing like ``sqrt(d)``.

The second part fits :class:`~sklearn_ldp.SparseLDPRegressor` (l1-constrained
least squares from projected noisy reports) on a synthetic sparse problem.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LinearRegression

from sklearn_ldp import SparseLDPMeanEstimator, SparseLDPRegressor
from sklearn_ldp.randomizers import GaussianMechanism

rng = np.random.RandomState(0)

# %%
# Sparse mean estimation in d = 2000
# ----------------------------------
# The mean is ``0.3 e_0 - 0.3 e_1`` (l1 norm 0.6, a public bound); every
# row is clipped to the unit ball.
n, d, epsilon = 20_000, 2000, 1.0
X = rng.standard_normal((n, d)) * 0.01
X[:, 0] += rng.uniform(0.0, 0.6, n)
X[:, 1] -= rng.uniform(0.0, 0.6, n)
X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
truth = X.mean(axis=0)

est = SparseLDPMeanEstimator(epsilon=epsilon, l1_radius=0.6, random_state=0).fit(X)
naive = GaussianMechanism(epsilon, 1e-5, norm_bound=1.0).randomize(X, random_state=1)
naive_mean = naive.mean(axis=0)
print(f"projected dimension p = {est.n_components_} (d = {d})")
print(f"l2 error, projected LDP mean: {np.linalg.norm(est.location_ - truth):.3f}")
print(f"l2 error, naive LDP mean:     {np.linalg.norm(naive_mean - truth):.3f}")

fig, ax = plt.subplots(figsize=(7, 3))
ax.plot(naive_mean[:50], "o", alpha=0.5, label="naive per-coordinate")
ax.plot(est.location_[:50], "s", label="SparseLDPMeanEstimator")
ax.plot(truth[:50], "k_", markersize=12, label="true mean")
ax.set_xlabel("coordinate (first 50 of 2000)")
ax.legend()
fig.tight_layout()

# %%
# Sparse linear regression
# ------------------------
# Three relevant features carry half of ``||x||^2``; ``y = x^T w* + noise``.
# LDP regression is data-hungry: at ``n = 20 000`` users a large epsilon is
# needed to find the support (the error rate is ``(log d / (n eps^2))^(1/4)``).
n, d = 20_000, 200
relevant = rng.uniform(-1, 1, (n, 3)) / np.sqrt(6)
rest = rng.standard_normal((n, d - 3))
rest *= np.sqrt(0.5) / np.linalg.norm(rest, axis=1, keepdims=True)
X = np.hstack([relevant, rest])
w_true = np.zeros(d)
w_true[:3] = [0.41, -0.41, 0.41]
y = X @ w_true + rng.uniform(-0.5, 0.5, n)

reg = SparseLDPRegressor(
    epsilon=40.0, l1_radius=1.23, projection="identity", random_state=0
).fit(X, y)
baseline = LinearRegression().fit(X, y)
print(
    f"R^2 LDP (eps=40): {reg.score(X, y):.3f}, non-private: {baseline.score(X, y):.3f}"
)
print("largest LDP coefficients:", np.argsort(-np.abs(reg.coef_))[:3])
