"""Sequence datasets: the time-domain Maxwell generator (``maxwell-td``) with its source
signals, and the LEM paper's benchmarks (``fitzhugh-nagumo``, ``adding``)."""
