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
