"""From the rows of a grid to what a page shows: means over seeds, the
utility table, the time table, Markdown, and the utility plot."""

import numpy as np


def format_table(rows, columns, floatfmt="{:.4g}"):
    """A Markdown table from a list of dicts."""

    def fmt(value):
        if isinstance(value, float | np.floating):
            return floatfmt.format(value)
        return str(value)

    lines = [
        "| " + " | ".join(columns) + " |",
        "| " + " | ".join("---" for _ in columns) + " |",
    ]
    lines += [
        "| " + " | ".join(fmt(row.get(c, "")) for c in columns) + " |" for row in rows
    ]
    return "\n".join(lines)


def aggregate(rows, metrics, keys=("population", "n", "epsilon", "method", "mode")):
    """Mean (and standard deviation when repeated) over seeds per ``keys``."""
    groups = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(row)
    table = []
    for key, group in groups.items():
        out = dict(zip(keys, key, strict=True))
        for metric in (*metrics, "seconds", "time ratio"):
            values = np.array([r[metric] for r in group], dtype=float)
            out[metric] = float(np.mean(values))
            if len(group) > 1 and metric in metrics:
                out[f"{metric} sd"] = float(np.std(values, ddof=1))
        out["runs"] = len(group)
        table.append(out)
    return table


def pivot(table, metric, keys=("n", "epsilon")):
    """One row per ``keys`` value, one column per method: the utility table.

    Non-private rows (epsilon 'inf') are spread across every epsilon of the
    same n, so each row reads against its reference.
    """
    methods = list(dict.fromkeys(r["method"] for r in table))
    reference = {
        (r["population"], r["n"], r["method"]): r[metric]
        for r in table
        if r["epsilon"] == "inf"
    }
    out = {}
    for r in table:
        if r["epsilon"] == "inf":
            continue
        row = out.setdefault(
            (r["population"], *(r[k] for k in keys)),
            {"population": r["population"], **{k: r[k] for k in keys}},
        )
        row[r["method"]] = r[metric]
    for row in out.values():
        for (population, n, method), value in reference.items():
            if population == row["population"] and n == row["n"]:
                row[method] = value
    columns = ["population", *keys, *methods]
    return list(out.values()), columns


def standard_error(row, metric):
    """The standard error of ``metric``'s mean over seeds (NaN with one seed)."""
    return row.get(f"{metric} sd", np.nan) / np.sqrt(row["runs"])


def with_standard_error(table, metric, digits=3):
    """The utility table: ``metric`` as "mean ± standard error over seeds"."""
    label = f"{metric} +- se"
    for r in table:
        se = standard_error(r, metric)
        r[label] = (
            f"{r[metric]:.{digits}f}"
            if not np.isfinite(se)
            else f"{r[metric]:.{digits}f} ± {se:.{digits}f}"
        )
    return pivot(table, label)


def criterion_table(table, metric, *, default, baselines, floor):
    """Per cell: the default against the best baseline and the trivial predictor.

    A cell passes when the default's mean is no lower than the best of
    ``baselines``' means by more than 2 standard errors of the difference
    (the two cells' standard errors in quadrature) and no lower than the
    trivial predictor's (``floor``, one of ``baselines``) by more than 2
    standard errors. Higher ``metric`` is better. Non-private rows (one per
    (population, n)) serve every epsilon of their n.

    Returns
    -------
    rows, columns
        For :func:`format_table`; the last column is ``passes``
        (``'yes'``/``'NO'``).
    """
    cells, shared = {}, {}
    for r in table:
        value = (r[metric], float(np.nan_to_num(standard_error(r, metric))))
        if r["epsilon"] == "inf":
            shared.setdefault((r["population"], r["n"]), {})[r["method"]] = value
        else:
            key = (r["population"], r["n"], r["epsilon"])
            cells.setdefault(key, {})[r["method"]] = value
    rows = []
    for (population, n, epsilon), methods in cells.items():
        methods = {**shared.get((population, n), {}), **methods}
        if default not in methods or floor not in methods:
            continue
        mean, se = methods[default]
        best = max((b for b in baselines if b in methods), key=lambda b: methods[b][0])
        best_mean, best_se = methods[best]
        margin = 2.0 * np.hypot(se, best_se)
        floor_mean, floor_se = methods[floor]
        floor_margin = 2.0 * np.hypot(se, floor_se)
        passed = mean >= best_mean - margin and mean >= floor_mean - floor_margin
        rows.append(
            {
                "population": population,
                "n": n,
                "epsilon": epsilon,
                "default - best baseline": f"{mean - best_mean:+.3f} ({best})",
                "2 SE": f"{margin:.3f}",
                f"default - {floor}": f"{mean - floor_mean:+.3f}",
                "passes": "yes" if passed else "NO",
            }
        )
    columns = [
        "population",
        "n",
        "epsilon",
        "default - best baseline",
        "2 SE",
        f"default - {floor}",
        "passes",
    ]
    return rows, columns


