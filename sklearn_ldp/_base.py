"""The LDP client/server contract every LDP estimator follows.

``fit(X, y)`` is exactly the client and the server, sharing nothing but
public configuration and the reports::

    randomizer = est.make_randomizer(n_features, n_users=len(X), classes=classes)
    reports = randomizer.randomize(X, y, random_state=est.random_state)  # each user
    est.fit_reports(reports)                                              # the server

``classes`` is the public label set (classifiers only, ``None`` otherwise).
For the same ``random_state`` the two give the same model: the users' noise
and the server's own randomness come from separate streams
(:func:`~sklearn_ldp.utils.check_noise_random_state`,
:func:`~sklearn_ldp.utils.check_server_random_state`).

An estimator picks one of :class:`LDPRegressorMixin`,
:class:`LDPClassifierMixin` or :class:`LDPUnsupervisedMixin` (which give
``fit``) and implements

- ``_make_randomizer(n_features, n_users, classes)``: the public
  configuration, fixed before anyone reports, behind the public
  ``make_randomizer(n_features, *, n_users=None, classes=None)``, which
  first checks ``classes``: regressors and unsupervised estimators refuse
  it (:meth:`_refuse_classes`), classifiers require it
  (:meth:`LDPClassifierMixin._require_classes`) and receive it sorted.
  Estimators whose configuration depends on the population size need
  ``n_users`` and say so when it is missing; the others ignore it;
- ``_fit_server(reports, rng)``: the server; it receives a
  :class:`~sklearn_ldp.randomizers.Reports` and never the raw data.

Hooks, each with a default:

- ``_expected_randomizer(reports)``: the randomizer that must have made the
  reports (override when a public choice announced to the users, such as a
  degree picked from the population size, is read from the reports);
- ``_fit_simulated(X, y, classes)``: client then server on raw records. By
  default a one-pass server aggregates the simulated reports chunk by chunk
  (:meth:`~sklearn_ldp.randomizers.LocalRandomizer.randomize_chunks`, the
  reports of one ``randomize`` call), so ``fit`` holds one chunk of reports
  at a time; the other servers receive every report. Estimators with a
  chunk loop of their own override it (they set ``n_reports_rejected_ =
  0`` and call :func:`warn_if_large_delta` themselves);
- ``_server_aggregate(config)`` and ``_fit_server_aggregate(aggregate,
  config, rng)``: a *one-pass* server (a function of sums over reports)
  returns an aggregate with ``update(reports, positions)`` and
  ``merge(other)`` (and ``shift_positions(offset)`` when its state depends
  on the positions); every fit then goes through it, ``fit_reports``
  streams with memory bounded by a chunk (and on Dask, per partition), and
  ``partial_fit`` exists;
- ``_server_passes(config)``, ``_first_pass_aggregate(config)``,
  ``_server_block_size(config)`` and ``_fit_server_blocks(source,
  aggregate, config, rng)``: a *multi-pass* server reads a re-readable
  stream several times in blocks of valid reports
  (:class:`_ValidReportBlocks`), with memory bounded by a chunk and a
  block (on Dask, the workers run its full passes:
  :class:`_DaskReportBlocks`); in-memory reports go through the same code.
  Servers with neither need every report at once (``_fit_server``);
  ``fit_reports`` still accepts a stream and gathers the valid reports.

``fit_reports`` trusts no report: before the server sees them, every report
is checked against the support of the published randomizer
(:meth:`~sklearn_ldp.randomizers.LocalRandomizer.validate_reports`: shape,
finiteness, lattice, range); the invalid ones are dropped, counted in
``n_reports_rejected_`` and named in an :class:`~sklearn_ldp.exceptions.InvalidReportWarning`.
"""

import warnings
from functools import partial
from numbers import Integral, Real
from types import SimpleNamespace

import numpy as np
from sklearn.base import _fit_context, clone
from sklearn.utils._param_validation import Interval
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from .aggregation._blocks import BlockSource, block_pieces
from .exceptions import InvalidReportWarning, LargeDeltaWarning
from .io import as_report_stream
from .io._stream import IterableReportStream, check_chunk
from .randomizers import (
    Reports,
    config_fingerprint,
    describe_config_mismatch,
    feature_map_seed,
)
from .randomizers._sampling import check_client_random_state
from .utils import check_server_random_state, clipping_diagnostics, public_seed


def warn_if_large_delta(delta, n, *, stacklevel=3):
    """Warn (:class:`~sklearn_ldp.exceptions.LargeDeltaWarning`) when ``delta >= 1 / n``.

    ``n`` is the number of users (LDP: each one's report may fail the
    epsilon bound with probability ``delta``) or of rows (central DP).

    Examples
    --------
    >>> import warnings
    >>> from sklearn_ldp._base import warn_if_large_delta
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_large_delta(1e-5, 10**6)
    >>> print(caught[0].message)
    delta = 1e-05 >= 1/n = 1e-06 (n = 1000000): ...
    """
    delta, n = float(delta), int(n)
    if n > 0 and delta > 0 and delta * n >= 1:
        warnings.warn(
            f"delta = {delta:g} >= 1/n = {1 / n:g} (n = {n}): the guarantee allows "
            f"about n * delta = {n * delta:.3g} records to be revealed outright; "
            "choose delta well below 1/n (for example 1/(10 n) or smaller).",
            LargeDeltaWarning,
            stacklevel=stacklevel,
        )


