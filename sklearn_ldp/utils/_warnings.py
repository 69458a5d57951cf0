"""Warnings shared by the servers."""

import warnings


def warn_few_users(n_users, n_cells, *, cells, advice, stacklevel=3):
    """Warn when fewer users report than there are cells for them to cover.

    Protocols that assign each user one public cell (a grid point, a
    coordinate of a vector) leave ``n_cells - n_users`` cells without a
    report when ``n_users < n_cells``: those estimates are pure noise.

    Parameters
    ----------
    n_users, n_cells : int
    cells : str
        What the cells are, e.g. ``"grid points ((degree + 1)^n_coef = 4^3)"``.
    advice : str
        What the user can change.

    Returns
    -------
    warned : bool
    """
    if n_users >= n_cells:
        return False
    warnings.warn(
        f"The protocol has {n_cells} {cells} but there are only {n_users} users, "
        f"so {n_cells - n_users} of them have no report and their estimates are "
        f"noise. {advice}",
        UserWarning,
        stacklevel=stacklevel,
    )
    return True
