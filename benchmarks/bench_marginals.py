"""KWayMarginalsLDP: maximum error over all k-way marginals against n, p, k and epsilon.

Data: binary records from a mixture of two latent classes (so features are
dependent and marginals are not products): class c ~ Bernoulli(0.4), then
x_j ~ Bernoulli(a_j) or Bernoulli(b_j) given c, with a, b spread in
[0.05, 0.95]. The error of a method is the largest absolute error over
every cell of every marginal table of k features (all C(p, k) subsets x 2^k
cells) against the exact empirical marginals (which is what the
non-private computation returns: error 0).

Compared methods, all pure epsilon-LDP per user:
- ``ldp``: KWayMarginalsLDP (multilinear vector, piecewise, one sampled
  coordinate per user) with the exact polynomial, gamma = 0;
- ``ldp_tuv``: the same with the Thaler-Ullman-Vadhan polynomial,
  gamma = 0.2 (the estimator's default; degree t < k from k = 4 on, the
  exact polynomial below);
- ``paper``: the printed protocol, monomial vector of C(p + t, t) entries,
  every entry with Lap(d b / epsilon) (only where n d fits in memory);
- ``naive``: each user flips every bit with randomized response at
  epsilon / p (basic composition); the server inverts the flip channel on
  the k-way histogram of noisy bits (unbiased).

Run ``python -m benchmarks.bench_marginals [--quick]``.
"""

import itertools

import numpy as np

from benchmarks._harness import parse_args, report, save_figure, timed
from sklearn_ldp import KWayMarginalsLDP


def make_data(n, p, rng):
    a = np.linspace(0.05, 0.95, p)
    b = a[::-1].copy()
    latent = rng.uniform(size=(n, 1)) < 0.4
    prob = np.where(latent, a, b)
    return (rng.uniform(size=(n, p)) < prob).astype(np.int8)


def histogram_tables(bits, subsets):
    """Empirical k-way tables ``(m, 2^k)``, cell index = sum_j bit_j 2^j."""
    n, k = bits.shape[0], subsets.shape[1]
    powers = 1 << np.arange(k)
    out = np.empty((subsets.shape[0], 2**k))
    for i, subset in enumerate(subsets):
        codes = bits[:, subset].astype(np.int64) @ powers
        out[i] = np.bincount(codes, minlength=2**k) / n
    return out


def naive_tables(X, subsets, epsilon, rng):
    """Randomized response on every bit at epsilon / p, then channel inversion."""
    p, k = X.shape[1], subsets.shape[1]
    flip = 1.0 / (1.0 + np.exp(epsilon / p))
    noisy = X ^ (rng.uniform(size=X.shape) < flip)
    tables = histogram_tables(noisy, subsets)
    inverse = np.linalg.inv(np.array([[1 - flip, flip], [flip, 1 - flip]]))
    # Apply the inverse channel along each of the k bits of the cell index.
    shaped = tables.reshape((-1,) + (2,) * k)
    for axis in range(1, k + 1):
        shaped = np.moveaxis(
            np.tensordot(shaped, inverse.T, axes=([axis], [0])), -1, axis
        )
    return shaped.reshape(tables.shape)


def ldp_tables(X, subsets, epsilon, k, rng, **params):
    est = KWayMarginalsLDP(epsilon=epsilon, k=k, random_state=rng, **params).fit(X)
    tables = est.marginal_tables(subsets)
    # marginal_tables puts feature j on axis j; flatten to the bit-j-is-2^j index.
    u = subsets.shape[1]
    return tables.transpose([0] + list(range(u, 0, -1))).reshape(len(subsets), -1)