def refuse_fit_params(estimator, params):
    """Refuse keyword arguments of ``fit`` (``sample_weight`` with the reason).

    ``fit`` takes ``**params`` only to answer ``sample_weight`` clearly
    (scikit-learn's own checks treat an estimator whose ``fit`` names
    ``sample_weight`` as supporting it).
    """
    if not params:
        return
    name = type(estimator).__name__
    if "sample_weight" in params:
        raise TypeError(
            f"{name}.fit does not support sample_weight: every user sends one "
            "report, randomized with the same epsilon, and the server weighs "
            "all reports alike; a weight would change each user's influence, "
            "hence the privacy calibration. With public design weights, resample "
            "the users in proportion to them before fit."
        )
    raise TypeError(
        f"{name}.fit got unexpected keyword arguments {sorted(params)}; it takes "
        "X and y only."
    )


def _describe_rejections(n_rejected, n_received, reasons):
    why = ", ".join(f"{count} {reason}" for reason, count in sorted(reasons.items()))
    return (
        f"{n_rejected} of {n_received} reports rejected (no honest randomizer with "
        f"the published configuration can send them): {why}"
    )


class LDPEstimatorMixin:
    """``fit_reports`` and the simulation shared by non-interactive LDP estimators."""

    _ldp_parameter_constraints = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def make_randomizer(self, n_features, *, n_users=None, classes=None):
        """The users' randomizer: public configuration, fixed before anyone reports.

        Checks the label set (classifiers require it, the others refuse it),
        then builds the estimator's randomizer (``_make_randomizer``; the
        estimator's docstring says what its configuration depends on).

        Parameters
        ----------
        n_features : int
            Number of raw features (public schema).
        n_users : int or None, default=None
            Public population size; needed only by estimators whose public
            configuration depends on it (such as ``degree='auto'`` or
            ``n_components='auto'``), ignored by the others.
        classes : array-like or None, default=None
            Public label set: required by classifiers, refused by the others.

        Returns
        -------
        randomizer : LocalRandomizer
        """
        classes = self._check_classes(classes)
        return self._make_randomizer(n_features, n_users, classes)

    def _make_randomizer(self, n_features, n_users, classes):
        """The randomizer of ``make_randomizer``, with ``classes`` checked."""
        raise NotImplementedError  # pragma: no cover - abstract

    def _check_classes(self, classes):
        """The public label set ``make_randomizer`` passes on: none here."""
        self._refuse_classes(classes)

    def _refuse_classes(self, classes):
        if classes is not None:
            raise ValueError(
                f"{type(self).__name__} is not a classifier: make_randomizer takes "
                f"no classes, got {classes!r}."
            )

    def _declared_bounds(self):
        """The public bounds the users' randomizer clips the raw records to.

        Keyword arguments of :func:`~sklearn_ldp.utils.clipping_diagnostics`:
        by default ``data_norm`` (l2 bound on each row of ``X``) and, for a
        regressor, ``y_bound`` (bound on ``|y|``), when the estimator has
        them; estimators with other bounds (a box) override it.
        """
        bounds = {}
        data_norm = getattr(self, "data_norm", None)
        if data_norm is not None:
            bounds["data_norm"] = float(data_norm)
        y_bound = getattr(self, "y_bound", None)
        if y_bound is not None and not isinstance(self, LDPClassifierMixin):
            bounds["y_bound"] = float(y_bound)
        return bounds

    def _diagnose_clipping(self, X, y):
        """Count the records the declared bounds clip; warn when > 1% (``fit`` only).

        Sets ``clipped_fraction_`` (share of records changed by at least one
        bound) and ``clipping_`` (per bound: the bound, the share it clips,
        and the 99th percentile of what it bounds), and raises a
        :class:`~sklearn_ldp.exceptions.ClippingWarning` above 1%.
        """
        self.clipped_fraction_, self.clipping_ = clipping_diagnostics(
            X,
            y if isinstance(self, LDPRegressorMixin) else None,
            estimator=type(self).__name__,
            stacklevel=5,
            **self._declared_bounds(),
        )

    def _fit_simulated(self, X, y, classes):
        """Simulate every user's randomizer on the raw records, then fit the server.

        A one-pass server aggregates the simulated reports chunk by chunk
        (:meth:`~sklearn_ldp.randomizers.LocalRandomizer.randomize_chunks`:
        the reports of ``randomize``, the same words in the same order) and
        holds one chunk of reports at a time; the others receive them all.
        """
        randomizer = self.make_randomizer(
            X.shape[1], n_users=X.shape[0], classes=classes
        )
        # Simulated users run the published randomizer: nothing to reject.
        self.n_reports_rejected_ = 0
        config = randomizer.get_config()
        aggregate = self._server_aggregate(config)
        if aggregate is None:
            reports = randomizer.randomize(X, y, random_state=self.random_state)
            return self._fit_from_reports(reports)
        self.__dict__.pop("_partial_state", None)  # a new fit forgets partial_fit
        chunks = randomizer.randomize_chunks(X, y, random_state=self.random_state)
        # An aggregate that ignores the reports' stream positions says so.
        positions = getattr(aggregate, "needs_positions", True)
        for rows, reports in chunks:
            aggregate.update(
                reports, np.arange(rows.start, rows.stop) if positions else None
            )
        return self._fit_from_aggregate(aggregate, config, X.shape[0])

    def _has_one_pass_server(self):
        return type(self)._server_aggregate is not LDPEstimatorMixin._server_aggregate

    #: Whether ``partial_fit`` without an ``n_users`` parameter takes the
    #: first batch's size for the public population (False: it announces
    #: none, for estimators whose collection without one is the general one).
    _first_batch_is_the_population = True

    def _partial_fit_batch(self, X, y, classes):
        """Simulate a new batch of users, add its reports to the aggregate, refit.

        ``X`` (and ``y``) are validated by the caller (``reset`` on the first
        call only). The first call fixes the public configuration (the
        randomizer, with ``n_users`` from the estimator's ``n_users`` if it
        has one, else the first batch's size) and the client noise source;
        later batches use both (noise is never reused across batches), and
        the server is refitted on the aggregate of every batch so far.
        """
        first_call = not hasattr(self, "_partial_state")
        if first_call:
            n_users = getattr(self, "n_users", None) or (
                X.shape[0] if self._first_batch_is_the_population else None
            )
            randomizer = self.make_randomizer(
                X.shape[1], n_users=n_users, classes=classes
            )
            config = randomizer.get_config()
            aggregate = self._server_aggregate(config)
            passes = self._server_passes(config)
            if aggregate is None and passes is not None:
                raise ValueError(
                    f"partial_fit needs a one-pass server; {type(self).__name__} "
                    f"with {passes[1]} reads the reports up to {passes[0]} times, "
                    "so it cannot add a batch without keeping every earlier one: "
                    "use fit, or fit_reports of a re-readable report stream."
                )
            if aggregate is None:
                raise ValueError(
                    f"partial_fit needs a one-pass server; {type(self).__name__} "
                    "with these parameters needs every report at once: use fit."
                )
            self._partial_state = _PartialFitState(
                randomizer, check_client_random_state(self.random_state), aggregate
            )
        state = self._partial_state
        reports = state.randomizer.randomize(X, y, random_state=state.noise)
        state.aggregate.update(reports, state.n_seen + np.arange(len(reports)))
        state.n_seen += len(reports)
        self.n_reports_rejected_ = 0
        self.n_samples_seen_ = state.n_seen
        return self._fit_from_aggregate(state.aggregate, reports.config, state.n_seen)

    def _expected_randomizer(self, reports):
        """The randomizer this estimator publishes, for ``reports``."""
        config = reports.config
        return self.make_randomizer(
            config.get("n_features"),
            n_users=_announced_n_users(reports),
            classes=config.get("classes"),
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_reports(self, reports, *, verbose=False):
        """Fit the server on reports collected from users.

        The configuration the reports carry must be this estimator's. Then
        every report is checked against what an honest randomizer with that
        configuration can send (per-user shape, finite values, on the
        lattice, inside the support); the others are dropped before
        aggregation, counted in ``n_reports_rejected_`` and named, with the
        reasons, in an :class:`~sklearn_ldp.exceptions.InvalidReportWarning`.

        ``reports`` may be a report stream (an iterable of ``Reports`` with
        one configuration, such as :func:`sklearn_ldp.read_reports` of a
        Parquet dataset): each chunk is validated and aggregated, then
        dropped. A one-pass server (its estimator page says so) holds one
        chunk at a time and, with a stream of ``backend='dask'``, computes
        the per-partition statistics on the Dask cluster in use; a
        multi-pass server reads a re-readable stream (not a generator) as
        many times as its page says, holding one chunk and one block of
        reports at a time, and with ``backend='dask'`` its validating pass
        and its full passes (the gradient oracle's mean and second moment)
        run on the cluster, which returns per-partition sums, while the
        sequential mini-batches of ``solver='sigm'`` (each needs the
        previous iterate) read the partitions in this process; the other
        servers gather the valid reports of the stream in memory. The model
        equals the one fitted on the concatenated reports (up to the order
        of floating-point sums).

        Parameters
        ----------
        reports : Reports or report stream
            Made by ``self.make_randomizer(...)`` with the same public
            configuration; batches as a list of ``Reports``, a
            :class:`~sklearn_ldp.io.ReportStream`, or concatenated with
            ``Reports.concatenate``.
        verbose : bool, default=False
            Show the progress of a streamed fit (a tqdm bar where tqdm is
            installed, log lines otherwise).

        Returns
        -------
        self : object

        Raises
        ------
        ValueError
            If the configuration differs from this estimator's (in any chunk
            of a stream), or if no valid report remains (none received, or
            all rejected).
        """
        if isinstance(reports, Reports):
            expected = self._check_reports(reports)
            valid_reports, _ = self._valid_reports(expected, reports)
            self._forget_records(reports.n_features)
            return self._fit_from_reports(valid_reports)
        stream = as_report_stream(reports)
        expected = self._check_reports(_StreamHeader(stream))
        self._forget_records(stream.config.get("n_features"))
        aggregate = self._server_aggregate(stream.config)
        passes = self._server_passes(stream.config)
        if aggregate is None and passes is not None:
            if not stream.rereadable:
                n_passes, configuration = passes
                raise ValueError(
                    f"{type(self).__name__} with {configuration} reads the reports "
                    f"up to {n_passes} times, and this report stream wraps a "
                    "generator, which can be read once: pass "
                    "sklearn_ldp.read_reports(path) or a list of Reports."
                )
            self.__dict__.pop("_partial_state", None)
            blocks = (
                _DaskReportBlocks if stream.backend == "dask" else _ValidReportBlocks
            )
            source = blocks(stream, expected, verbose=verbose, desc=type(self).__name__)
            return self._fit_multipass(source, stream.config, validated=False)
        if aggregate is None:
            # This server needs all reports at once: validate chunk by chunk,
            # keep the valid ones.
            chunks, tally = [], _RejectionTally()
            for chunk in _chunks(stream, verbose, type(self).__name__):
                valid, kept, reasons = _valid_rows(expected, chunk)
                tally.add(len(chunk), kept, reasons)
                if len(kept):
                    chunks.append(valid)
            self.n_reports_rejected_ = tally.finish(stacklevel=4)
            return self._fit_from_reports(Reports.concatenate(chunks))
        aggregate, tally = self._aggregate_stream(stream, expected, aggregate, verbose)
        self.n_reports_rejected_ = tally.finish(stacklevel=4)
        self.__dict__.pop("_partial_state", None)  # a new fit forgets partial_fit
        return self._fit_from_aggregate(aggregate, stream.config, tally.n_valid)

    def _forget_records(self, n_features):
        self.n_features_in_ = n_features
        # The server never sees the records: no names, no clipping diagnostics.
        for name in ("feature_names_in_", "clipped_fraction_", "clipping_"):
            if hasattr(self, name):
                delattr(self, name)

    def _aggregate_stream(self, stream, expected, aggregate, verbose):
        """``aggregate`` (empty) filled with a stream's valid reports, and the tally."""
        config = stream.config
        if stream.backend == "dask":
            from .io._dask import aggregate_on_dask

            partitions = stream.partitions()
            # Workers need the parameters only: an unfitted clone keeps the
            # state of earlier fits (and the noise source of partial_fit)
            # off the wire.
            empty = partial(clone(self)._server_aggregate, config)
            results = aggregate_on_dask(
                partial(_aggregate_partition, empty, expected, config),
                list(enumerate(partitions)),
                verbose=verbose,
                desc=type(self).__name__,
            )
            aggregate, tally, _ = _merge_partitions(aggregate, results)
            return aggregate, tally
        tally = _RejectionTally()
        for chunk in _chunks(stream, verbose, type(self).__name__):
            _add_valid_rows(aggregate, tally, expected, chunk)
        return aggregate, tally

    def _server_aggregate(self, config):
        """Hook: an empty one-pass aggregate for reports of ``config``, or None.

        A one-pass server returns an object with ``update(reports,
        positions)`` (add the valid reports of one chunk; ``positions`` are
        their indices among the valid reports of the stream, for fold
        assignments that depend neither on how the stream is cut nor on the
        invalid reports dropped from it) and ``merge(other)`` (add another
        aggregate of disjoint reports; return the result), and implements
        ``_fit_server_aggregate(aggregate, config, rng)``. An aggregate whose
        state depends on the positions also has ``shift_positions(offset)``
        (as if its reports' positions were ``offset`` larger): a Dask
        partition numbers its valid reports from 0 and the driver shifts
        them. None (the
        default): the server needs every report at once
        (``_fit_server(reports, rng)``).
        """
        return None

    def _fit_server_aggregate(self, aggregate, config, rng):  # pragma: no cover
        raise NotImplementedError

    def _server_passes(self, config):
        """Hook: ``(passes, configuration)`` of a multi-pass server, else None.

        A multi-pass server (not one pass, not every report at once) reads
        a re-readable stream several times with memory bounded by a block
        of reports: ``passes`` bounds how many times, ``configuration``
        names the parameters that make it multi-pass (for the error a
        read-once stream gets). It implements ``_first_pass_aggregate(config)``
        (an aggregate filled by the validating first pass, or None),
        ``_server_block_size(config)`` (reports per block: fixed by the
        configuration, never by the stream, since the server's per-report
        draws are keyed by block) and ``_fit_server_blocks(source,
        aggregate, config, rng)``, ``source`` the valid reports in blocks
        (:class:`_ValidReportBlocks`, or :class:`_DaskReportBlocks` whose
        workers run the first pass and the passes of sums); in-memory
        reports go through the same code.
        """
        return None

    def _fit_multipass(self, source, config, *, validated):
        """The multi-pass server on ``source``: a first pass validates and counts."""
        source.block_size = self._server_block_size(config)
        # As for a one-pass server on Dask: the workers get an unfitted clone.
        aggregate, tally = source.first_pass(
            partial(clone(self)._first_pass_aggregate, config)
        )
        if validated:
            tally.finish(stacklevel=6)
        else:
            self.n_reports_rejected_ = tally.finish(stacklevel=6)
        self._set_privacy_attributes(config, tally.n_valid)
        self._fit_server_blocks(
            source, aggregate, config, check_server_random_state(self.random_state)
        )
        return self

    def _check_reports(self, reports):
        """Refuse reports made with another configuration; return the expected randomizer."""
        config = reports.config
        expected = self._expected_randomizer(reports)
        expected_config = expected.get_config()
        for key in getattr(expected, "public_random_keys", ()):
            expected_config[key] = config.get(key)
        if config_fingerprint(expected_config) != config_fingerprint(config):
            raise ValueError(
                "These reports were made with a randomizer configuration that "
                "differs from this estimator's: "
                + describe_config_mismatch(expected_config, config)
            )
        return expected

    def _valid_reports(self, randomizer, reports):
        """The reports ``randomizer`` could have sent, and their positions.

        Sets ``n_reports_rejected_`` and warns about the rejected ones.
        """
        tally = _RejectionTally()
        valid, kept, reasons = _valid_rows(randomizer, reports)
        tally.add(len(reports), kept, reasons)
        self.n_reports_rejected_ = tally.finish(stacklevel=5)
        return valid, kept

    def _fit_from_reports(self, reports):
        self.__dict__.pop("_partial_state", None)  # a new fit forgets partial_fit
        config = reports.config
        aggregate = self._server_aggregate(config)
        if aggregate is None and self._server_passes(config) is not None:
            # Valid reports in memory: the stream's code, one chunk; its
            # oracles keep their kernels from pass to pass.
            source = _ValidReportBlocks(
                IterableReportStream([reports]), None, in_memory=True
            )
            return self._fit_multipass(source, config, validated=True)
        if aggregate is None:
            self._set_privacy_attributes(config, len(reports))
            self._fit_server(reports, check_server_random_state(self.random_state))
            return self
        aggregate.update(reports, np.arange(len(reports)))
        return self._fit_from_aggregate(aggregate, config, len(reports))

    #: Whether ``_fit_server_aggregate`` draws from its ``rng`` (else None).
    _server_draws = True

    def _fit_from_aggregate(self, aggregate, config, n_reports):
        self._set_privacy_attributes(config, n_reports)
        rng = (
            check_server_random_state(self.random_state) if self._server_draws else None
        )
        self._fit_server_aggregate(aggregate, config, rng)
        return self

    def _set_privacy_attributes(self, config, n_reports):
        self.privacy_epsilon_ = float(config["epsilon"])
        self.privacy_delta_ = float(config["delta"])
        warn_if_large_delta(self.privacy_delta_, n_reports, stacklevel=6)

    def _fit_server(self, reports, rng):  # pragma: no cover - abstract
        raise NotImplementedError


class LDPRegressorMixin(LDPEstimatorMixin):
    """``fit(X, y)`` for LDP estimators with a numeric target."""

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, **params):
        """Simulate the local randomizers on ``(X, y)``, then fit the server.

        Equivalent to ``fit_reports(make_randomizer(n_features,
        n_users=len(X)).randomize(X, y, random_state))``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            One row per user.
        y : array-like of shape (n_samples,)
            Targets.
        **params : dict
            None accepted: ``sample_weight`` is refused with the reason
            (each user's report weighs the same).

        Returns
        -------
        self : object
        """
        refuse_fit_params(self, params)
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        self._diagnose_clipping(X, y)
        return self._fit_simulated(X, y, None)

    @available_if(LDPEstimatorMixin._has_one_pass_server)
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y):
        """Add a batch of simulated users to the one-pass server, then refit it.

        The first call fixes the public configuration (population-dependent
        choices use ``n_users`` if the estimator has it, else the first
        batch's size) and the client noise source; every call randomizes its
        batch with fresh noise and refits the server on the aggregate of all
        batches so far (the same model as ``fit_reports`` on their reports).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : object
        """
        first_call = not hasattr(self, "_partial_state")
        X, y = validate_data(
            self, X, y, dtype=np.float64, y_numeric=True, reset=first_call
        )
        return self._partial_fit_batch(X, y, None)


