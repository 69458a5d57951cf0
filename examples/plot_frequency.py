"""
Frequencies of a categorical attribute under local DP
=====================================================

Each of 100,000 simulated users holds one of 64 categories (Zipf-distributed,
as app or emoji usage often is) and sends one epsilon-LDP report. The server
estimates the share of every category. ``mechanism='auto'`` picks, from the
public domain size and epsilon alone, the frequency oracle with the smallest
predicted variance; the figure shows the estimate of ``'auto'`` next to the
truth, and the error of every mechanism next to its predicted error.
"""

import matplotlib.pyplot as plt
import numpy as np

from sklearn_ldp import FrequencyLDP
from sklearn_ldp.randomizers import frequency_mechanism_variances

rng = np.random.RandomState(0)
n, k, epsilon = 100_000, 64, 1.0
weights = np.arange(1, k + 1) ** -1.1
X = rng.choice(k, size=(n, 1), p=weights / weights.sum())
truth = np.bincount(X[:, 0], minlength=k) / n

auto = FrequencyLDP(epsilon=epsilon, categories=k, unknown="error", random_state=0)
auto.fit(X)
print(f"'auto' picked {auto.mechanism_!r}")

# %%
# Every mechanism: the mean squared error over the categories of the
# unbiased estimate (``postprocess='none'``), against its prediction
# ``mean_x Var_x / n`` (:func:`~sklearn_ldp.randomizers.frequency_mechanism_variances`).
predicted = frequency_mechanism_variances(k, epsilon)
names, measured, expected = [], [], []
for mechanism, variance in predicted.items():
    est = FrequencyLDP(
        epsilon=epsilon,
        categories=k,
        mechanism=mechanism,
        unknown="error",
        postprocess="none",
        random_state=0,
    ).fit(X)
    names.append(mechanism.replace("_", "\n"))
    measured.append(np.mean((est.frequencies_ - truth) ** 2))
    expected.append(variance / n)
    print(f"{mechanism:>20}: MSE {measured[-1]:.2e} (predicted {expected[-1]:.2e})")

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
left.bar(np.arange(k), truth, color="lightgray", label="true share")
left.plot(np.arange(k), auto.frequencies_, "k.", label=f"auto ({auto.mechanism_})")
left.set(xlabel="category (by popularity)", ylabel="share of users", yscale="log")
left.legend()
x = np.arange(len(names))
right.bar(x - 0.2, measured, 0.4, label="measured MSE")
right.bar(x + 0.2, expected, 0.4, label="predicted")
right.set_xticks(x, names, fontsize=7)
right.set(ylabel="mean squared error", title=f"k = {k}, epsilon = {epsilon}")
right.legend()
fig.tight_layout()
plt.show()