def max_error(X, k, epsilon, method, rng):
    subsets = np.array(list(itertools.combinations(range(X.shape[1]), k)))
    exact = histogram_tables(X, subsets)
    if method == "naive":
        tables = naive_tables(X, subsets, epsilon, rng)
    elif method == "ldp":
        tables = ldp_tables(X, subsets, epsilon, k, rng, gamma=0.0)
    elif method == "ldp_tuv":
        tables = ldp_tables(X, subsets, epsilon, k, rng, gamma=0.2)
    else:
        tables = ldp_tables(
            X,
            subsets,
            epsilon,
            k,
            rng,
            coefficients="monomial",
            mechanism="full_vector",
        )
    return float(np.max(np.abs(tables - exact)))


def paper_fits(n, p, k):
    from math import comb

    return n * comb(p + k, k) <= 2**25


def run(settings, methods, seed):
    rows = []
    for setting in settings:
        n, p, k, epsilon = setting["n"], setting["p"], setting["k"], setting["epsilon"]
        rng = np.random.RandomState(seed)
        X = make_data(n, p, rng)
        row = dict(setting)
        for method in methods:
            if method == "paper" and not paper_fits(n, p, k):
                row[method] = np.nan
                continue
            error, seconds, _ = timed(max_error, X, k, epsilon, method, rng)
            row[method] = error
            row[f"{method}_s"] = seconds
        rows.append(row)
        print(
            {
                key: (round(v, 4) if isinstance(v, float) else v)
                for key, v in row.items()
            }
        )
    return rows


def main():
    args = parse_args(__doc__.splitlines()[0])
    methods = ["ldp", "ldp_tuv", "paper", "naive"]
    if args.quick:
        base = {"n": 20_000, "p": 6, "k": 2, "epsilon": 1.0}
        sweeps = {
            "n": [5_000, 20_000],
            "epsilon": [1.0, 4.0],
            "p": [4, 6],
            "k": [2, 3],
        }
    else:
        base = {"n": 100_000, "p": 10, "k": 3, "epsilon": 1.0}
        sweeps = {
            "n": [10_000, 100_000, 1_000_000],
            "epsilon": [0.5, 1.0, 2.0, 4.0],
            "p": [6, 10, 16, 24],
            "k": [2, 3, 4, 5, 6],
        }
    settings = []
    for key, values in sweeps.items():
        for value in values:
            settings.append({**base, key: value, "sweep": key})
    rows = run(settings, methods, args.seed)
    name = "marginals_quick" if args.quick else "marginals"
    columns = ["sweep", "n", "p", "k", "epsilon"] + methods + ["ldp_s", "naive_s"]
    notes = (
        "Maximum absolute error over every cell of every k-way marginal table "
        "(non-private: 0). ldp = KWayMarginalsLDP(gamma=0, piecewise); ldp_tuv = "
        "gamma=0.2; paper = monomial vector + full-vector Laplace (nan: n C(p+t, t) "
        "too large to simulate); naive = per-bit randomized response at eps/p with "
        "channel inversion. Seconds (ldp_s, naive_s) include computing all tables. "
        f"Seed {args.seed}; `python -m benchmarks.bench_marginals"
        f"{' --quick' if args.quick else ''}`."
    )
    report(
        name,
        rows,
        columns,
        title="k-way marginals under LDP: max error over all k-way marginals",
        notes=notes,
        save=not args.no_save,
    )
    if args.no_save:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(16, 3.8))
    for ax, key in zip(axes, sweeps, strict=True):
        sub = [r for r in rows if r["sweep"] == key]
        for method in methods:
            values = [r[method] for r in sub]
            ax.plot([r[key] for r in sub], values, marker="o", label=method)
        ax.set_xlabel(key)
        ax.set_yscale("log")
        if key in ("n", "epsilon"):
            ax.set_xscale("log")
        others = ", ".join(
            f"{name}={value}" for name, value in base.items() if name != key
        )
        ax.set_title(f"vs {key} ({others})", fontsize=8)
    axes[0].set_ylabel("max error over all k-way marginals")
    axes[0].legend()
    fig.tight_layout()
    save_figure(fig, name)


if __name__ == "__main__":
    main()