class LDPClassifierMixin(LDPEstimatorMixin):
    """``fit(X, y)`` for LDP classifiers; the label set is public configuration."""

    @available_if(LDPEstimatorMixin._has_one_pass_server)
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None):
        """Add a batch of simulated users to the one-pass server, then refit it.

        As ``LDPRegressorMixin.partial_fit``; ``classes`` (the public label
        set) is required on the first call (default after ``fit``: the
        fitted ``classes_``) and fixed afterwards.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like or None, default=None

        Returns
        -------
        self : object
        """
        first_call = not hasattr(self, "_partial_state")
        X, y = validate_data(self, X, y, dtype=np.float64, reset=first_call)
        check_classification_targets(y)
        if first_call:
            if classes is None and hasattr(self, "classes_"):
                # scikit-learn's convention: after fit, the fitted label set.
                classes = self.classes_
            classes = self._require_classes(classes)
        else:
            classes = self._partial_state.randomizer.get_config()["classes"]
        unknown = np.setdiff1d(np.unique(y), classes)
        if unknown.size:
            raise ValueError(
                f"y has labels {unknown.tolist()} outside the public classes "
                f"{np.asarray(classes).tolist()}."
            )
        return self._partial_fit_batch(X, y, classes if first_call else None)

    def _check_classes(self, classes):
        return self._require_classes(classes)

    def _require_classes(self, classes):
        if classes is None:
            raise ValueError(
                f"{type(self).__name__}.make_randomizer needs the public label set: "
                "pass classes=[...] (the users encode their label against it)."
            )
        classes = np.sort(np.asarray(classes))
        if classes.ndim != 1 or len(np.unique(classes)) != len(classes):
            raise ValueError(f"classes must be distinct labels, got {classes!r}.")
        if len(classes) < 2:
            raise ValueError(
                f"A classifier needs at least two classes, got {classes.tolist()}."
            )
        return classes

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, **params):
        """Simulate the local randomizers on ``(X, y)``, then fit the server.

        Equivalent to ``fit_reports(make_randomizer(n_features, n_users=len(X),
        classes=np.unique(y)).randomize(X, y, random_state))``. The set of
        class labels is taken from ``y`` and treated as public schema (like
        the number of features): it is part of the randomizer's public
        configuration.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            One row per user.
        y : array-like of shape (n_samples,)
            Labels.
        **params : dict
            None accepted: ``sample_weight`` is refused with the reason
            (each user's report weighs the same).

        Returns
        -------
        self : object
        """
        refuse_fit_params(self, params)
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        classes = np.unique(y)
        if classes.shape[0] < 2:
            raise ValueError(
                "The training data has one class (a single label); a classifier needs "
                f"at least two, got {classes.tolist()}."
            )
        self._diagnose_clipping(X, y)
        return self._fit_simulated(X, y, classes)

    def _set_privacy_attributes(self, config, n_reports):
        self.classes_ = np.asarray(config["classes"])
        super()._set_privacy_attributes(config, n_reports)


