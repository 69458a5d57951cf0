"""
=========================================================
Private sparse classification in high dimension (l1 ball)
=========================================================

:class:`~sklearn_ldp.DPConstrainedClassifier` trains a linear classifier
whose released coefficients are (epsilon, delta)-differentially private with
respect to replacing any one training record (central model). It restricts
the weights to an l1 (or l2) ball of public radius and uses a private
first-order method suited to that geometry. With DP-FW-L1 (Frank-Wolfe whose
step direction, a vertex ``+-radius e_j`` of the l1 ball, is chosen by the
exponential mechanism), the error grows with ``log(n_features)`` rather than
``sqrt(n_features)``.

Here 2,000 features are random signs, the label depends on 5 of them, and
there are 1,000 training rows: fewer rows than features. Features are
clipped per coordinate at the public bound 1 (``data_norm_type='linf'``).
We compare the held-out accuracy of the four methods with unconstrained
DP-GD (:class:`~sklearn_ldp.DPSVRGClassifier`) and the non-private
:class:`~sklearn.linear_model.LogisticRegression` as epsilon grows.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LogisticRegression

from sklearn_ldp import DPConstrainedClassifier, DPSVRGClassifier

rng = np.random.RandomState(0)
n_train, n_test, d = 1000, 1000, 2000
X = rng.choice([-1.0, 1.0], size=(n_train + n_test, d))
y = (X[:, :5].sum(axis=1) > 0).astype(int)
X_train, y_train, X_test, y_test = X[:n_train], y[:n_train], X[n_train:], y[n_train:]

public = LogisticRegression(max_iter=1000).fit(X_train, y_train)
print(f"non-private LogisticRegression: {public.score(X_test, y_test):.3f}")

# %%
# Accuracy against epsilon
# ------------------------
# Every private model spends the whole budget over ``n_iter = 30``
# iterations. DP-GD must bound each row's l2 norm, ``sqrt(d)``; DP-FW-L1
# only pays for the largest coordinate, 1.

epsilons = [0.5, 2.0, 8.0]
methods = ["fw_l1", "pmd", "fw_l2"]
scores = {name: [] for name in [*methods, "DP-GD"]}
for epsilon in epsilons:
    for method in methods:
        clf = DPConstrainedClassifier(
            classes=[0, 1],
            epsilon=epsilon,
            method=method,
            constraint="l1",
            radius=8.0,
            data_norm=1.0,
            data_norm_type="linf",
            n_iter=30,
            random_state=0,
        ).fit(X_train, y_train)
        scores[method].append(clf.score(X_test, y_test))
    gd = DPSVRGClassifier(
        classes=[0, 1],
        epsilon=epsilon, solver="gd", n_epochs=30, data_norm=np.sqrt(d), random_state=0
    ).fit(X_train, y_train)
    scores["DP-GD"].append(gd.score(X_test, y_test))

fig, ax = plt.subplots(figsize=(6, 4))
for name, values in scores.items():
    ax.plot(epsilons, values, marker="o", label=name)
ax.axhline(public.score(X_test, y_test), color="k", ls="--", label="non-private")
ax.set_xscale("log")
ax.set_xlabel("epsilon (delta = 1e-5)")
ax.set_ylabel("held-out accuracy")
ax.legend()
plt.show()

# %%
# What the private model selected
# -------------------------------
# Each DP-FW-L1 step adds one vertex, so the model has at most ``n_iter``
# non-zero coefficients; the informative features are 0-4.

clf = DPConstrainedClassifier(
    classes=[0, 1],
    epsilon=2.0,
    radius=8.0,
    data_norm=1.0,
    data_norm_type="linf",
    n_iter=30,
    random_state=0,
).fit(X_train, y_train)
support = np.flatnonzero(clf.coef_[0])
print("non-zero coefficients:", support.size)
print("largest five:", support[np.argsort(-np.abs(clf.coef_[0, support]))][:5])
print(f"budget spent: epsilon = {clf.epsilon_spent_:.3f} (target 2.0)")
