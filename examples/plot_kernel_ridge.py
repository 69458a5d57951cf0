"""
Kernel ridge regression under local DP with random Fourier features
===================================================================

Each user holds a point ``x`` and a target ``y = sin(2 x)`` plus noise. With
:class:`~sklearn_ldp.KernelRidgeLDP` a user maps ``x`` through a *public*
random Fourier feature map (``m`` numbers approximating the RBF kernel),
randomizes the features and ``y`` together (by default one pure-epsilon
PrivUnitG report; the seed adds Gaussian noise, ``mechanism='gaussian'``),
and sends the result once.
The server fits ridge regression in the random-feature space from debiased
sufficient statistics. The naive alternative, adding noise to ``x`` itself,
destroys the input locations the kernel depends on.

Local DP needs many users: here 100,000 users at epsilon = 8 and at
epsilon = 2.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.kernel_ridge import KernelRidge

from sklearn_ldp import KernelRidgeLDP
from sklearn_ldp.randomizers import GaussianRecordRandomizer

rng = np.random.RandomState(0)
n = 100_000
X = rng.uniform(-2, 2, size=(n, 1))
y = np.clip(np.sin(2 * X[:, 0]) + 0.2 * rng.standard_normal(n), -1, 1)
grid = np.linspace(-2, 2, 400)[:, None]

# %%
# Private fits
# ------------
# ``alpha='auto'`` picks the ridge penalty by cross-validation on the
# reports, with a held-out loss debiased for the known noise (no privacy
# cost). ``n_components`` is fixed to 15 features: with one input
# dimension a few features suffice and each one adds noise.
fits = {}
for epsilon in (8.0, 2.0):
    est = KernelRidgeLDP(epsilon=epsilon, gamma=1.0, n_components=15, random_state=0)
    fits[epsilon] = est.fit(X, y)
    print(
        f"eps={epsilon}: R^2 = {est.score(X, y):.3f}, alpha_ = {est.alpha_:.3g}, "
        f"noise std on features {est.sigma_x_:.2f}"
    )

# %%
# Baselines
# ---------
# Non-private kernel ridge on 2000 users (the exact kernel matrix of all
# users would not fit in memory); the naive baseline perturbs the raw
# ``(x, y)`` with the same Gaussian mechanism at epsilon = 8 (``|x| <= 2``)
# and fits scikit-learn's ``KernelRidge`` on 2000 of the noisy reports.
sub = rng.choice(n, 2000, replace=False)
exact = KernelRidge(alpha=2000 * 1e-3, kernel="rbf", gamma=1.0).fit(X[sub], y[sub])
raw = GaussianRecordRandomizer(1, epsilon=8.0, delta=1e-5, data_norm=2.0, y_bound=1.0)
reports = raw.randomize(X[sub], y[sub], random_state=0)
naive = KernelRidge(alpha=2000 * 1e-3, kernel="rbf", gamma=1.0)
naive.fit(reports["x"], reports["y"])
print(f"non-private KernelRidge R^2 = {exact.score(X, y):.3f}")
print(f"naive (noisy x, eps=8) R^2 = {naive.score(X, y):.3f}")

fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(grid[:, 0], np.sin(2 * grid[:, 0]), "k", lw=2, label="sin(2x)")
ax.plot(grid[:, 0], exact.predict(grid), "g:", label="KernelRidge (non-private)")
for epsilon, style in ((8.0, "b-"), (2.0, "c--")):
    ax.plot(
        grid[:, 0],
        fits[epsilon].predict(grid),
        style,
        label=f"KernelRidgeLDP eps={epsilon}",
    )
ax.plot(grid[:, 0], naive.predict(grid), "r-.", label="naive, eps=8")
ax.set(xlabel="x", ylabel="prediction", ylim=(-1.5, 1.5))
ax.legend(fontsize=8)
plt.show()