class LDPUnsupervisedMixin(LDPEstimatorMixin):
    """``fit(X, y=None)`` for LDP estimators of the distribution of ``X``."""

    #: dtype of the validated records (``"numeric"``: integers stay integers).
    _records_dtype = np.float64

    @available_if(LDPEstimatorMixin._has_one_pass_server)
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Add a batch of simulated users to the one-pass server, then refit it.

        As ``LDPRegressorMixin.partial_fit``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Ignored

        Returns
        -------
        self : object
        """
        first_call = not hasattr(self, "_partial_state")
        X = validate_data(self, X, dtype=self._records_dtype, reset=first_call)
        self._check_records(X)
        return self._partial_fit_batch(X, None, None)

    def _check_records(self, X):
        """Hook: refuse records the randomizer cannot encode (e.g. non-binary)."""

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, **params):
        """Simulate the local randomizers on ``X``, then fit the server.

        Equivalent to ``fit_reports(make_randomizer(n_features,
        n_users=len(X)).randomize(X, random_state=random_state))``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            One record per user.
        y : Ignored
        **params : dict
            None accepted: ``sample_weight`` is refused with the reason
            (each user's report weighs the same).

        Returns
        -------
        self : object
        """
        refuse_fit_params(self, params)
        X = validate_data(self, X, dtype=self._records_dtype)
        self._check_records(X)
        self._diagnose_clipping(X, None)
        return self._fit_simulated(X, None, None)


def _validate_numeric_reports(randomizer, reports):
    """``randomizer.validate_reports``, after refusing fields that are not numbers.

    Every honest field holds booleans, integers or floats; a batch with a
    field of strings, complex numbers or objects is rejected whole.
    """
    for name, values in reports.fields.items():
        if values.dtype.kind not in "biuf":
            reason = f"field {name!r} has dtype {values.dtype.str}, not a number"
            return np.zeros(len(reports), dtype=bool), {reason: len(reports)}
    return randomizer.validate_reports(reports)


def _announced_n_users(reports):
    """``n_users`` of the configuration, else the number of reports (None if unknown)."""
    n_users = reports.config.get("n_users")
    if n_users is None:
        try:
            n_users = len(reports)
        except TypeError:  # a generator, or a configuration alone
            n_users = None
    return n_users


class _PartialFitState:
    """The simulated users' randomizer, noise source and aggregate across ``partial_fit`` calls."""

    def __init__(self, randomizer, noise, aggregate):
        self.randomizer, self.noise, self.aggregate = randomizer, noise, aggregate
        self.n_seen = 0


def _valid_rows(randomizer, reports):
    """``(valid_reports, kept, reasons)``: the rows ``randomizer`` could have sent.

    ``kept`` are their indices in ``reports``; ``reasons`` counts the
    rejected rows by reason (tallied with :class:`_RejectionTally`).
    """
    n = len(reports)
    if n == 0:
        return reports, np.arange(0), {}
    valid, reasons = _validate_numeric_reports(randomizer, reports)
    kept = np.flatnonzero(valid)
    if len(kept) == n:
        return reports, np.arange(n), {}
    subset = reports.subset(kept)
    if not len(kept):  # nothing to restore; the tally refuses the batch
        return subset, kept, reasons
    return _restore_integer_fields(subset, randomizer.report_support()), kept, reasons


class _RejectionTally:
    """Counts received, kept and rejected reports (and why) over the chunks of a fit."""

    def __init__(self):
        self.n_received, self.n_valid, self.reasons = 0, 0, {}

    def add(self, n_received, kept, reasons):
        self.n_received += int(n_received)
        self.n_valid += len(kept)
        for reason, count in reasons.items():
            self.reasons[reason] = self.reasons.get(reason, 0) + int(count)

    def merge(self, other):
        self.n_received += other.n_received
        self.n_valid += other.n_valid
        for reason, count in other.reasons.items():
            self.reasons[reason] = self.reasons.get(reason, 0) + count
        return self

    def finish(self, *, stacklevel):
        """Raise if nothing remains, warn about the rejected; the number rejected."""
        if self.n_received == 0:
            raise ValueError("No reports: the server needs at least one user's report.")
        n_rejected = self.n_received - self.n_valid
        message = _describe_rejections(n_rejected, self.n_received, self.reasons)
        if self.n_valid == 0:
            raise ValueError(f"No valid report remains: {message}.")
        if n_rejected:
            warnings.warn(
                f"{message}; fitting on the {self.n_valid} others.",
                InvalidReportWarning,
                stacklevel=stacklevel,
            )
        return n_rejected


class _StreamHeader:
    """What configuration checks read of a stream: its config and its length."""

    def __init__(self, stream):
        self.config = stream.config
        self._stream = stream

    @property
    def n_features(self):
        return self.config.get("n_features")

    def __len__(self):
        # A TypeError for a generator: the number of reports is unknown.
        return len(self._stream)


def _chunks(stream, verbose, desc):
    """The chunks of a stream, with progress when ``verbose``."""
    from .io._progress import progress

    try:
        total = len(stream)
    except TypeError:
        total = None
    with progress(total=total, desc=desc, verbose=verbose) as bar:
        for chunk in stream:
            yield chunk
            bar.update(len(chunk))


class _ValidReportBlocks(BlockSource):
    """The valid reports of a re-readable stream, in blocks of ``block_size`` positions.

    The block source of :mod:`sklearn_ldp.aggregation._blocks`. Every pass
    reads the stream again in this process, validates each chunk and drops
    the invalid reports (:func:`_valid_rows`; ``expected=None``: reports
    already validated); the valid ones are re-cut into blocks of
    ``block_size`` consecutive positions (``block_size`` is fixed by the
    server, not by the stream), so a block's content, hence every draw
    keyed by it, does not depend on how the stream is cut. Memory: one
    chunk and one block (``in_memory``: reports the caller holds anyway,
    whose oracles then keep their kernels between passes).
    :meth:`first_pass` counts and tallies. A Dask
    stream's source is :class:`_DaskReportBlocks`.
    """

    def __init__(self, stream, expected, *, verbose=False, desc="fit", in_memory=False):
        self.stream, self.expected = stream, expected
        self.verbose, self.desc = verbose, desc
        self.in_memory = in_memory
        self.block_size = None
        self.n = None
        self.n_passes = 0

    def first_pass(self, empty_aggregate):
        """Validate and count: the valid reports' aggregate, and the tally.

        ``empty_aggregate()`` gives the aggregate to fill (None: count only).
        """
        self.n_passes += 1
        aggregate, tally = empty_aggregate(), _RejectionTally()
        for chunk in _chunks(self.stream, self.verbose, self.desc):
            if self.expected is not None:
                _add_valid_rows(aggregate, tally, self.expected, chunk)
                continue
            start = tally.n_valid
            tally.add(len(chunk), np.arange(len(chunk)), {})
            if aggregate is not None and len(chunk):
                aggregate.update(chunk, start + np.arange(len(chunk)))
        self.n = tally.n_valid
        return aggregate, tally

    def _valid_chunks(self):
        for chunk in self.stream:
            if self.expected is None:
                yield chunk
                continue
            valid, kept, _ = _valid_rows(self.expected, chunk)
            if len(kept):
                yield valid

    def blocks(self):
        """One pass: ``(k, reports at positions [k B, (k + 1) B))``."""
        self.n_passes += 1
        size = self.block_size
        pieces, n_pieces, block = [], 0, 0
        for chunk in self._valid_chunks():
            start = 0
            while start < len(chunk):
                take = min(len(chunk) - start, size - n_pieces)
                whole = start == 0 and take == len(chunk)
                pieces.append(
                    chunk if whole else chunk.subset(slice(start, start + take))
                )
                n_pieces += take
                start += take
                if n_pieces == size:
                    yield block, _joined(pieces)
                    pieces, n_pieces, block = [], 0, block + 1
        if n_pieces:
            yield block, _joined(pieces)


def _joined(pieces):
    return pieces[0] if len(pieces) == 1 else Reports.concatenate(pieces)


class _DaskReportBlocks(_ValidReportBlocks):
    """The valid reports of a Dask stream; the workers run the passes of sums.

    :meth:`first_pass` validates, tallies and aggregates each partition on
    a worker (:func:`_aggregate_partition`, as a one-pass server does);
    the numbers of valid reports give each partition the position of its
    first one. Every pass of :meth:`pass_sums` (the oracle's mean and
    second moment) sends its task to the workers: each loads and validates
    its partition again and returns the task's sums over the pieces of the
    blocks its valid reports fall in (:func:`_partition_sums`); the driver
    adds them in stream order. :meth:`blocks` (SIGM's mini-batches: each
    needs the iterate of the one before) reads the partitions in this
    process, one after the other. With ``verbose``, each pass shows its
    partitions' progress.
    """

    def first_pass(self, empty_aggregate):
        from .io._dask import aggregate_on_dask

        self.n_passes += 1
        config = self.stream.config
        self._partitions = list(self.stream.partitions())
        results = aggregate_on_dask(
            partial(_aggregate_partition, empty_aggregate, self.expected, config),
            list(enumerate(self._partitions)),
            verbose=self.verbose,
            desc=self.desc,
        )
        aggregate, tally, self._n_valid = _merge_partitions(empty_aggregate(), results)
        self.n = tally.n_valid
        return aggregate, tally

    def pass_sums(self, task):
        from .io._dask import aggregate_on_dask

        self.n_passes += 1
        starts = np.cumsum([0, *self._n_valid[:-1]])
        numbered = [
            (index, part, int(start), n_valid)
            for index, (part, start, n_valid) in enumerate(
                zip(self._partitions, starts, self._n_valid, strict=True)
            )
            if n_valid
        ]
        results = aggregate_on_dask(
            partial(
                _partition_sums,
                task,
                self.expected,
                self.stream.config,
                self.block_size,
            ),
            numbered,
            verbose=self.verbose,
            desc=f"{self.desc} pass {self.n_passes}",
        )
        # In stream order, so the sums do not depend on which worker ends first.
        in_order = [sums for _, sums in sorted(results, key=lambda r: r[0])]
        return tuple(sum(parts) for parts in zip(*in_order, strict=True))


def _aggregate_partition(empty_aggregate, expected, config, numbered_part):
    """One partition's aggregate and rejection tally (runs on a Dask worker).

    ``empty_aggregate()`` gives the aggregate to fill (None: count only).
    Its valid reports are numbered from 0; the driver shifts them to their
    positions among all valid reports (:func:`_merge_partitions`).
    """
    index, part = numbered_part
    chunk = part.load()
    check_chunk(chunk, config_fingerprint(config), config)
    aggregate, tally = empty_aggregate(), _RejectionTally()
    _add_valid_rows(aggregate, tally, expected, chunk)
    return index, aggregate, tally


def _merge_partitions(aggregate, results):
    """``(aggregate, tally, valid reports per partition)`` of the partitions' results.

    In stream order, each partition's aggregate is shifted to the positions
    of its valid reports among all valid reports (each numbered them from
    0), then added to ``aggregate`` (None: counted only).
    """
    tally, n_valid = _RejectionTally(), []
    for _, part_aggregate, part_tally in sorted(results, key=lambda r: r[0]):
        if part_aggregate is not None:
            if tally.n_valid and hasattr(part_aggregate, "shift_positions"):
                part_aggregate.shift_positions(tally.n_valid)
            aggregate = aggregate.merge(part_aggregate)
        tally.merge(part_tally)
        n_valid.append(part_tally.n_valid)
    return aggregate, tally, n_valid


def _partition_sums(task, expected, config, block_size, numbered_part):
    """One partition's share of a pass of sums (runs on a Dask worker).

    ``task`` (an :class:`~sklearn_ldp.aggregation._blocks.OracleSums`) of
    the pieces of the blocks that the partition's valid reports, at
    positions ``start, start + 1, ...``, fall in.
    """
    index, part, start, n_valid = numbered_part
    chunk = part.load()
    check_chunk(chunk, config_fingerprint(config), config)
    valid, kept, _ = _valid_rows(expected, chunk)
    if len(kept) != n_valid:
        raise ValueError(
            f"A partition of the report stream changed between passes: it had "
            f"{n_valid} valid reports at the first pass, {len(kept)} now."
        )
    return index, task(block_pieces(valid, start, block_size))


def _add_valid_rows(aggregate, tally, expected, chunk):
    """Validate ``chunk``; add its valid reports at the next valid positions.

    ``aggregate=None``: validate and count only.
    """
    valid, kept, reasons = _valid_rows(expected, chunk)
    start = tally.n_valid
    tally.add(len(chunk), kept, reasons)
    if len(kept) and aggregate is not None:
        aggregate.update(valid, start + np.arange(len(kept)))


def _restore_integer_fields(reports, support):
    """Give integer fields back the integer dtype an invalid row took from them.

    Joining an honest batch of integer reports (indices, group numbers, bits)
    with a batch holding a NaN upcasts the field to float, and the server
    indexes with it. Once the rows are validated an integer-lattice field
    (step 1, integer bounds) holds exact integers, and gets ``int64`` back.
    """
    fields = dict(reports.fields)
    for name, field in support.items():
        values = fields[name]
        integral = (
            np.all(field.step == 1.0)
            and np.array_equal(field.low, np.floor(field.low))
            and np.array_equal(field.high, np.floor(field.high))
        )
        if integral and values.dtype.kind == "f":
            fields[name] = values.astype(np.int64)
    return Reports(fields, reports.config)


class AnnouncedDegreeMixin:
    """``make_randomizer`` of an estimator whose public degree may be ``'auto'``.

    ``degree='auto'`` is resolved from the public population size before the
    users reply and announced in the reports; the server reads it back
    (:func:`announced_degree`). The estimator implements
    ``_auto_degree(n_features, n_users)`` and
    ``_build_randomizer(n_features, *, degree)`` (``degree=None``:
    ``self.degree``), and names what the degree chooses in
    ``_auto_degree_chooses`` (for the error message).
    """

    _auto_degree_chooses = "the degree"

    def _make_randomizer(self, n_features, n_users, classes):
        degree = None
        if self.degree == "auto":
            if n_users is None:
                raise ValueError(
                    f"degree='auto' chooses {self._auto_degree_chooses} from the "
                    "number of users: pass make_randomizer(n_features, n_users=...), "
                    "or set an integer degree."
                )
            degree = self._auto_degree(int(n_features), int(n_users))
        return self._build_randomizer(n_features, degree=degree)

    def _expected_randomizer(self, reports):
        # degree='auto' was resolved and announced before the users replied.
        config = reports.config
        return self._build_randomizer(
            config.get("n_features"), degree=announced_degree(self, config)
        )


class PublicFeatureMapMixin:
    """``make_randomizer`` of an estimator whose users apply a seeded public feature map.

    The map's public seed comes from an integer ``random_state`` (tagged
    ``_feature_seed_tag``, apart from the users' noise); the server reads the
    seed announced in the reports (a fresh one when ``random_state`` is
    None). The estimator implements ``_build_randomizer(n_features, n_users,
    seed)``.
    """

    def _make_randomizer(self, n_features, n_users, classes):
        seed = public_seed(self.random_state, self._feature_seed_tag)
        return self._build_randomizer(n_features, n_users, seed)

    def _expected_randomizer(self, reports):
        # The public seed is the one announced in the reports; the rest must
        # match this estimator.
        config = reports.config
        seed = feature_map_seed(config)
        if seed is None:
            seed = public_seed(self.random_state, self._feature_seed_tag)
        return self._build_randomizer(
            config.get("n_features"), self._announced_population(reports), seed
        )

    def _announced_population(self, reports):
        """The population size the configuration of ``reports`` was built for.

        The planned population announced in the configuration (it sized
        choices such as ``n_components='auto'``), never the number of
        reports received, which anyone can change by sending more and which
        validation lowers; without one, the number of reports if known (None
        for a generator, or a configuration alone).
        """
        return _announced_n_users(reports)

    def _randomizer_from_config(self, config):
        """The users' randomizer of reports with this public ``config``."""
        return self._expected_randomizer(SimpleNamespace(config=config))


def announced_degree(estimator, config):
    """The degree users were told, for an estimator with ``degree='auto'``.

    ``'auto'`` is resolved from the population size before the users reply,
    so the server must take it from the reports, not recompute it.
    """
    if estimator.degree != "auto":
        return None
    degree = config.get("degree")
    if not isinstance(degree, Integral) or isinstance(degree, bool):
        raise ValueError(f"These reports carry no valid degree: {degree!r}.")
    return degree


def ldp_tags(tags, *, poor_score=True):
    """Tags shared by LDP estimators (noisy by design at default epsilon)."""
    tags.regressor_tags = getattr(tags, "regressor_tags", None)
    if tags.regressor_tags is not None:
        tags.regressor_tags.poor_score = poor_score
    if getattr(tags, "classifier_tags", None) is not None:
        tags.classifier_tags.poor_score = poor_score
    return tags


__all__ = [
    "AnnouncedDegreeMixin",
    "LDPClassifierMixin",
    "LDPEstimatorMixin",
    "LDPRegressorMixin",
    "LDPUnsupervisedMixin",
    "PublicFeatureMapMixin",
    "announced_degree",
    "ldp_tags",
    "refuse_fit_params",
    "warn_if_large_delta",
]
