"""
======================================================
Regression under local DP with the Bernstein mechanism
======================================================

Each of 200,000 simulated users holds one record ``(x, y)`` and sends one
epsilon-LDP value: its squared loss at one public grid point of the
coefficient box, randomized with the piecewise mechanism. The server averages
the reports per grid point (a noisy empirical risk on the grid), smooths it
into an iterated Bernstein polynomial and minimizes that.

The left panel shows the true empirical risk over the coefficient box, the
right panel the server's private estimate of it; the markers are the
non-private least-squares fit and the private one.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LinearRegression

from sklearn_ldp import LocalBernsteinRegressor

rng = np.random.RandomState(0)
n = 200_000
X = rng.uniform(-1.0, 1.0, size=(n, 1))
y = np.clip(0.5 * X[:, 0] + 0.1 + 0.3 * rng.randn(n), -1.0, 1.0)

private = LocalBernsteinRegressor(epsilon=2.0, random_state=0).fit(X, y)
baseline = LinearRegression().fit(X, y)
print(f"grid: degree {private.degree_}, {private.n_grid_points_} points")
print(f"private    coef {private.coef_[0]:.3f}, intercept {private.intercept_:.3f}")
print(f"non-private coef {baseline.coef_[0]:.3f}, intercept {baseline.intercept_:.3f}")
print(f"R^2: private {private.score(X, y):.4f}, non-private {baseline.score(X, y):.4f}")

# %%
# The empirical risk and its private Bernstein estimate over the box.
grid = np.linspace(-1.0, 1.0, 81)
slope, intercept = np.meshgrid(grid, grid, indexing="ij")
W = np.c_[slope.ravel(), intercept.ravel()]
# mean (y - w^T z)^2 with z = (x, 1), from the second moments of the data
Z = np.c_[X, np.ones(n)]
gram, moment = Z.T @ Z / n, Z.T @ y / n
true_risk = y @ y / n - 2 * W @ moment + np.einsum("ij,jk,ik->i", W, gram, W)
true_risk = true_risk.reshape(slope.shape)
private_risk = private.private_risk(W).reshape(slope.shape)

fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
levels = np.linspace(true_risk.min(), true_risk.max(), 20)
for ax, surface, title in zip(
    axes,
    (true_risk, private_risk),
    ("empirical risk", "private Bernstein estimate"),
    strict=True,
):
    contour = ax.contourf(slope, intercept, surface, levels=levels, extend="both")
    ax.plot(*baseline.coef_, baseline.intercept_, "w*", ms=12, label="non-private")
    ax.plot(*private.coef_, private.intercept_, "rx", ms=10, mew=2, label="private")
    ax.set(xlabel="slope", title=title)
axes[0].set_ylabel("intercept")
axes[1].legend(loc="lower left")
fig.colorbar(contour, ax=axes)
plt.show()
