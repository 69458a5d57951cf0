"""
Saving a fitted model, and refitting from saved reports
=======================================================

Two things can be stored after a local-DP collection:

* the **fitted model**, pickled like any scikit-learn estimator: it holds
  public parameters and fitted coefficients only (post-processing of the
  reports, so publishing it costs no further privacy);
* the **reports** themselves, with :meth:`~sklearn_ldp.randomizers.Reports.save`
  (an ``.npz`` file without pickles, carrying the randomizer's public
  configuration and a format version). They are the durable artifact: any
  number of later fits with other *server-side* parameters use them
  without asking the users again.

This example does both with :class:`~sklearn_ldp.GLMLDPClassifier`, and
shows the server refusing reports made with another configuration.
"""

import pickle
import shutil
import tempfile
from pathlib import Path

import joblib
import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LogisticRegression

from sklearn_ldp import GLMLDPClassifier
from sklearn_ldp.randomizers import Reports


def make_users(n, seed):
    """Two classes in the unit disc (``||x|| <= 1``, the public ``data_norm``)."""
    rng = np.random.RandomState([seed, 7])
    X = rng.uniform(-1.0, 1.0, size=(n, 2)) / np.sqrt(2.0)
    p = 1.0 / (1.0 + np.exp(-8.0 * (X @ np.array([0.8, -0.6]) - 0.1)))
    return X, (rng.uniform(size=n) < p).astype(int)


X, y = make_users(40_000, seed=0)
X_test, y_test = make_users(20_000, seed=1)
workdir = Path(tempfile.mkdtemp())

# %%
# One collection, saved to disk
# -----------------------------
# The server publishes the estimator's parameters; the randomizer it
# implies is what every user runs on its own record. The reports are all
# the server ever receives.
server = GLMLDPClassifier(epsilon=4.0, coef_norm=2.0, random_state=0)
randomizer = server.make_randomizer(X.shape[1], classes=np.array([0, 1]))
reports = randomizer.randomize(X, y, random_state=1)  # on the users' devices
print(randomizer.guarantee)

reports.save(workdir / "reports.npz")
loaded = Reports.load(workdir / "reports.npz")
same = all(np.array_equal(reports[k], loaded[k]) for k in reports.fields)
print(f"reports reloaded: {len(loaded)} users, identical fields: {same}")
print("public configuration:", loaded.config)

model = server.fit_reports(loaded)
print(f"test accuracy: {model.score(X_test, y_test):.3f}")

# %%
# Pickling the fitted model
# -------------------------
# ``pickle`` (to bytes) and ``joblib`` (to a file) both work; the reloaded
# model predicts exactly the same. As for any pickle, load only files you
# trust, with the same versions of sklearn_ldp and scikit-learn. The
# ``.npz`` reports load without executing code, and any version that reads
# their format version and builds the same randomizer configuration can
# refit from them.
blob = pickle.dumps(model)
from_bytes = pickle.loads(blob)
joblib.dump(model, workdir / "model.joblib")
from_file = joblib.load(workdir / "model.joblib")
print(f"pickled model: {len(blob)} bytes (it stores no reports)")
for name, clone in [("pickle", from_bytes), ("joblib", from_file)]:
    identical = np.array_equal(model.predict_proba(X_test), clone.predict_proba(X_test))
    print(f"{name}: identical predicted probabilities: {identical}")

# %%
# Refitting from the saved reports with other server-side parameters
# ------------------------------------------------------------------
# ``coef_norm`` (the radius of the coefficient ball), ``alpha``, the loss
# and the iterations only change what the server computes: they are not
# part of the randomizer's configuration printed above. (So do ``degree``,
# the solver and the approximation on Gaussian reports,
# ``mechanism='gaussian'``; the default's PrivUnitG report serves the
# degree-1 server, which is what makes it the default.) The same
# saved reports serve every such fit, without asking the users for anything
# new.
#
# The scores below use a simulated test set. In a deployment, looking at
# raw held-out records to *choose* among these fits is a separate access to
# private data; fix such choices from simulations or public data (see
# :ref:`sphx_glr_auto_examples_plot_gridsearch_epsilon.py`) or with criteria
# computed from the reports alone (:doc:`/choosing_epsilon`).
refits = {
    "coef_norm=2 (reloaded)": from_file,
    "coef_norm=1": GLMLDPClassifier(epsilon=4.0, coef_norm=1.0, random_state=0),
    "coef_norm=4": GLMLDPClassifier(epsilon=4.0, coef_norm=4.0, random_state=0),
    "coef_norm=2, modified_huber": GLMLDPClassifier(
        epsilon=4.0, coef_norm=2.0, loss="modified_huber", random_state=0
    ),
}
for name, estimator in refits.items():
    if name != "coef_norm=2 (reloaded)":
        estimator.fit_reports(loaded)
    print(f"{name:<27} test accuracy {estimator.score(X_test, y_test):.3f}")
non_private = LogisticRegression().fit(X, y)
print(
    f"{'LogisticRegression':<27} test accuracy {non_private.score(X_test, y_test):.3f}"
)

# %%
# Reports from another configuration are refused
# ----------------------------------------------
# A server configured for epsilon = 2 expects more noise than these reports
# carry; fitting them would misstate the guarantee and the debiasing, so
# ``fit_reports`` refuses and names the differing keys.
try:
    GLMLDPClassifier(epsilon=2.0, coef_norm=2.0).fit_reports(loaded)
except ValueError as error:
    print("refused:", error)

# %%
# The decision boundaries
# -----------------------
# The reloaded model's boundary lies exactly on the original's; the refits
# from the same reports move it only through server-side choices.
fig, ax = plt.subplots(figsize=(5.5, 5))
shown = slice(0, 1500)
ax.scatter(*X_test[shown].T, c=y_test[shown], cmap="coolwarm", s=6, alpha=0.4)
grid = np.linspace(-0.75, 0.75, 2)


def boundary(estimator):
    """Points of the line ``w . x + b = 0`` above ``grid``."""
    (w0, w1), b = estimator.coef_.ravel(), estimator.intercept_.ravel()[0]
    return -(w0 * grid + b) / w1


ax.plot(grid, boundary(model), color="grey", lw=7, alpha=0.4, label="original model")
styles = ["-", ":", "-.", "--"]
for (name, estimator), style in zip(refits.items(), styles, strict=True):
    ax.plot(grid, boundary(estimator), style, lw=2, label=name)
ax.plot(grid, boundary(non_private), color="black", lw=1, label="LogisticRegression")
ax.set_xlim(-0.75, 0.75)
ax.set_ylim(-0.75, 0.75)
ax.set_aspect("equal")
ax.set_title("Decision boundaries from one saved collection (eps = 4)")
ax.legend(fontsize=7, loc="lower left")
fig.tight_layout()
plt.show()

shutil.rmtree(workdir)  # the temporary files of this example