def criterion_section(table, metric, *, default, baselines, floor):
    """The page section "The default against the baselines" (:func:`criterion_table`)."""
    return (
        "## The default against the baselines\n\nPer cell: the default's mean "
        f"minus that of the best of {{{', '.join(baselines)}}}, twice the "
        "standard error of that difference (the two cells' standard errors in "
        f"quadrature), the default's mean minus the {floor} rate, and whether "
        "the default is within 2 SE of both.\n\n"
        + format_table(
            *criterion_table(
                table, metric, default=default, baselines=baselines, floor=floor
            )
        )
    )


def time_table(table, reference):
    """Time ratios (fit time / the non-private fit's on the same draw), with
    the reference's seconds as a column for scale. ``reference`` is the
    non-private method's name, or a collection of names when it differs by
    population (the column is then called ``non-private s``)."""
    names = {reference} if isinstance(reference, str) else set(reference)
    label = f"{reference} s" if isinstance(reference, str) else "non-private s"
    rows, columns = pivot(table, "time ratio")
    seconds = {
        (r["population"], r["n"]): r["seconds"] for r in table if r["method"] in names
    }
    for row in rows:
        row[label] = seconds.get((row["population"], row["n"]), np.nan)
        for name in names:
            row.pop(name, None)
    columns = [c for c in columns if c not in names] + [label]
    return rows, columns


def pyplot():
    """matplotlib's pyplot on the non-interactive backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


MODE_STYLE = {
    "improved": "-",
    "paper": "--",
    "baseline": ":",
}


def utility_figure(table, metric, *, ylabel=None, logy=False, title=None):
    """Utility against epsilon, one panel per (population, n), one line per
    method (solid: improved, dashed: paper, dotted: baselines); non-private
    references as horizontal black lines."""
    plt = pyplot()
    panels = list(dict.fromkeys((r["population"], r["n"]) for r in table))
    cols = min(3, len(panels))
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(4.6 * cols, 3.6 * rows), squeeze=False, sharey="row"
    )
    methods = list(dict.fromkeys(r["method"] for r in table))
    colors = {m: f"C{i % 10}" for i, m in enumerate(methods)}
    references = [
        m
        for m in methods
        if any(r["method"] == m and r["epsilon"] == "inf" for r in table)
    ]
    for ax, (population, n) in zip(axes.flat, panels, strict=False):
        here = [r for r in table if r["population"] == population and r["n"] == n]
        for method in methods:
            points = sorted(
                (float(r["epsilon"]), r[metric])
                for r in here
                if r["method"] == method and r["epsilon"] != "inf"
            )
            if points:
                xs, ys = zip(*points, strict=True)
                mode = next(r["mode"] for r in here if r["method"] == method)
                ax.plot(
                    xs,
                    ys,
                    MODE_STYLE.get(mode, "-"),
                    marker="o",
                    ms=3,
                    color=colors[method],
                    label=method,
                )
            for r in here:
                if r["method"] == method and r["epsilon"] == "inf":
                    if logy and not r[metric] > 0:  # exact (error 0): no line
                        continue
                    k = references.index(method)
                    ax.axhline(
                        r[metric],
                        color=("black", "dimgray", "darkgray")[k % 3],
                        ls=("-", "-.", (0, (1, 1)))[k % 3],
                        lw=1,
                        label=method,
                    )
        ax.set_xscale("log", base=2)
        if logy:
            ax.set_yscale("log")
        ax.set_title(f"{population}, n = {n:,}", fontsize=9)
        ax.set_xlabel("epsilon per user")
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel or metric)
    for ax in axes.flat[len(panels) :]:
        ax.axis("off")
    seen = {}
    for ax in axes.flat[: len(panels)]:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, handle)
    fig.tight_layout(rect=(0, 0.08 + 0.03 * (len(seen) // 4), 1, 1))
    fig.legend(
        list(seen.values()), list(seen.keys()), loc="lower center", ncol=4, fontsize=7
    )
    if title:
        fig.suptitle(title)
    return fig
