"""KernelDensityLDP: kernel density error against n, t (degree) and epsilon.

Data: a two-component Gaussian mixture in [-1, 1]^p (clipped), p = 1 or 2;
Gaussian kernel with bandwidth h = 0.15 (units of x). The error of a method
is the maximum absolute difference, over a grid of query points in the box
(200 for p = 1, 30 x 30 for p = 2), between its density and scikit-learn's
non-private ``KernelDensity(bandwidth=h)`` on the same data, relative to
that density's maximum.

Compared methods, all pure epsilon-LDP per user:
- ``ldp``: KernelDensityLDP (piecewise, one sampled coordinate per user),
  degree t as given (``auto``: the estimator's rule);
- ``paper``: the printed protocol, every user sends all t^p - 1 entries with
  Lap(2 (t^p - 1) / epsilon);
- ``naive``: each user adds Laplace noise to its clipped record (l1
  sensitivity 2 p on the box [-1, 1]^p, scale 2 p / epsilon per coordinate),
  the server fits scikit-learn's KernelDensity on the noisy points;
- ``naive_deconv``: the same reports with the Laplace-deconvolution kernel
  (Stefanski and Carroll): for Laplace noise of scale b and a Gaussian
  kernel of bandwidth h, ``K*(u) = phi(u) (1 - (b / h)^2 (u^2 - 1))`` per
  coordinate, which is unbiased for the kernel density of the clean data.

Run ``python -m benchmarks.bench_kde [--quick]``.
"""

import numpy as np
from sklearn.neighbors import KernelDensity

from benchmarks._harness import parse_args, report, save_figure, timed
from sklearn_ldp import KernelDensityLDP

BANDWIDTH = 0.15


def make_data(n, p, rng):
    component = rng.uniform(size=(n, 1)) < 0.6
    centers = np.where(component, -0.35, 0.4)
    scales = np.where(component, 0.2, 0.3)
    return np.clip(centers + scales * rng.standard_normal((n, p)), -1.0, 1.0)


def query_grid(p):
    if p == 1:
        return np.linspace(-1, 1, 200)[:, None]
    axis = np.linspace(-1, 1, 30)
    return np.stack(np.meshgrid(axis, axis, indexing="ij"), axis=-1).reshape(-1, 2)


def deconvolution_density(noisy, queries, b, h, block=200):
    """Laplace-deconvolution KDE (product kernel), evaluated in query blocks."""
    out = np.empty(queries.shape[0])
    ratio2 = (b / h) ** 2
    for start in range(0, queries.shape[0], block):
        q = queries[start : start + block]
        u = (q[:, None, :] - noisy[None, :, :]) / h  # (q, n, p)
        kernel = (
            np.exp(-0.5 * u**2) / np.sqrt(2 * np.pi) * (1.0 - ratio2 * (u**2 - 1.0))
        )
        out[start : start + block] = np.prod(kernel / h, axis=2).mean(axis=1)
    return out


def densities(X, queries, epsilon, method, degree, rng):
    p = X.shape[1]
    if method in ("ldp", "paper"):
        kde = KernelDensityLDP(
            epsilon=epsilon,
            bandwidth=BANDWIDTH,
            degree=degree,
            mechanism="piecewise" if method == "ldp" else "full_vector",
            random_state=rng,
        ).fit(X)
        return kde.density(queries)
    scale = 2.0 * p / epsilon
    noisy = X + rng.laplace(0.0, scale, size=X.shape)
    if method == "naive":
        model = KernelDensity(bandwidth=BANDWIDTH, rtol=1e-4).fit(noisy)
        return np.exp(model.score_samples(queries))
    # The deconvolution sum is O(n x queries): subsample the reports beyond 20k.
    if noisy.shape[0] > 20_000:
        noisy = noisy[rng.choice(noisy.shape[0], 20_000, replace=False)]
    return deconvolution_density(noisy, queries, scale, BANDWIDTH)


def run(settings, methods, seed):
    rows = []
    for setting in settings:
        n, p, epsilon, degree = (
            setting["n"],
            setting["p"],
            setting["epsilon"],
            setting["t"],
        )
        rng = np.random.RandomState(seed)
        X = make_data(n, p, rng)
        queries = query_grid(p)
        reference = np.exp(
            KernelDensity(bandwidth=BANDWIDTH).fit(X).score_samples(queries)
        )
        row = dict(setting)
        for method in methods:
            if (
                method == "paper"
                and n * (int(degree) ** p if degree != "auto" else 16**p) > 2**26
            ):
                row[method] = np.nan
                continue
            estimate, seconds, _ = timed(
                densities, X, queries, epsilon, method, degree, rng
            )
            row[method] = float(np.max(np.abs(estimate - reference)) / reference.max())
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
    methods = ["ldp", "paper", "naive", "naive_deconv"]
    if args.quick:
        bases = [{"n": 20_000, "p": 1, "epsilon": 1.0, "t": "auto"}]
        sweeps = {"n": [5_000, 20_000], "epsilon": [1.0, 4.0], "t": [6, 12]}
    else:
        bases = [
            {"n": 100_000, "p": 1, "epsilon": 1.0, "t": "auto"},
            {"n": 100_000, "p": 2, "epsilon": 1.0, "t": "auto"},
        ]
        sweeps = {
            "n": [10_000, 100_000, 1_000_000],
            "epsilon": [0.5, 1.0, 2.0, 4.0],
            "t": [4, 6, 8, 12, 16, 24],
        }
    settings = []
    for base in bases:
        for key, values in sweeps.items():
            for value in values:
                settings.append({**base, key: value, "sweep": key})
    rows = run(settings, methods, args.seed)
    name = "kde_quick" if args.quick else "kde"
    columns = ["sweep", "p", "n", "epsilon", "t"] + methods + ["ldp_s", "naive_s"]
    notes = (
        f"Max |density - sklearn KernelDensity(bandwidth={BANDWIDTH})| over a query "
        "grid, relative to the reference maximum (non-private: 0). t = 'auto': "
        "largest t <= 16 with t^p - 1 <= n / 50. paper = full-vector Laplace "
        "(nan: too large to simulate). naive_deconv subsamples 20k reports. "
        f"Seed {args.seed}; `python -m benchmarks.bench_kde"
        f"{' --quick' if args.quick else ''}`."
    )
    report(
        name,
        rows,
        columns,
        title="Kernel density under LDP: relative max error against scikit-learn",
        notes=notes,
        save=not args.no_save,
    )
    if args.no_save:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(
        len(bases), 3, figsize=(13, 3.6 * len(bases)), squeeze=False
    )
    for i, base in enumerate(bases):
        for ax, key in zip(axes[i], sweeps, strict=True):
            sub = [r for r in rows if r["sweep"] == key and r["p"] == base["p"]]
            for method in methods:
                ax.plot(
                    [r[key] for r in sub],
                    [r[method] for r in sub],
                    marker="o",
                    label=method,
                )
            ax.set_xlabel(key)
            ax.set_yscale("log")
            if key in ("n", "epsilon"):
                ax.set_xscale("log")
            ax.set_title(f"p = {base['p']}, vs {key}", fontsize=9)
        axes[i, 0].set_ylabel("relative max error")
    axes[0, 0].legend()
    fig.tight_layout()
    save_figure(fig, name)


if __name__ == "__main__":
    main()
