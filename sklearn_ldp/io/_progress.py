"""Progress of long server passes: a tqdm bar where tqdm is installed, log lines otherwise."""

import logging
import sys
import time

logger = logging.getLogger("sklearn_ldp")


class _Quiet:
    def update(self, n):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _LogLines:
    """Plain progress lines on stderr: at most one every 10% (or every 2 s without a total)."""

    def __init__(self, total, desc, stream=None, unit="reports"):
        self.total, self.desc, self.done, self.unit = total, desc, 0, unit
        self.stream = sys.stderr if stream is None else stream
        self._next_tenth, self._last = 1, time.monotonic()

    def update(self, n):
        self.done += int(n)
        if self.total:
            tenth = int(10 * self.done / self.total)
            if tenth >= self._next_tenth:
                self._next_tenth = tenth + 1
                self._write(f"{self.done}/{self.total} {self.unit} ({10 * tenth}%)")
        elif time.monotonic() - self._last >= 2.0:
            self._last = time.monotonic()
            self._write(f"{self.done} {self.unit}")

    def _write(self, text):
        print(f"[{self.desc}] {text}", file=self.stream, flush=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[0] is None and (not self.total or self._next_tenth <= 10):
            self._write(f"{self.done} {self.unit}, done")
        return False


def progress(*, total, desc, verbose, unit="reports"):
    """A context manager with ``update(n)``: quiet, a tqdm bar, or log lines.

    Parameters
    ----------
    total : int or None
        Reports (or partitions) expected; None when unknown.
    desc : str
        What is running (shown before the counts).
    verbose : bool
        False: nothing is shown.
    unit : str, default='reports'

    Examples
    --------
    >>> import io
    >>> from sklearn_ldp.io._progress import _LogLines
    >>> out = io.StringIO()
    >>> with _LogLines(4, "demo", out) as bar:
    ...     bar.update(2); bar.update(2)
    >>> print(out.getvalue().strip().splitlines()[-1])
    [demo] 4/4 reports (100%)
    """
    if not verbose:
        return _Quiet()
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _LogLines(total, desc, unit=unit)
    return tqdm(total=total, desc=desc, unit=unit, unit_scale=True, leave=True)
